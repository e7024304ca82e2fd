package v2to3

import (
	"strconv"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/codec/v3"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// sourceKinds are the message source kinds a v2 message may carry.
var sourceKinds = map[string]bool{
	"user": true, "plugin": true, "model": true, "tool": true, "agent-instructions": true,
	"session-reference": true, "team-message": true, "goal": true, "skill-invocation": true,
	"skill-catalog": true, "coordinator": true, "subagent-report": true, "subagent-settled": true,
	"webhook": true, "agent-message": true,
}

// contentKinds are the content block types the edge knows how to carry.
var classifiedKinds = map[string]bool{
	"text": true, "reasoning": true, "image": true, "file": true, "tool-call": true, "tool-result": true,
}

// admit is dsh's v2 admission of one source event (assertEvent(event, 2)):
// only audited types, exact envelopes and data members, classified content
// and sources, and the released payload rules. row is the event's row with
// sourceEventSeqs in logical (expanded) form. migrated says the event comes
// from the v1→v2 edge, whose payloads the v0/v1 rules have checked: the
// payload rules then run only where they could refuse what those passed
// (carriesCheckedPayload).
func admit(ev session.Event, row jsonv.Value, migrated bool) error {
	typ := ev.Type
	d, known := v2.V2Disposition(typ)
	feedback := typ == "feedback/message-put" || typ == "feedback/message-delete"
	if !known && !feedback {
		return session.Unsupportedf("format v2 to v3 cannot safely transform unclassified event %s", typ)
	}
	surface := v3.IsSurface(typ)
	optional := envelopeOptional
	if surface {
		optional = surfaceEnvelopeOptional
	}
	if err := v3.Fields(row, envelopeRequired, optional, func() string { return typ }); err != nil {
		return err
	}
	seq, ok := row.Field("seq").Count()
	if !ok {
		return session.FormatErrorf("event seq must be a non-negative safe integer")
	}
	if _, ok := row.Field("time").SafeInt(); !ok {
		return session.FormatErrorf("event time must be a safe integer")
	}
	if ig, ok := row.Get("ignorable"); ok && !ig.IsTrue() {
		return session.FormatErrorf("ignorable must be true")
	}
	if surface {
		if err := v2.CheckSurfaceMetadata(row, seq, typ, v2.ForbidAssistant); err != nil {
			return err
		}
		if !row.Has("surfaceOp") {
			return session.FormatErrorf("%s requires surfaceOp", typ)
		}
	}
	data := row.Field("data")
	if data.Kind() != jsonv.Object {
		_, err := v3.Record(data, typ+" data")
		return err
	}
	if feedback {
		return admitFeedback(typ, data)
	}
	if d.Inherited {
		// dsh reads the member lists of an Object.prototype property.
		return session.FormatErrorf("Cannot read properties of undefined (reading 'find')")
	}
	if err := v3.Fields(data, d.Required, d.Optional, func() string { return typ + " data" }); err != nil {
		return err
	}
	if err := auditContent(typ, seq, data); err != nil {
		return err
	}
	if typ != "assistant/attempt" && !(migrated && carriesCheckedPayload(typ, data)) {
		if err := v2.CheckPayloadSemantics(session.Event{Type: typ, Seq: seq, Row: row}, 2); err != nil {
			return err
		}
	}
	if typ == "assistant/message" || typ == "assistant/attempt" {
		for _, coordinate := range []string{"turn", "step"} {
			n, ok := data.Field(coordinate).Count()
			if !ok {
				return session.FormatErrorf("%s must be a non-negative safe integer", coordinate)
			}
			if n == 0 {
				return session.FormatErrorf("%s must be positive", coordinate)
			}
		}
	}
	if inherited, ok := data.Get("inherited"); typ == "session/end-seed" && ok && !inherited.IsTrue() {
		return session.FormatErrorf("session/end-seed inherited must be true")
	}
	switch typ {
	case "user/message":
		return classifySource(data)
	case "assistant/message", "tool/result":
		message, err := v3.Record(data.Field("message"), "message")
		if err != nil {
			return err
		}
		if err := classifySource(message); err != nil {
			return err
		}
		if typ == "tool/result" && data.Field("error").Field("code").Text() == "TOOL_NOT_STARTED" {
			return checkRepairIdentity(data)
		}
	case "agent/inbox/spliced", "session/title-llm-request":
		for _, message := range data.Field(messagesKey(typ)).Elements() {
			if err := classifySource(message); err != nil {
				return err
			}
		}
	}
	return nil
}

// carriesCheckedPayload reports whether the released payload rules (dsh's
// assertReleasedPayloadSemantics) cannot refuse the data of an event of
// type typ that the v1→v2 edge hands on, so that running them again at
// payload version 2 is redundant.
//
// Every source event the v1→v2 edge emits passed the same rules at version
// 0 (the v0→v1 edge runs them on each normalized event it emits) or 1 (a
// decoded v1→v2 stage runs them on each event of a released type, and
// refuses any other type). The rules read only data, the type and, for seq
// references, the seq; version changes them in three places only: a
// delivery marker's accepted version, a legacy goal message (a user message
// whose source is {kind: "goal", change}, accepted before v2 only) and a
// session reference's capturedFormatVersion (v2 accepts more). For the
// types below v1→v2 leaves the data the rules read as it was and the seq
// matters only to wording, so their rules give at v2 what they gave before:
//   - step/start, step/end, turn/start, tool/call, tool/result and
//     assistant/message (whose data only gains its stream, which the rules
//     do not read) come through unchanged;
//   - turn/end is also the edge's own close of an interrupted turn:
//     {turn, reason: {kind: "interrupted"}} with the turn of a checked
//     turn/start, which the rules accept;
//   - a user/message with a legacy goal source is the one the edge splits,
//     its source becoming {kind: "plugin", plugin: "goal"}, which the rules
//     accept as they accepted the rest of the message; any other
//     user/message comes through unchanged;
//   - an inbox splice is unchanged, but one inserting a legacy goal message
//     is not carried: v2 refuses that message's goal source.
func carriesCheckedPayload(typ string, data jsonv.Value) bool {
	switch typ {
	case "step/start", "step/end", "turn/start", "turn/end", "tool/call", "tool/result",
		"assistant/message", "user/message":
		return true
	case "agent/inbox/spliced":
		for _, message := range data.Field("inserted").Elements() {
			source := message.Field("source")
			if source.Field("kind").Text() == "goal" && source.Has("change") {
				return false
			}
		}
		return true
	}
	return false
}

// The envelope members of a v2 event.
var (
	envelopeRequired        = []string{"type", "seq", "time", "data"}
	envelopeOptional        = []string{"ignorable"}
	surfaceEnvelopeOptional = []string{"ignorable", "sourceEventSeqs", "surfaceOp"}
)

// messagesKey names the member holding the messages of an inbox splice or a
// title request.
func messagesKey(typ string) string {
	if typ == "agent/inbox/spliced" {
		return "inserted"
	}
	return "messages"
}

func checkRepairIdentity(data jsonv.Value) error {
	message, err := v3.Record(data.Field("message"), "tool result message")
	if err != nil {
		return err
	}
	source, err := v3.Record(message.Field("source"), "tool result source")
	if err != nil {
		return err
	}
	if !v3.IsRepairIdentity(message.Field("id"), source.Field("callId")) {
		return session.FormatErrorf("TOOL_NOT_STARTED repair requires its canonical historical message id")
	}
	return nil
}

func classifySource(message jsonv.Value) error {
	source, err := v3.Record(message.Field("source"), "message source")
	if err != nil {
		return err
	}
	kind, ok := source.Field("kind").Str()
	if !ok || !sourceKinds[kind] {
		return session.Unsupportedf("cannot safely transform unclassified message source")
	}
	if kind == "agent-message" {
		if err := v3.Fields(source, []string{"kind", "form", "senderSessionId"}, nil, v3.Named("agent-message source")); err != nil {
			return err
		}
		if sender, ok := source.Field("senderSessionId").Str(); source.Field("form").Text() != "relay" || !ok || sender == "" {
			return session.FormatErrorf("agent-message source requires relay form and senderSessionId")
		}
	}
	return nil
}

func admitFeedback(typ string, data jsonv.Value) error {
	required := []string{"sessionId", "messageId"}
	if typ == "feedback/message-put" {
		required = []string{"sessionId", "item"}
	}
	if err := v3.Fields(data, required, nil, v3.Named(typ)); err != nil {
		return err
	}
	if data.Field("sessionId").Kind() != jsonv.String {
		return session.FormatErrorf("feedback sessionId must be a string")
	}
	if typ == "feedback/message-delete" {
		if data.Field("messageId").Kind() != jsonv.String {
			return session.FormatErrorf("feedback messageId must be a string")
		}
		return nil
	}
	item, err := v3.Record(data.Field("item"), "feedback item")
	if err != nil {
		return err
	}
	if err := v3.Fields(item, []string{"messageId", "rating", "version", "createdAt", "updatedAt"}, []string{"note"}, v3.Named("feedback item")); err != nil {
		return err
	}
	for _, key := range []string{"messageId", "version"} {
		if item.Field(key).Kind() != jsonv.String {
			return session.FormatErrorf("feedback %s must be a string", key)
		}
	}
	if rating := item.Field("rating").Text(); rating != "positive" && rating != "negative" {
		return session.FormatErrorf("invalid feedback rating")
	}
	if note, ok := item.Get("note"); ok && note.Kind() != jsonv.String {
		return session.FormatErrorf("feedback note must be a string")
	}
	for _, key := range []string{"createdAt", "updatedAt"} {
		if _, ok := item.Field(key).Count(); !ok {
			return session.FormatErrorf("feedback %s must be a non-negative safe integer", key)
		}
	}
	return nil
}

// auditContent refuses content block kinds the edge cannot classify, in
// every slot that holds message content or raw stream blocks.
//
// It runs quietly first, with the empty label that sub and indexed keep
// empty, and again with the labels only to word a refusal, as codec/v2's
// checks do: no check looks at a label.
func auditContent(typ string, seq int64, data jsonv.Value) error {
	if auditContentLabelled(typ, "", data) == nil {
		return nil
	}
	return auditContentLabelled(typ, "format v2 "+typ+" at seq "+strconv.FormatInt(seq, 10)+" data", data)
}

// sub extends label by part, keeping a quiet check's empty label empty.
func sub(label, part string) string {
	if label == "" {
		return ""
	}
	return label + part
}

// indexed names element i of what label names, "<label><part>[i]",
// keeping a quiet check's empty label empty.
func indexed(label, part string, i int) string {
	if label == "" {
		return ""
	}
	return label + part + "[" + strconv.Itoa(i) + "]"
}

// auditContentLabelled is auditContent with its label, or quietly with the
// empty label.
func auditContentLabelled(typ, label string, data jsonv.Value) error {
	switch typ {
	case "user/message", "tool/code-dispatch":
		if err := contentKinds(data.Field("content"), sub(label, ".content")); err != nil {
			return err
		}
	case "assistant/message", "tool/result", "team/message/queued":
		message, err := v3.Record(data.Field("message"), sub(label, ".message"))
		if err != nil {
			return err
		}
		if err := contentKinds(message.Field("content"), sub(label, ".message.content")); err != nil {
			return err
		}
	case "agent/inbox/spliced", "session/title-llm-request":
		field := messagesKey(typ)
		messages, err := contentArray(data.Field(field), sub(label, "."+field))
		if err != nil {
			return err
		}
		for i, m := range messages {
			path := indexed(label, "."+field, i)
			message, err := v3.Record(m, path)
			if err != nil {
				return err
			}
			if err := contentKinds(message.Field("content"), sub(path, ".content")); err != nil {
				return err
			}
		}
	case "compaction/summary":
		if err := contentKinds(data.Field("summary"), sub(label, ".summary")); err != nil {
			return err
		}
		if raw, ok := data.Get("rawOutput"); ok {
			if err := contentKinds(raw, sub(label, ".rawOutput")); err != nil {
				return err
			}
		}
	}
	if typ != "assistant/message" && typ != "assistant/attempt" {
		return nil
	}
	stream, err := contentArray(data.Field("stream"), sub(label, ".stream"))
	if err != nil {
		return err
	}
	for i, value := range stream {
		path := indexed(label, ".stream", i)
		entry, err := v3.Record(value, path)
		if err != nil {
			return err
		}
		if entry.Field("type").Text() != "chunk" {
			continue // packed deltas carry no blocks
		}
		chunk, err := v3.Record(entry.Field("chunk"), sub(path, ".chunk"))
		if err != nil {
			return err
		}
		switch chunk.Field("type").Text() {
		case "block-end":
			err = contentBlock(chunk.Field("block"), sub(path, ".chunk.block"))
		case "block-start":
			bt, present := chunk.Get("blockType")
			err = contentKind(bt, present, sub(path, ".chunk.blockType"))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func contentArray(v jsonv.Value, label string) ([]jsonv.Value, error) {
	if v.Kind() != jsonv.Array {
		return nil, session.FormatErrorf("%s: content must be an array", label)
	}
	return v.Elements(), nil
}

func contentKind(kind jsonv.Value, present bool, label string) error {
	if k, ok := kind.Str(); !ok || !classifiedKinds[k] {
		rendered := "undefined"
		if present {
			rendered = kind.String()
		}
		return session.Unsupportedf("%s: cannot safely transform unclassified message content kind %s", label, rendered)
	}
	return nil
}

func contentKinds(content jsonv.Value, label string) error {
	blocks, err := contentArray(content, label)
	if err != nil {
		return err
	}
	for i, b := range blocks {
		if err := contentBlock(b, indexed(label, "", i)); err != nil {
			return err
		}
	}
	return nil
}

func contentBlock(v jsonv.Value, label string) error {
	block, err := v3.Record(v, label)
	if err != nil {
		return err
	}
	typ, present := block.Get("type")
	if err := contentKind(typ, present, label); err != nil {
		return err
	}
	leaf := block
	switch typ.Text() {
	case "tool-result":
		if block.Field("content").Kind() != jsonv.Array {
			return session.FormatErrorf(`%s.content: invalid message content kind "tool-result": content must be an array`, label)
		}
		if err := contentKinds(block.Field("content"), sub(label, ".content")); err != nil {
			return err
		}
		leaf = block.With("content", jsonv.ArrayValue())
	case "file":
		return fileBlock(block, label)
	}
	// dsh checks the block's own fields with the released rules of a probe
	// user/message 0 (payload version 2) whose content is the block alone;
	// the rest of that probe is valid, so only the block can be refused,
	// as the probe's first content block. Tool-result children were audited
	// above.
	if err := v2.CheckContentBlock(leaf, probeBlockLabel, 2); err != nil {
		return session.FormatErrorf("%s: invalid message content kind %s: %s", label, typ.String(), refusalString(err))
	}
	return nil
}

// probeBlockLabel is how the released rules name the only content block of
// dsh's probe message.
const probeBlockLabel = "user/message 0 content[0]"

func fileBlock(block jsonv.Value, label string) error {
	if err := v3.Fields(block, []string{"type", "attachment"}, nil, v3.Named(sub(label, ` kind "file"`))); err != nil {
		return err
	}
	attachment, err := v3.Record(block.Field("attachment"), sub(label, ` kind "file" attachment`))
	if err != nil {
		return err
	}
	if err := v3.Fields(attachment, []string{"attachmentId", "name", "bytes"}, nil, v3.Named(sub(label, ` kind "file" attachment`))); err != nil {
		return err
	}
	if id, ok := attachment.Field("attachmentId").Str(); !ok || id == "" || attachment.Field("name").Kind() != jsonv.String {
		return session.FormatErrorf(`%s kind "file": file attachment requires attachmentId and name`, label)
	}
	if _, ok := attachment.Field("bytes").Count(); !ok {
		return session.FormatErrorf(`%s kind "file" attachment bytes must be a non-negative safe integer`, label)
	}
	return nil
}

// refusalString renders an error as JavaScript's String(error) does:
// "<name>: <message>".
func refusalString(err error) string {
	if r, ok := err.(*session.Refusal); ok {
		return r.Text()
	}
	return "Error: " + err.Error()
}
