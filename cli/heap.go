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
// runs. What such a verb keeps live is the live surface, which grows with
// a session that never compacts; at the collector's default target the
// heap would peak at twice that, and at a fixed higher target the many
// small sessions would collect too often. Collecting at live + headroom
// keeps peak memory at the live surface plus a constant, and lets a verb
// whose live heap is small collect rarely.
const readHeadroom = 32 << 20

// Bounds of the collector target the tuning sets, in percent of the live
// heap: at most migrate's, and at least enough that a huge surface is not
// collected continuously.
const (
	minReadGCPercent = 25
	maxReadGCPercent = 400
)

// tuneReadHeap sets the collector's target after every collection to the
// live heap plus readHeadroom, until the returned func is called, which
// restores the target. It does nothing when GOGC is set.
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
		debug.SetGCPercent(int(min(max(100*readHeadroom/live, minReadGCPercent), maxReadGCPercent)))
	}
	return true
}
