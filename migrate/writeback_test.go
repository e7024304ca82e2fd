package migrate

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestWritebackWritesThrough checks that a writeback writes every byte as
// given and asks for each full chunk, and only full chunks, to be written
// out, each range once and in order.
func TestWritebackWritesThrough(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type span struct{ off, n int64 }
	var started []span
	w := newWriteback(f)
	w.start = func(_ *os.File, off, n int64) { started = append(started, span{off, n}) }

	piece := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	var want []byte
	for range 20 {
		if _, err := w.Write(piece); err != nil {
			t.Fatal(err)
		}
		want = append(want, piece...)
	}
	got, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("wrote %d bytes, want the %d given", len(got), len(want))
	}
	wantStarted := []span{{0, writebackChunk}, {writebackChunk, writebackChunk}}
	if len(started) != len(wantStarted) || started[0] != wantStarted[0] || started[1] != wantStarted[1] {
		t.Fatalf("started writeback of %v, want %v", started, wantStarted)
	}
}
