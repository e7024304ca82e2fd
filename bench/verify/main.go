//go:build linux

// Command verify benchmarks dshlog verify as a CI gate over session trees
// it generates into a temporary directory (removed afterwards): a store of
// -small small sessions (a corpus session copied into a directory each, as
// dsh's store lays them out) and a tree of large sessions of about -large
// MB in all (the same session's turns repeated by internal/gen into files
// of -file MB). It runs dshlog verify -j 1 and -j N over each tree -runs
// times and reports, from the medians, files/s and MB/s (wall time), the
// CPU time (user+sys) and the peak RSS, and the per-file overhead: the CPU
// time a small file costs beyond its bytes at the large tree's CPU rate.
//
// It runs on Linux only: peak RSS comes from getrusage, whose unit is
// kilobytes there.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/dshlog/dshlog/bench/internal/measure"
	"github.com/dshlog/dshlog/internal/gen"
)

func main() {
	dshlog := flag.String("dshlog", "bin/dshlog", "the dshlog binary to measure")
	dir := flag.String("dir", "", "where the trees are generated (default: a new temporary directory, removed afterwards)")
	template := flag.String("template", "testdata/corpus/restored/fs-write/session.v4.jsonl", "the session copied and repeated")
	small := flag.Int("small", 10000, "small session files")
	large := flag.Int64("large", 1024, "size of the large tree in MB")
	file := flag.Int64("file", 64, "size of each large session in MB")
	runs := flag.Int("runs", 3, "runs of each measurement; the medians count")
	jobs := flag.Int("j", runtime.NumCPU(), "the parallel run's -j")
	flag.Parse()
	if err := run(*dshlog, *dir, *template, *small, *large<<20, *file<<20, *runs, *jobs); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(dshlog, dir, template string, small int, large, file int64, runs, jobs int) error {
	if dir == "" {
		tmp, err := os.MkdirTemp("", "dshlog-bench-verify-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	smallTree, largeTree := filepath.Join(dir, "small"), filepath.Join(dir, "large")
	smallBytes, err := writeSmall(template, smallTree, small)
	if err != nil {
		return err
	}
	largeFiles, largeBytes, err := gen.LargeStore(template, largeTree, large, file)
	if err != nil {
		return err
	}
	fmt.Printf("small tree: %d sessions, %.1f MB (%s copied)\n", small, measure.MB(smallBytes), filepath.Base(filepath.Dir(template)))
	fmt.Printf("large tree: %d sessions, %.1f MB (its turns repeated)\n", largeFiles, measure.MB(largeBytes))
	fmt.Printf("machine: %d CPUs; figures are medians of %d runs\n", runtime.NumCPU(), runs)

	var cpuPerByte float64 // of the large tree at -j 1
	for _, tree := range []struct {
		name  string
		path  string
		files int
		bytes int64
	}{{"large", largeTree, largeFiles, largeBytes}, {"small", smallTree, small, smallBytes}} {
		for _, j := range []int{1, jobs} {
			var ms measure.Runs
			for range runs {
				if err := ms.Command(nil, dshlog, "verify", "-j", strconv.Itoa(j), tree.path); err != nil {
					return err
				}
			}
			wall, cpu, rss := ms.Median(measure.Wall), ms.Median(measure.CPU), ms.PeakRSS()
			fmt.Printf("%s tree, -j %d: %.1f files/s, %.1f MB/s, wall %v, cpu %v, peak RSS %.0f MB\n",
				tree.name, j, float64(tree.files)/wall.Seconds(), measure.MB(tree.bytes)/wall.Seconds(),
				wall.Round(time.Millisecond), cpu.Round(time.Millisecond), measure.MB(rss))
			switch {
			case tree.name == "large" && j == 1:
				cpuPerByte = cpu.Seconds() / float64(tree.bytes)
			case tree.name == "small" && j == 1:
				perFile := cpu.Seconds() / float64(tree.files)
				overhead := perFile - cpuPerByte*float64(tree.bytes)/float64(tree.files)
				fmt.Printf("per small file: %.3f ms of CPU, of which %.3f ms overhead beyond its %.1f KB at the large tree's rate\n",
					perFile*1e3, overhead*1e3, float64(tree.bytes)/float64(tree.files)/1024)
			}
		}
	}
	return nil
}

// writeSmall copies the template into n session directories laid out as a
// dsh store: <root>/--project-<k>--/<id>/session.v4.jsonl.
func writeSmall(template, root string, n int) (int64, error) {
	data, err := os.ReadFile(template)
	if err != nil {
		return 0, err
	}
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("--project-%d--", i%100), fmt.Sprintf("session-%05d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return 0, err
		}
		if err := os.WriteFile(filepath.Join(dir, "session.v4.jsonl"), data, 0o644); err != nil {
			return 0, err
		}
	}
	return int64(len(data)) * int64(n), nil
}
