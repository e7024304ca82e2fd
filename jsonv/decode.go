package jsonv

import (
	"bytes"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// tape is the structure Parse found in one text: a node for every array and
// object, in document order, and what has been decoded of each. Decoding a
// container walks its text once, stepping over each child container with
// the child's node instead of scanning it, so looking into a value at any
// depth costs time in proportion to what is looked at, and an untouched
// subtree costs nothing: a Value of a parsed array or object is its tape
// and its node, and holds nothing of its own.
type tape struct {
	data  []byte
	nodes []node
	// decoded holds, for each of the first nodes looked into, where its
	// elements or members are (see items): it is the first of
	// min(len(nodes), eagerSlots) slots. A text with more nodes has its
	// tape in a parsedMore, whose later slots are made when one of those
	// nodes is first looked into. Every slot exists before its node is
	// looked into, so that two goroutines may look into two different
	// containers of one text at once. A slot is one pointer, since the
	// count is on the node.
	decoded *unsafe.Pointer
}

// eagerSlots is how many nodes have a slot from the start: those a reader
// looks into first, in document order (a row, its data, the message and
// its content), while an assistant row's stream parts, most of its nodes,
// are mostly never looked into.
const eagerSlots = 8

// slot returns the slot of node i.
func (t *tape) slot(i uint32) *unsafe.Pointer {
	if i < eagerSlots {
		return &unsafe.Slice(t.decoded, min(len(t.nodes), eagerSlots))[i]
	}
	more := (*parsedMore)(unsafe.Pointer(t)) // a tape with node i is one
	later := more.later.Load()
	if later == nil {
		fresh := make([]unsafe.Pointer, len(t.nodes)-eagerSlots)
		if !more.later.CompareAndSwap(nil, &fresh) {
			later = more.later.Load()
		} else {
			later = &fresh
		}
	}
	return &(*later)[i-eagerSlots]
}

// node is one array or object on a tape. The containers inside it are the
// nodes from the next one up to next().
type node struct {
	end   uint32 // offset just past the container's text
	link  uint32 // next() in the low bits, flagCanonical above them
	count uint32 // elements, or members as written (repeated keys included)
}

// Texts are at most maxText bytes, so a tape has fewer than 1<<29 nodes and
// next() fits below the flag.
const (
	// flagCanonical says the container's text is exactly what Append writes.
	flagCanonical uint32 = 1 << 31
	nextMask             = 1<<29 - 1
)

// next returns the index of the first node after the container and the
// containers inside it.
func (n node) next() uint32 { return n.link & nextMask }

// value returns the Value whose text starts at start and ends at end; an
// array or an object is node i.
func (t *tape) value(start, end int, i uint32) Value {
	text := t.data[start:end]
	switch text[0] {
	case '{':
		return tapeValue(Object, t, start, i)
	case '[':
		return tapeValue(Array, t, start, i)
	case '"':
		return stringValue(decodeValue(text))
	case 't':
		return boolValue(true)
	case 'f':
		return boolValue(false)
	case 'n':
		return Value{}
	}
	return numberValue(parseNumber(text))
}

// end returns where the value starting at i ends: a container's end comes
// from node k, which it is; a scalar is scanned, knowing it is valid.
func (t *tape) end(i int, k uint32) int {
	data := t.data
	switch data[i] {
	case '{', '[':
		return int(t.nodes[k].end)
	case '"':
		return skipString(data, i)
	case 't', 'n':
		return i + 4
	case 'f':
		return i + 5
	}
	for i++; i < len(data); i++ {
		if c := data[i]; (c < '0' || c > '9') && c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-' {
			break
		}
	}
	return i
}

// skipString returns the end of the checked string that starts at i.
func skipString(data []byte, i int) int {
	end, _ := skipEscapes(data, i)
	return end
}

// skipEscapes returns the end of the checked string that starts at i, and
// whether it holds an escape.
func skipEscapes(data []byte, i int) (end int, escaped bool) {
	for i++; ; i += 2 { // step over a backslash and the byte it escapes
		i = skipPlain(data, i) // in a checked string, stops only at '"' or '\\'
		if data[i] == '"' {
			return i + 1, escaped
		}
		escaped = true
	}
}

// raw returns the text of node i, which starts at start, when it is
// canonical, and nil otherwise.
func (t *tape) raw(i uint32, start int) []byte {
	if n := t.nodes[i]; n.link&flagCanonical != 0 {
		return t.data[start:n.end]
	}
	return nil
}

// isDecoded reports whether node i has been looked into (or is empty).
func (t *tape) isDecoded(i uint32) bool {
	return t.nodes[i].count == 0 || *t.slot(i) != nil
}

// items returns the elements or members of node i, which starts at start,
// decoding them on the first call. Its slot points to the first element or
// member, and there are as many as the node counts, except in an object
// that is not canonical, where repeated keys may make fewer: its slot points
// to the members' slice.
func (t *tape) items(kind Kind, i uint32, start int) items {
	n := t.nodes[i]
	if n.count == 0 {
		return items{}
	}
	reordered := kind == Object && n.link&flagCanonical == 0
	slot := t.slot(i)
	p := *slot
	if p == nil {
		if kind == Array {
			p = unsafe.Pointer(&t.decodeArray(i, start)[0])
		} else if members := t.decodeObject(i, start); reordered {
			boxed := new([]Member)
			*boxed = members
			p = unsafe.Pointer(boxed)
		} else {
			p = unsafe.Pointer(&members[0])
		}
		*slot = p
	}
	if reordered {
		return membersOf(*(*[]Member)(p))
	}
	return items{p, n.count}
}

// member returns the value at pos, whose container, if it is one, is node
// *child, and where it ends; *child moves on past a container.
func (t *tape) member(pos int, child *uint32) (Value, int) {
	if t.data[pos] == '"' {
		end, escaped := skipEscapes(t.data, pos)
		return stringValue(decodeScanned(&valueTable, t.data[pos:end], escaped)), end
	}
	end := t.end(pos, *child)
	v := t.value(pos, end, *child)
	if v.Kind() >= Array {
		*child = t.nodes[*child].next()
	}
	return v, end
}

func (t *tape) decodeArray(i uint32, start int) []Value {
	data := t.data
	self := t.nodes[i]
	child := i + 1 // the next child container's node
	pos := start + 1
	elems := make([]Value, 0, self.count)
	for range self.count {
		v, end := t.member(skipSpace(data, pos), &child)
		elems = append(elems, v)
		pos = skipSpace(data, end) + 1 // past ',' or ']'
	}
	return elems
}

func (t *tape) decodeObject(i uint32, start int) []Member {
	data := t.data
	self := t.nodes[i]
	child := i + 1 // the next child container's node
	pos := start + 1
	members := make([]Member, 0, self.count)
	for range self.count {
		pos = skipSpace(data, pos)
		keyEnd, escaped := skipEscapes(data, pos)
		key := decodeScanned(&keyTable, data[pos:keyEnd], escaped)
		pos = skipSpace(data, skipSpace(data, keyEnd)+1) // past ':'
		v, end := t.member(pos, &child)
		members = append(members, Member{key, v})
		pos = skipSpace(data, end) + 1 // past ',' or '}'
	}
	if self.link&flagCanonical == 0 {
		members = jsOrder(members)
	}
	return members
}

func (v Value) elements() []Value {
	if v.Kind() != Array {
		return nil
	}
	if v.onTape() {
		t, i, start := v.tapeNode()
		return t.items(Array, i, start).elems()
	}
	c := (*container)(v.p)
	c.decode(Array)
	return c.elems()
}

func (v Value) objectMembers() []Member {
	if v.Kind() != Object {
		return nil
	}
	if v.onTape() {
		t, i, start := v.tapeNode()
		return t.items(Object, i, start).members()
	}
	c := (*container)(v.p)
	c.decode(Object)
	return c.members()
}

// jsOrder returns members (which it may reuse) in the order a JavaScript
// object built from them in turn has: a repeated key keeps its first
// position and takes its last value, and array-index keys come first in
// ascending order.
func jsOrder(members []Member) []Member {
	out := members[:0]
	if len(members) <= 16 {
		for _, m := range members {
			out = setMember(out, m.Key, m.Value)
		}
		return out
	}
	at := make(map[string]int, len(members))
	for _, m := range members {
		if i, dup := at[m.Key]; dup {
			out[i].Value = m.Value
			continue
		}
		at[m.Key] = len(out)
		out = append(out, m)
	}
	indexKeys := 0
	for _, m := range out {
		if _, ok := arrayIndex(m.Key); ok {
			indexKeys++
		}
	}
	if indexKeys == 0 {
		return out
	}
	// Stable: names keep their order behind the ascending index keys.
	slices.SortStableFunc(out, func(a, b Member) int {
		ai, aok := arrayIndex(a.Key)
		bi, bok := arrayIndex(b.Key)
		switch {
		case aok && bok:
			return int(int64(ai) - int64(bi))
		case aok:
			return -1
		case bok:
			return 1
		}
		return 0
	})
	return out
}

// parseNumber returns the number of the checked JSON number text.
func parseNumber(text []byte) float64 {
	// Up to 15 digits an integer is exact in a float64: no need to round.
	if len(text) <= 15 {
		neg := text[0] == '-'
		digits := text
		if neg {
			digits = text[1:]
		}
		n := int64(0)
		plain := true
		for _, c := range digits {
			if c < '0' || c > '9' {
				plain = false
				break
			}
			n = n*10 + int64(c-'0')
		}
		if plain {
			if neg {
				return -float64(n) // -0 for "-0", as JavaScript reads it
			}
			return float64(n)
		}
	}
	// The scanner has checked the grammar, which is a subset of Go's; an
	// out-of-range literal becomes ±Inf or 0 as in JavaScript.
	f, _ := strconv.ParseFloat(string(text), 64)
	return f
}

// decodeString returns the contents of the quoted, already checked JSON
// string text. Lone surrogates are kept in generalized UTF-8.
func decodeString(text []byte) string { return decodeBody(text[1 : len(text)-1]) }

// decodeBody is decodeString of a string's text without its quotes, or of
// a start of it that ends on a whole escape.
func decodeBody(body []byte) string {
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body)
	}
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); {
		if body[i] != '\\' { // copy up to the next escape at once
			n := bytes.IndexByte(body[i:], '\\')
			if n < 0 {
				n = len(body) - i
			}
			out = append(out, body[i:i+n]...)
			i += n
			continue
		}
		switch body[i+1] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			unit, _ := hex4(body, i+2)
			i += 6
			r := rune(unit)
			if utf16.IsSurrogate(r) && unit < 0xdc00 {
				if low, ok := hex4Escape(body, i); ok && low >= 0xdc00 && low < 0xe000 {
					r = utf16.DecodeRune(r, rune(low))
					i += 6
				}
			}
			out = appendWTF8(out, r)
			continue
		default: // '"', '\\', '/'
			out = append(out, body[i+1])
		}
		i += 2
	}
	// out is not empty (body holds an escape) and never written again.
	return unsafe.String(unsafe.SliceData(out), len(out))
}

// appendWTF8 appends r in UTF-8, writing a surrogate code point as the
// three-byte sequence generalized UTF-8 uses for it.
func appendWTF8(b []byte, r rune) []byte {
	if r >= 0xd800 && r < 0xe000 {
		return append(b, 0xe0|byte(r>>12), 0x80|byte(r>>6)&0x3f, 0x80|byte(r)&0x3f)
	}
	return utf8.AppendRune(b, r)
}
