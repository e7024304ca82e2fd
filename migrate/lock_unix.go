//go:build unix

package migrate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockName is the lock file dsh keeps in every session directory.
const lockName = "session.lock"

// AlreadyOwnedError says another writer holds the session's lock (dsh's
// SessionAlreadyOwnedError).
type AlreadyOwnedError struct{ ID string }

func (e *AlreadyOwnedError) Error() string {
	return fmt.Sprintf("session %q is already owned by an active write handle", e.ID)
}

// writeLock is a held session.lock.
type writeLock struct{ f *os.File }

// acquireLock takes the session directory's write lock as dsh's
// SessionWriteLease does: open (creating) session.lock, a non-blocking
// exclusive flock, then make sure the locked inode is still the file at the
// path, retrying when it was replaced. The file is never removed.
func acquireLock(dir, id string) (*writeLock, error) {
	path := filepath.Join(dir, lockName)
	for range 3 {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EAGAIN) {
				return nil, &AlreadyOwnedError{ID: id}
			}
			return nil, &os.PathError{Op: "flock", Path: path, Err: err}
		}
		held, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		current, err := os.Stat(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			f.Close()
			return nil, err
		}
		if err == nil && os.SameFile(held, current) {
			return &writeLock{f: f}, nil
		}
		f.Close() // the locked inode is no longer the lock file: start over
	}
	return nil, &AlreadyOwnedError{ID: id}
}

// release drops the lock by closing its descriptor.
func (l *writeLock) release() error { return l.f.Close() }

// syncDir makes a directory entry durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
