package v4

import (
	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// checkRetiredSyntax is dsh's assertV4RetiredSyntax on a parsed row or a
// logical event's row: required retired PTC event types, request headers that
// are not objects or still carry header.system, and released tool-result
// wrappers in the interpreted content slots and stream blocks. Tool
// arguments, schemas and extension values stay opaque.
func (r rowParts) checkRetiredSyntax() error {
	row, typ := r.row, r.typ
	if !isObject(row) {
		return nil
	}
	if (typ == "tool/code-dispatch-start" || typ == "tool/code-dispatch") && !row.Field("ignorable").IsTrue() {
		return session.Unsupportedf("format v4 rejects retired event type %s", typ)
	}
	data := r.data
	if typ == "request/header" {
		if !isObject(data) || !isObject(data.Field("header")) {
			return session.FormatErrorf("format v4 request/header requires data and header objects")
		}
		if data.Field("header").Has("system") {
			return session.FormatErrorf("format v4 request/header rejects retired header.system")
		}
		return nil
	}
	if !isObject(data) {
		return nil
	}
	subject := func() string {
		seq, hasSeq := row.Get("seq")
		return "format v4 " + typ + " at seq " + jsform.String(seq, hasSeq) + " content"
	}
	var err error
	switch typ {
	case "user/message":
		err = noWrapperIn(data.Field("content"), subject)
	case "developer/message", "assistant/message", "team/message/queued":
		err = noWrapperIn(data.Field("message").Field("content"), subject)
	case "agent/inbox/spliced", "session/title-llm-request":
		for _, message := range data.Field(messageListKey(typ)).Elements() {
			if err = noWrapperIn(message.Field("content"), subject); err != nil {
				break
			}
		}
	case "compaction/summary":
		if err = noWrapperIn(data.Field("summary"), subject); err == nil {
			err = noWrapperIn(data.Field("rawOutput"), subject)
		}
	case "tool/ptc-dispatch":
		err = noWrapperIn(data.Field("content"), subject)
	}
	if err != nil {
		return err
	}
	if typ != "assistant/message" && typ != "assistant/attempt" {
		return nil
	}
	stream := data.Field("stream")
	if !stream.MayHoldString("tool-result") {
		return nil
	}
	for _, entry := range StreamChunks(stream) {
		if !isString(tag(entry), "chunk") {
			continue
		}
		// A chunk that is not an object, or a block that is not, has no type.
		switch chunkType := peek(entry, "chunk", "type"); {
		case isString(chunkType, "block-end") && isString(peek(entry, "chunk", "block", "type"), "tool-result"),
			isString(chunkType, "block-start") && isString(peek(entry, "chunk", "blockType"), "tool-result"):
			return wrapperError(subject())
		}
	}
	return nil
}

// noWrapperIn refuses a tool-result block in a content array; anything that
// is not an array is left alone.
func noWrapperIn(content jsonv.Value, subject func() string) error {
	if !content.MayHoldString("tool-result") {
		return nil
	}
	for _, block := range content.Elements() {
		if isWrapper(block) {
			return wrapperError(subject())
		}
	}
	return nil
}

func isWrapper(block jsonv.Value) bool {
	return isObject(block) && isString(tag(block), "tool-result")
}

func wrapperError(subject string) error {
	return session.FormatErrorf("%s must not contain a released tool-result wrapper", subject)
}
