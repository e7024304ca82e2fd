//go:build linux

// Command migrate benchmarks dshlog's verbs at scale and prints one table.
//
// It generates the three recipes of bench/gen/README.md (a v0 rows-heavy,
// a v0 string-heavy and a v3 session, with bench/gen/gen-session.py) at two
// sizes each, a fraction of the recipe's size and its full size, and runs
// on each file, -runs times:
//
//   - dshlog migrate on every recipe; the v3 recipe's output is the v4
//     file the other verbs read;
//   - dshlog verify, fold --surface and inspect --json on the v0 recipes
//     and on that v4 file;
//   - jq -c . on the same file once per round, right after dshlog's runs,
//     so that both see the same load.
//
// Each row gives the median wall and CPU (user + system) times, MB/s, the
// peak RSS and its budget (64 MiB for migrate; 64 MiB plus twice the live
// surface, the bytes of the last request fold --request prints, for the
// others), the ratio of jq's median wall time to dshlog's, and on the
// full-size row the growth exponent log(time ratio)/log(size ratio)
// between the two sizes, taken on CPU time. At full size the generated
// inputs and migrate's outputs must hash as dsh's do (the table in
// bench/gen/README.md). The last column names every target a row misses:
// migrate at least 10× faster than jq, the other verbs 6×, growth at most
// 1.07, RSS within budget.
//
// It runs on Linux only: peak RSS comes from getrusage, whose unit is
// kilobytes there.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

// recipe is one row of bench/gen/README.md: a template session repeated to
// a size, and the sha256 of the generated file and of dsh's migration of it
// at that size.
type recipe struct {
	name     string
	key      string // file name prefix
	template string // under -corpus
	mb       int    // full size, the generator's TARGET_MB
	pad      int    // the generator's --pad, or 0
	inputSum string
	dshSum   string // what dsh's migrator wrote for the full-size input
}

var recipes = []recipe{
	{"v0 rows-heavy", "v0-rows", "bash-tool-turn/session.jsonl", 120, 0,
		"7492a00c1942a34582191594e72d64c38795af3487899648dc66187f73b57248",
		"9947c8a08eda3a19233361e4da77d0be96e055fecf8c99d7312a00abbdd02601"},
	{"v0 string-heavy", "v0-strings", "bash-tool-turn/session.jsonl", 60, 40000,
		"6e627df52f190aba4986b8815f7696cc7f5e4ea74b2933587d9fd3cb984d2dde",
		"8d2dfe971e448f4bec487d9092b5052686328196430491d7b5383cfe099974c1"},
	{"v3", "v3", "fs-write/session.v3.jsonl", 100, 0,
		"b3073ee91d499074e4d06e6bfebc4de3026f0a2788504aa33fbdcfc79d09ca87",
		"f561e098210bd83798c1607a3f5dfba0fc0f4d2b611109329c91f14a39bb27da"},
}

// readVerbs are the verbs measured besides migrate; each reads the file
// and writes to stdout.
var readVerbs = [][]string{{"verify"}, {"fold", "--surface"}, {"inspect", "--json"}}

const (
	baseRSS      = 64 << 20
	migrateRatio = 10.0 // migrate: at least this many times faster than jq
	readRatio    = 6.0  // the other verbs
	maxGrowth    = 1.07 // 4× the input at most 4.4× the time
)

type config struct {
	dshlog, dir, corpus, generator string
	fraction                       float64
	runs                           int
}

func main() {
	var c config
	flag.StringVar(&c.dshlog, "dshlog", "bin/dshlog", "the dshlog binary to measure")
	flag.StringVar(&c.dir, "dir", "bin/bench", "where the generated sessions and outputs go (generated files are reused)")
	flag.StringVar(&c.corpus, "corpus", "testdata/corpus/restored", "the directory of the recipes' templates")
	flag.StringVar(&c.generator, "gen", "bench/gen/gen-session.py", "the session generator")
	flag.Float64Var(&c.fraction, "fraction", 0.25, "the smaller size, as a fraction of each recipe's size")
	flag.IntVar(&c.runs, "runs", 3, "runs of each command; the medians count")
	flag.Parse()
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// row is one line of the table: a verb on one input file.
type row struct {
	input   string // recipe or file kind
	size    int64
	verb    string
	dshlog  measurements
	jq      measurements
	budget  int64   // peak RSS allowed
	ratio   float64 // the jq ratio the verb must reach
	growth  float64 // NaN on the smaller size
	sumNote string  // sha256 check, at full size
}

func run(c config) error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	jq, err := exec.LookPath("jq")
	if err != nil {
		return errors.New("jq is not installed (apt-get install jq): it is the yardstick")
	}
	var rows []*row
	for _, r := range recipes {
		for _, full := range []bool{false, true} {
			got, err := c.bench(r, full, jq)
			if err != nil {
				return err
			}
			rows = append(rows, got...)
		}
	}
	setGrowth(rows)
	printTable(os.Stdout, rows, c.runs)
	return nil
}

// bench measures every verb on one recipe at one size.
func (c config) bench(r recipe, full bool, jq string) ([]*row, error) {
	mb := float64(r.mb)
	if !full {
		mb *= c.fraction
	}
	input, err := c.generate(r, mb)
	if err != nil {
		return nil, err
	}
	size, err := fileSize(input)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "bench: %s, %.1f MB\n", r.name, float64(size)/1e6)

	output := strings.TrimSuffix(input, ".jsonl") + ".v4.jsonl"
	migrate := &row{input: r.name, size: size, verb: "migrate", budget: baseRSS, ratio: migrateRatio}
	if err := c.measure(input, jq, []*row{migrate}, [][]string{{"migrate", "-o", output, input}}); err != nil {
		return nil, err
	}
	rows := []*row{migrate}
	if full {
		migrate.sumNote, err = checkSums(r, input, output)
		if err != nil {
			return nil, err
		}
	}

	// The v0 recipes are read as they are; the v3 recipe through its migration.
	target, label := input, r.name
	if !strings.HasPrefix(r.name, "v0") {
		target, label = output, "v4 (migrated v3)"
		if size, err = fileSize(target); err != nil {
			return nil, err
		}
	}
	surface, err := c.surfaceBytes(target)
	if err != nil {
		return nil, err
	}
	var reads []*row
	var cmds [][]string
	for _, verb := range readVerbs {
		reads = append(reads, &row{input: label, size: size, verb: strings.Join(verb, " "),
			budget: baseRSS + 2*surface, ratio: readRatio})
		cmds = append(cmds, append(slices.Clone(verb), target))
	}
	if err := c.measure(target, jq, reads, cmds); err != nil {
		return nil, err
	}
	rows = append(rows, reads...)
	for _, r := range rows {
		fmt.Fprintf(os.Stderr, "  %s %s: wall %.2f s, CPU %.2f s, peak RSS %.0f MiB; jq %.2f s\n",
			r.input, r.verb, r.dshlog.wall(), r.dshlog.cpu(), mib(r.dshlog.peakRSS()), r.jq.wall())
	}
	return rows, nil
}

// measure runs each command -runs times, then jq -c . on file, round by
// round; every row records the same jq runs.
func (c config) measure(file, jq string, rows []*row, cmds [][]string) error {
	var jqRuns measurements
	for range c.runs {
		for i, args := range cmds {
			if err := rows[i].dshlog.run(nil, append([]string{c.dshlog}, args...)...); err != nil {
				return err
			}
		}
		if err := jqRuns.run(nil, jq, "-c", ".", file); err != nil {
			return err
		}
	}
	for _, r := range rows {
		r.jq = jqRuns
	}
	return nil
}

// generate writes the recipe at mb megabytes into -dir unless it is there.
// The generator is deterministic, so a file of the same name is the same.
func (c config) generate(r recipe, mb float64) (string, error) {
	target := strconv.FormatFloat(mb, 'f', -1, 64)
	path := filepath.Join(c.dir, r.key+"-"+target+".jsonl")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	args := []string{c.generator, filepath.Join(c.corpus, r.template), path + ".tmp", target}
	if r.pad > 0 {
		args = append(args, "--pad", strconv.Itoa(r.pad))
	}
	cmd := exec.Command("python3", args...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("python3 %s: %v", strings.Join(args, " "), err)
	}
	return path, os.Rename(path+".tmp", path)
}

// checkSums compares the full-size input and migrate's output with the
// recipe's hashes.
func checkSums(r recipe, input, output string) (string, error) {
	in, err := digest(input)
	if err != nil {
		return "", err
	}
	if in != r.inputSum {
		return fmt.Sprintf("input sha256 %.12s… is not the recipe's %.12s…", in, r.inputSum), nil
	}
	out, err := digest(output)
	if err != nil {
		return "", err
	}
	if out != r.dshSum {
		return fmt.Sprintf("output sha256 %.12s… differs from dsh's %.12s…", out, r.dshSum), nil
	}
	return "output = dsh's", nil
}

// surfaceBytes is the size of the live surface of file, what the model is
// sent: the messages of its last request, as dshlog fold --request prints
// them (0 when the log has no request).
func (c config) surfaceBytes(file string) (int64, error) {
	var summary bytes.Buffer
	var ms measurements
	if err := ms.run(&summary, c.dshlog, "fold", file); err != nil {
		return 0, err
	}
	_, after, _ := bytes.Cut(summary.Bytes(), []byte("\nrequests: "))
	last, _, _ := bytes.Cut(after, []byte(","))
	if n, err := strconv.Atoi(string(last)); err != nil || n == 0 {
		return 0, err
	}
	var n countingWriter
	err := ms.run(&n, c.dshlog, "fold", "--request", string(last), file)
	return int64(n), err
}

type countingWriter int64

func (w *countingWriter) Write(p []byte) (int, error) {
	*w += countingWriter(len(p))
	return len(p), nil
}

// setGrowth sets the growth exponent of each full-size row from the row of
// the same input and verb at the smaller size. It compares CPU times, which
// another program's load on a shared machine disturbs far less than wall
// times.
func setGrowth(rows []*row) {
	for _, r := range rows {
		r.growth = math.NaN()
		for _, small := range rows {
			if small.input == r.input && small.verb == r.verb && small.size < r.size {
				t := r.dshlog.cpu() / small.dshlog.cpu()
				r.growth = math.Log(t) / math.Log(float64(r.size)/float64(small.size))
			}
		}
	}
}

func printTable(w io.Writer, rows []*row, runs int) {
	fmt.Fprintf(w, "\nmedians of %d interleaved runs; jq ratio = jq -c . wall / dshlog wall on the same file; growth = log(CPU time ratio)/log(size ratio)\n\n", runs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "input\tMB\tverb\twall s\tCPU s\tMB/s\tpeak RSS MiB\tbudget MiB\tjq s\tjq ratio\tgrowth\tsha256\tmisses\t")
	for _, r := range rows {
		wall := r.dshlog.wall()
		jq := r.jq.wall()
		growth, sum := "", r.sumNote
		if !math.IsNaN(r.growth) {
			growth = fmt.Sprintf("%.2f", r.growth)
		}
		if sum == "" {
			sum = "–"
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%s\t%.2f\t%.2f\t%.0f\t%.0f\t%.0f\t%.2f\t%.1f\t%s\t%s\t%s\t\n",
			r.input, float64(r.size)/1e6, r.verb, wall, r.dshlog.cpu(), float64(r.size)/1e6/wall,
			mib(r.dshlog.peakRSS()), mib(r.budget), jq, jq/wall, growth, sum, strings.Join(r.misses(), ", "))
	}
	tw.Flush()
}

// misses names the targets r does not meet.
func (r *row) misses() []string {
	var out []string
	if ratio := r.jq.wall() / r.dshlog.wall(); ratio < r.ratio {
		out = append(out, fmt.Sprintf("jq ratio < %g", r.ratio))
	}
	if r.dshlog.peakRSS() > r.budget {
		out = append(out, "RSS")
	}
	if r.growth > maxGrowth {
		out = append(out, fmt.Sprintf("growth > %g", maxGrowth))
	}
	if r.sumNote != "" && r.sumNote != "output = dsh's" {
		out = append(out, "sha256")
	}
	if out == nil {
		out = []string{"none"}
	}
	return out
}

// measurement is what one run of a command took.
type measurement struct {
	wall, cpu time.Duration // cpu is user + system time
	rss       int64         // peak resident set, bytes
}

// measurements are the runs of one command.
type measurements []measurement

// run runs a command once, its output written to stdout (discarded when
// nil), and records what it took.
func (ms *measurements) run(stdout io.Writer, args ...string) error {
	cmd := exec.Command(args[0], args[1:]...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if stdout != nil {
		cmd.Stdout = stdout
	}
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	wall := time.Since(start)
	state := cmd.ProcessState
	rss := state.SysUsage().(*syscall.Rusage).Maxrss << 10
	*ms = append(*ms, measurement{wall: wall, cpu: state.UserTime() + state.SystemTime(), rss: rss})
	return nil
}

// wall returns the median wall time of the runs, in seconds.
func (ms measurements) wall() float64 {
	return ms.median(func(m measurement) time.Duration { return m.wall })
}

// cpu returns the median CPU time of the runs, in seconds.
func (ms measurements) cpu() float64 {
	return ms.median(func(m measurement) time.Duration { return m.cpu })
}

func (ms measurements) median(of func(measurement) time.Duration) float64 {
	d := make([]time.Duration, len(ms))
	for i, m := range ms {
		d[i] = of(m)
	}
	slices.Sort(d)
	return d[len(d)/2].Seconds()
}

func (ms measurements) peakRSS() int64 {
	var peak int64
	for _, m := range ms {
		peak = max(peak, m.rss)
	}
	return peak
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

func fileSize(path string) (int64, error) {
	info, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return info.Size(), nil
}

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
