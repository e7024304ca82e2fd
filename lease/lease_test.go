//go:build unix

package lease

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestAcquire: a second writer is refused as dsh's SessionAlreadyOwnedError
// while the lease is held, and gets it once released; the lock file stays.
func TestAcquire(t *testing.T) {
	dir := t.TempDir()
	first, err := Acquire(dir, "s")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(dir, "s")
	var owned *AlreadyOwnedError
	if !errors.As(err, &owned) || owned.Path != filepath.Join(dir, FileName) ||
		err.Error() != `session "s" is already owned by an active write handle` {
		t.Fatalf("second Acquire: %v, want AlreadyOwnedError naming the lock", err)
	}
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	again, err := Acquire(dir, "s")
	if err != nil {
		t.Fatalf("after Release: %v", err)
	}
	again.Release()
	if _, err := os.Stat(filepath.Join(dir, FileName)); err != nil {
		t.Errorf("the lock file is gone: %v", err)
	}
}

// TestSyncDir syncs an existing directory and reports a missing one.
func TestSyncDir(t *testing.T) {
	if err := SyncDir(t.TempDir()); err != nil {
		t.Error(err)
	}
	if err := SyncDir(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("SyncDir of a missing directory succeeded")
	}
}
