package v2

import (
	"path"

	"github.com/dshlog/dshlog/session"
)

// CheckHeader is dsh's assertReleasedV2Header for a logical header: version
// 2 and an absolute cwd (the typed header cannot break its other rules).
// Formats v3 and v4 reuse it with their version swapped for 2.
func CheckHeader(h session.Header) error {
	if h.Version != 2 {
		return session.FormatErrorf("expected format v2 header")
	}
	if h.Cwd != nil && !path.IsAbs(*h.Cwd) {
		return session.FormatErrorf("format v2 header cwd must be absolute")
	}
	return nil
}
