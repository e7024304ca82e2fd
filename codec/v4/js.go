package v4

import (
	"strings"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
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

// count requires a non-negative safe integer (not -0), as dsh's
// sessionFormatCount does, refusing with "<label> must be a non-negative
// safe integer".
func count(v jsonv.Value, label string) (int64, error) {
	n, ok := v.Count()
	if !ok {
		return 0, session.FormatErrorf("%s must be a non-negative safe integer", label)
	}
	return n, nil
}

// Quote returns s as JSON.stringify writes a string, for dsh's messages
// that interpolate JSON.stringify(type).
func Quote(s string) string { return string(jsonv.AppendString(nil, s)) }

// jsString renders a member as JavaScript's String(value) does in a template
// literal; present is false for a missing member (undefined).
func jsString(v jsonv.Value, present bool) string {
	if !present {
		return "undefined"
	}
	switch v.Kind() {
	case jsonv.String:
		return v.Text()
	case jsonv.Null:
		return "null"
	case jsonv.Object:
		return "[object Object]"
	case jsonv.Array:
		parts := make([]string, len(v.Elements()))
		for i, e := range v.Elements() {
			if e.Kind() != jsonv.Null {
				parts[i] = jsString(e, true)
			}
		}
		return strings.Join(parts, ",")
	}
	return v.String()
}
