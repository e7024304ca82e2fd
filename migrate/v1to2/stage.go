package v1to2

import (
	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/codec/v0"
	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate/stage"
	"github.com/dshlog/dshlog/session"
)

// edgeStage migrates one v1 session's events, in dsh's streaming order.
//
// Memory: the attempt being folded (its compact stream, its chunk seq
// spans and the events that arrived after its last chunk, until a message,
// a closer or another attempt settles it) and the seq map, which keeps one
// entry per run of consecutively numbered events, so it grows with the
// number of folded attempts and generated events, not with the log.
type edgeStage struct {
	header    session.Header
	decoded   bool
	sourceCut int64 // the v1 inherited cut
	seqs      seqMap

	// The legacy turn observation that detects an interrupted turn.
	turnOpen bool
	openTurn jsonv.Value // data.turn of the open turn
	stepOpen bool
	// previousSplice says the last observed event is an inbox splice into
	// the next turn with something inserted (false before any event and
	// after a packed run). It is read off the event as it goes by: an
	// emitted row is never looked into again, so that it may move on to
	// another goroutine at once.
	previousSplice bool

	pending   *attempt
	targetSeq int64
	targetCut int64   // -1 until the marker is placed
	lastTime  jsValue // time of the last source event or run
}

func newStage(in stage.StageInput) *edgeStage {
	s := &edgeStage{
		header:    in.SourceHeader,
		decoded:   in.Decoded,
		sourceCut: in.SourceCut,
		targetCut: -1,
		lastTime:  defined(jsonv.IntValue(in.SourceHeader.CreatedAt)),
	}
	if !in.SourceHeader.IsSeeded {
		s.targetCut = 0
	}
	return s
}

// HeaderCut is unknown: folding chunks changes the cardinality.
func (s *edgeStage) HeaderCut() int64 { return -1 }

// Transform migrates the next source event, or a packed chunk run.
func (s *edgeStage) Transform(item session.Item, emit session.Emit) error {
	if item.Run == nil {
		row := item.Event.Row
		if s.decoded && !item.PayloadChecked && row.Field("type").Text() != "assistant/chunk" {
			if err := checkPayload(row); err != nil {
				return err
			}
		}
		return s.transformEvent(row, item.Owned, emit)
	}
	if run, ok := item.Run.(ChunkRun); ok && run.RunType() == v0.ChunkRunType {
		return s.transformRun(run, emit)
	}
	return item.EachEvent(func(ev session.Event) error { return s.transformEvent(ev.Row, false, emit) })
}

// source is a source event on its way through the edge: its row, what the
// edge has read of it, and the data it will carry.
type source struct {
	row  jsonv.Value
	typ  string // "" when the type is not a string
	seq  int64
	time jsValue
	data jsonv.Value
	// dataChanged says data replaces the row's; dropSources leaves the
	// row's sourceEventSeqs out (a message that embeds its stream).
	dataChanged, dropSources bool
	// owned says the stage before built row for this event alone (see
	// session.Item.Owned): remap may give it its target seq in place.
	owned bool
}

// withData returns ev carrying data instead.
func (ev source) withData(data jsonv.Value) source {
	ev.data, ev.dataChanged = data, true
	return ev
}

// transformEvent is dsh's per-event pipeline, in its order; owned says the
// item owns row.
func (s *edgeStage) transformEvent(row jsonv.Value, owned bool, emit session.Emit) error {
	typeValue, hasType := row.Get("type")
	typ, seq := typeValue.Text(), seqOf(row)
	if typ == "assistant/chunk" {
		if err := checkChunkEnvelope(row, seq); err != nil {
			return err
		}
	}
	if _, known := v2.V0Disposition(jsform.String(typeValue, hasType)); !known {
		return session.Unsupportedf("format v1 contains unknown event type %s at seq %d", jsform.Stringify(typeValue, hasType), seq)
	}
	data := row.Field("data")
	isInterrupted, closedTurn := s.interruptsTurn(typ, data), s.openTurn
	if typ == "turn/start" && s.turnOpen && !isInterrupted {
		return session.Unsupportedf("turn/start %s does not close the prior turn", stringify(member(data, "turn")))
	}
	if err := s.checkDeliveryMarker(typ, seq, data); err != nil {
		return err
	}
	ev := source{row: row, typ: typ, seq: seq, time: member(row, "time"), data: data, owned: owned}
	s.observe(typ, data)
	s.lastTime = ev.time
	if isInterrupted {
		if err := s.finishAttempt(emit); err != nil {
			return err
		}
		if err := s.emitGenerated(seq, "turn/end", ev.time, interruptedEnd(closedTurn), emit); err != nil {
			return err
		}
	}
	if change, message, ok := splitLegacyGoal(ev); ok {
		// dsh emits both at once, ahead of any attempt still pending.
		if err := s.emitGenerated(seq, "goal/change", ev.time, change, emit); err != nil {
			return err
		}
		return s.emitSource(message, emit)
	}
	switch typ {
	case "assistant/chunk":
		return s.transformChunk(ev, emit)
	case "assistant/message":
		return s.transformMessage(ev, emit)
	case "turn/end", "step/end", "llm/retry", "llm/retry-started":
		if err := s.finishAttempt(emit); err != nil {
			return err
		}
		return s.emitSource(ev, emit)
	}
	if s.pending != nil {
		s.pending.after = append(s.pending.after, ev)
		return nil
	}
	return s.emitSource(ev, emit)
}

// checkPayload is dsh's assertReleasedEventPayload with version 1, run on
// every decoded v1 event of a type in the released inventory; a type that is
// not a string is looked up by its string form (v2.CheckTypeFormPayload).
func checkPayload(row jsonv.Value) error {
	typ := member(row, "type")
	seq := seqOf(row)
	if name, ok := typ.v.Str(); ok {
		if _, known := v2.V0Disposition(name); !known {
			return nil
		}
		return v2.CheckEventPayload(session.Event{Type: name, Seq: seq, Row: row}, 1)
	}
	_, err := v2.CheckTypeFormPayload(typ.v, typ.present, seq, row.Field("data"))
	return err
}

// checkChunkEnvelope requires an assistant/chunk row's envelope members:
// an unexpected member is reported first, then a missing one.
func checkChunkEnvelope(row jsonv.Value, seq int64) error {
	required := 0
	for _, m := range row.Members() {
		switch m.Key {
		case "type", "seq", "time", "data":
			required++
		case "ignorable", "sourceEventSeqs", "surfaceOp":
		default:
			return session.Unsupportedf("assistant/chunk %d has unexpected member %s", seq, m.Key)
		}
	}
	if required < 4 {
		for _, key := range []string{"type", "seq", "time", "data"} {
			if !row.Has(key) {
				return session.Unsupportedf("assistant/chunk %d lacks required member %s", seq, key)
			}
		}
	}
	if ig, ok := row.Get("ignorable"); ok && !ig.IsTrue() {
		return session.Unsupportedf("assistant/chunk %d ignorable must be true when present", seq)
	}
	return nil
}

// interruptsTurn reports whether a turn/start with data ends the open turn
// as interrupted: dsh inserts a turn/end before a turn/start that follows a
// next-turn inbox splice while the prior turn is still open between steps,
// the legacy form of an interrupted turn.
func (s *edgeStage) interruptsTurn(typ string, data jsonv.Value) bool {
	if typ != "turn/start" || !s.turnOpen || s.stepOpen || !s.previousSplice {
		return false
	}
	open, _ := s.openTurn.Number()
	turn, ok := data.Field("turn").Number()
	return ok && turn == open+1
}

// splicesNextTurn reports whether an event of type typ with data is an
// inbox splice into the next turn that inserted something.
func splicesNextTurn(typ string, data jsonv.Value) bool {
	if typ != "agent/inbox/spliced" {
		return false
	}
	inserted := data.Field("inserted")
	return data.Field("target").Text() == "next-turn" && inserted.Kind() == jsonv.Array && inserted.Len() > 0
}

// interruptedEnd is the data of the turn/end that closes turn as
// interrupted.
func interruptedEnd(turn jsonv.Value) jsonv.Value {
	return jsonv.ObjectValue(
		jsonv.M("turn", turn),
		jsonv.M("reason", jsonv.ObjectValue(jsonv.M("kind", jsonv.StringValue("interrupted")))),
	)
}

// observe follows turns and steps for interruptsTurn.
func (s *edgeStage) observe(typ string, data jsonv.Value) {
	switch typ {
	case "turn/start":
		s.turnOpen, s.openTurn, s.stepOpen = true, data.Field("turn"), false
	case "turn/end":
		s.turnOpen, s.stepOpen = false, false
	case "step/start":
		s.stepOpen = true
	case "step/end":
		s.stepOpen = false
	}
	s.previousSplice = splicesNextTurn(typ, data)
}

// checkDeliveryMarker refuses a v1 delivery marker of this very generation
// that names another session, unless it was inherited from the parent.
func (s *edgeStage) checkDeliveryMarker(typ string, seq int64, data jsonv.Value) error {
	if typ != "session-log-deepseek/delivery-accepted" {
		return nil
	}
	inherited := s.header.ParentSession != nil && seq < s.sourceCut
	version, isNumber := data.Field("sessionFormatVersion").Number()
	if isNumber && version == 1 && !inherited {
		if id, ok := data.Field("sessionId").Str(); !ok || id != s.header.ID {
			return session.Unsupportedf("current-generation delivery marker names the wrong Session")
		}
	}
	return nil
}

// splitLegacyGoal splits a v1 user/message whose source is the legacy goal
// form (kind goal with the goal change inside) into the data of a
// goal/change event and the message with a plain goal plugin source.
func splitLegacyGoal(ev source) (change jsonv.Value, message source, ok bool) {
	if ev.typ != "user/message" {
		return
	}
	src := ev.data.Field("source")
	c, has := src.Get("change")
	if src.Field("kind").Text() != "goal" || !has {
		return
	}
	message = ev.withData(ev.data.With("source", jsonv.ObjectValue(
		jsonv.M("kind", jsonv.StringValue("plugin")),
		jsonv.M("plugin", jsonv.StringValue("goal")),
	)))
	return c, message, true
}

// Finish settles a pending attempt and, for a seeded session whose cut lies
// past every event, appends the inherited end-seed marker. It returns the v2
// cut.
func (s *edgeStage) Finish(emit session.Emit) (int64, error) {
	if err := s.finishAttempt(emit); err != nil {
		return 0, err
	}
	if s.targetCut < 0 {
		s.targetCut = s.targetSeq
		if err := emit(emitted(marker(s.targetSeq, s.lastTime), "session/end-seed", s.targetSeq, s.lastTime)); err != nil {
			return 0, err
		}
		s.targetSeq++
	}
	return s.targetCut, nil
}

// event builds a generated event row {type, seq, time, data}; an undefined
// time is left out, as JSON would.
func event(typ string, seq int64, time jsValue, data jsonv.Value) jsonv.Value {
	members := []jsonv.Member{
		jsonv.M("type", jsonv.StringValue(typ)),
		jsonv.M("seq", jsonv.IntValue(seq)),
	}
	if time.present {
		members = append(members, jsonv.M("time", time.v))
	}
	return jsonv.ObjectValue(append(members, jsonv.M("data", data))...)
}

// marker is the inherited end-seed marker at target seq seq.
func marker(seq int64, time jsValue) jsonv.Value {
	return event("session/end-seed", seq, time, inheritedData())
}

func inheritedData() jsonv.Value {
	return jsonv.ObjectValue(jsonv.M("inherited", jsonv.BoolValue(true)))
}

// seqOf reads a row's seq, which the v0/v1 codec checked.
func seqOf(row jsonv.Value) int64 {
	n, _ := safeInteger(member(row, "seq"))
	return n
}

// emitted wraps a target row of type typ at seq seq as the item the edge
// emits. Every row the edge emits is one it built (remap, event, marker)
// and keeps no hold of, so the item owns it and the next stage may change
// it in place.
func emitted(row jsonv.Value, typ string, seq int64, time jsValue) session.Item {
	t, _ := time.v.SafeInt()
	return session.Item{Event: session.Event{Type: typ, Seq: seq, Time: t, Row: row}, Owned: true}
}
