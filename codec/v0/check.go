package v0

import (
	"slices"
	"strconv"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// The primitive checks of dsh's released v0/v1 codec, each refusing with
// dsh's exact words.

// Record requires a JSON object, refusing with "<label> must be a JSON
// object" (dsh's releasedV0Record).
func Record(v jsonv.Value, label string) error {
	if v.Kind() != jsonv.Object {
		return session.FormatErrorf("%s must be a JSON object", label)
	}
	return nil
}

// ExactMembers requires every required member of object v and nothing
// outside required and optional, reporting an unexpected member before a
// missing one (dsh's assertReleasedV0Keys).
func ExactMembers(v jsonv.Value, label string, required, optional []string) error {
	for _, m := range v.Members() {
		if !slices.Contains(required, m.Key) && !slices.Contains(optional, m.Key) {
			return session.FormatErrorf("%s has unexpected member %s", label, Quote(m.Key))
		}
	}
	for _, k := range required {
		if !v.Has(k) {
			return session.FormatErrorf("%s lacks required member %s", label, Quote(k))
		}
	}
	return nil
}

// Count requires a non-negative safe integer, -0 refused (dsh's
// sessionFormatCount).
func Count(v jsonv.Value, label string) (int64, error) {
	n, ok := v.Count()
	if !ok {
		return 0, session.FormatErrorf("%s must be a non-negative safe integer", label)
	}
	return n, nil
}

// safeInteger requires a safe integer, -0 refused (sessionFormatSafeInteger).
func safeInteger(v jsonv.Value, label string) (int64, error) {
	n, ok := v.SafeInt()
	if !ok {
		return 0, session.FormatErrorf("%s must be a safe integer", label)
	}
	return n, nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Quote returns s as JavaScript's JSON.stringify writes a string, which dsh
// uses to name keys, types and ids in its messages.
func Quote(s string) string { return string(jsonv.AppendString(nil, s)) }

// JSString renders a member as a JavaScript template literal interpolates
// it (String(v)); present false stands for undefined.
func JSString(v jsonv.Value, present bool) string {
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
		out := ""
		for i, e := range v.Elements() {
			if i > 0 {
				out += ","
			}
			if e.Kind() != jsonv.Null {
				out += JSString(e, true)
			}
		}
		return out
	}
	return v.String()
}
