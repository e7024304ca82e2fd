package v1to2

import (
	"math"

	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/jsonv"
)

// The v1→v2 stage reads payloads that nothing validated before it (packed
// chunk rows aside, a chunk's data and every surfaceOp reach it raw), so it
// reproduces how dsh's JavaScript treats such values: absent members read as
// undefined, strict equality, and String() in messages.

// jsValue is a JSON value as JavaScript sees a member read: absent members
// are undefined.
type jsValue struct {
	v       jsonv.Value
	present bool
}

// member reads key of v the way a JavaScript property read does: a missing
// key, or any key of a non-object, is undefined.
func member(v jsonv.Value, key string) jsValue {
	f, ok := v.Get(key)
	return jsValue{f, ok}
}

func defined(v jsonv.Value) jsValue { return jsValue{v, true} }

// strictEqual is JavaScript's === on two values read from distinct parsed
// rows: primitives compare by value, and no two objects or arrays are the
// same object.
func strictEqual(a, b jsValue) bool {
	if !a.present || !b.present {
		return a.present == b.present
	}
	if a.v.Kind() != b.v.Kind() {
		return false
	}
	switch a.v.Kind() {
	case jsonv.Null:
		return true
	case jsonv.Bool:
		x, _ := a.v.Bool()
		y, _ := b.v.Bool()
		return x == y
	case jsonv.Number:
		x, _ := a.v.Number()
		y, _ := b.v.Number()
		return x == y
	case jsonv.String:
		return a.v.Text() == b.v.Text()
	}
	return false
}

// safeInteger is JavaScript's Number.isSafeInteger, which (unlike dsh's
// count checks) admits -0, returned as 0.
func safeInteger(v jsValue) (int64, bool) {
	f, ok := v.v.Number()
	if !v.present || !ok || f != math.Trunc(f) || math.Abs(f) > maxSafeInteger {
		return 0, false
	}
	return int64(f), true
}

const maxSafeInteger = 1<<53 - 1

// isSafe reports whether n, the exact result of integer arithmetic on safe
// integers, is itself a safe integer.
func isSafe(n int64) bool { return n >= -maxSafeInteger && n <= maxSafeInteger }

// jsString is JavaScript's String(value), as a template literal renders a
// value into a message.
func jsString(v jsValue) string { return jsform.String(v.v, v.present) }

// stringify is JSON.stringify(value) as a template literal renders it:
// "undefined" for an absent value.
func stringify(v jsValue) string { return jsform.Stringify(v.v, v.present) }

// jsError is an error JavaScript itself raises inside dsh's stage (a
// TypeError, or the Error of an unreachable switch branch): not a dsh
// refusal, so the chain reports it behind the edge's name.
type jsError string

func (e jsError) Error() string { return string(e) }

// readOfNull is the TypeError of reading key from null.
func readOfNull(key string) error {
	return jsError("Cannot read properties of null (reading '" + key + "')")
}
