//go:build linux

// Command search benchmarks dshlog search -F against grep -rlF on a store
// it generates into a temporary directory (removed afterwards): sessions
// of -file MB (a corpus session's turns repeated by internal/gen) until
// the tree holds about -size MB, plus one copy of a second, small session
// that alone holds the rare phrase. It reads every file once so both tools
// find the tree in the page cache, then runs each command -runs times and
// reports the median wall time, CPU time (user+sys) and peak RSS, and the
// ratio of dshlog's wall time to grep's: for a phrase no file holds (each
// tool reads every byte) and for the rare phrase (one small file holds it).
//
// It runs on Linux only: peak RSS comes from getrusage, whose unit is
// kilobytes there.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/dshlog/dshlog/bench/internal/measure"
	"github.com/dshlog/dshlog/internal/gen"
)

func main() {
	dshlog := flag.String("dshlog", "bin/dshlog", "the dshlog binary to measure")
	grep := flag.String("grep", "grep", "the grep to compare with")
	dir := flag.String("dir", "", "where the store is generated (default: a new temporary directory, removed afterwards)")
	template := flag.String("template", "testdata/corpus/restored/fs-write/session.v4.jsonl", "the session repeated into the large files")
	rare := flag.String("rare", "testdata/corpus/restored/ralph-loop/session.v4.jsonl", "the small session copied once, which holds -phrase")
	phrase := flag.String("phrase", "fresh-agent Ralph", "the rare phrase: in -rare, not in -template")
	absent := flag.String("absent", "qzxv-nowhere-jkw", "a phrase no file holds")
	size := flag.Int64("size", 1024, "size of the store in MB")
	file := flag.Int64("file", 64, "size of each large session in MB")
	runs := flag.Int("runs", 5, "runs of each command; the medians count")
	flag.Parse()
	if err := run(*dshlog, *grep, *dir, *template, *rare, *phrase, *absent, *size<<20, *file<<20, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(dshlog, grep, dir, template, rare, phrase, absent string, size, file int64, runs int) error {
	if dir == "" {
		tmp, err := os.MkdirTemp("", "dshlog-bench-search-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	files, total, err := writeStore(template, rare, dir, size, file)
	if err != nil {
		return err
	}
	if err := warm(dir); err != nil {
		return err
	}
	if err := checkFound(dshlog, phrase, dir, filepath.Join(dir, "--project--", "rare", "session.v4.jsonl")); err != nil {
		return err
	}
	fmt.Printf("store: %d sessions, %.1f MB (%s repeated, one %s)\n", files, measure.MB(total), filepath.Base(filepath.Dir(template)), filepath.Base(filepath.Dir(rare)))
	fmt.Printf("machine: %d CPUs; dshlog search -j %d; figures are medians of %d runs, page cache warm\n", runtime.NumCPU(), runtime.NumCPU(), runs)
	for _, p := range []struct{ name, text string }{{"absent phrase", absent}, {"rare phrase", phrase}} {
		var base time.Duration
		for _, c := range []struct {
			name string
			cmd  []string
		}{
			{"grep -rlF", []string{grep, "-rlF", p.text, dir}},
			{"dshlog search -F -l", []string{dshlog, "search", "-F", "-l", p.text, dir}},
			{"dshlog search -F", []string{dshlog, "search", "-F", p.text, dir}},
		} {
			var ms measure.Runs
			for range runs {
				if err := ms.Command([]int{1}, c.cmd[0], c.cmd[1:]...); err != nil {
					return err
				}
			}
			wall, cpu, rss := ms.Median(measure.Wall), ms.Median(measure.CPU), ms.PeakRSS()
			ratio := ""
			if base == 0 {
				base = wall
			} else {
				ratio = fmt.Sprintf(", %.2f× grep's wall time", wall.Seconds()/base.Seconds())
			}
			fmt.Printf("%s %q: %s: wall %v (%.0f MB/s), cpu %v, peak RSS %.0f MB%s\n", p.name, p.text, c.name,
				wall.Round(time.Millisecond), measure.MB(total)/wall.Seconds(), cpu.Round(time.Millisecond), measure.MB(rss), ratio)
		}
	}
	return nil
}

// writeStore lays out a dsh store: large generated sessions until it holds
// about size bytes, and one copy of the rare session.
func writeStore(template, rare, root string, size, file int64) (int, int64, error) {
	files, total, err := gen.LargeStore(template, root, size, file)
	if err != nil {
		return 0, 0, err
	}
	data, err := os.ReadFile(rare)
	if err != nil {
		return 0, 0, err
	}
	dir := filepath.Join(root, "--project--", "rare")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, 0, err
	}
	if err := os.WriteFile(filepath.Join(dir, "session.v4.jsonl"), data, 0o644); err != nil {
		return 0, 0, err
	}
	return files + 1, total + int64(len(data)), nil
}

// warm reads every file under root once, so that the first measured run
// does not pay for the disk.
func warm(root string) error {
	return filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(io.Discard, f)
		return err
	})
}

// checkFound checks that dshlog search -l lists exactly the file want.
func checkFound(dshlog, phrase, root, want string) error {
	out, err := exec.Command(dshlog, "search", "-F", "-l", phrase, root).Output()
	if err != nil {
		return fmt.Errorf("dshlog search -F -l %q: %v", phrase, err)
	}
	if got := string(bytes.TrimSpace(out)); got != want {
		return fmt.Errorf("dshlog search -F -l %q listed %q, want only %s", phrase, got, want)
	}
	return nil
}
