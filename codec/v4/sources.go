package v4

import (
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

var errPluginSource = session.FormatErrorf("format v4 message requires a producer-owned source kind")

// checkProducerSource refuses a message whose source is not an object with a
// nonempty kind other than the retired "plugin".
func checkProducerSource(message jsonv.Value) error {
	source := message.Field("source")
	kind, ok := peek(source, "kind").Str()
	if !isObject(source) || !ok || kind == "" || kind == "plugin" {
		return errPluginSource
	}
	return nil
}

// checkMessageSources is dsh's assertV4MessageSources: every message slot of
// a native event names a producer-owned source.
func checkMessageSources(ev session.Event) error {
	return checkMessages(ev.Type, ev.Data(), checkProducerSource)
}

// admitSources is dsh's assertV4SourceRowAdmission: a parsed row whose
// message slots hold a retired plugin source is refused even when recovery
// would drop the row; incomplete messages are left to decoding.
func (r rowParts) admitSources() error {
	data := r.data
	if !isObject(r.row) || !isObject(data) {
		return nil
	}
	var messages []jsonv.Value
	switch r.typ {
	case "user/message":
		messages = []jsonv.Value{data}
	case "system/message", "assistant/message", "tool/result":
		messages = []jsonv.Value{data.Field("message")}
	case "agent/inbox/spliced":
		messages = data.Field("inserted").Elements()
	case "session/title-llm-request":
		messages = data.Field("messages").Elements()
	}
	for _, message := range messages {
		if isObject(message) && isString(peek(message, "source", "kind"), "plugin") && isObject(peek(message, "source")) {
			return errPluginSource
		}
	}
	return nil
}
