//go:build unix

package cli

import (
	"strings"
	"syscall"
	"testing"
)

// Ctrl-C (SIGINT) ends stats --follow cleanly: exit 0, with the session's
// tables. Not parallel: the signal goes to every command following at the
// time.
func TestStatsFollowEndsOnInterrupt(t *testing.T) {
	log := newGrowingLog(t, "../testdata/corpus/dsh/compaction-recovery/session.v4.jsonl", "session.v4.jsonl", 2)
	run := startFollow(t, "stats", "--follow", log.path) // no --idle: only Ctrl-C ends it
	for log.more() {
		log.appendLine(t)
	}
	run.waitFor(t, "the break", func(out string) bool { return strings.Contains(out, "seq 25: cache break") })
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := run.wait(t); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, run.err.String())
	}
	if !strings.Contains(run.out.String(), "1 of 2 requests after a session's first break the prefix cache") {
		t.Errorf("no summary after Ctrl-C:\n%s", run.out.String())
	}
	if strings.Contains(run.err.String(), "stopped following") {
		t.Errorf("Ctrl-C is not worth a note:\n%s", run.err.String())
	}
}
