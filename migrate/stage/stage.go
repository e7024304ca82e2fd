// Package stage is the contract between dsh's adjacent format migrations
// (v0→v1, …, v3→v4) and the chain that runs them: an Edge migrates a header
// and starts a Stage, which transforms one session's items (session.Item:
// an event, or a compact run of events) in seq order.
package stage

import (
	"github.com/dshlog/dshlog/session"
)

// StageInput is what a stage is created with, as in dsh's createStage.
type StageInput struct {
	SourceHeader session.Header
	TargetHeader session.Header
	// SourceCut is the inherited event count of the source when known up
	// front (0 for an unseeded session), or -1 when unknown until Finish.
	SourceCut int64
	// Decoded is true for the first stage of a chain, which consumes codec
	// output; later stages consume transformed events.
	Decoded bool
}

// Stage is one adjacent migration at work on one session: stateful, fed in
// seq order.
type Stage interface {
	// Transform takes the next item and emits what it becomes.
	Transform(item session.Item, emit session.Emit) error
	// Finish may emit trailing events and returns the target cut.
	Finish(emit session.Emit) (int64, error)
	// HeaderCut is the target cut when it is known before Finish (it then
	// must not change), or -1.
	HeaderCut() int64
}

// Edge is an adjacent migration from version From to From+1.
type Edge interface {
	// Name is dsh's package name for the edge, used in refusals, e.g.
	// "@deepseek-ai/dsh-session-format-v2-to-v3".
	Name() string
	// From is the source version; the target is From+1.
	From() int
	// MigrateHeader returns the target header.
	MigrateHeader(h session.Header) (session.Header, error)
	// ValidateTargetHeader checks that the target writer could emit h.
	ValidateTargetHeader(h session.Header) error
	// NewStage starts migrating one session's body.
	NewStage(in StageInput) (Stage, error)
}
