//go:build unix

package lease

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// Acquire takes the write lease of the session directory dir as dsh's
// SessionWriteLease does: open (creating) session.lock, take a non-blocking
// exclusive flock, then make sure the locked inode is still the file at the
// path, retrying when it was replaced. id names the session in errors.
func Acquire(dir, id string) (*Lease, error) {
	path := filepath.Join(dir, FileName)
	for range 3 {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EAGAIN) {
				return nil, &AlreadyOwnedError{ID: id, Path: path}
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
			return &Lease{f: f}, nil
		}
		f.Close() // the locked inode is no longer the lock file: start over
	}
	return nil, &AlreadyOwnedError{ID: id, Path: path}
}

// Release drops the lease by closing its descriptor.
func (l *Lease) Release() error { return l.f.Close() }

// SyncDir makes the entries of directory dir (a new or renamed file) durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
