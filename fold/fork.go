package fold

import (
	"fmt"
	"io"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// ForkError is dsh's SessionForkError: a fork the store refuses, with its
// code (INVALID_BOUNDARY for a boundary that is not an existing seq).
type ForkError struct {
	Code string
	Msg  string
}

// Error returns dsh's message.
func (e *ForkError) Error() string { return e.Msg }

// CodeInvalidBoundary is the fork refusal code for a boundary that names no
// event of the parent.
const CodeInvalidBoundary = "INVALID_BOUNDARY"

// ForkTail returns the child-owned end of a fork seed cut right after the
// folded events (buildForkSeed, fork.ts@f0cc89ab): the tagged marker
// session/end-seed {"inherited":true} carrying the boundary event's time,
// then the forked closers of the open turn, which continue after it.
func (f *Fold) ForkTail() []session.Event {
	if f.next == 0 {
		return nil
	}
	marker := closerEvent(typeEndSeed, f.next, f.lastTime,
		jsonv.ObjectValue(jsonv.M("inherited", jsonv.BoolValue(true))))
	return append([]session.Event{marker}, f.closersFrom(Forked, f.next+1, f.lastTime)...)
}

// ChildHeader returns the header of a fork child as dsh's store writes it:
// the parent's cwd, parentSession naming the parent, and isSeeded. Its
// inherited cut is boundary+1, the seq of the tagged marker.
func ChildHeader(parent session.Header, childID string, createdAt int64) session.Header {
	return session.Header{
		Version:       currentVersion,
		ID:            childID,
		CreatedAt:     createdAt,
		Cwd:           parent.Cwd,
		ParentSession: session.Str(parent.ID),
		IsSeeded:      true,
	}
}

// ForkSeed streams a fork seed at boundary (an inclusive seq) out of the
// parent's events: inherit is called with each event of the inherited
// prefix, in order, and the child-owned tail (marker and closers) is
// returned. Nothing after the boundary is read. A boundary past the last
// event is refused as dsh's store refuses it.
func ForkSeed(parentID string, events Events, boundary int64, inherit func(session.Event) error) ([]session.Event, error) {
	if boundary < 0 {
		return nil, &ForkError{Code: CodeInvalidBoundary, Msg: fmt.Sprintf(
			`fork boundary for session "%s" must be a non-negative safe integer, got %d`, parentID, boundary)}
	}
	f := New()
	for f.next <= boundary {
		ev, err := events.Next()
		if err == io.EOF {
			last := "none"
			if f.next > 0 {
				last = jsonv.IntValue(f.next - 1).String()
			}
			return nil, &ForkError{Code: CodeInvalidBoundary, Msg: fmt.Sprintf(
				`fork boundary %d does not exist in session "%s" (last seq: %s)`, boundary, parentID, last)}
		}
		if err != nil {
			return nil, err
		}
		if err := f.Load(ev); err != nil {
			return nil, err
		}
		if err := inherit(ev); err != nil {
			return nil, err
		}
	}
	return f.ForkTail(), nil
}

// currentVersion is the session format a fork child is written in
// (SESSION_FORMAT_VERSION).
const currentVersion = 4
