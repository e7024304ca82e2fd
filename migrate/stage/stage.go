// Package stage is the contract between dsh's adjacent format migrations
// (v0→v1, …, v3→v4) and the chain that runs them: an Edge migrates a header
// and starts a Stage, which transforms one session's events in seq order.
package stage

import (
	"github.com/dshlog/dshlog/session"
)

// Item is what flows between stages: one event, or a compact run of events
// that a stage which knows its type may consume without expanding it.
type Item struct {
	Event session.Event
	Run   Run // nil for a plain event
	// PayloadChecked says the codec found the plain event passing dsh's
	// released payload rules at the stored version
	// (v2.CheckEventPayload(Event, version)), so that the first stage need
	// not run them again on the event as long as it leaves it unchanged.
	PayloadChecked bool
}

// EachEvent calls f with the item's event, or with each event of its run in
// seq order: how a stage consumes a run whose type it does not know.
func (it Item) EachEvent(f func(session.Event) error) error {
	if it.Run == nil {
		return f(it.Event)
	}
	events, err := it.Run.Expand()
	if err != nil {
		return err
	}
	for _, ev := range events {
		if err := f(ev); err != nil {
			return err
		}
	}
	return nil
}

// Run is a compact run of consecutive events (dsh's SessionFormatEventRun),
// such as a v0/v1 packed chunk row.
type Run interface {
	// RunType names the kind of run, e.g. "released-assistant-chunks".
	RunType() string
	// FirstSeq is the seq of the run's first event.
	FirstSeq() int64
	// EventCount is the number of events the run stands for.
	EventCount() int64
	// Expand returns the run's events one by one.
	Expand() ([]session.Event, error)
}

// Emit hands an item to the next stage (or to the sink after the last one).
type Emit func(Item) error

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
	Transform(item Item, emit Emit) error
	// Finish may emit trailing events and returns the target cut.
	Finish(emit Emit) (int64, error)
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
