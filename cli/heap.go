package cli

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// readHeadroom is how far the heap of a reading verb (verify, fold,
// inspect) may grow past what it keeps live before the garbage collector
// runs, on top of a quarter of the live heap (readGrowthPercent). What
// such a verb keeps live is the live surface, which grows with a session
// that never compacts; at the collector's default target the heap would
// peak at twice that, and at a fixed higher target the many small sessions
// would collect too often. A constant headroom alone makes a collection
// every readHeadroom bytes of allocation, each marking the whole surface:
// over a long session that grows with input × surface. The quarter makes
// the number of collections fall as the surface grows, and keeps peak
// memory at 1.25× the live heap plus a constant, within the budget of
// 64 MiB plus twice the surface.
const readHeadroom = 32 << 20

// Bounds of the collector target the tuning sets, in percent of the live
// heap: at most migrate's, and at least the proportional part.
const (
	readGrowthPercent = 25
	maxReadGCPercent  = 400
)

// tuneReadHeap sets the collector's target after every collection to the
// live heap plus readHeadroom plus readGrowthPercent of it, until the
// returned func is called, which restores the target. It does nothing when GOGC is set.
func tuneReadHeap() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	t := &heapTuner{previous: debug.SetGCPercent(maxReadGCPercent), sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	t.arm()
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.stopped = true
		debug.SetGCPercent(t.previous)
	}
}

// heapTuner retunes the collector from a finalizer, which runs once after
// each collection.
type heapTuner struct {
	previous int
	sample   []metrics.Sample
	mu       sync.Mutex
	stopped  bool // the target was restored: tune no more
}

// gcSentinel is garbage the moment it is made: its finalizer tells that a
// collection ran.
type gcSentinel struct{ _ *int }

func (t *heapTuner) arm() {
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
		if t.retune() {
			t.arm()
		}
	})
}

// retune sets the target from the live heap the last collection left, and
// reports whether tuning goes on.
func (t *heapTuner) retune() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return false
	}
	metrics.Read(t.sample)
	if t.sample[0].Value.Kind() == metrics.KindUint64 {
		live := max(t.sample[0].Value.Uint64(), 1)
		debug.SetGCPercent(int(min(100*readHeadroom/live+readGrowthPercent, maxReadGCPercent)))
	}
	return true
}
