package migrate

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/internal/gen"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// encoded is what one way of encoding a file gave.
type encoded struct {
	out     []byte
	written Written
	err     string
}

// encodeWith opens path and encodes it into w (a buffer when nil), on the
// caller's goroutine or behind it.
func encodeWith(t *testing.T, path string, opts Options, w *failingWriter, behind bool) encoded {
	t.Helper()
	src, err := Open(path, nil, OpenOptions{Options: opts, StoreRoot: "/sessions"})
	if err != nil {
		return encoded{err: err.Error()}
	}
	defer src.Close()
	if w == nil {
		w = &failingWriter{failAt: -1}
	}
	written, err := encode(w, src.Reader, behind)
	got := encoded{out: w.buf.Bytes(), written: written}
	if err != nil {
		got.err = err.Error()
	}
	return got
}

// TestEncodeBehindAgrees encodes every session of the corpus both ways, in
// both recovery modes, and requires the same bytes, the same counts and the
// same error. Under -race it also shows that no codec or stage looks into
// an event after handing it on.
func TestEncodeBehindAgrees(t *testing.T) {
	files := corpusSessions(t)
	behind := 0
	for _, f := range files {
		if _, _, err := readHeaderFile(f); err != nil {
			continue
		}
		behind++
		for _, recovery := range []v2.Recovery{v2.Recoverable, v2.Strict} {
			opts := Options{Recovery: recovery, Vocabulary: vocab.Zdsh.Vocabulary()}
			inline := encodeWith(t, f, opts, nil, false)
			ahead := encodeWith(t, f, opts, nil, true)
			if !bytes.Equal(inline.out, ahead.out) || inline.written != ahead.written || inline.err != ahead.err {
				t.Errorf("%s (%s): behind the migration got %d bytes, %+v, %q; on its goroutine %d bytes, %+v, %q",
					f, recovery, len(ahead.out), ahead.written, ahead.err, len(inline.out), inline.written, inline.err)
			}
		}
	}
	if behind < 200 {
		t.Fatalf("compared %d sessions, want at least 200", behind)
	}
}

// failingWriter keeps what is written to it until its failAt-th write
// (counting from 0), which fails, as do all after it; -1 never fails.
type failingWriter struct {
	buf    bytes.Buffer
	writes int
	failAt int
}

var errDiskFull = errors.New("disk full")

func (w *failingWriter) Write(p []byte) (int, error) {
	defer func() { w.writes++ }()
	if w.failAt >= 0 && w.writes >= w.failAt {
		return 0, errDiskFull
	}
	return w.buf.Write(p)
}

// TestEncodeBehindFirstError makes a write fail at the first, second or
// third flush of a session of a few MB whose row 5, 3,000 or 6,000 is not
// JSON (a refusal, as a turn/end follows), and requires the error of the
// encoding behind the migration to be the one Encode on its own goroutine
// returns: the one that comes first in the session, with the same counts.
func TestEncodeBehindFirstError(t *testing.T) {
	dir := t.TempDir()
	clean := filepath.Join(dir, "clean.jsonl")
	if _, err := gen.WriteFile("../testdata/corpus/restored/fs-write/session.v3.jsonl", clean, 3<<20); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(clean)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(text), "\n")
	for _, bad := range []int{5, 3000, 6000} {
		if bad >= len(lines)-10 {
			t.Fatalf("the session has %d lines, too few for a bad row %d", len(lines), bad)
		}
		corrupt := slicesWith(lines, bad, "{not json\n")
		path := filepath.Join(dir, fmt.Sprintf("bad-%d.jsonl", bad))
		if err := os.WriteFile(path, []byte(strings.Join(corrupt, "")), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, failAt := range []int{-1, 0, 1, 2} {
			inline := encodeWith(t, path, Options{}, &failingWriter{failAt: failAt}, false)
			ahead := encodeWith(t, path, Options{}, &failingWriter{failAt: failAt}, true)
			if inline.err == "" {
				t.Fatalf("row %d, write %d: no error on the caller's goroutine", bad, failAt)
			}
			if inline.err != ahead.err || inline.written != ahead.written || !bytes.Equal(inline.out, ahead.out) {
				t.Errorf("row %d, write %d fails: behind %q %+v, on its goroutine %q %+v",
					bad, failAt, ahead.err, ahead.written, inline.err, inline.written)
			}
		}
	}
}

// slicesWith returns lines with line i replaced.
func slicesWith(lines []string, i int, line string) []string {
	out := append([]string(nil), lines...)
	out[i] = line
	return out
}

// blockedWriter blocks every write until release is closed, after saying
// on writing that one started.
type blockedWriter struct {
	writing chan struct{}
	release chan struct{}
}

func (w *blockedWriter) Write(p []byte) (int, error) {
	select {
	case w.writing <- struct{}{}:
	default:
	}
	<-w.release
	return len(p), nil
}

// TestBehindIsBounded stalls the writer and requires the queue of batches
// waiting for the encoding goroutine to stop at behindBatches: the
// migration can run ahead of a slow output by that many batches and the
// ones being filled and encoded, no more.
func TestBehindIsBounded(t *testing.T) {
	w := &blockedWriter{writing: make(chan struct{}, 1), release: make(chan struct{})}
	b := startBehind(&encoder{w: w})
	// One batch of events whose text exceeds flushSize makes the encoder
	// write, where it stays.
	big := session.Event{Type: "x", Row: jsonStringRow(flushSize)}
	if !b.hand([]session.Event{big}) {
		t.Fatal("hand failed before any write")
	}
	<-w.writing
	for i := range behindBatches {
		if !b.hand([]session.Event{big}) {
			t.Fatalf("batch %d refused", i)
		}
	}
	if len(b.batches) != cap(b.batches) || cap(b.batches) != behindBatches {
		t.Fatalf("%d of %d batches wait, want a full queue of %d", len(b.batches), cap(b.batches), behindBatches)
	}
	close(w.release)
	if err := b.close(nil); err != nil {
		t.Fatal(err)
	}
	if b.enc.out.Events != behindBatches+1 {
		t.Errorf("encoded %d events, want %d", b.enc.out.Events, behindBatches+1)
	}
}

// jsonStringRow returns a row holding a string of n bytes.
func jsonStringRow(n int) jsonv.Value {
	return jsonv.ObjectValue(jsonv.M("text", jsonv.StringValue(strings.Repeat("a", n))))
}

func TestBatchFull(t *testing.T) {
	for _, tc := range []struct {
		events int
		text   int64
		want   bool
	}{
		{1, 0, false},
		{behindEvents - 1, behindBytes - 1, false},
		{behindEvents, 0, true},
		{1, behindBytes, true},
		{1, 50 << 20, true}, // one huge row goes on its own
	} {
		if got := batchFull(tc.events, tc.text); got != tc.want {
			t.Errorf("batchFull(%d, %d) = %v, want %v", tc.events, tc.text, got, tc.want)
		}
	}
}

// TestTakeCheck pins which sessions have their check and encoding run
// behind the migration: those of every version, whose codecs and stages
// never look into an event after handing it on, and only before the first
// event has been read.
func TestTakeCheck(t *testing.T) {
	for _, path := range []string{
		"restored/fs-write/session.jsonl", // v0
		"golden/edge2/v1-header/session.v1.jsonl",
		"dsh/skill-load/session.v2.jsonl",
		"restored/fs-write/session.v3.jsonl",
		"restored/fs-write/session.v4.jsonl",
	} {
		src, err := Open(filepath.Join(corpus, path), nil, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := src.Reader.takeCheck(); !ok {
			t.Errorf("%s: takeCheck refused before the first event", path)
		}
		src.Close()
		src, err = Open(filepath.Join(corpus, path), nil, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := src.Reader.Next(); err != nil {
			t.Fatal(err)
		}
		if _, ok := src.Reader.takeCheck(); ok {
			t.Errorf("%s: takeCheck after the first event", path)
		}
		src.Close()
	}
}

// corpusSessions returns every session file of the corpus, at any depth the
// corpus nests them.
func corpusSessions(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"*/*/*.jsonl", "*/*/*/*.jsonl", "*/*.jsonl"} {
		found, err := filepath.Glob(filepath.Join(corpus, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, found...)
	}
	return files
}
