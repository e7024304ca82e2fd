// Package jsform holds the JavaScript-flavoured value checks and renderings
// that every dsh session-format codec shares (dsh's session-format json.ts
// and its copies in each version's codec): counts, safe integers, object
// records and exact key sets, and values rendered as a template literal or
// JSON.stringify renders them. Refusal wording is the caller's: dsh words the
// same check differently from one format to the next.
package jsform

import (
	"slices"
	"strings"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// Count requires a non-negative safe integer, -0 refused, refusing with
// "<label> must be a non-negative safe integer" (dsh's sessionFormatCount).
func Count(v jsonv.Value, label string) (int64, error) {
	n, ok := v.Count()
	if !ok {
		return 0, session.FormatErrorf("%s must be a non-negative safe integer", label)
	}
	return n, nil
}

// SafeInteger requires a safe integer, -0 refused, refusing with "<label>
// must be a safe integer" (dsh's sessionFormatSafeInteger).
func SafeInteger(v jsonv.Value, label string) (int64, error) {
	n, ok := v.SafeInt()
	if !ok {
		return 0, session.FormatErrorf("%s must be a safe integer", label)
	}
	return n, nil
}

// Record returns v when it is a JSON object (dsh's isSessionFormatJsonObject)
// and otherwise a SessionFormatError of format applied to label, format being
// the caller's wording, such as "%s must be a JSON object".
func Record(v jsonv.Value, format, label string) (jsonv.Value, error) {
	if v.Kind() != jsonv.Object {
		return v, session.FormatErrorf(format, label)
	}
	return v, nil
}

// MissingKey returns the first of the required keys that object v lacks.
func MissingKey(v jsonv.Value, required []string) (string, bool) {
	for _, k := range required {
		if !v.Has(k) {
			return k, true
		}
	}
	return "", false
}

// UnexpectedKey returns the first member of v named in neither required nor
// optional.
func UnexpectedKey(v jsonv.Value, required, optional []string) (string, bool) {
	for _, m := range v.Members() {
		if !slices.Contains(required, m.Key) && !slices.Contains(optional, m.Key) {
			return m.Key, true
		}
	}
	return "", false
}

// ExactKeys requires object v to have every required key and no key outside
// required and optional, a missing key reported before an unexpected one.
// refusal builds the error for the offending key (missing tells which
// problem), so no message is formatted for a good object.
func ExactKeys(v jsonv.Value, required, optional []string, refusal func(key string, missing bool) error) error {
	if len(required) > 64 {
		if k, ok := MissingKey(v, required); ok {
			return refusal(k, true)
		}
		if k, ok := UnexpectedKey(v, required, optional); ok {
			return refusal(k, false)
		}
		return nil
	}
	// One pass over the members, which every event envelope goes through.
	var present uint64 // bit i: required[i] is a member
	unexpected, hasUnexpected := "", false
	members := v.Members()
	for i := range members {
		key := members[i].Key
		if r := slices.Index(required, key); r >= 0 {
			present |= 1 << r
		} else if !hasUnexpected && !slices.Contains(optional, key) {
			unexpected, hasUnexpected = key, true
		}
	}
	for i, k := range required {
		if present&(1<<i) == 0 {
			return refusal(k, true)
		}
	}
	if hasUnexpected {
		return refusal(unexpected, false)
	}
	return nil
}

// DeepEqual is dsh's JSON deep equality (deepEqualJson, isDeepEqualJson):
// object keys compared as sets, whatever their order, and numbers with ===
// (so -0 equals 0).
func DeepEqual(a, b jsonv.Value) bool {
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case jsonv.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i, e := range a.Elements() {
			if !DeepEqual(e, b.Index(i)) {
				return false
			}
		}
		return true
	case jsonv.Object:
		if a.Len() != b.Len() {
			return false
		}
		for _, m := range a.Members() {
			other, ok := b.Get(m.Key)
			if !ok || !DeepEqual(m.Value, other) {
				return false
			}
		}
		return true
	}
	return jsonv.Equal(a, b) // numbers compare by value: -0 equals 0
}

// Quote returns s as JSON.stringify writes a string, which dsh uses to name
// keys, types and ids in its messages.
func Quote(s string) string { return string(jsonv.AppendString(nil, s)) }

// Stringify renders a member as JavaScript's JSON.stringify(value) does
// inside a template literal: its JSON text, and "undefined" when present is
// false.
func Stringify(v jsonv.Value, present bool) string {
	if !present {
		return "undefined"
	}
	return v.String()
}

// String renders a member as JavaScript's String(value) does in a template
// literal: strings bare, null as "null", objects as "[object Object]", arrays
// as their elements joined by commas (null elements empty), numbers and
// booleans in their JSON form. present false stands for undefined.
func String(v jsonv.Value, present bool) string {
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
		elements := v.Elements()
		parts := make([]string, len(elements))
		for i, e := range elements {
			if e.Kind() != jsonv.Null {
				parts[i] = String(e, true)
			}
		}
		return strings.Join(parts, ",")
	}
	return v.String()
}
