//go:build !unix

package cli

import "errors"

// sessionLock is a held session lock.
type sessionLock struct{}

// lockSession refuses: dsh locks a session with flock(2) on POSIX systems
// and a named kernel semaphore on Windows, which dshlog does not implement.
func lockSession(string) (*sessionLock, error) {
	return nil, errors.New("repair --append needs a POSIX system (dsh's session.lock is flock-based there)")
}

func (l *sessionLock) release() error { return nil }

// syncDir is a no-op where directories cannot be synced.
func syncDir(string) error { return nil }
