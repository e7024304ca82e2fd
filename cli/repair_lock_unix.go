//go:build unix

package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// sessionLock is a held session.lock: dsh's write lease on a session
// directory.
type sessionLock struct{ f *os.File }

// lockSession takes the write lock of the session directory dir as dsh's
// SessionWriteLease does: open (creating) session.lock, a non-blocking
// exclusive flock, and a check that the locked inode is still the file at
// the path (three attempts). The lock file is never removed.
func lockSession(dir string) (*sessionLock, error) {
	path := filepath.Join(dir, "session.lock")
	for range 3 {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, withHint(fmt.Errorf("%s: held by another writer", path),
					"a running dsh owns this session; close it and try again")
			}
			return nil, &os.PathError{Op: "flock", Path: path, Err: err}
		}
		held, errHeld := f.Stat()
		current, errNow := os.Stat(path)
		if errHeld == nil && errNow == nil && os.SameFile(held, current) {
			return &sessionLock{f: f}, nil
		}
		f.Close() // the lock file was replaced while we locked it: start over
	}
	return nil, fmt.Errorf("%s: could not be locked (it keeps being replaced)", path)
}

// release drops the lock.
func (l *sessionLock) release() error { return l.f.Close() }

// syncDir makes a directory entry (a new file) durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
