//go:build !unix

package migrate

import (
	"errors"
	"fmt"
)

// AlreadyOwnedError says another writer holds the session's lock (dsh's
// SessionAlreadyOwnedError).
type AlreadyOwnedError struct{ ID string }

func (e *AlreadyOwnedError) Error() string {
	return fmt.Sprintf("session %q is already owned by an active write handle", e.ID)
}

// writeLock is a held session lock.
type writeLock struct{}

// acquireLock refuses: dsh locks a session with flock(2) on POSIX systems
// and a named kernel semaphore on Windows, which dshlog does not implement.
func acquireLock(dir, id string) (*writeLock, error) {
	return nil, errors.New("publishing beside the source needs a POSIX system (use -o to write elsewhere)")
}

func (l *writeLock) release() error { return nil }

func syncDir(string) error { return nil }
