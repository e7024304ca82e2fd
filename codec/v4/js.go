package v4

import (
	"github.com/dshlog/dshlog/jsonv"
)

// isObject reports whether v is a JSON object (dsh's isSessionFormatJsonObject).
func isObject(v jsonv.Value) bool { return v.Kind() == jsonv.Object }

// tag returns the type tag of a content block or stream entry. It peeks:
// a block with a long text is not decoded to read its tag.
func tag(v jsonv.Value) jsonv.Value {
	t, _ := v.Peek("type")
	return t
}

// peek returns the value at a path of keys in v, or null, without decoding
// the objects on the way; for a member looked at once (see
// jsonv.Value.PeekPath).
func peek(v jsonv.Value, keys ...string) jsonv.Value {
	m, _ := v.PeekPath(keys...)
	return m
}

// isString reports whether v is the string s.
func isString(v jsonv.Value, s string) bool {
	t, ok := v.Str()
	return ok && t == s
}

// nonEmptyString reports whether v is a string with content.
func nonEmptyString(v jsonv.Value) bool {
	s, ok := v.Str()
	return ok && s != ""
}
