//go:build unix

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRescueNeverWritesItsInput: while dsh holds session.lock, rescue will
// not publish into the session's directory (nothing appears, the log keeps
// its bytes); with -o elsewhere it writes only there. Without the lock the
// log keeps its bytes too, and -o naming the log itself is refused.
func TestRescueNeverWritesItsInput(t *testing.T) {
	log := copySession(t, "../testdata/rescue/two-writers/session.v4.jsonl")
	original, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(log)
	unchanged := func(when string) {
		t.Helper()
		if now, _ := os.ReadFile(log); !bytes.Equal(now, original) {
			t.Errorf("%s: the log changed", when)
		}
	}
	run := func(args ...string) (int, string) {
		code, _, stderr := runDshlog(t, args...)
		return code, stderr
	}

	release := holdSessionLock(t, dir)
	if code, stderr := run("rescue", log); code != ExitInput || !strings.Contains(stderr, "is already owned by an active write handle") {
		t.Errorf("under a held lock: exit %d, stderr %q", code, stderr)
	}
	unchanged("under a held lock")
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("under a held lock the directory holds %d entries, want the log and its lock", len(entries))
	}
	out := filepath.Join(t.TempDir(), "rescued.jsonl")
	if code, stderr := run("rescue", "-o", out, log); code != ExitOK {
		t.Errorf("-o elsewhere under a held lock: exit %d, stderr %q", code, stderr)
	}
	unchanged("-o elsewhere under a held lock")
	if _, err := os.Stat(out); err != nil {
		t.Error(err)
	}
	release()

	if code, stderr := run("rescue", "-o", log, log); code != ExitInput || !strings.Contains(stderr, "the file exists") {
		t.Errorf("-o naming the log: exit %d, stderr %q", code, stderr)
	}
	unchanged("-o naming the log")
	if code, stderr := run("rescue", log); code != ExitOK {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	unchanged("after a rescue beside it")
}
