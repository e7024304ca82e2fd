//go:build unix

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRescueNeverWritesItsInput: while dsh holds session.lock, rescue will
// not publish into the session's directory (nothing appears, the log keeps
// its bytes); with -o elsewhere it writes only there. Without the lock the
// log keeps its bytes too, and -o naming the log itself is refused.
func TestRescueNeverWritesItsInput(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "session.v4.jsonl")
	original, err := os.ReadFile("../testdata/rescue/two-writers/session.v4.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(log, original, 0o644); err != nil {
		t.Fatal(err)
	}
	unchanged := func(when string) {
		t.Helper()
		if now, _ := os.ReadFile(log); !bytes.Equal(now, original) {
			t.Errorf("%s: the log changed", when)
		}
	}
	run := func(args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := Run(args, nil, &stdout, &stderr)
		return code, stderr.String()
	}

	held, err := os.OpenFile(filepath.Join(dir, "session.lock"), os.O_WRONLY|os.O_CREATE, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(held.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
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
	held.Close()

	if code, stderr := run("rescue", "-o", log, log); code != ExitInput || !strings.Contains(stderr, "the file exists") {
		t.Errorf("-o naming the log: exit %d, stderr %q", code, stderr)
	}
	unchanged("-o naming the log")
	if code, stderr := run("rescue", log); code != ExitOK {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	unchanged("after a rescue beside it")
}
