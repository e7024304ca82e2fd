// Command migrate benchmarks dshlog migrate on a large generated v3
// session: it repeats a corpus session's turn into a file of about -size
// MB, times dshlog migrate on it (best of -runs), reports MB/s and peak RSS,
// and does the same for jq -c . (an identity pass) when jq is installed.
// The migrated output must re-encode to itself byte for byte.
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
	"syscall"
	"time"

	"github.com/dshlog/dshlog/internal/gen"
)

func main() {
	dshlog := flag.String("dshlog", "bin/dshlog", "the dshlog binary to measure")
	dir := flag.String("dir", "bin/bench", "where the generated session and outputs go")
	size := flag.Int64("size", 100, "size of the generated session in MB")
	template := flag.String("template", "testdata/corpus/restored/fs-write/session.v3.jsonl", "the session whose turn is repeated")
	runs := flag.Int("runs", 3, "runs of each command; the fastest counts")
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
	m, err := measure(runs, dshlog, "migrate", "-o", output, input)
	if err != nil {
		return err
	}
	report("dshlog migrate", bytesIn, m)
	sum, err := digest(output)
	if err != nil {
		return err
	}
	again := filepath.Join(dir, "again.v4.jsonl")
	if _, err := measure(1, dshlog, "migrate", "-o", again, output); err != nil {
		return err
	}
	if sum2, err := digest(again); err != nil || sum2 != sum {
		return fmt.Errorf("the migrated output does not re-encode to itself (%v)", err)
	}
	fmt.Printf("  output sha256 %s, re-encodes byte for byte\n", sum)

	jq, err := exec.LookPath("jq")
	if err != nil {
		fmt.Println("jq not installed: no ratio")
		return nil
	}
	j, err := measure(runs, jq, "-c", ".", input)
	if err != nil {
		return err
	}
	report("jq -c .", bytesIn, j)
	fmt.Printf("ratio: dshlog migrate is %.1f× faster than jq -c .\n", j.wall.Seconds()/m.wall.Seconds())
	return nil
}

// generate writes the benchmark session unless a file of that size from
// the same template is there already.
func generate(template, path string, size int64) (int64, error) {
	if info, err := os.Stat(path); err == nil && info.Size() >= size && info.Size() < size+size/100 {
		return info.Size(), nil
	}
	src, err := os.Open(template)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	tmpl, err := gen.Load(src)
	if err != nil {
		return 0, err
	}
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	n, err := tmpl.Write(f, size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// measurement is the fastest run of a command and the peak RSS seen.
type measurement struct {
	wall time.Duration
	rss  int64 // bytes
}

func measure(runs int, name string, args ...string) (measurement, error) {
	var best measurement
	for i := 0; i < runs; i++ {
		cmd := exec.Command(name, args...)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return best, fmt.Errorf("%s %v: %v\n%s", name, args, err, stderr.Bytes())
		}
		wall := time.Since(start)
		rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
		if i == 0 || wall < best.wall {
			best.wall = wall
		}
		best.rss = max(best.rss, rss)
	}
	return best, nil
}

func report(what string, input int64, m measurement) {
	fmt.Printf("%-15s %7.3f s  %7.1f MB/s  peak RSS %6.1f MiB\n", what, m.wall.Seconds(), mb(input)/m.wall.Seconds(), float64(m.rss)/(1<<20))
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
