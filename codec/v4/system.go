package v4

import (
	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// checkSystemMessage is dsh's assertV4SystemMessageFields on a parsed row or
// a logical event's row: positive turn and step, a system-role message with an id
// and a content array whose known block kinds are well formed. Other block
// kinds and extra JSON fields are tolerated.
func (r rowParts) checkSystemMessage() error {
	if !isObject(r.row) || r.typ != "system/message" {
		return nil
	}
	data := r.data
	if err := requireObject(data, "system/message data"); err != nil {
		return err
	}
	if err := positive(data.Field("turn"), "system/message turn"); err != nil {
		return err
	}
	if err := positive(data.Field("step"), "system/message step"); err != nil {
		return err
	}
	message := data.Field("message")
	if err := requireObject(message, "system message"); err != nil {
		return err
	}
	if err := requireString(message.Field("id"), "system message id", true); err != nil {
		return err
	}
	if !isString(message.Field("role"), "system") {
		return session.FormatErrorf("format v4 system message requires system role")
	}
	content := message.Field("content")
	if content.Kind() != jsonv.Array {
		return session.FormatErrorf("format v4 system message requires content array")
	}
	for _, block := range content.Elements() {
		if err := checkSystemBlock(block); err != nil {
			return err
		}
	}
	return nil
}

func checkSystemBlock(block jsonv.Value) error {
	if err := requireObject(block, "system content block"); err != nil {
		return err
	}
	if err := requireString(block.Field("type"), "system content type", true); err != nil {
		return err
	}
	switch block.Field("type").Text() {
	case "text", "reasoning":
		return requireString(block.Field("text"), "system content text", false)
	case "tool-call":
		if err := requireString(block.Field("id"), "system tool-call id", true); err != nil {
			return err
		}
		if err := requireString(block.Field("name"), "system tool-call name", true); err != nil {
			return err
		}
		return requireString(block.Field("arguments"), "system tool-call arguments", false)
	case "image":
		return checkSystemImage(block.Field("attachment"))
	case "tool-result":
		return session.FormatErrorf("format v4 system content rejects retired tool-result wrappers")
	}
	return nil
}

var imageMediaTypes = []string{"image/png", "image/jpeg", "image/webp", "image/gif"}

func checkSystemImage(attachment jsonv.Value) error {
	if err := requireObject(attachment, "system image attachment"); err != nil {
		return err
	}
	if err := requireString(attachment.Field("attachmentId"), "system image attachmentId", true); err != nil {
		return err
	}
	supported := false
	for _, t := range imageMediaTypes {
		supported = supported || isString(attachment.Field("mediaType"), t)
	}
	if !supported {
		return session.FormatErrorf("format v4 system image requires a supported mediaType")
	}
	if _, err := jsform.Count(attachment.Field("bytes"), "system image bytes"); err != nil {
		return err
	}
	if err := positive(attachment.Field("width"), "system image width"); err != nil {
		return err
	}
	if err := positive(attachment.Field("height"), "system image height"); err != nil {
		return err
	}
	if name, ok := attachment.Get("name"); ok {
		if err := requireString(name, "system image name", false); err != nil {
			return err
		}
	}
	if original, ok := attachment.Get("originalDimensions"); ok {
		if err := requireObject(original, "system image originalDimensions"); err != nil {
			return err
		}
		if err := positive(original.Field("width"), "system image original width"); err != nil {
			return err
		}
		return positive(original.Field("height"), "system image original height")
	}
	return nil
}

func requireObject(v jsonv.Value, subject string) error {
	if !isObject(v) {
		return session.FormatErrorf("format v4 %s requires an object", subject)
	}
	return nil
}

func requireString(v jsonv.Value, subject string, nonEmpty bool) error {
	s, ok := v.Str()
	if !ok || (nonEmpty && s == "") {
		suffix := ""
		if nonEmpty {
			suffix = " with content"
		}
		return session.FormatErrorf("format v4 %s requires a string%s", subject, suffix)
	}
	return nil
}

// positive requires a count above zero; a value that is no count at all is
// refused with sessionFormatCount's message, which has no "format v4" prefix.
func positive(v jsonv.Value, subject string) error {
	n, err := jsform.Count(v, subject)
	if err != nil {
		return err
	}
	if n == 0 {
		return session.FormatErrorf("format v4 %s must be positive", subject)
	}
	return nil
}
