package report

import (
	"fmt"
	"io"
	"time"
)

// Progress shows on a terminal how far a run has come: files done of the
// total, the bytes judged and the rate, on one line rewritten in place at
// most ten times a second.
type Progress struct {
	w          io.Writer
	total      int
	totalBytes int64
	done       int
	bytes      int64
	start      time.Time
	last       time.Time
	shown      bool
	now        func() time.Time // the clock, replaced in tests
}

// NewProgress returns the progress of judging total files of totalBytes.
func NewProgress(w io.Writer, total int, totalBytes int64) *Progress {
	now := time.Now()
	return &Progress{w: w, total: total, totalBytes: totalBytes, start: now, last: now, now: time.Now}
}

// Done counts a file of size bytes (negative when unknown) as judged.
func (p *Progress) Done(size int64) {
	p.done++
	p.bytes += max(size, 0)
	now := p.now()
	if now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last, p.shown = now, true
	rate := float64(p.bytes) / (1 << 20) / max(now.Sub(p.start).Seconds(), 1e-3)
	fmt.Fprintf(p.w, "\r\033[Kverify: %d/%d files, %.1f/%.1f MB, %.1f MB/s",
		p.done, p.total, float64(p.bytes)/(1<<20), float64(p.totalBytes)/(1<<20), rate)
}

// Clear removes the progress line, if one was shown, before other output.
func (p *Progress) Clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}
