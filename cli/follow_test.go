package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/follow"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/stats"
)

// These tests run the dshlog command on a goroutine, following a copy of a
// real log that the test appends to line by line, as dsh writes it. The
// test waits for what each appended line must show before it appends the
// next, so every event, figure and finding is seen to appear as its line
// lands, not when the file is finished. Following ends on --idle.

// followIdle is the --idle of the tests: far longer than any pause between
// two appends of a test, which waits for the output instead of sleeping.
const followIdle = "2s"

// A v4 log followed by inspect: each event is printed as its line is
// appended, a line written in two parts is printed once, when whole, and
// every event is printed exactly once.
func TestInspectFollowPrintsEachEventOnce(t *testing.T) {
	t.Parallel()
	log := newGrowingLog(t, "../testdata/corpus/dsh/compaction-recovery/session.v4.jsonl", "session.v4.jsonl", 3)
	run := startFollow(t, "inspect", "--follow", "--idle", followIdle, log.path)
	for seq := 0; log.more(); seq++ {
		if seq < log.start-1 {
			run.waitFor(t, fmt.Sprintf("event %d", seq), eventRow(seq))
			continue
		}
		if seq == 10 { // a line dsh's write has not finished yet
			log.appendPart(t, true)
			time.Sleep(2 * follow.DefaultPoll) // the reader looks at the file in between
			if eventRow(seq)(run.out.String()) || strings.Contains(run.err.String(), "torn") {
				t.Fatalf("a line without its newline was read:\n%s%s", run.out.String(), run.err.String())
			}
			log.appendPart(t, false)
		} else {
			log.appendLine(t)
		}
		run.waitFor(t, fmt.Sprintf("event %d", seq), eventRow(seq))
	}
	if code := run.wait(t); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, run.err.String())
	}
	rows := strings.Split(strings.TrimSuffix(run.out.String(), "\n"), "\n")
	if !strings.HasPrefix(rows[0], "SEQ  TYPE  ") {
		t.Errorf("header = %q", rows[0])
	}
	for seq, row := range rows[1:] {
		if !eventRow(seq)(row + "\n") {
			t.Errorf("row %d = %q, want event %d", seq+1, row, seq)
		}
	}
	if events := log.lines - 1; len(rows)-1 != events {
		t.Errorf("%d rows for %d events", len(rows)-1, events)
	}
	if !strings.Contains(run.err.String(), "stopped following: nothing appended for 2s") {
		t.Errorf("stderr does not say why following stopped:\n%s", run.err.String())
	}
}

// A v0 log followed by inspect --json is migrated in memory as it grows:
// the events printed are those inspect prints of the finished file, each
// once.
func TestInspectFollowMigratesOldFormat(t *testing.T) {
	t.Parallel()
	log := newGrowingLog(t, "../testdata/corpus/golden/edge2/v0-legacy-compact-ids/session.jsonl", "session.jsonl", 1)
	run := startFollow(t, "inspect", "--json", "--follow", "--idle", followIdle, log.path)
	for log.more() {
		if log.next == 20 {
			log.appendPart(t, true)
			time.Sleep(2 * follow.DefaultPoll)
			log.appendPart(t, false)
			continue
		}
		log.appendLine(t)
	}
	if code := run.wait(t); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, run.err.String())
	}
	var finished, stderr bytes.Buffer
	if code := Run([]string{"inspect", "--json", log.path}, strings.NewReader(""), &finished, &stderr); code != 0 {
		t.Fatalf("inspect of the finished file: exit %d: %s", code, stderr.String())
	}
	if run.out.String() != finished.String() {
		t.Errorf("followed:\n%s\nfinished:\n%s", run.out.String(), finished.String())
	}
	if !strings.Contains(run.err.String(), "format v0, read as v4") {
		t.Errorf("stderr does not note the migration:\n%s", run.err.String())
	}
}

// verify --follow reports a finding when the faulty row arrives, once, and
// ends with the verdict verify gives the finished file.
func TestVerifyFollowReportsFaultAsItLands(t *testing.T) {
	t.Parallel()
	// Row 23 (seq 22) is a second assistant/message in one step.
	log := newGrowingLog(t, "../testdata/corpus/bad-logs/two-settlements-without-retry/session.v4.jsonl", "session.v4.jsonl", 5)
	run := startFollow(t, "verify", "--follow", "--idle", followIdle, log.path)
	finding := "[assistant-repeated]"
	for log.next < 23 {
		log.appendLine(t)
	}
	if strings.Contains(run.out.String(), finding) {
		t.Fatalf("the finding came before its row:\n%s", run.out.String())
	}
	log.appendLine(t)
	run.waitFor(t, "the finding", func(out string) bool { return strings.Contains(out, finding) })
	if strings.Contains(run.out.String(), "problems found") {
		t.Fatalf("the verdict came before the end:\n%s", run.out.String())
	}
	log.appendPart(t, true)
	time.Sleep(2 * follow.DefaultPoll)
	log.appendPart(t, false)
	for log.more() {
		log.appendLine(t)
	}
	if code := run.wait(t); code != ExitProblems {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, ExitProblems, run.err.String())
	}
	var finished bytes.Buffer
	Run([]string{"verify", log.path}, strings.NewReader(""), &finished, &bytes.Buffer{})
	if run.out.String() != finished.String() {
		t.Errorf("followed:\n%s\nfinished:\n%s", run.out.String(), finished.String())
	}
	if n := strings.Count(run.out.String(), finding); n != 1 {
		t.Errorf("the finding is reported %d times", n)
	}
}

// stats --follow shows a compaction's prefix-cache break when the request
// it breaks is settled, then the tables stats prints of the finished file.
func TestStatsFollowShowsBreakAsItLands(t *testing.T) {
	t.Parallel()
	// Row 26 (seq 25) settles request 3, after the compaction at seqs 19..22.
	log := newGrowingLog(t, "../testdata/corpus/dsh/compaction-recovery/session.v4.jsonl", "session.v4.jsonl", 2)
	run := startFollow(t, "stats", "--follow", "--idle", followIdle, log.path)
	for log.next < 26 {
		log.appendLine(t)
	}
	run.waitFor(t, "request 2", func(out string) bool { return strings.Contains(out, "seq 18: request 2: ") })
	if strings.Contains(run.out.String(), "cache break") {
		t.Fatalf("a break before its request:\n%s", run.out.String())
	}
	log.appendLine(t)
	brk := "seq 25: cache break: request 3, compaction (messages changed), explained by series-header @24, put back 20 input tokens\n"
	run.waitFor(t, "the break", func(out string) bool { return strings.Contains(out, brk) })
	for log.more() {
		log.appendLine(t)
	}
	if code := run.wait(t); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, run.err.String())
	}
	var finished bytes.Buffer
	Run([]string{"stats", log.path}, strings.NewReader(""), &finished, &bytes.Buffer{})
	want := "seq 13: request 1: in 24, out 6; session: 1 requests, in 24, out 6, cache read 0, cache hit -\n" +
		"seq 18: request 2: no usage logged; session: 2 requests, in 24, out 6, cache read 0, cache hit -\n" +
		"seq 25: request 3: in 20, out 4; session: 3 requests, in 44, out 10, cache read 0, cache hit -\n" +
		brk + "\n" + finished.String()
	if run.out.String() != want {
		t.Errorf("followed:\n%s\nwant:\n%s", run.out.String(), want)
	}
}

// --follow takes one session and no standard input; --idle needs --follow.
func TestFollowUsage(t *testing.T) {
	for _, args := range [][]string{
		{"inspect", "--idle", "1s", "x"},
		{"inspect", "--follow", "-"},
		{"inspect", "--follow", "a", "b"},
		{"stats", "--follow", "a", "b"},
		{"verify", "--follow", "--junit", "j.xml", "a"},
		{"verify", "--follow", "--idle", "-1s", "a"},
	} {
		var stderr bytes.Buffer
		if code := Run(args, strings.NewReader(""), &bytes.Buffer{}, &stderr); code != ExitUsage {
			t.Errorf("%q: exit %d, want %d; stderr: %s", args, code, ExitUsage, stderr.String())
		}
	}
}

// A directory follows the session written most recently under it.
func TestFollowDirectoryTakesLatestSession(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	older := filepath.Join(root, "a", "session.v4.jsonl")
	newer := filepath.Join(root, "b", "session.v4.jsonl")
	for _, path := range []string{older, newer} {
		data, err := os.ReadFile("../testdata/corpus/dsh/compaction-recovery/session.v4.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	then := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	os.Chtimes(older, then, then)
	os.Chtimes(newer, then.Add(time.Hour), then.Add(time.Hour))
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"verify", "--follow", "--idle", "10ms", root}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "following "+newer+", the session written most recently under "+root) ||
		!strings.Contains(stdout.String(), newer+": ok") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
}

// eventRow matches inspect's table row of the event seq.
func eventRow(seq int) func(string) bool {
	row := regexp.MustCompile(fmt.Sprintf(`(?m)^ *%d  `, seq))
	return func(out string) bool { return row.MatchString(out) }
}

// growingLog is a copy of a real log that a test appends to line by line.
type growingLog struct {
	path  string
	text  []string // the source's lines, each with its newline
	lines int      // len(text)
	next  int      // the index of the next line to append
	start int      // the lines there before following
}

// newGrowingLog copies the first start lines of the log at from to a file
// named name in a temporary directory.
func newGrowingLog(t *testing.T, from, name string, start int) *growingLog {
	t.Helper()
	text := sourceLines(t, from)
	log := &growingLog{path: filepath.Join(t.TempDir(), name), text: text, lines: len(text), start: start}
	if err := os.WriteFile(log.path, []byte(strings.Join(text[:start], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	log.next = start
	return log
}

// sourceLines returns the lines of the log at from, each with its newline.
func sourceLines(t *testing.T, from string) []string {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	return lines[:len(lines)-1] // after the last newline, nothing
}

func (l *growingLog) more() bool { return l.next < l.lines }

// appendLine appends the next line whole.
func (l *growingLog) appendLine(t *testing.T) {
	t.Helper()
	l.write(t, l.text[l.next])
	l.next++
}

// appendPart appends the first half of the next line, or its rest.
func (l *growingLog) appendPart(t *testing.T, first bool) {
	t.Helper()
	line := l.text[l.next]
	if first {
		l.write(t, line[:len(line)/2])
		return
	}
	l.write(t, line[len(line)/2:])
	l.next++
}

func (l *growingLog) write(t *testing.T, text string) {
	t.Helper()
	f, err := os.OpenFile(l.path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// followRun is the dshlog command running on a goroutine.
type followRun struct {
	out, err syncBuffer
	done     chan struct{}
	code     int
}

func startFollow(t *testing.T, args ...string) *followRun {
	run := &followRun{done: make(chan struct{})}
	go func() {
		defer close(run.done)
		run.code = Run(args, strings.NewReader(""), &run.out, &run.err)
	}()
	t.Cleanup(func() { <-run.done })
	return run
}

// stuck bounds a test's wait for output that never comes: a failure, not a
// measure of speed.
const stuck = time.Minute

// waitFor waits until the output shows what, as ok tells.
func (r *followRun) waitFor(t *testing.T, what string, ok func(out string) bool) {
	t.Helper()
	deadline := time.Now().Add(stuck)
	for !ok(r.out.String()) {
		select {
		case <-r.done:
			if ok(r.out.String()) {
				return
			}
			t.Fatalf("the command ended (exit %d) without showing %s; stdout:\n%s\nstderr:\n%s", r.code, what, r.out.String(), r.err.String())
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never shown; stdout:\n%s", what, r.out.String())
		}
	}
}

// wait waits for the command to end and returns its exit code.
func (r *followRun) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-r.done:
		return r.code
	case <-time.After(stuck):
		t.Fatalf("the command did not end; stdout:\n%s", r.out.String())
		return 0
	}
}

// syncBuffer is a bytes.Buffer written by the command's goroutine and read
// by the test's.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A Zstandard log grows by a frame per append batch, as dsh writes it: each
// event is printed once its frame has landed, and a frame written in two
// parts is waited for.
func TestInspectFollowZstdFrames(t *testing.T) {
	t.Parallel()
	text := sourceLines(t, "../testdata/corpus/dsh/compaction-recovery/session.v4.jsonl")
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	frame := func(text string) string { return string(enc.EncodeAll([]byte(text), nil)) }
	log := &growingLog{path: filepath.Join(t.TempDir(), "session.v4.jsonl.zstd")}
	path := log.path
	if err := os.WriteFile(path, []byte(frame(text[0])), 0o644); err != nil {
		t.Fatal(err)
	}
	run := startFollow(t, "inspect", "--json", "--follow", "--idle", followIdle, path)
	for i, line := range text[1:] {
		seq := fmt.Sprintf(`{"seq":%d,`, i)
		compressed := frame(line)
		if i == 5 {
			log.write(t, compressed[:len(compressed)/2])
			time.Sleep(2 * follow.DefaultPoll)
			if strings.Contains(run.out.String(), seq) {
				t.Fatalf("event %d printed from half its frame", i)
			}
			compressed = compressed[len(compressed)/2:]
		}
		log.write(t, compressed)
		run.waitFor(t, fmt.Sprintf("event %d", i), func(out string) bool { return strings.Contains(out, seq) })
	}
	if code := run.wait(t); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, run.err.String())
	}
	var finished bytes.Buffer
	Run([]string{"inspect", "--json", path}, strings.NewReader(""), &finished, &bytes.Buffer{})
	if run.out.String() != finished.String() {
		t.Errorf("followed:\n%s\nfinished:\n%s", run.out.String(), finished.String())
	}
}

// On a terminal, stats --follow redraws one screen (ANSI home and erase)
// each time it has caught up, with the totals and the latest breaks.
func TestStatsScreenRedraws(t *testing.T) {
	path := "../testdata/corpus/dsh/compaction-recovery/session.v4.jsonl"
	src, err := migrate.Open(path, nil, migrate.OpenOptions{Options: migrate.Options{Recovery: v2.Recoverable}})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var out bytes.Buffer
	screen := &statsScreen{out: bufio.NewWriter(&out), path: path}
	live := stats.NewLive(src.Reader, path)
	for {
		step, err := live.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		screen.step(step, live)
		if step.Event.Seq == 20 {
			screen.caughtUp(live)
		}
	}
	screen.end(live)
	draws := strings.Split(out.String(), "\x1b[H\x1b[2J")
	if len(draws) != 3 || draws[0] != "" {
		t.Fatalf("want two screens, got %q", out.String())
	}
	if strings.Contains(draws[1], "cache break") || !strings.HasSuffix(draws[1], "Ctrl-C ends\n") {
		t.Errorf("first screen:\n%s", draws[1])
	}
	for _, want := range []string{
		"events 28 (last seq 27)  turns 1  steps 2  requests 3 (1 failed, 1 retried)  compactions 1  tool calls 1\n",
		"tokens  in 44  out 10  cache read 0  cache write 0  reasoning 0  cache hit -\n",
		"  seq 25: cache break: request 3, compaction (messages changed), explained by series-header @24, put back 20 input tokens\n",
		"following ended\n",
	} {
		if !strings.Contains(draws[2], want) {
			t.Errorf("last screen lacks %q:\n%s", want, draws[2])
		}
	}
}

// A followed log whose header dsh refuses is reported as the finished file
// is: a codec-refused finding for verify, nothing counted for stats.
func TestFollowHeaderRefusalAsFinished(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.v4.jsonl")
	if err := os.WriteFile(path, []byte(`{"type":"session","version":0,"id":"x","createdAt":1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"verify", "stats"} {
		var finished, followed bytes.Buffer
		finishedCode := Run([]string{verb, path}, strings.NewReader(""), &finished, &finished)
		followedCode := Run([]string{verb, "--follow", "--idle", "10ms", path}, strings.NewReader(""), &followed, &followed)
		if followedCode != finishedCode || followed.String() != finished.String() {
			t.Errorf("%s --follow: exit %d:\n%s\nfinished file: exit %d:\n%s", verb, followedCode, followed.String(), finishedCode, finished.String())
		}
	}
}
