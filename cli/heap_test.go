package cli

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcPercent reads the collector's target.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// A reading verb's collector target follows the live heap: the headroom
// plus a quarter over a large live heap, migrate's target over a small one, and the
// previous target once the verb is done.
func TestTuneReadHeapFollowsLiveHeap(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set: the tuning is off by design")
	}
	before := gcPercent()
	restore := tuneReadHeap()
	live := make([]byte, 4*readHeadroom) // the live heap is about 4× the headroom
	for i := range live {
		live[i] = byte(i)
	}
	deadline := time.Now().Add(10 * time.Second)
	for gcPercent() >= 75 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if p := gcPercent(); p < readGrowthPercent+20 || p >= 75 {
		t.Errorf("target over a live heap of 4× the headroom = %d%%, want about %d%%", p, readGrowthPercent+25)
	}
	runtime.KeepAlive(live)
	live = nil
	for gcPercent() != maxReadGCPercent && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if p := gcPercent(); p != maxReadGCPercent {
		t.Errorf("target over a small live heap = %d%%, want %d%%", p, maxReadGCPercent)
	}
	restore()
	runtime.GC()
	runtime.GC()
	if p := gcPercent(); p != before {
		t.Errorf("target after restore = %d%%, want %d%%", p, before)
	}
}
