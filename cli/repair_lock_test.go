//go:build unix

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRepairAppendRespectsLock: while another writer holds session.lock,
// repair --append refuses and the log keeps its bytes.
func TestRepairAppendRespectsLock(t *testing.T) {
	log := copySession(t, "../testdata/seed-vectors/crash-persisted.v4.jsonl")
	original, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(log)
	holdSessionLock(t, dir)
	code, stdout, stderr := runDshlog(t, "repair", "--append", log)
	if code != ExitInput || !strings.Contains(stderr, "is already owned by an active write handle") ||
		!strings.Contains(stderr, "hint: "+filepath.Join(dir, "session.lock")+" is held") {
		t.Errorf("exit %d, stderr %q; want exit %d and the lock named", code, stderr, ExitInput)
	}
	if now, _ := os.ReadFile(log); !bytes.Equal(now, original) {
		t.Error("the log changed while its lock was held")
	}
	if stdout != "" {
		t.Errorf("stdout = %q, want nothing", stdout)
	}
}
