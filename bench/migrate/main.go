// Command migrate benchmarks dshlog migrate on a large generated v3
// session: it repeats a corpus session's turn into a file of about -size
// MB, runs dshlog migrate on it -runs times, and reports the median wall
// time (MB/s), the median CPU time (user+sys) and the peak RSS; with jq
// installed it runs jq -c . (an identity pass) as often, each run right
// after one of dshlog's so that both see the same load, and reports the
// ratio of the medians. The migrated output must re-encode to itself byte
// for byte.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/dshlog/dshlog/internal/gen"
)

func main() {
	dshlog := flag.String("dshlog", "bin/dshlog", "the dshlog binary to measure")
	dir := flag.String("dir", "bin/bench", "where the generated session and outputs go")
	size := flag.Int64("size", 100, "size of the generated session in MB")
	template := flag.String("template", "testdata/corpus/restored/fs-write/session.v3.jsonl", "the session whose turn is repeated")
	runs := flag.Int("runs", 5, "runs of each command; the medians count")
	flag.Parse()
	if err := run(*dshlog, *dir, *template, *size<<20, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(dshlog, dir, template string, size int64, runs int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	input := filepath.Join(dir, "session.v3.jsonl")
	bytesIn, err := generate(template, input, size)
	if err != nil {
		return err
	}
	fmt.Printf("input: %s, %.1f MB (%s repeated)\n", input, mb(bytesIn), filepath.Base(filepath.Dir(template)))

	output := filepath.Join(dir, "out.v4.jsonl")
	migrate := command{dshlog, "migrate", "-o", output, input}
	jqPath, jqErr := exec.LookPath("jq")
	var m, j measurements
	for i := 0; i < runs; i++ {
		if err := m.run(migrate); err != nil {
			return err
		}
		if jqErr == nil {
			if err := j.run(command{jqPath, "-c", ".", input}); err != nil {
				return err
			}
		}
	}
	report("dshlog migrate", bytesIn, m)
	sum, err := digest(output)
	if err != nil {
		return err
	}
	again := filepath.Join(dir, "again.v4.jsonl")
	var check measurements
	if err := check.run(command{dshlog, "migrate", "-o", again, output}); err != nil {
		return err
	}
	if sum2, err := digest(again); err != nil || sum2 != sum {
		return fmt.Errorf("the migrated output does not re-encode to itself (%v)", err)
	}
	fmt.Printf("  output sha256 %s, re-encodes byte for byte\n", sum)
	if jqErr != nil {
		fmt.Println("jq not installed: no ratio")
		return nil
	}
	report("jq -c .", bytesIn, j)
	fmt.Printf("ratio: dshlog migrate is %.1f× faster than jq -c . (median wall times)\n", j.median(wallOf).Seconds()/m.median(wallOf).Seconds())
	return nil
}

// generate writes the benchmark session unless a file of that size from
// the same template is there already.
func generate(template, path string, size int64) (int64, error) {
	if info, err := os.Stat(path); err == nil && info.Size() >= size && info.Size() < size+size/100 {
		return info.Size(), nil
	}
	return gen.WriteFile(template, path, size)
}

// command is a program and its arguments.
type command []string

// measurement is what one run of a command took.
type measurement struct {
	wall, cpu time.Duration // cpu is user + system time
	rss       int64         // peak resident set, bytes
}

// measurements are the runs of one command.
type measurements []measurement

// run runs c once, its output discarded, and records what it took.
func (ms *measurements) run(c command) error {
	cmd := exec.Command(c[0], c[1:]...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v\n%s", strings.Join(c, " "), err, stderr.Bytes())
	}
	wall := time.Since(start)
	state := cmd.ProcessState
	rss := state.SysUsage().(*syscall.Rusage).Maxrss << 10
	*ms = append(*ms, measurement{wall: wall, cpu: state.UserTime() + state.SystemTime(), rss: rss})
	return nil
}

func wallOf(m measurement) time.Duration { return m.wall }
func cpuOf(m measurement) time.Duration  { return m.cpu }

// median returns the median of one figure over the runs.
func (ms measurements) median(of func(measurement) time.Duration) time.Duration {
	d := make([]time.Duration, len(ms))
	for i, m := range ms {
		d[i] = of(m)
	}
	slices.Sort(d)
	return d[len(d)/2]
}

func (ms measurements) peakRSS() int64 {
	var peak int64
	for _, m := range ms {
		peak = max(peak, m.rss)
	}
	return peak
}

func report(what string, input int64, ms measurements) {
	wall := ms.median(wallOf)
	fmt.Printf("%-15s %7.3f s  %7.1f MB/s  CPU %6.3f s  peak RSS %6.1f MiB  (medians of %d runs)\n",
		what, wall.Seconds(), mb(input)/wall.Seconds(), ms.median(cpuOf).Seconds(), float64(ms.peakRSS())/(1<<20), len(ms))
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }

func digest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
