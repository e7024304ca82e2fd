// Package lease is dsh's write lease on a session directory: the
// session.lock file every writer holds with an exclusive flock while it
// appends to or publishes a generation of the session. Readers never take it.
package lease

import (
	"fmt"
	"os"
)

// FileName is the lock file dsh keeps in every session directory; it is
// never removed.
const FileName = "session.lock"

// Lease is a held write lease.
type Lease struct{ f *os.File }

// AlreadyOwnedError says another writer holds the session's lease (dsh's
// SessionAlreadyOwnedError).
type AlreadyOwnedError struct {
	ID   string // the session, as named by the caller
	Path string // the lock file
}

func (e *AlreadyOwnedError) Error() string {
	return fmt.Sprintf("session %q is already owned by an active write handle", e.ID)
}
