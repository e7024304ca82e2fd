package v3

import (
	"math"
	"strconv"

	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/jsonv"
)

// jsValue is a JavaScript value read from an artifact: a JSON value, or
// undefined (an absent member). dsh's relationship checks compare such
// values with === and key maps by them, which the helpers here reproduce.
type jsValue struct {
	v       jsonv.Value
	defined bool
}

var (
	undefined = jsValue{}
	jsNull    = jsValue{v: jsonv.NullValue(), defined: true}
)

// member reads obj[key]; a non-object has no members.
func member(obj jsonv.Value, key string) jsValue {
	v, ok := obj.Get(key)
	return jsValue{v, ok}
}

func jsNumber(n int64) jsValue { return jsValue{jsonv.IntValue(n), true} }

// isNullish reports undefined or null, where a property read throws.
func (a jsValue) isNullish() bool { return !a.defined || a.v.IsNull() }

func (a jsValue) isNull() bool { return a.defined && a.v.IsNull() }

func (a jsValue) str() (string, bool) {
	if !a.defined {
		return "", false
	}
	return a.v.Str()
}

// is is JavaScript's ===: objects and arrays are distinct from every other
// value, numbers compare by value (so -0 === 0).
func (a jsValue) is(b jsValue) bool {
	if !a.defined || !b.defined {
		return a.defined == b.defined
	}
	if a.v.Kind() != b.v.Kind() {
		return false
	}
	switch a.v.Kind() {
	case jsonv.Object, jsonv.Array:
		return false
	case jsonv.Number:
		x, _ := a.v.Number()
		y, _ := b.v.Number()
		return x == y
	}
	return jsonv.Equal(a.v, b.v)
}

// text renders the value as a template literal does.
func (a jsValue) text() string { return jsform.String(a.v, a.defined) }

// stringify renders JSON.stringify(value), "undefined" for undefined.
func (a jsValue) stringify() string { return jsform.Stringify(a.v, a.defined) }

// keyer gives map keys that follow JavaScript's SameValueZero for
// primitives; every object or array read is a distinct key.
type keyer struct{ objects int }

func (k *keyer) key(a jsValue) string {
	if !a.defined {
		return "u"
	}
	switch a.v.Kind() {
	case jsonv.Object, jsonv.Array:
		k.objects++
		return "o" + strconv.Itoa(k.objects)
	case jsonv.String:
		return "s" + a.v.Text()
	case jsonv.Number:
		return "n" + a.v.String() // -0 prints as 0, as SameValueZero wants
	case jsonv.Bool:
		return "b" + a.v.String()
	}
	return "null"
}

// index reads array[i] for a seq value used as an index: only a
// non-negative integer (or its canonical decimal string) names an element.
func index(a jsValue) (int64, bool) {
	if !a.defined {
		return 0, false
	}
	if s, ok := a.v.Str(); ok {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 || strconv.FormatInt(n, 10) != s {
			return 0, false
		}
		return n, true
	}
	f, ok := a.v.Number()
	if !ok || f != math.Trunc(f) || f < 0 || f >= 1<<32-1 {
		return 0, false
	}
	return int64(f), true // -0 names element 0
}
