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

// TestRepairAppendRespectsLock: while another writer holds session.lock,
// repair --append refuses and the log keeps its bytes.
func TestRepairAppendRespectsLock(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "session.v4.jsonl")
	original, err := os.ReadFile("../testdata/seed-vectors/crash-persisted.v4.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(log, original, 0o644); err != nil {
		t.Fatal(err)
	}
	held, err := os.OpenFile(filepath.Join(dir, "session.lock"), os.O_WRONLY|os.O_CREATE, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := syscall.Flock(int(held.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := Run([]string{"repair", "--append", log}, nil, &stdout, &stderr)
	if code != ExitInput || !strings.Contains(stderr.String(), "is already owned by an active write handle") ||
		!strings.Contains(stderr.String(), "hint: "+filepath.Join(dir, "session.lock")+" is held") {
		t.Errorf("exit %d, stderr %q; want exit %d and the lock named", code, stderr.String(), ExitInput)
	}
	if now, _ := os.ReadFile(log); !bytes.Equal(now, original) {
		t.Error("the log changed while its lock was held")
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}
}
