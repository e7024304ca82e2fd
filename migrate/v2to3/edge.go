// Package v2to3 is dsh's migration edge from session format v2 to v3
// (@deepseek-ai/dsh-session-format-v2-to-v3): it promotes the request
// system prompt to protected system messages, renames the code-mode PTC
// vocabulary, remaps references past the inserted messages and gives every
// event its canonical v3 envelope, refusing whatever it cannot carry safely.
package v2to3

import (
	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/codec/v3"
	"github.com/dshlog/dshlog/migrate/stage"
	"github.com/dshlog/dshlog/session"
)

// Name is dsh's package name for the edge, which prefixes its refusals.
const Name = "@deepseek-ai/dsh-session-format-v2-to-v3"

// Edge is the v2→v3 migration.
type Edge struct {
	// Headless lets a session whose surface begins before its first step
	// go without a system head, as the v0 line's Session does (its system
	// prompt lives in the request header), where dsh's migrator refuses it
	// because no head can be placed first without changing chronology.
	Headless bool
}

var _ stage.Edge = Edge{}

// Name returns dsh's package name for the edge.
func (Edge) Name() string { return Name }

// From returns 2.
func (Edge) From() int { return 2 }

// MigrateHeader validates the released v2 header and returns it as v3, with
// the retired agent preset "code" renamed "ptc".
func (Edge) MigrateHeader(h session.Header) (session.Header, error) {
	if err := v2.CheckHeader(h); err != nil {
		return h, err
	}
	h.Version = v3.Version
	if h.AgentPreset != nil && *h.AgentPreset == "code" {
		h.AgentPreset = session.Str("ptc")
	}
	return h, nil
}

// ValidateTargetHeader checks h as a released v3 header.
func (Edge) ValidateTargetHeader(h session.Header) error { return v3.CheckHeader(h) }

// NewStage starts migrating one v2 session's events.
func (e Edge) NewStage(in stage.StageInput) (stage.Stage, error) {
	if err := v2.CheckHeader(in.SourceHeader); err != nil {
		return nil, err
	}
	s := newStage(in)
	s.headlessAllowed = e.Headless
	return s, nil
}
