//go:build !unix

package lease

import "errors"

// Acquire refuses: dsh locks a session with flock(2) on POSIX systems and a
// named kernel semaphore on Windows, which dshlog does not implement.
func Acquire(dir, id string) (*Lease, error) {
	return nil, errors.New("writing into a session directory needs a POSIX system (dsh's session.lock is flock-based there)")
}

// Release does nothing: no lease is ever held here.
func (l *Lease) Release() error { return nil }

// SyncDir does nothing where directories cannot be synced.
func SyncDir(string) error { return nil }
