package migrate

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/internal/gen"
	"github.com/dshlog/dshlog/vocab"
)

// readOut is everything a caller of a Reader can see.
type readOut struct {
	events   []byte // each event as v4 encodes it
	count    int
	err      string
	cut      int64
	torn     bool
	snapshot bool
	issue    string
}

// readWith opens path and reads every event, with the restore running
// ahead of Next or not.
func readWith(t *testing.T, path string, opts Options, ahead bool) readOut {
	t.Helper()
	src, err := Open(path, nil, OpenOptions{Options: opts, StoreRoot: "/sessions"})
	if err != nil {
		return readOut{err: err.Error()}
	}
	defer src.Close()
	src.Reader.mayRunAhead = ahead
	var got readOut
	for {
		ev, err := src.Reader.Next()
		if err != nil {
			if _, again := src.Reader.Next(); again == nil {
				t.Errorf("%s: an event after %v", path, err)
			}
			got.err = err.Error()
			break
		}
		got.events = v4.AppendEvent(got.events, ev)
		got.count++
	}
	if (src.Reader.events != nil) != ahead {
		t.Errorf("%s: ran ahead %v, want %v", path, src.Reader.events != nil, ahead)
	}
	got.cut, got.torn, got.snapshot = src.Reader.Cut(), src.Reader.TornTail(), src.Reader.Snapshot
	if issue := src.Reader.Issue(); issue != nil {
		got.issue = issue.Error()
	}
	return got
}

// TestEventsAheadAgrees reads every session of the corpus with the
// restore on the caller's goroutine and ahead of it, in both recovery
// modes, and requires the same events, counts, error, cut, torn tail,
// snapshot form and recovery issue.
func TestEventsAheadAgrees(t *testing.T) {
	files := corpusSessions(t)
	compared, failed := 0, 0
	for _, f := range files {
		for _, recovery := range []v2.Recovery{v2.Recoverable, v2.Strict} {
			opts := Options{Recovery: recovery, Vocabulary: vocab.Zdsh.Vocabulary()}
			inline := readWith(t, f, opts, false)
			ahead := readWith(t, f, opts, true)
			if !bytes.Equal(inline.events, ahead.events) || fmt.Sprint(inline) != fmt.Sprint(ahead) {
				t.Errorf("%s (%s): ahead %d events, %q, cut %d, torn %v, snapshot %v, issue %q; inline %d events, %q, cut %d, torn %v, snapshot %v, issue %q",
					f, recovery, ahead.count, ahead.err, ahead.cut, ahead.torn, ahead.snapshot, ahead.issue,
					inline.count, inline.err, inline.cut, inline.torn, inline.snapshot, inline.issue)
			}
			compared++
			if inline.err != "EOF" {
				failed++
			}
		}
	}
	if compared < 400 || failed < 20 {
		t.Fatalf("compared %d reads, %d of them refused; want at least 400 and 20", compared, failed)
	}
}

// TestEventsAheadIsBounded stops reading a long session after one event
// and requires the restore to stop at behindBatches batches waiting, then
// to return when the source is closed.
func TestEventsAheadIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.jsonl")
	if _, err := gen.WriteFile("../testdata/corpus/restored/fs-write/session.v3.jsonl", path, 4<<20); err != nil {
		t.Fatal(err)
	}
	src, err := Open(path, nil, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Reader.Next(); err != nil {
		t.Fatal(err)
	}
	a := src.Reader.events
	for len(a.batches) < cap(a.batches) {
		select {
		case <-a.done:
			t.Fatal("the restore ended while the caller stalled")
		case <-time.After(time.Millisecond):
		}
	}
	if cap(a.batches) != behindBatches {
		t.Fatalf("%d batches may wait, want %d", cap(a.batches), behindBatches)
	}
	select {
	case <-a.done:
		t.Fatal("the restore ended while the caller stalled")
	default:
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	<-a.done
}
