package report

import (
	"bytes"
	"testing"
	"time"
)

// TestProgress drives the progress line with a fake clock: it is redrawn
// at most every 100 ms with files, bytes and rate, and cleared once.
func TestProgress(t *testing.T) {
	var out bytes.Buffer
	p := NewProgress(&out, 3, 3<<20)
	clock := p.start
	p.now = func() time.Time { return clock }
	clock = clock.Add(50 * time.Millisecond)
	p.Done(1 << 20)
	if out.Len() != 0 {
		t.Fatalf("drawn within 100 ms: %q", out.String())
	}
	clock = clock.Add(950 * time.Millisecond)
	p.Done(1 << 20)
	if want := "\r\033[Kverify: 2/3 files, 2.0/3.0 MB, 2.0 MB/s"; out.String() != want {
		t.Fatalf("progress %q, want %q", out.String(), want)
	}
	out.Reset()
	p.Clear()
	p.Clear()
	if out.String() != "\r\033[K" {
		t.Errorf("cleared with %q", out.String())
	}
}
