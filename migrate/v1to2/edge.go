// Package v1to2 is dsh's migration edge from session format v1 to v2
// (@deepseek-ai/dsh-session-format-v1-to-v2): it folds the top-level
// assistant/chunk events of v1 (single rows and packed runs) into the
// compact stream embedded in assistant/message, or into an
// assistant/attempt for an attempt no message claims, renumbers the
// surviving events densely, rewrites every seq reference, moves the
// inherited cut onto a session/end-seed marker, and closes legacy
// interrupted turns and splits legacy goal messages.
package v1to2

import (
	"github.com/dshlog/dshlog/codec/v1"
	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate/stage"
	"github.com/dshlog/dshlog/session"
)

// Name is dsh's package name for the edge, which prefixes its refusals.
const Name = "@deepseek-ai/dsh-session-format-v1-to-v2"

// ChunkRun is a packed v0/v1 assistant chunk row as its codec emits it, a
// run of type v0.ChunkRunType (dsh's ReleasedAssistantChunkRun):
// consecutive assistant/chunk deltas of one block of one step, already in
// the shape of a v2 stream record. The edge embeds it without expanding it.
type ChunkRun interface {
	session.Run
	// Turn and Step are the coordinates every member shares.
	Turn() int64
	Step() int64
	// LastSeq and LastTime are the seq and time of the last member.
	LastSeq() int64
	LastTime() int64
	// Stream is the row as a v2 stream record: {type, time0, index, dt,
	// texts} or {type, time0, index, dt, id, name?, args}.
	Stream() jsonv.Value
}

// Edge is the v1→v2 migration.
type Edge struct{}

var _ stage.Edge = Edge{}

// Name returns dsh's package name for the edge.
func (Edge) Name() string { return Name }

// From returns 1.
func (Edge) From() int { return 1 }

// MigrateHeader checks the released v1 header and returns it as v2.
func (Edge) MigrateHeader(h session.Header) (session.Header, error) {
	if err := v1.CheckHeader(h); err != nil {
		return h, err
	}
	h.Version = 2
	return h, nil
}

// ValidateTargetHeader checks h as a released v2 header.
func (Edge) ValidateTargetHeader(h session.Header) error { return v2.CheckHeader(h) }

// NewStage starts migrating one v1 session's events. A decoded stage (fed
// by the v1 codec) checks each event's payload as released v1; one fed by
// the v0→v1 edge relies on that edge's checks. The v1 cut must be known.
func (Edge) NewStage(in stage.StageInput) (stage.Stage, error) {
	if err := v1.CheckHeader(in.SourceHeader); err != nil {
		return nil, err
	}
	if in.SourceCut < 0 {
		return nil, session.FormatErrorf("format v1 inherited event count must be a non-negative safe integer")
	}
	return newStage(in), nil
}
