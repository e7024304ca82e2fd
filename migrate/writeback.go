package migrate

import "os"

// writebackChunk is how much a writeback lets pile up before it asks the
// kernel to start writing it out.
const writebackChunk = 8 << 20

// writeback writes to a file that will be synced once complete, and asks the
// kernel to start writing each chunk out as soon as it is written, so that
// the final sync waits for the last chunk rather than for the whole file.
// It changes nothing in what is written or when the file is durable: only
// the sync makes it so.
type writeback struct {
	f       *os.File
	flushed int64 // bytes already handed to startWriteback
	written int64
	// start asks for the range to be written out; startWriteback, but for
	// tests.
	start func(f *os.File, off, n int64)
}

func newWriteback(f *os.File) *writeback {
	return &writeback{f: f, start: startWriteback}
}

func (w *writeback) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.written += int64(n)
	if pending := w.written - w.flushed; pending >= writebackChunk {
		w.start(w.f, w.flushed, pending)
		w.flushed = w.written
	}
	return n, err
}
