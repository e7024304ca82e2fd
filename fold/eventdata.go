package fold

import (
	"bytes"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// checkEventData applies dsh's payload rules shared by append, seed and fold
// (validateSessionEventData, surface.ts@103e8703): developer role and
// tool-change blocks, canonical request headers, and tool errors only on
// error results. subject starts every message, as dsh words it.
func checkEventData(ev session.Event, subject subject) error {
	data := ev.Data()
	if IsSurfaceEligible(ev.Type) && isRecord(data) {
		message := data.Field("message")
		if ev.Type == typeUser {
			message = data
		}
		if isRecord(message) {
			if err := checkMessageRole(ev.Type, data, message, subject); err != nil {
				return err
			}
		}
	}
	switch ev.Type {
	case typeHeader:
		if !isRecord(data) {
			return refusef("%s data must be an object", subject)
		}
		header := data.Field("header")
		if !isRecord(header) {
			return refusef("%s header must be an object", subject)
		}
		if header.Has("system") {
			return refusef("%s must omit header.system; use system/message", subject)
		}
		if tools := header.Field("tools"); tools.Kind() == jsonv.Array && tools.Len() == 0 {
			return refusef("%s must omit empty tools", subject)
		}
		if defaults := header.Field("adapterDefaults"); isRecord(defaults) && defaults.Len() == 0 {
			return refusef("%s must omit empty adapterDefaults", subject)
		}
	case typeToolResult:
		if !isRecord(data) {
			return refusef("%s data must be an object", subject)
		}
		if !data.Has("error") {
			return nil
		}
		if message := data.Field("message"); !isRecord(message) || !message.Field("isError").IsTrue() {
			return refusef("%s error requires message.isError === true", subject)
		}
	}
	return nil
}

// checkMessageRole is the message half of checkEventData: the developer role
// goes with developer/message, tool-change blocks only in it, and headerSeq
// exactly when the message adds tools.
func checkMessageRole(typ string, data, message jsonv.Value, subject subject) error {
	isDeveloper := message.Field("role").Text() == "developer" && message.Field("role").Kind() == jsonv.String
	if (typ == typeDeveloper) != isDeveloper {
		return refusef("%s developer/message and developer role must occur together", subject)
	}
	content := message.Field("content")
	if !isDeveloper && mayHoldToolChange(content) {
		for _, block := range content.Elements() {
			if isToolChange(block) {
				return refusef("%s tool-change blocks require developer role", subject)
			}
		}
	}
	if typ != typeDeveloper || content.Kind() != jsonv.Array {
		return nil
	}
	hasAdditions := false
	for _, block := range content.Elements() {
		if !isToolChange(block) {
			continue
		}
		blockType := block.Field("type").Text()
		if name, ok := block.Field("toolName").Str(); !ok || name == "" {
			return refusef("%s %s requires a nonempty toolName", subject, blockType)
		}
		if blockType == "tool-addition" {
			hasAdditions = true
			if block.Has("tool") {
				return refusef("%s tool-addition must omit inline tool definitions", subject)
			}
		}
	}
	_, headerSeqValid := data.Field("headerSeq").Count()
	if hasAdditions && !headerSeqValid || !hasAdditions && data.Has("headerSeq") {
		return refusef("%s requires headerSeq exactly when tool additions are present", subject)
	}
	return nil
}

// mayHoldToolChange reports whether content may hold a tool-change block:
// false when its canonical text quotes neither tag, so that the blocks of a
// long conversation are not decoded only to find none. It is
// content.MayHoldString("tool-addition") || content.MayHoldString("tool-removal")
// in one scan of the text instead of two: both tags are plain text whose
// first byte other than a letter is the '-' after "tool", and canonical text
// quotes them as they are.
func mayHoldToolChange(content jsonv.Value) bool {
	raw := content.Raw()
	if raw == nil {
		return content.MayHoldString(tagToolAddition) || content.MayHoldString(tagToolRemoval)
	}
	for i := 0; ; {
		j := bytes.IndexByte(raw[i:], '-')
		if j < 0 {
			return false
		}
		dash := i + j
		if dash >= 5 && string(raw[dash-5:dash]) == `"tool` {
			rest := raw[dash+1:]
			if bytes.HasPrefix(rest, []byte(`addition"`)) || bytes.HasPrefix(rest, []byte(`removal"`)) {
				return true
			}
		}
		i = dash + 1
	}
}

// The type tags of the tool-change blocks.
const (
	tagToolAddition = "tool-addition"
	tagToolRemoval  = "tool-removal"
)

// isToolChange reports whether a content block is a tool-addition or
// tool-removal block.
func isToolChange(block jsonv.Value) bool {
	if !isRecord(block) {
		return false
	}
	t := block.Field("type")
	return t.Kind() == jsonv.String && (t.Text() == "tool-addition" || t.Text() == "tool-removal")
}

// isRecord reports whether v is a JSON object (not an array or a scalar).
func isRecord(v jsonv.Value) bool { return v.Kind() == jsonv.Object }

// refusef returns dsh's plain Error with the given message: the Session's
// surface and payload checks raise no special class.
func refusef(format string, args ...any) *session.Refusal {
	return session.Plainf(format, args...)
}
