package v4

import (
	"bytes"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// MessageFunc transforms one message of an event; it reports whether the
// message changed so that untouched payloads keep their parsed bytes.
type MessageFunc func(message jsonv.Value) (jsonv.Value, bool, error)

// MapMessages applies fn to the message slots dsh's first-party events carry
// (mapEventMessages): user/message data itself; the data.message of
// developer/, system/, assistant/message and tool/result; each of
// agent/inbox/spliced data.inserted and session/title-llm-request
// data.messages. Nothing else is visited. It returns the event's new data and
// whether it changed.
func MapMessages(typ string, data jsonv.Value, fn MessageFunc) (jsonv.Value, bool, error) {
	if !isObject(data) {
		return data, false, nil
	}
	switch typ {
	case "user/message":
		return fn(data)
	case "developer/message", "system/message", "assistant/message", "tool/result":
		message := data.Field("message")
		if !isObject(message) {
			return data, false, session.FormatErrorf("%s requires a message", typ)
		}
		out, changed, err := fn(message)
		if err != nil || !changed {
			return data, false, err
		}
		return data.With("message", out), true, nil
	}
	key := messageListKey(typ)
	if key == "" {
		return data, false, nil
	}
	list := data.Field(key)
	if list.Kind() != jsonv.Array {
		return data, false, session.FormatErrorf("%s requires message array", typ)
	}
	var mapped []jsonv.Value
	for i, message := range list.Elements() {
		if !isObject(message) {
			return data, false, session.FormatErrorf("%s requires message objects", typ)
		}
		out, changed, err := fn(message)
		if err != nil {
			return data, false, err
		}
		if changed && mapped == nil {
			mapped = append(make([]jsonv.Value, 0, list.Len()), list.Elements()[:i]...)
		}
		if mapped != nil {
			mapped = append(mapped, out)
		}
	}
	if mapped == nil {
		return data, false, nil
	}
	return data.With(key, jsonv.ArrayValue(mapped...)), true, nil
}

// messageListKey names the data member holding a list of messages.
func messageListKey(typ string) string {
	switch typ {
	case "agent/inbox/spliced":
		return "inserted"
	case "session/title-llm-request":
		return "messages"
	}
	return ""
}

// checkMessages runs check on every message slot, as dsh does with
// mapEventMessages and an identity transform.
func checkMessages(typ string, data jsonv.Value, check func(message jsonv.Value) error) error {
	_, _, err := MapMessages(typ, data, func(message jsonv.Value) (jsonv.Value, bool, error) {
		return message, false, check(message)
	})
	return err
}

// StreamChunks returns the entries of an embedded assistant stream, or none
// when the stream's canonical text shows it holds no raw block-start or
// block-end chunk — the only entries any v3/v4 rule interprets. Long
// streams of text runs are so passed over without decoding their entries.
func StreamChunks(stream jsonv.Value) []jsonv.Value {
	if raw := stream.Raw(); raw != nil && !bytes.Contains(raw, []byte(`"block-`)) {
		return nil
	}
	return stream.Elements()
}
