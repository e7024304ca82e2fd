package v4

import (
	"path"

	"github.com/dshlog/dshlog/session"
)

// ValidateHeader is dsh's assertReleasedV4Header for a logical header: the
// v4 version and an absolute cwd. The other rules of the exact header shape
// (key set, field types) hold by construction of session.Header.
func ValidateHeader(h session.Header) error {
	if h.Version != Version {
		return session.FormatErrorf("expected format v4 header")
	}
	if h.CreatedAt < 0 || h.CreatedAt > maxSafeInteger {
		return session.FormatErrorf("format v4 header createdAt must be a non-negative safe integer")
	}
	if h.DelegationDepth < 0 || h.DelegationDepth > maxSafeInteger {
		return session.FormatErrorf("format v4 header delegationDepth must be a non-negative safe integer")
	}
	if h.Cwd != nil && !path.IsAbs(*h.Cwd) {
		return session.FormatErrorf("format v4 header cwd must be absolute")
	}
	if h.Origin != nil && *h.Origin != "subagent" {
		return session.FormatErrorf(`format v4 header origin must be "subagent"`)
	}
	return nil
}

const maxSafeInteger = 1<<53 - 1
