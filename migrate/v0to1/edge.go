// Package v0to1 is dsh's migration edge from session format v0 to v1
// (@deepseek-ai/dsh-session-format-v0-to-v1): the identity on a canonical
// v0 log apart from the header version, plus a bounded set of legacy
// normalisations (renamed compaction events, steering messages, flat
// message shapes, retry and compaction ids, old turn reasons) and dsh's
// released payload validation, refusing the retired shapes it cannot carry.
package v0to1

import (
	"github.com/dshlog/dshlog/codec/v1"
	"github.com/dshlog/dshlog/migrate/stage"
	"github.com/dshlog/dshlog/session"
)

// Name is dsh's package name for the edge, which prefixes its refusals.
const Name = "@deepseek-ai/dsh-session-format-v0-to-v1"

// Edge is the v0→v1 migration.
type Edge struct{}

var _ stage.Edge = Edge{}

// Name returns dsh's package name for the edge.
func (Edge) Name() string { return Name }

// From returns 0.
func (Edge) From() int { return 0 }

// MigrateHeader returns the v0 header as v1; nothing else changes.
func (Edge) MigrateHeader(h session.Header) (session.Header, error) {
	if h.Version != 0 {
		return h, session.FormatErrorf("expected format v0 header")
	}
	h.Version = 1
	return h, nil
}

// ValidateTargetHeader checks h as a released v1 header.
func (Edge) ValidateTargetHeader(h session.Header) error { return v1.CheckHeader(h) }

// NewStage starts migrating one v0 session's events. The v0 codec always
// knows the inherited cut from the header, and the edge keeps it.
func (Edge) NewStage(in stage.StageInput) (stage.Stage, error) {
	if in.SourceHeader.Version != 0 {
		return nil, session.FormatErrorf("expected format v0 header")
	}
	if in.SourceCut < 0 {
		return nil, session.FormatErrorf("format v0 inherited event count must be a non-negative safe integer")
	}
	return &edgeStage{
		header:     in.SourceHeader,
		cut:        in.SourceCut,
		messageIDs: newMessageIDs(),
		retryIDs:   map[string]string{},
	}, nil
}
