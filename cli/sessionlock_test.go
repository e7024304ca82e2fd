//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// holdSessionLock takes dir's session.lock as a running dsh writer holds
// it (an exclusive flock) and returns the release; the test's cleanup
// releases it too.
func holdSessionLock(t *testing.T, dir string) (release func()) {
	t.Helper()
	held, err := os.OpenFile(filepath.Join(dir, "session.lock"), os.O_WRONLY|os.O_CREATE, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { held.Close() })
	if err := syscall.Flock(int(held.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	return func() { held.Close() }
}
