package migrate

import (
	"errors"
	"strings"

	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/migrate/stage"
	"github.com/dshlog/dshlog/session"
)

// Chain is dsh's compiled migration chain: exactly one adjacent edge
// v(N)→v(N+1) for every version from the oldest one it reads to the current
// one, run in order.
type Chain struct {
	oldest  int
	current int
	edges   []stage.Edge // edges[v-oldest] migrates v to v+1
	// restoreHeader is the current version's header check, run after the
	// last edge by MigrateHeader (dsh's restoreCurrentHeader).
	restoreHeader func(session.Header) error
}

// NewChain compiles edges into the chain that leads every version from
// oldest to current, refusing gaps, duplicates and edges outside that span
// as dsh's createSessionFormatChain does (dsh's oldest is always 0).
// restoreHeader may be nil.
func NewChain(oldest, current int, restoreHeader func(session.Header) error, edges ...stage.Edge) (*Chain, error) {
	byFrom := make(map[int]stage.Edge, len(edges))
	names := make(map[string]bool, len(edges))
	for _, e := range edges {
		if e.Name() == "" {
			return nil, session.FormatErrorf("Session migration name must be a non-empty string")
		}
		if e.From() < oldest {
			return nil, session.FormatErrorf("Session migration from v%d starts before the oldest readable v%d", e.From(), oldest)
		}
		if _, dup := byFrom[e.From()]; dup {
			return nil, session.FormatErrorf("Session migration v%d->v%d is duplicated", e.From(), e.From()+1)
		}
		if names[e.Name()] {
			return nil, session.FormatErrorf("Session migration name %q is duplicated", e.Name())
		}
		byFrom[e.From()] = e
		names[e.Name()] = true
	}
	ordered := make([]stage.Edge, 0, current-oldest)
	for v := oldest; v < current; v++ {
		e, ok := byFrom[v]
		if !ok {
			return nil, session.Unsupportedf("Session migration v%d->v%d is missing", v, v+1)
		}
		ordered = append(ordered, e)
	}
	for v := range byFrom {
		if v >= current {
			return nil, session.FormatErrorf("Session migration from v%d does not lead to current v%d", v, current)
		}
	}
	return &Chain{oldest: oldest, current: current, edges: ordered, restoreHeader: restoreHeader}, nil
}

// Current returns the version the chain leads to.
func (c *Chain) Current() int { return c.current }

// Plan returns the edges that carry version from to the current version, in
// order; a newer version, or one older than the chain reaches, is refused as
// unsupported.
func (c *Chain) Plan(from int) ([]stage.Edge, error) {
	if from > c.current {
		return nil, errNewer(from, c.current)
	}
	if from < c.oldest {
		return nil, errOlder(from, c.oldest)
	}
	return c.edges[from-c.oldest:], nil
}

func errNewer(stored, current int) error {
	return session.Unsupportedf(newerFormat+"v%d; this build writes v%d", stored, current)
}

// newerFormat starts dsh's refusal of a format newer than it writes.
const newerFormat = "stored Session uses newer format "

// HeaderRefusal returns dsh's refusal of a log's header line when that is
// why Open failed: a log dsh reads and refuses, like a refused row, as
// opposed to a file it cannot read or one stored in a format newer than it
// writes, which no build of its line reads.
func HeaderRefusal(err error) (*session.Refusal, bool) {
	var r *session.Refusal
	var located *jsonl.Error
	if !errors.As(err, &r) || !errors.As(err, &located) || located.Line != 1 || strings.HasPrefix(r.Msg, newerFormat) {
		return nil, false
	}
	return r, true
}

// errOlder refuses a version older than the chain reaches. dsh's own
// catalog always starts at v0, so only a chain built from a later version
// (as tests build them) can refuse this way.
func errOlder(stored, oldest int) error {
	return session.Unsupportedf("stored Session uses older format v%d; this build ships no upgrade path for it (it reads v%d and later)", stored, oldest)
}

// MigrateHeader carries a stored header through every planned edge and the
// current header check, without reading any body (dsh's chain.migrateHeader,
// used to classify a header).
func (c *Chain) MigrateHeader(h session.Header) (session.Header, error) {
	plan, err := c.Plan(h.Version)
	if err != nil {
		return h, err
	}
	for _, e := range plan {
		if h, err = advanceHeader(e, h); err != nil {
			return h, err
		}
	}
	if c.restoreHeader != nil {
		if err := c.restoreHeader(h); err != nil {
			return h, err
		}
	}
	if h.Version != c.current {
		return h, session.FormatErrorf("current Session header restorer returned v%d; expected v%d", h.Version, c.current)
	}
	return h, nil
}

// advanceHeader runs one edge's header migration and its target check, with
// dsh's wrapping of their refusals.
func advanceHeader(e stage.Edge, source session.Header) (session.Header, error) {
	target, err := e.MigrateHeader(source)
	if err != nil {
		return source, refusalOf(e, err, "Session header")
	}
	if target.Version != e.From()+1 {
		return source, session.FormatErrorf("%s header returned v%d; expected v%d", e.Name(), target.Version, e.From()+1)
	}
	if err := e.ValidateTargetHeader(target); err != nil {
		return source, refusalOf(e, err, "Session header")
	}
	return target, nil
}

// refusalOf wraps an error raised inside edge e as dsh's chain does: an
// unsupported-migration refusal passes unchanged, anything else becomes one
// that names the edge. Errors of the sink pass untouched.
func refusalOf(e stage.Edge, err error, subject string) error {
	var pass *sinkError
	if errors.As(err, &pass) {
		return err
	}
	var r *session.Refusal
	if errors.As(err, &r) && r.Class == session.ClassUnsupported {
		return err
	}
	return session.Unsupportedf("%s refuses this format v%d %s: %s", e.Name(), e.From(), subject, err.Error())
}

// sinkError carries an error of the chain's output (a write failure, say)
// through the stages without being taken for a refusal of theirs.
type sinkError struct{ err error }

func (e *sinkError) Error() string { return e.err.Error() }
func (e *sinkError) Unwrap() error { return e.err }

// Stream is one session's events on their way through the planned edges:
// items go in at the first stage and come out, migrated, at the sink.
type Stream struct {
	// Header is the target (current) header.
	Header    session.Header
	stages    []chained
	sourceCut int64
	entry     session.Emit
}

type chained struct {
	edge  stage.Edge
	stage stage.Stage
	out   session.Emit // the next stage's input, or the sink
}

// NewStream starts migrating a session with the stored header h and the
// codec's predeclared inherited cut (-1 when unknown until the end); every
// migrated item is handed to sink. Header refusals come before any body row,
// as in dsh.
func (c *Chain) NewStream(h session.Header, sourceCut int64, sink session.Emit) (*Stream, error) {
	plan, err := c.Plan(h.Version)
	if err != nil {
		return nil, err
	}
	s := &Stream{sourceCut: sourceCut, stages: make([]chained, len(plan))}
	cut := sourceCut
	for i, e := range plan {
		target, err := advanceHeader(e, h)
		if err != nil {
			return nil, err
		}
		st, err := e.NewStage(stage.StageInput{SourceHeader: h, TargetHeader: target, SourceCut: cut, Decoded: i == 0})
		if err != nil {
			return nil, refusalOf(e, err, "Session")
		}
		s.stages[i] = chained{edge: e, stage: st}
		h, cut = target, st.HeaderCut()
	}
	s.Header = h
	// Link the contexts from the last stage back to the first, so that each
	// stage's emit feeds the next one synchronously.
	out := func(item session.Item) error {
		if err := sink(item); err != nil {
			return &sinkError{err}
		}
		return nil
	}
	for i := len(s.stages) - 1; i >= 0; i-- {
		s.stages[i].out = out
		ch := &s.stages[i]
		out = func(item session.Item) error {
			if err := ch.stage.Transform(item, ch.out); err != nil {
				return refusalOf(ch.edge, err, "Session")
			}
			return nil
		}
	}
	s.entry = out
	return s, nil
}

// Emit feeds one decoded item to the first stage.
func (s *Stream) Emit(item session.Item) error { return unwrapSink(s.entry(item)) }

// Finish finishes the stages in source-to-target order (each may still emit
// into the stages after it) and returns the target inherited cut.
func (s *Stream) Finish() (int64, error) {
	cut := s.sourceCut
	for i := range s.stages {
		ch := &s.stages[i]
		got, err := ch.stage.Finish(ch.out)
		if err != nil {
			return 0, unwrapSink(refusalOf(ch.edge, err, "Session"))
		}
		if declared := ch.stage.HeaderCut(); declared >= 0 && declared != got {
			return 0, session.FormatErrorf("%s changed its predeclared inherited cut", ch.edge.Name())
		}
		cut = got
	}
	if cut < 0 || cut > maxSafeInteger {
		return 0, session.FormatErrorf("finished Session inherited event count must be a non-negative safe integer")
	}
	return cut, nil
}

const maxSafeInteger = 1<<53 - 1

func unwrapSink(err error) error {
	if err == nil {
		return nil // before errors.As, whose target would escape for every item
	}
	var pass *sinkError
	if errors.As(err, &pass) {
		return pass.err
	}
	return err
}
