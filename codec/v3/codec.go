// Package v3 is dsh's released format v3 physical codec: the v2 header and
// row framing with the header version 3, plus v3's own admission of every
// row (structural rows and retired PTC names, refused whatever the recovery
// policy) and canonical envelope check of every event (which follows it).
// It also restores whole v3 artifacts as dsh's historical catalog does, to
// read child sessions of generation 0–3 for catalog evidence.
package v3

import (
	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// Version is the format version this package reads.
const Version = 3

// DecodeHeader decodes a v3 physical header: a lossless JSON object with
// version 3, then the released v2 header codec with version 2 swapped in.
func DecodeHeader(v jsonv.Value) (session.Header, error) {
	if !v2.IsLossless(v) {
		return session.Header{}, session.FormatErrorf("format v3 physical header is not lossless JSON")
	}
	if n, ok := v.Field("version").Number(); v.Kind() != jsonv.Object || !ok || n != Version {
		return session.Header{}, session.FormatErrorf("expected format v3 physical Session header")
	}
	h, err := v2.DecodeHeader(v.With("version", jsonv.IntValue(2)))
	if err != nil {
		return session.Header{}, err
	}
	h.Version = Version
	return h, nil
}

// CheckHeader is dsh's assertReleasedV3Header for a logical header: version
// 3, then the released v2 header rules.
func CheckHeader(h session.Header) error {
	if h.Version != Version {
		return session.FormatErrorf("expected format v3 header")
	}
	h.Version = 2
	return v2.CheckHeader(h)
}
