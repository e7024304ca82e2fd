package v3to4

import (
	"slices"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// liftToolResult turns a released v3 tool/result, whose user-role message
// wraps the result in one tool-result block, into v4's first-class
// tool-role message (dsh's liftToolResult). The new message's keys are
// role, source, toolCallId, content, [isError], id, then the old message's
// other members as "plugin:message:<key>" and the wrapper's other members as
// "plugin:result:<key>", each in their old order. Other events, and results
// that are not user-role, pass unchanged.
func liftToolResult(ev *edit) error {
	if ev.Type != "tool/result" {
		return nil
	}
	data := ev.Data()
	message := data.Field("message")
	if data.Kind() != jsonv.Object || message.Kind() != jsonv.Object || !isString(message.Field("role"), "user") {
		return nil
	}
	subject := func() string { return "format v3 tool/result at seq " + itoa(ev.Seq) }
	source := message.Field("source")
	callIDValue, _ := source.Peek("callId")
	callID, callIDOK := callIDValue.Str()
	content := message.Field("content")
	var wrapper jsonv.Value
	if content.Kind() == jsonv.Array && content.Len() == 1 {
		wrapper = content.Index(0)
	}
	id, idOK := message.Field("id").Str()
	if !idOK || id == "" || source.Kind() != jsonv.Object || !isString(peekKind(source), "tool") ||
		!callIDOK || callID == "" || wrapper.Kind() != jsonv.Object ||
		!isString(wrapper.Field("type"), "tool-result") || !isString(wrapper.Field("toolCallId"), callID) {
		return session.FormatErrorf("%s requires exactly one tool-result wrapper matching its tool source", subject())
	}
	isError, hasIsError := wrapper.Get("isError")
	if hasIsError && isError.Kind() != jsonv.Bool {
		return session.FormatErrorf("%s tool-result isError must be boolean", subject())
	}
	result := wrapper.Field("content")
	if result.Kind() != jsonv.Array {
		return session.FormatErrorf("%s tool-result content must be an array", subject())
	}
	if result.MayHoldString("tool-result") {
		for _, block := range result.Elements() {
			if tag, _ := block.Peek("type"); isString(tag, "tool-result") {
				return session.Unsupportedf("%s contains a nested tool-result unsupported by this converter", subject())
			}
		}
	}
	// Exactly the members below: the fixed ones and isError stand for the
	// message's four owned members and the wrapper's three or four.
	members := make([]jsonv.Member, 0, message.Len()+wrapper.Len()-2)
	members = append(members,
		jsonv.M("role", jsonv.StringValue("tool")),
		jsonv.M("source", source),
		jsonv.M("toolCallId", jsonv.StringValue(callID)),
		jsonv.M("content", result),
	)
	if hasIsError {
		members = append(members, jsonv.M("isError", isError))
	}
	members = append(members, jsonv.M("id", jsonv.StringValue(id)))
	members = appendExtensions(members, message, "plugin:message:", "id", "role", "source", "content")
	members = appendExtensions(members, wrapper, "plugin:result:", "type", "toolCallId", "content", "isError")
	// The prefixed keys cannot collide with each other or the fixed ones.
	ev.set("data", data.With("message", jsonv.ObjectValue(members...)))
	return nil
}

// appendExtensions appends every member of v not named in owned, its key
// prefixed.
func appendExtensions(members []jsonv.Member, v jsonv.Value, prefix string, owned ...string) []jsonv.Member {
	for _, m := range v.Members() {
		if !slices.Contains(owned, m.Key) {
			members = append(members, jsonv.M(prefix+m.Key, m.Value))
		}
	}
	return members
}

// peekKind returns a message source's kind without decoding the source.
func peekKind(source jsonv.Value) jsonv.Value {
	kind, _ := source.Peek("kind")
	return kind
}

func isString(v jsonv.Value, s string) bool {
	t, ok := v.Str()
	return ok && t == s
}

func itoa(n int64) string { return jsonv.IntValue(n).String() }
