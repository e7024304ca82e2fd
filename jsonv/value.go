// Package jsonv is JSON exactly as JavaScript's JSON.parse and JSON.stringify
// treat it, which is what dsh writes and reads.
//
// A Value keeps what Go's encoding/json loses: object key order (with
// JavaScript's rule that array-index keys come first, ascending), a duplicate
// key's first position with its last value, UTF-16 strings whose lone
// surrogates survive a round trip, and numbers as float64 written the way
// Number::toString writes them.
//
// Parse is lazy: it validates the whole text once, noting where each array
// and object ends, and decodes an array or an object only when it is first
// looked into, in time proportional to its own members. A subtree whose text
// is already what JSON.stringify would write (dsh's own files always are) is
// copied back as raw bytes by Append, so untouched payloads cost one scan and
// a copy.
//
// Values are immutable; With, Without and the constructors return new values.
// The one exception is Set, which changes in place an object that its caller
// built and alone refers to.
// A Value that came from Parse refers to the parsed bytes, which must not
// change while it is in use, and holds on to all of them and to what has
// been decoded of them, not only to its own part: Detach a value kept for
// long. Strings are copied out of the bytes as they are decoded. Values are
// not safe for concurrent use while lazily decoded parts are being looked
// into for the first time; two different containers of one text may be
// looked into at once.
package jsonv

import (
	"math"
	"slices"
	"strconv"
	"unsafe"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON kinds. The zero Value is Null.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"null", "boolean", "number", "string", "array", "object"}

// String names the kind the way JavaScript's typeof would, with "null" and
// "array" for the two cases typeof lumps into "object".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is one JSON value. The zero Value is null.
//
// It is two words, since slices of Values and Members are most of what
// decoding allocates. p is a string's bytes, a built array's or object's
// container, the tape of a parsed one, or numberTag for a number. n is a
// number's bits; for the other kinds it holds the kind in its top three
// bits, and below them a string's length, a boolean's 0 or 1, or, for a
// parsed array or object, flagOnTape, its node and where it starts.
type Value struct {
	p unsafe.Pointer
	n uint64
}

// numberTag is what a number's p points to.
var numberTag byte

const (
	kindShift  = 61
	flagOnTape = 1 << 60
	lenMask    = flagOnTape - 1
	nodeShift  = 30               // a parsed container's start below it, its node above
	fieldMask  = 1<<nodeShift - 1 // either of them (each is below 1<<29)
)

func stringValue(s string) Value {
	if s == "" {
		return Value{n: uint64(String) << kindShift}
	}
	return Value{p: unsafe.Pointer(unsafe.StringData(s)), n: uint64(String)<<kindShift | uint64(len(s))}
}

func numberValue(f float64) Value {
	return Value{p: unsafe.Pointer(&numberTag), n: math.Float64bits(f)}
}

func boolValue(b bool) Value {
	if b {
		return Value{n: uint64(Bool)<<kindShift | 1}
	}
	return Value{n: uint64(Bool) << kindShift}
}

func containerValue(kind Kind, c *container) Value {
	return Value{p: unsafe.Pointer(c), n: uint64(kind) << kindShift}
}

// tapeValue returns the array or object that is node i on t and starts at
// start.
func tapeValue(kind Kind, t *tape, start int, i uint32) Value {
	return Value{p: unsafe.Pointer(t), n: uint64(kind)<<kindShift | flagOnTape | uint64(i)<<nodeShift | uint64(start)}
}

// onTape reports whether v, an array or an object, is parsed (and not
// built): whether its p is a tape.
func (v Value) onTape() bool { return v.n&flagOnTape != 0 }

// str returns the string of a String value, "" for other kinds.
func (v Value) str() string {
	if v.Kind() != String {
		return ""
	}
	return unsafe.String((*byte)(v.p), int(v.n&lenMask))
}

// num returns the number of a Number value.
func (v Value) num() float64 { return math.Float64frombits(v.n) }

// tapeNode returns where a parsed array or object is: its tape, its node and
// where its text starts.
func (v Value) tapeNode() (t *tape, i uint32, start int) {
	return (*tape)(v.p), uint32(v.n>>nodeShift) & fieldMask, int(v.n & fieldMask)
}

// Member is one key and value of an object.
type Member struct {
	Key   string
	Value Value
}

// items is the elements or members of an array or an object, once decoded
// or built: a pointer to the first (a *Value or a *Member) and a count.
type items struct {
	first unsafe.Pointer
	len   uint32
}

func elemsOf(elems []Value) items {
	if len(elems) == 0 {
		return items{}
	}
	return items{unsafe.Pointer(&elems[0]), uint32(len(elems))}
}

func membersOf(members []Member) items {
	if len(members) == 0 {
		return items{}
	}
	return items{unsafe.Pointer(&members[0]), uint32(len(members))}
}

func (it items) elems() []Value { return unsafe.Slice((*Value)(it.first), it.len) }

func (it items) members() []Member { return unsafe.Slice((*Member)(it.first), it.len) }

// container holds the elements of a built array or the members of a built
// object (a parsed one is its tape's, see tape). A container made by Detach
// holds only its canonical text, raw, and is scanned again on first use;
// raw stays, for Append to copy.
type container struct {
	items
	raw       []byte
	unscanned bool
}

// decode fills a container made by Detach from its text.
func (c *container) decode(kind Kind) {
	if !c.unscanned {
		return
	}
	scanned, _ := Parse(c.raw) // Append's output, so valid
	if kind == Array {
		c.items = elemsOf(scanned.elements())
	} else {
		c.items = membersOf(scanned.objectMembers())
	}
	c.unscanned = false
}

// Detach returns v with a private copy of its text and nothing else: no
// tape, nothing decoded, nothing shared with the text v was parsed from. It
// is the smallest form of a value kept for long (a fold's surface holds one
// per node); the first look into it scans the text again.
func Detach(v Value) Value {
	if v.Kind() < Array {
		return v
	}
	text := v.Append(nil)
	return containerValue(v.Kind(), &container{raw: text, unscanned: true})
}

// NullValue returns JSON null.
func NullValue() Value { return Value{} }

// BoolValue returns a JSON boolean.
func BoolValue(b bool) Value { return boolValue(b) }

// NumberValue returns a JSON number.
func NumberValue(f float64) Value { return numberValue(f) }

// IntValue returns a JSON number holding an integer.
func IntValue(i int64) Value { return numberValue(float64(i)) }

// StringValue returns a JSON string. s is UTF-8; a lone UTF-16 surrogate may
// be carried in its generalized UTF-8 form (as Parse produces it). Two such
// surrogates forming a pair, as concatenating JavaScript strings can produce,
// are joined into the one character JavaScript sees, so that equal strings
// have equal bytes.
func StringValue(s string) Value { return stringValue(joinSurrogatePairs(s)) }

// ArrayValue returns a JSON array of the given elements.
func ArrayValue(elems ...Value) Value {
	return containerValue(Array, &container{items: elemsOf(elems)})
}

// ObjectValue returns a JSON object with the given members, ordered as
// JavaScript orders them: array-index keys first in ascending order, then the
// rest in the given order. A repeated key keeps its first position and its
// last value.
func ObjectValue(members ...Member) Value {
	return containerValue(Object, &container{items: membersOf(jsOrder(slices.Clone(members)))})
}

// M is shorthand for a Member, for building objects in code.
func M(key string, v Value) Member { return Member{Key: key, Value: v} }

// Kind reports the JSON type of v.
func (v Value) Kind() Kind {
	if v.p == unsafe.Pointer(&numberTag) {
		return Number
	}
	return Kind(v.n >> kindShift)
}

// IsNull reports whether v is JSON null.
func (v Value) IsNull() bool { return v == Value{} }

// Bool returns v's boolean, and whether v is a boolean.
func (v Value) Bool() (bool, bool) {
	if v.Kind() != Bool {
		return false, false
	}
	return v.n&1 != 0, true
}

// IsTrue reports whether v is the boolean true.
func (v Value) IsTrue() bool { return v == boolValue(true) }

// Number returns v's number, and whether v is a number.
func (v Value) Number() (float64, bool) {
	if v.Kind() != Number {
		return 0, false
	}
	return v.num(), true
}

// Str returns v's string, and whether v is a string. Lone surrogates appear
// in their generalized UTF-8 form.
func (v Value) Str() (string, bool) { return v.str(), v.Kind() == String }

// Text returns v's string, or "" when v is not a string.
func (v Value) Text() string { return v.str() }

// IsNegZero reports whether v is the number -0, which dsh refuses wherever a
// value must survive a JSON round trip.
func (v Value) IsNegZero() bool {
	return v.Kind() == Number && v.n == 1<<63 // the bits of -0
}

// SafeInt returns v as an integer when v is a safe integer in JavaScript's
// sense (|v| ≤ 2^53−1). -0 is reported as not safe, as dsh's counts do.
func (v Value) SafeInt() (int64, bool) {
	if v.Kind() != Number || v.IsNegZero() {
		return 0, false
	}
	f := v.num()
	if f != math.Trunc(f) || math.Abs(f) > maxSafeInteger {
		return 0, false
	}
	return int64(f), true
}

// Count returns v as a non-negative safe integer, the shape of every seq,
// turn and step.
func (v Value) Count() (int64, bool) {
	n, ok := v.SafeInt()
	return n, ok && n >= 0
}

const maxSafeInteger = 1<<53 - 1

// Len returns the number of elements of an array or members of an object,
// and 0 for other kinds.
func (v Value) Len() int {
	switch v.Kind() {
	case Array:
		return len(v.elements())
	case Object:
		return len(v.objectMembers())
	}
	return 0
}

// Index returns the i-th element of an array, or null when out of range.
func (v Value) Index(i int) Value {
	if v.Kind() != Array {
		return Value{}
	}
	elems := v.elements()
	if i < 0 || i >= len(elems) {
		return Value{}
	}
	return elems[i]
}

// Elements returns the elements of an array (nil for other kinds). The slice
// belongs to v and must not be modified.
func (v Value) Elements() []Value {
	if v.Kind() != Array {
		return nil
	}
	return v.elements()
}

// Members returns the members of an object in JavaScript order (nil for other
// kinds). The slice belongs to v and must not be modified.
func (v Value) Members() []Member {
	if v.Kind() != Object {
		return nil
	}
	return v.objectMembers()
}

// Get returns the value of key in an object, and whether it is present.
func (v Value) Get(key string) (Value, bool) {
	if v.Kind() != Object {
		return Value{}, false
	}
	members := v.objectMembers()
	for i := range members { // by index: a Member is too large to copy per step
		if members[i].Key == key {
			return members[i].Value, true
		}
	}
	return Value{}, false
}

// Field returns the value of key in an object, or null when absent.
func (v Value) Field(key string) Value {
	f, _ := v.Get(key)
	return f
}

// Has reports whether v is an object with an own key named key.
func (v Value) Has(key string) bool {
	_, ok := v.Get(key)
	return ok
}

// Keys returns the keys of an object in JavaScript order.
func (v Value) Keys() []string {
	members := v.Members()
	keys := make([]string, len(members))
	for i, m := range members {
		keys[i] = m.Key
	}
	return keys
}

// With returns a copy of object v with key set to val, as JavaScript's
// {...v, [key]: val} does: an existing key keeps its position, a new one is
// appended (or, for an array-index key, put in its numeric place). With on a
// non-object returns an object holding only key.
func (v Value) With(key string, val Value) Value {
	old := v.Members()
	members := make([]Member, len(old), len(old)+1)
	copy(members, old)
	members = setMember(members, key, val)
	return containerValue(Object, &container{items: membersOf(members)})
}

// Set is With for an object that its caller owns: one built by With,
// Without or ObjectValue (not parsed, not detached) that nothing else
// refers to. When such an object has key, Set changes that member's value
// in place and returns v; otherwise it returns With's copy, which the
// caller then owns in turn. Set saves a migration stage the copy of a row
// that the stage before it built only to hand on.
func (v Value) Set(key string, val Value) Value {
	if v.Kind() == Object && !v.onTape() {
		if c := (*container)(v.p); !c.unscanned && c.raw == nil {
			members := c.members()
			for i := range members {
				if members[i].Key == key {
					members[i].Value = val
					return v
				}
			}
		}
	}
	return v.With(key, val)
}

// Without returns a copy of object v without the given keys; the others keep
// their order.
func (v Value) Without(keys ...string) Value {
	old := v.Members()
	members := make([]Member, 0, len(old))
	for _, m := range old {
		if !contains(keys, m.Key) {
			members = append(members, m)
		}
	}
	return containerValue(Object, &container{items: membersOf(members)})
}

// WithIndex returns a copy of array v with element i replaced by val.
func (v Value) WithIndex(i int, val Value) Value {
	old := v.Elements()
	elems := make([]Value, len(old))
	copy(elems, old)
	if i >= 0 && i < len(elems) {
		elems[i] = val
	}
	return containerValue(Array, &container{items: elemsOf(elems)})
}

func contains(keys []string, key string) bool {
	for _, k := range keys {
		if k == key {
			return true
		}
	}
	return false
}

// setMember sets key in an ordered member list with JavaScript's rules and
// returns the list.
func setMember(members []Member, key string, val Value) []Member {
	for i := range members {
		if members[i].Key == key {
			members[i].Value = val
			return members
		}
	}
	idx, isIndex := arrayIndex(key)
	if !isIndex {
		return append(members, Member{key, val})
	}
	// An array-index key goes after the smaller index keys, before the rest.
	at := 0
	for at < len(members) {
		other, ok := arrayIndex(members[at].Key)
		if !ok || other > idx {
			break
		}
		at++
	}
	members = append(members, Member{})
	copy(members[at+1:], members[at:])
	members[at] = Member{key, val}
	return members
}

// arrayIndex reports whether key is an array index in ECMAScript's sense: the
// canonical decimal form of an integer from 0 to 2^32−2.
func arrayIndex(key string) (uint32, bool) {
	if key == "" || len(key) > 10 || (len(key) > 1 && key[0] == '0') {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if n > math.MaxUint32-1 {
		return 0, false
	}
	return uint32(n), true
}

// Equal reports whether a and b are the same JSON value: same kinds, equal
// numbers and strings, arrays equal element by element, and objects with the
// same members in the same order.
func Equal(a, b Value) bool {
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case Null:
		return true
	case Bool:
		return a.n == b.n
	case Number:
		x, y := a.num(), b.num()
		return x == y || (math.IsNaN(x) && math.IsNaN(y))
	case String:
		return a.str() == b.str()
	case Array:
		ae, be := a.elements(), b.elements()
		if len(ae) != len(be) {
			return false
		}
		for i := range ae {
			if !Equal(ae[i], be[i]) {
				return false
			}
		}
		return true
	}
	am, bm := a.objectMembers(), b.objectMembers()
	if len(am) != len(bm) {
		return false
	}
	for i := range am {
		if am[i].Key != bm[i].Key || !Equal(am[i].Value, bm[i].Value) {
			return false
		}
	}
	return true
}
