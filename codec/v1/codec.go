// Package v1 is dsh's released format v1. Its rows are laid out exactly as
// v0's (event rows, packed Assistant chunk runs, sourceEventSeqs ranges, the
// recoverable row scan), so the row codec lives once, in codec/v0, and this
// package holds what is v1's own: the header whose version is 1, the header
// rules, and the codec entry point that reads a v1 session.
//
// Memory: that of codec/v0's Decoder (one row and the open chunk run).
package v1

import (
	"github.com/dshlog/dshlog/codec/v0"
	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// Version is the format version this package reads.
const Version = 1

// DecodeHeader decodes a v1 physical header with dsh's released codec's
// refusals (a v0 header, or any other version, is refused), and returns the
// logical header and the inherited cut its seedLength states.
func DecodeHeader(hv jsonv.Value) (session.Header, int64, error) {
	return v0.DecodeHeader(hv, Version)
}

// CheckHeader is dsh's assertReleasedV1Header: a logical header of version
// 1 whose cwd, when present, is absolute. The v0→v1 edge checks its target
// with it and the v1→v2 edge its source.
func CheckHeader(h session.Header) error {
	return v0.CheckHeader(h, Version)
}

// NewDecoder decodes the v1 physical header hv and returns the decoder of
// the session's rows, which share v0's layout.
func NewDecoder(hv jsonv.Value, recovery v2.Recovery) (*v0.Decoder, error) {
	return v0.NewDecoder(hv, Version, recovery)
}
