package fold

import (
	"errors"
	"fmt"
	"io"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// Request is one model request rebuilt from the log the way dsh's loop
// built it at dispatch: only from the events strictly before its settlement
// (the assistant/message or assistant/attempt that settled it).
type Request struct {
	Index          int // 1-based: request k is the k-th settlement
	SettlementSeq  int64
	SettlementType string
	// Turn and Step are the settlement's own turn and step.
	Turn, Step int64
	// Messages is the model's view at dispatch, each message as stored.
	Messages []jsonv.Value
	// Header is the canonical request header in force, or null when no
	// request/header precedes the settlement.
	Header jsonv.Value
	// ToolHistory is {tools, updates} at dispatch.
	ToolHistory       jsonv.Value
	ReplaceGeneration int
	ContentGeneration int
}

// Request rebuilds the request that settlement settles. settlement must be
// the next event, not yet applied: a request sees only what precedes it.
func (f *Fold) Request(settlement session.Event) (Request, error) {
	if !IsSettlement(settlement.Type) {
		return Request{}, fmt.Errorf("fold: event %d (%s) is not a settlement", settlement.Seq, settlement.Type)
	}
	if settlement.Seq != f.next {
		return Request{}, fmt.Errorf("fold: settlement %d is not the next event (expected %d)", settlement.Seq, f.next)
	}
	data := settlement.Data()
	r := f.Dispatch()
	r.SettlementSeq = settlement.Seq
	r.SettlementType = settlement.Type
	r.Turn, _ = data.Field("turn").Count()
	r.Step, _ = data.Field("step").Count()
	return r, nil
}

// Dispatch returns the request a loop sends now, before its settlement is
// written: the view of every event folded so far. Its settlement fields
// are zero; the event that settles it will carry seq Next().
func (f *Fold) Dispatch() Request {
	r := Request{
		Index:             f.settlements + 1,
		Messages:          f.Messages(),
		ToolHistory:       f.ToolHistory(),
		ReplaceGeneration: f.replaceGeneration,
		ContentGeneration: f.contentGeneration,
	}
	if f.header.present {
		r.Header = f.header.header
	}
	return r
}

// Value returns the request as the loop hands it to the model client
// (buildRequest, agent.ts@103e8703): the header's config fields, messages,
// toolHistory, tools when the header has any, and the session id. The
// loop never sets system or purpose.
func (r Request) Value(sessionID string) jsonv.Value {
	var members []jsonv.Member
	members = append(members, r.Header.Field("config").Members()...)
	members = append(members,
		jsonv.M("messages", jsonv.ArrayValue(r.Messages...)),
		jsonv.M("toolHistory", r.ToolHistory),
	)
	if tools, ok := r.Header.Get("tools"); ok {
		members = append(members, jsonv.M("tools", tools))
	}
	members = append(members, jsonv.M("sessionId", jsonv.StringValue(sessionID)))
	return jsonv.ObjectValue(members...)
}

// Events is a stream of session events in seq order, ending with io.EOF
// (migrate.Reader is one).
type Events interface {
	Next() (session.Event, error)
}

// ErrNoSuchRequest is returned by RequestAt when the log settles fewer
// requests than asked for.
var ErrNoSuchRequest = errors.New("no such request")

// RequestAt folds events until the k-th settlement (1-based) and returns
// that request, reading nothing past it.
func RequestAt(events Events, k int) (Request, error) {
	f := New()
	for {
		ev, err := events.Next()
		if err == io.EOF {
			return Request{}, fmt.Errorf("%w: request %d of %d", ErrNoSuchRequest, k, f.settlements)
		}
		if err != nil {
			return Request{}, err
		}
		if IsSettlement(ev.Type) && f.settlements+1 == k {
			return f.Request(ev)
		}
		if err := f.Load(ev); err != nil {
			return Request{}, err
		}
	}
}
