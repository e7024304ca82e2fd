package fold

import (
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// Cause says why an open tail turn is closed: crash recovery
// (interrupted) or a fork cut inside the turn (forked). It picks the
// turn/end reason, the wording of the synthetic tool results and their id
// prefix (openTurnClosers, repair.ts@103e8703).
type Cause string

// The two causes dsh closes an open turn for.
const (
	Interrupted Cause = "interrupted"
	Forked      Cause = "forked"
)

// The error codes of synthetic tool results, shared by both causes.
const (
	CodeToolNotStarted     = "TOOL_NOT_STARTED"
	CodeToolOutcomeUnknown = "TOOL_OUTCOME_UNKNOWN"
)

// closerTexts are the model-visible texts of synthetic tool results, by
// cause: for a call recorded as started, and for one that never was.
var closerTexts = map[Cause]struct{ started, notStarted string }{
	Interrupted: {
		started:    "The tool call was interrupted after it was recorded, but no result was durably recorded. Its outcome is unknown. Decide whether to retry from the tool semantics: retry only if the operation is read-only or idempotent; if it may have side effects, first verify external state or ask the user. Do not retry blindly.",
		notStarted: "The tool call was interrupted before the Harness recorded it as started. Retry it if it is still needed.",
	},
	Forked: {
		started:    "The history inherited by this branch records this tool call starting but does not include its result. The parent session may have completed it after the fork point. Decide whether to retry from the tool semantics: retry only if the operation is read-only or idempotent; if it may have side effects, first verify external state or ask the user. Do not retry blindly.",
		notStarted: "The history inherited by this branch has no record of this tool call starting. The parent session may have executed it after the fork point. Decide whether to retry from the tool semantics: retry only if the operation is read-only or idempotent; if it may have side effects, first verify external state or ask the user. Do not retry blindly.",
	},
}

// turnState tracks what a repair must close: the open turn and step, and
// the tool calls of the open step still waiting for a result, in the order
// the assistant asked for them.
type turnState struct {
	turnOpen bool
	turn     optionalValue
	stepOpen bool
	step     optionalValue
	pending  []pendingCall
}

// optionalValue is a payload field that may be absent.
type optionalValue struct {
	value   jsonv.Value
	present bool
}

// isNull reports whether the field is present and null: dsh tests its
// open turn and step against null, so only an explicit null reads as closed.
func (o optionalValue) isNull() bool { return o.present && o.value.IsNull() }

func fieldOf(v jsonv.Value, key string) optionalValue {
	f, ok := v.Get(key)
	return optionalValue{f, ok}
}

// pendingCall is a tool call an assistant message asked for that has no
// result yet.
type pendingCall struct {
	id      jsonv.Value
	step    optionalValue // the step of the assistant message that asked
	callSeq int64         // the tool/call event's seq, or -1 before it is logged
}

func (t *turnState) apply(ev session.Event) {
	data := ev.Data()
	switch ev.Type {
	case typeTurnStart:
		t.turn = fieldOf(data, "turn")
		t.turnOpen = !t.turn.isNull()
		t.stepOpen = false
		t.pending = t.pending[:0]
	case typeTurnEnd:
		t.turnOpen, t.stepOpen = false, false
		t.pending = t.pending[:0]
	case typeStepStart:
		t.step = fieldOf(data, "step")
		t.stepOpen = !t.step.isNull()
	case typeStepEnd:
		t.stepOpen = false
		t.pending = t.pending[:0]
	case typeAssistant:
		content := data.Field("message").Field("content")
		if !content.MayHoldString("tool-call") {
			return // no block can be a call: none is decoded
		}
		for _, block := range content.Elements() {
			if typ, _ := block.Peek("type"); typ.Text() == "tool-call" {
				id, _ := block.Peek("id") // the block, arguments and all, is not decoded
				t.register(id, fieldOf(data, "step"))
			}
		}
	case typeToolCall:
		if i := t.find(data.Field("callId")); i >= 0 {
			t.pending[i].callSeq = ev.Seq
		}
	case typeToolResult:
		callID, _ := data.Field("message").PeekPath("source", "callId") // the source is never decoded
		if i := t.find(callID); i >= 0 {
			t.pending = append(t.pending[:i], t.pending[i+1:]...)
		}
	}
}

// register records a call; a repeated id keeps its place but starts over,
// as a JavaScript Map set does.
func (t *turnState) register(id jsonv.Value, step optionalValue) {
	call := pendingCall{id: id, step: step, callSeq: -1}
	if i := t.find(id); i >= 0 {
		t.pending[i] = call
		return
	}
	t.pending = append(t.pending, call)
}

func (t *turnState) find(id jsonv.Value) int {
	for i, c := range t.pending {
		if jsonv.Equal(c.id, id) {
			return i
		}
	}
	return -1
}

// TurnOpen reports whether the folded log ends inside a turn: crash repair
// would append closers.
func (f *Fold) TurnOpen() bool { return f.turn.turnOpen }

// Closers returns the synthetic events that close the open tail turn for
// cause, to be appended after the folded events: an error tool/result for
// each pending call of the open step (in the order they were asked for),
// then step/end when a step is open, then turn/end with the cause as its
// reason. Seqs continue the log and every closer reuses the last event's
// time. A log with no open turn needs none.
func (f *Fold) Closers(cause Cause) []session.Event {
	if f.next == 0 {
		return nil
	}
	return f.closersFrom(cause, f.next, f.lastTime)
}

// closersFrom builds the closers of the open turn starting at seq, all at
// time.
func (f *Fold) closersFrom(cause Cause, seq, time int64) []session.Event {
	t := &f.turn
	if !t.turnOpen {
		return nil
	}
	texts := closerTexts[cause]
	closers := make([]session.Event, 0, len(t.pending)+2)
	for _, call := range t.pending {
		closers = append(closers, toolResultCloser(cause, call, t.turn, seq, time, texts.started, texts.notStarted))
		seq++
	}
	if t.stepOpen {
		closers = append(closers, closerEvent("step/end", seq, time, objectOf(
			fieldMember("turn", t.turn), fieldMember("step", t.step))))
		seq++
	}
	reason := jsonv.ObjectValue(jsonv.M("kind", jsonv.StringValue(string(cause))))
	closers = append(closers, closerEvent("turn/end", seq, time, objectOf(
		fieldMember("turn", t.turn), &jsonv.Member{Key: "reason", Value: reason})))
	return closers
}

// InterruptedTurnClosers returns what dsh's crash recovery appends to the
// folded log (interruptedTurnClosers): Closers(Interrupted).
func (f *Fold) InterruptedTurnClosers() []session.Event { return f.Closers(Interrupted) }

// toolResultCloser builds the synthetic error result of one pending call,
// with dsh's key orders: the event type, seq, time, data, surfaceOp,
// sourceEventSeqs; its data turn, step, message, error; its message id,
// role, toolCallId, isError, source, content.
func toolResultCloser(cause Cause, call pendingCall, turn optionalValue, seq, time int64, startedText, notStartedText string) session.Event {
	started := call.callSeq >= 0
	text, errName, errCode := notStartedText, "ToolNotStartedError", CodeToolNotStarted
	if started {
		text, errName, errCode = startedText, "ToolOutcomeUnknownError", CodeToolOutcomeUnknown
	}
	id := string(cause) + "-tool-result-" + jsString(call.id) + "-" + jsonv.IntValue(seq).String()
	message := jsonv.ObjectValue(
		jsonv.M("id", jsonv.StringValue(id)),
		jsonv.M("role", jsonv.StringValue("tool")),
		jsonv.M("toolCallId", call.id),
		jsonv.M("isError", jsonv.BoolValue(true)),
		jsonv.M("source", jsonv.ObjectValue(jsonv.M("kind", jsonv.StringValue("tool")), jsonv.M("callId", call.id))),
		jsonv.M("content", jsonv.ArrayValue(jsonv.ObjectValue(
			jsonv.M("type", jsonv.StringValue("text")),
			jsonv.M("text", jsonv.StringValue(text)),
		))),
	)
	data := objectOf(
		fieldMember("turn", turn),
		fieldMember("step", call.step),
		&jsonv.Member{Key: "message", Value: message},
		&jsonv.Member{Key: "error", Value: jsonv.ObjectValue(
			jsonv.M("name", jsonv.StringValue(errName)),
			jsonv.M("code", jsonv.StringValue(errCode)),
		)},
	)
	ev := closerEvent(typeToolResult, seq, time, data)
	ev.Row = ev.Row.With("surfaceOp", jsonv.StringValue("append"))
	if started {
		ev.Row = ev.Row.With("sourceEventSeqs", jsonv.ArrayValue(jsonv.IntValue(call.callSeq)))
	}
	return ev
}

// closerEvent builds a synthetic event whose row is type, seq, time, data.
func closerEvent(typ string, seq, time int64, data jsonv.Value) session.Event {
	return session.Event{Type: typ, Seq: seq, Time: time, Row: jsonv.ObjectValue(
		jsonv.M("type", jsonv.StringValue(typ)),
		jsonv.M("seq", jsonv.IntValue(seq)),
		jsonv.M("time", jsonv.IntValue(time)),
		jsonv.M("data", data),
	)}
}

// fieldMember returns the member key: v, or nil when v is absent (as
// JSON.stringify drops an undefined property).
func fieldMember(key string, v optionalValue) *jsonv.Member {
	if !v.present {
		return nil
	}
	return &jsonv.Member{Key: key, Value: v.value}
}

// objectOf builds an object of the present members, in order.
func objectOf(members ...*jsonv.Member) jsonv.Value {
	kept := make([]jsonv.Member, 0, len(members))
	for _, m := range members {
		if m != nil {
			kept = append(kept, *m)
		}
	}
	return jsonv.ObjectValue(kept...)
}

// jsString renders a value as a JavaScript template literal would: a
// string as itself, anything else as its JSON text.
func jsString(v jsonv.Value) string {
	if s, ok := v.Str(); ok {
		return s
	}
	return v.String()
}

// ResumeMarker returns the untagged session/end-seed {} that dsh's Session
// appends when it restores a log for a new loop instance (crash resume
// persists it right after the closers): the row type, seq, time, data.
// dsh stamps it with the wall clock, as any live append.
func ResumeMarker(seq, time int64) session.Event {
	return closerEvent(typeEndSeed, seq, time, jsonv.ObjectValue())
}
