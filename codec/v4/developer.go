package v4

import (
	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// checkDeveloperData is dsh's assertV4DeveloperData on a parsed row or a
// logical event: the developer/message shape (positive turn and step, a
// developer message with id, content and a producer-owned source, headerSeq
// exactly when a tool is added), tool-change blocks only in developer
// messages, no developer role elsewhere, and deferLoading only as true.
func checkDeveloperData(row jsonv.Value) error { return partsOf(row).checkDeveloperData() }

func (r rowParts) checkDeveloperData() error {
	typ, data := r.typ, r.data
	if !isObject(data) {
		if typ == "developer/message" {
			return session.FormatErrorf("format v4 developer/message data must be an object")
		}
		return nil
	}
	var err error
	switch typ {
	case "developer/message":
		err = checkDeveloperMessageEvent(data)
	case "user/message":
		err = checkOrdinaryMessage(data)
	case "system/message", "assistant/message", "tool/result":
		err = checkOrdinaryMessage(data.Field("message"))
	case "agent/inbox/spliced", "session/title-llm-request":
		for _, message := range data.Field(messageListKey(typ)).Elements() {
			if err = checkOrdinaryMessage(message); err != nil {
				break
			}
		}
	}
	if err != nil {
		return err
	}
	switch typ {
	case "compaction/summary":
		if err := checkToolChanges(data.Field("summary"), false); err != nil {
			return err
		}
		return checkToolChanges(data.Field("rawOutput"), false)
	case "assistant/message", "assistant/attempt":
		return checkStreamToolChanges(data.Field("stream"))
	case "request/header":
		return checkDeferLoading(data.Field("header"))
	}
	return nil
}

func checkDeveloperMessageEvent(data jsonv.Value) error {
	message := data.Field("message")
	if !isObject(message) || !isString(message.Field("role"), "developer") {
		return session.FormatErrorf("format v4 developer/message requires turn, step, and a developer message")
	}
	for _, key := range []string{"turn", "step"} {
		n, err := jsform.Count(data.Field(key), "developer/message "+key)
		if err != nil {
			return err
		}
		if n == 0 {
			return session.FormatErrorf("developer/message %s must be positive", key)
		}
	}
	content := message.Field("content")
	if err := checkToolChanges(content, true); err != nil {
		return err
	}
	source := message.Field("source")
	kind, kindIsString := peek(source, "kind").Str()
	if !nonEmptyString(message.Field("id")) || content.Kind() != jsonv.Array || !isObject(source) ||
		!kindIsString || kind == "" || kind == "plugin" {
		return session.FormatErrorf("format v4 developer message requires id, role, content, and a producer-owned source")
	}
	hasAdditions := false
	for _, block := range content.Elements() {
		hasAdditions = hasAdditions || (isObject(block) && isString(tag(block), "tool-addition"))
	}
	if hasAdditions {
		_, err := jsform.Count(data.Field("headerSeq"), "developer/message headerSeq")
		return err
	}
	if data.Has("headerSeq") {
		return session.FormatErrorf("format v4 developer/message must omit headerSeq without tool additions")
	}
	return nil
}

// checkOrdinaryMessage refuses the developer role and tool-change blocks in
// a message slot that is not a developer/message; malformed slots are left
// to decoding.
func checkOrdinaryMessage(message jsonv.Value) error {
	if !isObject(message) {
		return nil
	}
	if isString(message.Field("role"), "developer") {
		return session.FormatErrorf("format v4 developer/message and developer role must occur together")
	}
	return checkToolChanges(message.Field("content"), false)
}

func checkToolChanges(content jsonv.Value, developer bool) error {
	if !mayHoldToolChange(content) {
		return nil
	}
	for _, block := range content.Elements() {
		if err := checkToolChange(block, developer); err != nil {
			return err
		}
	}
	return nil
}

func checkToolChange(block jsonv.Value, developer bool) error {
	if !isObject(block) {
		return nil
	}
	typ, _ := tag(block).Str()
	if typ != "tool-addition" && typ != "tool-removal" {
		return nil
	}
	if !developer {
		return session.FormatErrorf("format v4 %s requires developer role", typ)
	}
	if !nonEmptyString(block.Field("toolName")) {
		return session.FormatErrorf("format v4 %s requires a nonempty toolName", typ)
	}
	if typ == "tool-addition" && block.Has("tool") {
		return session.FormatErrorf("format v4 tool-addition must omit inline tool definitions")
	}
	return nil
}

// mayHoldToolChange reports whether v may hold a tool-addition or
// tool-removal tag; any other content block or chunk passes these checks.
func mayHoldToolChange(v jsonv.Value) bool {
	return v.MayHoldString("tool-addition") || v.MayHoldString("tool-removal")
}

func checkStreamToolChanges(stream jsonv.Value) error {
	if !mayHoldToolChange(stream) {
		return nil
	}
	for _, entry := range StreamChunks(stream) {
		if !isString(tag(entry), "chunk") {
			continue
		}
		// A chunk that is not an object, or a block that is not, has no type.
		chunkType := peek(entry, "chunk", "type")
		if blockType, _ := peek(entry, "chunk", "block", "type").Str(); isString(chunkType, "block-end") &&
			(blockType == "tool-addition" || blockType == "tool-removal") {
			return checkToolChange(peek(entry, "chunk", "block"), false)
		}
		if !isString(chunkType, "block-start") {
			continue
		}
		if blockType := peek(entry, "chunk", "blockType"); isString(blockType, "tool-addition") || isString(blockType, "tool-removal") {
			return session.FormatErrorf("format v4 tool-change blocks require developer role")
		}
	}
	return nil
}

func checkDeferLoading(header jsonv.Value) error {
	if !isObject(header) {
		return nil
	}
	for _, tool := range header.Field("tools").Elements() {
		if v, ok := tool.Get("deferLoading"); ok && !v.IsTrue() {
			return session.FormatErrorf("format v4 tool deferLoading must be true when present")
		}
	}
	return nil
}
