// Package v3to4 is dsh's adjacent migration from session format v3 to v4
// (@deepseek-ai/dsh-session-format-v3-to-v4): producer-owned message
// sources, first-class tool-role results, namespaced extension tags and
// events, interrupted turns closed before an evidenced restart, and the
// parent's subagent catalog completed from its children's evidence.
package v3to4

import (
	"cmp"
	"slices"

	"github.com/dshlog/dshlog/codec/v3"
	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/migrate/stage"
	"github.com/dshlog/dshlog/session"
)

// Name is dsh's package name for the edge, used in refusals.
const Name = "@deepseek-ai/dsh-session-format-v3-to-v4"

// Edge is the v3→v4 migration bound to one parent's child evidence (dsh's
// createSessionFormatV3ToV4(children)).
type Edge struct {
	children []ChildFact
}

// New returns the edge for a parent session whose subagent children gave
// the evidence children; an empty list declares a parent without children.
func New(children []ChildFact) *Edge {
	return &Edge{children: slices.Clone(children)}
}

// Name returns dsh's package name of the edge.
func (e *Edge) Name() string { return Name }

// From returns the source version, 3.
func (e *Edge) From() int { return v3.Version }

// MigrateHeader checks the v3 header and raises its version; nothing else
// changes.
func (e *Edge) MigrateHeader(h session.Header) (session.Header, error) {
	if err := v3.CheckHeader(h); err != nil {
		return h, err
	}
	h.Version = v4.Version
	return h, nil
}

// ValidateTargetHeader checks that the v4 writer could emit h.
func (e *Edge) ValidateTargetHeader(h session.Header) error { return v4.ValidateHeader(h) }

// NewStage starts migrating one session's body. The child evidence is
// checked and ordered by creation time, then id.
func (e *Edge) NewStage(in stage.StageInput) (stage.Stage, error) {
	candidates := slices.Clone(e.children)
	for _, c := range candidates {
		if err := c.check(); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(candidates, func(a, b ChildFact) int {
		return cmp.Or(cmp.Compare(a.ChildCreatedAt, b.ChildCreatedAt), compareUTF16(a.ChildID, b.ChildID))
	})
	s := &migration{
		header:     in.SourceHeader,
		sourceCut:  in.SourceCut,
		candidates: candidates,
		cut:        -1,
		markerSeq:  -1,
		time:       in.SourceHeader.CreatedAt,
		foreign:    -1,
	}
	if !in.SourceHeader.IsSeeded {
		s.cut, s.markerSeq = 0, 0
	}
	return s, nil
}
