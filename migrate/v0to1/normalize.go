package v0to1

import (
	"strconv"
	"strings"

	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// The legacy normalisations of the v0→v1 edge. New objects are built as
// dsh's object spreads build them: kept keys keep their positions and new
// keys are appended.

// compactionNames maps the pre-release compaction event names to theirs.
var compactionNames = map[string]string{
	"compact/start":   "compaction/start",
	"compact/summary": "compaction/summary",
	"compact/end":     "compaction/end",
	"compact/prune":   "compaction/prune",
}

func renameCompaction(ev session.Event) session.Event {
	if name, ok := compactionNames[ev.Type]; ok {
		return ev.With("type", jsonv.StringValue(name))
	}
	return ev
}

// refuseRetired refuses the retired event types and the retired
// request/header reason "fallback" (assertSupportedLegacyType).
func (s *edgeStage) refuseRetired(ev session.Event) (session.Event, error) {
	switch ev.Type {
	case "request/header-delta", "mode/set":
		return ev, session.Unsupportedf("session %s contains unsupported legacy %s event at seq %d", jsform.Quote(s.header.ID), ev.Type, ev.Seq)
	case "request/header":
		data, err := eventData(ev, "data")
		if err != nil {
			return ev, err
		}
		if reason, ok := data.Field("reason").Str(); ok && reason == "fallback" {
			return ev, session.Unsupportedf(`session %s contains unsupported request/header reason "fallback" at seq %d`, jsform.Quote(s.header.ID), ev.Seq)
		}
	}
	return ev, nil
}

// turnStart drops a legacy turn/start trigger.
func (s *edgeStage) turnStart(ev session.Event) (session.Event, error) {
	if ev.Type != "turn/start" {
		return ev, nil
	}
	data, err := eventData(ev, "data")
	if err != nil || !data.Has("trigger") {
		return ev, err
	}
	if err := releasedMembers(ev, "data", data, []string{"turn", "trigger"}, nil); err != nil {
		return ev, err
	}
	turn, err := count(ev, "turn", data.Field("turn"))
	if err != nil {
		return ev, err
	}
	trigger := data.Field("trigger")
	if _, err := record(ev, "trigger", trigger); err != nil {
		return ev, err
	}
	if kind, ok := trigger.Field("kind").Str(); turn < 1 || !ok || kind == "" {
		return ev, s.malformed(ev)
	}
	return ev.WithData(jsonv.ObjectValue(jsonv.M("turn", jsonv.IntValue(turn)))), nil
}

// turnEnd checks every turn/end and rewrites the legacy reasons: aborted
// without a cause, disposed, and error without an error record.
func (s *edgeStage) turnEnd(ev session.Event) (session.Event, error) {
	if ev.Type != "turn/end" {
		return ev, nil
	}
	data, err := eventData(ev, "data")
	if err != nil {
		return ev, err
	}
	if err := releasedMembers(ev, "data", data, []string{"turn", "reason"}, nil); err != nil {
		return ev, err
	}
	turn, err := count(ev, "turn", data.Field("turn"))
	if err != nil {
		return ev, err
	}
	if turn < 1 {
		return ev, s.malformed(ev)
	}
	reason := data.Field("reason")
	if _, err := record(ev, "reason", reason); err != nil {
		return ev, err
	}
	kind, ok := reason.Field("kind").Str()
	if !ok {
		return ev, s.malformed(ev)
	}
	var current jsonv.Value
	switch kind {
	case "completed", "blocked", "max-tokens", "interrupted":
		return ev, releasedMembers(ev, "reason", reason, []string{"kind"}, nil)
	case "aborted":
		if reason.Has("reason") {
			return ev, nil
		}
		if err := releasedMembers(ev, "reason", reason, []string{"kind"}, nil); err != nil {
			return ev, err
		}
		current = abortedBecause("legacy")
	case "disposed":
		if err := releasedMembers(ev, "reason", reason, []string{"kind"}, nil); err != nil {
			return ev, err
		}
		current = abortedBecause("disposed")
	case "error":
		if reason.Has("error") {
			return ev, nil
		}
		if current, err = s.errorReason(ev, reason); err != nil {
			return ev, err
		}
	default:
		return ev, nil // a future reason, the owner's to validate
	}
	return ev.WithData(data.With("reason", current)), nil
}

func abortedBecause(cause string) jsonv.Value {
	return jsonv.ObjectValue(
		jsonv.M("kind", jsonv.StringValue("aborted")),
		jsonv.M("reason", jsonv.ObjectValue(jsonv.M("kind", jsonv.StringValue(cause)))),
	)
}

// errorReason rewrites a legacy error reason, {kind, step, failure} or
// {kind, step, message, code?}, as {kind: "error", error: <llm failure>}.
func (s *edgeStage) errorReason(ev session.Event, reason jsonv.Value) (jsonv.Value, error) {
	if _, err := count(ev, "error step", reason.Field("step")); err != nil {
		return reason, err
	}
	if failure, ok := reason.Get("failure"); ok {
		if err := releasedMembers(ev, "reason", reason, []string{"kind", "step", "failure"}, nil); err != nil {
			return reason, err
		}
		if _, err := record(ev, "failure", failure); err != nil {
			return reason, err
		}
		if err := releasedMembers(ev, "failure", failure, []string{"message", "code"}, []string{"status", "providerRetryAfterMs", "requestId"}); err != nil {
			return reason, err
		}
		if failure.Field("message").Kind() != jsonv.String || failure.Field("code").Kind() != jsonv.String {
			return reason, s.malformed(ev)
		}
		return errorValue(failure), nil
	}
	if err := releasedMembers(ev, "reason", reason, []string{"kind", "step", "message"}, []string{"code"}); err != nil {
		return reason, err
	}
	code, hasCode := reason.Get("code")
	if reason.Field("message").Kind() != jsonv.String || (hasCode && code.Kind() != jsonv.String) {
		return reason, s.malformed(ev)
	}
	if !hasCode {
		code = jsonv.StringValue("UNKNOWN")
	}
	return errorValue(jsonv.ObjectValue(jsonv.M("message", reason.Field("message")), jsonv.M("code", code))), nil
}

func errorValue(failure jsonv.Value) jsonv.Value {
	return jsonv.ObjectValue(jsonv.M("kind", jsonv.StringValue("error")), jsonv.M("error", failure))
}

// requestHeader drops the retired messagePrefix of a request header.
func (s *edgeStage) requestHeader(ev session.Event) (session.Event, error) {
	if ev.Type != "request/header" {
		return ev, nil
	}
	data, err := eventData(ev, "data")
	if err != nil {
		return ev, err
	}
	header := data.Field("header")
	if _, err := record(ev, "header", header); err != nil {
		return ev, err
	}
	prefix, ok := header.Get("messagePrefix")
	if !ok {
		return ev, nil
	}
	if prefix.Kind() != jsonv.Array {
		return ev, session.FormatErrorf("session %s contains malformed request/header messagePrefix at seq %d", jsform.Quote(s.header.ID), ev.Seq)
	}
	return ev.WithData(data.With("header", header.Without("messagePrefix"))), nil
}

// steering turns a legacy steering/message into a user/message: a wrapped
// {turn, message} becomes its message, a flat {turn, content, source} gets
// a legacy id and the user role.
func (s *edgeStage) steering(ev session.Event) (session.Event, error) {
	if ev.Type != "steering/message" {
		return ev, nil
	}
	data, err := eventData(ev, "data")
	if err != nil {
		return ev, err
	}
	if wrapped, ok := data.Get("message"); ok {
		if err := releasedMembers(ev, "data", data, []string{"turn", "message"}, nil); err != nil {
			return ev, err
		}
		if _, err := count(ev, "turn", data.Field("turn")); err != nil {
			return ev, err
		}
		return ev.With("type", jsonv.StringValue("user/message")).WithData(wrapped), nil
	}
	if err := releasedMembers(ev, "data", data, []string{"turn", "content", "source"}, nil); err != nil {
		return ev, err
	}
	if _, err := count(ev, "turn", data.Field("turn")); err != nil {
		return ev, err
	}
	message := data.Without("turn").
		With("id", jsonv.StringValue(s.legacyMessageID(ev.Seq))).
		With("role", jsonv.StringValue("user"))
	return ev.With("type", jsonv.StringValue("user/message")).WithData(message), nil
}

// retryID gives a legacy llm/retry without a retryId the id of its retry
// chain, or a new legacy id for the chain's first retry.
func (s *edgeStage) retryID(ev session.Event) (session.Event, error) {
	if ev.Type != "llm/retry" {
		return ev, nil
	}
	data, err := eventData(ev, "data")
	if err != nil {
		return ev, err
	}
	parts := make([]string, 0, 4)
	for _, key := range []string{"turn", "step", "provider", "policyKey"} {
		if v, ok := data.Get(key); ok {
			parts = append(parts, v.String())
		} else {
			parts = append(parts, "") // JSON.stringify(undefined) joins as ""
		}
	}
	chain := strings.Join(parts, "\x00")
	existing, ok := data.Get("retryId")
	if id, isString := existing.Str(); isString && id != "" {
		s.retryIDs[chain] = id
		return ev, nil
	}
	if ok {
		return ev, nil // payload validation refuses it
	}
	id, known := s.retryIDs[chain]
	if !known {
		id = "legacy-retry:" + s.header.ID + ":" + strconv.FormatInt(ev.Seq, 10)
		s.retryIDs[chain] = id
	}
	return ev.WithData(data.With("retryId", jsonv.StringValue(id))), nil
}

// compaction gives the events of a legacy compaction the id of its
// compaction/start, or a new legacy id when the start has none.
func (s *edgeStage) compaction(ev session.Event) (session.Event, error) {
	switch ev.Type {
	case "session/end-seed":
		s.compactionID = ""
		return ev, nil
	case "compaction/start":
		data, err := eventData(ev, "data")
		if err != nil {
			return ev, err
		}
		existing, ok := data.Get("compactionId")
		if id, isString := existing.Str(); isString && id != "" {
			s.compactionID = id
			return ev, nil
		}
		if ok {
			return ev, nil
		}
		s.compactionID = "legacy-compaction:" + s.header.ID + ":" + strconv.FormatInt(ev.Seq, 10)
		return ev.WithData(data.With("compactionId", jsonv.StringValue(s.compactionID))), nil
	}
	if s.compactionID == "" {
		return ev, nil
	}
	id := jsonv.StringValue(s.compactionID)
	switch ev.Type {
	case "compaction/summary", "compaction/end":
		data, err := eventData(ev, "data")
		if err != nil {
			return ev, err
		}
		if ev.Type == "compaction/end" {
			s.compactionID = ""
		}
		if data.Has("compactionId") {
			return ev, nil
		}
		return ev.WithData(data.With("compactionId", id)), nil
	case "user/message":
		data, err := eventData(ev, "data")
		if err != nil {
			return ev, err
		}
		source := data.Field("source")
		if source.Kind() != jsonv.Object || !isString(source.Field("kind"), "plugin") ||
			!isString(source.Field("plugin"), "compact") || source.Has("compactionId") {
			return ev, nil
		}
		return ev.WithData(data.With("source", source.With("compactionId", id))), nil
	}
	return ev, nil
}

// legacyMessage wraps the pre-message shapes of user, assistant and tool
// messages (normalizeLegacyMessage). It requires every event's data to be
// an object, whatever its type.
func (s *edgeStage) legacyMessage(ev session.Event) (session.Event, error) {
	data, err := eventData(ev, "data")
	if err != nil {
		return ev, err
	}
	switch ev.Type {
	case "user/message":
		if data.Has("id") || data.Has("role") || data.Has("message") || !data.Has("content") || !data.Has("source") {
			return ev, nil
		}
		return ev.WithData(data.
			With("id", jsonv.StringValue(s.legacyMessageID(ev.Seq))).
			With("role", jsonv.StringValue("user"))), nil
	case "assistant/message":
		if data.Has("message") || !data.Has("content") || !data.Has("provenance") {
			return ev, nil
		}
		content := data.Field("content")
		rest := data.Without("content")
		provenance := rest.Field("provenance")
		if _, err := record(ev, "legacy source", provenance); err != nil {
			return ev, err
		}
		message := jsonv.ObjectValue(
			jsonv.M("id", jsonv.StringValue(s.legacyMessageID(ev.Seq))),
			jsonv.M("role", jsonv.StringValue("assistant")),
			jsonv.M("content", content),
			jsonv.M("source", provenance.With("kind", jsonv.StringValue("model"))),
		)
		return ev.WithData(rest.Without("provenance").With("message", message)), nil
	case "tool/result":
		if data.Has("message") || !data.Has("callId") || !data.Has("content") || !data.Has("isError") {
			return ev, nil
		}
		callID, content, isError := data.Field("callId"), data.Field("content"), data.Field("isError")
		if callID.Kind() != jsonv.String || isError.Kind() != jsonv.Bool {
			return ev, nil
		}
		id, err := s.toolResultID(ev)
		if err != nil {
			return ev, err
		}
		message := jsonv.ObjectValue(
			jsonv.M("id", jsonv.StringValue(id)),
			jsonv.M("role", jsonv.StringValue("user")),
			jsonv.M("content", jsonv.ArrayValue(jsonv.ObjectValue(
				jsonv.M("type", jsonv.StringValue("tool-result")),
				jsonv.M("toolCallId", callID),
				jsonv.M("content", content),
				jsonv.M("isError", isError),
			))),
			jsonv.M("source", jsonv.ObjectValue(
				jsonv.M("kind", jsonv.StringValue("tool")),
				jsonv.M("callId", callID),
			)),
		)
		return ev.WithData(data.Without("callId", "content", "isError").With("message", message)), nil
	}
	return ev, nil
}

// toolResultID is the message id of a legacy flat tool result: its own
// legacy id, or for a surface replacement the id of the message at the
// replacement's start.
func (s *edgeStage) toolResultID(ev session.Event) (string, error) {
	op := ev.Row.Field("surfaceOp")
	if op.Kind() != jsonv.Object || !isString(op.Field("op"), "replace") {
		return s.legacyMessageID(ev.Seq), nil
	}
	start, present := op.Get("start")
	if !present {
		return s.legacyMessageID(ev.Seq), nil
	}
	if n, ok := start.Number(); ok && n == float64(int64(n)) {
		if id, known := s.messageIDs.get(int64(n)); known {
			return id, nil
		}
	}
	return "", session.FormatErrorf("tool/result %d replacement cites a message without identity", ev.Seq)
}

func (s *edgeStage) legacyMessageID(seq int64) string {
	return "legacy-message:" + s.header.ID + ":" + strconv.FormatInt(seq, 10)
}

func (s *edgeStage) malformed(ev session.Event) error {
	return session.FormatErrorf("session %s contains malformed pre-react-loop %s at seq %d", jsform.Quote(s.header.ID), ev.Type, ev.Seq)
}

// label names a part of an event as dsh's messages do: "<type> <seq> <part>",
// with the type as JavaScript interpolates it.
func label(ev session.Event, part string) string {
	typ, present := ev.Row.Get("type")
	return jsform.String(typ, present) + " " + strconv.FormatInt(ev.Seq, 10) + " " + part
}

// eventData returns the event's data, which must be an object.
func eventData(ev session.Event, part string) (jsonv.Value, error) {
	return record(ev, part, ev.Data())
}

// The released checks of a part of the event, with the part's label built
// only to word a refusal.

// record requires v to be an object (v2.ReleasedRecord).
func record(ev session.Event, part string, v jsonv.Value) (jsonv.Value, error) {
	if v.Kind() == jsonv.Object {
		return v, nil
	}
	return v2.ReleasedRecord(v, label(ev, part))
}

// releasedMembers requires object v's members (v2.ReleasedMembers).
func releasedMembers(ev session.Event, part string, v jsonv.Value, required, optional []string) error {
	if v2.ReleasedMembers(v, "", required, optional) == nil {
		return nil
	}
	return v2.ReleasedMembers(v, label(ev, part), required, optional)
}

// count requires a non-negative safe integer (jsform.Count).
func count(ev session.Event, part string, v jsonv.Value) (int64, error) {
	if n, ok := v.Count(); ok {
		return n, nil
	}
	return jsform.Count(v, label(ev, part))
}

func isString(v jsonv.Value, want string) bool {
	s, ok := v.Str()
	return ok && s == want
}
