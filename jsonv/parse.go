package jsonv

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"
)

// MaxDepth is how deeply arrays and objects may nest. Deeper input is refused
// with a SyntaxError instead of exhausting the stack.
const MaxDepth = 10000

// maxText is the longest text Parse accepts, 512 MiB: the tape keeps offsets
// and node indexes in 32 bits with flags beside them. dsh could not read a
// longer line either: V8 strings stop short of 2^29 characters.
const maxText = 1 << 29

// SyntaxError describes JSON text that JSON.parse would refuse.
type SyntaxError struct {
	Offset int    // byte offset into the given text where the problem was found
	Msg    string // what is wrong, e.g. "unexpected character 'x'"
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s at offset %d", e.Msg, e.Offset)
}

// Parse parses one JSON text as JSON.parse does after Node decodes the bytes
// as UTF-8: invalid UTF-8 becomes U+FFFD (WHATWG maximal subparts), and white
// space may surround the value. Arrays and objects are decoded lazily; the
// returned value refers to data.
func Parse(data []byte) (Value, error) {
	if len(data) > maxText {
		return Value{}, &SyntaxError{Offset: maxText, Msg: "JSON text longer than 512 MiB"}
	}
	text := data
	if !utf8.Valid(data) {
		text = ToWellFormed(data)
	}
	scratch := nodePool.Get().(*[]node)
	s := scanner{data: text, nodes: (*scratch)[:0]}
	v, err := s.parse()
	if cap(s.nodes) <= 1<<16 {
		*scratch = s.nodes[:0]
		nodePool.Put(scratch)
	}
	if se, ok := err.(*SyntaxError); ok && len(text) != len(data) {
		se.Offset = originalOffset(data, se.Offset)
	}
	return v, err
}

// parsed2, parsed4 and parsed8 are what Parse allocates for a text with
// few containers: the tape, the containers' nodes and the room for their
// decoding, at once, in the smallest that holds them (most rows of a log
// have two or three containers, and every byte allocated is a byte written
// to fresh memory). parsedMore is the tape, the first slots and the later
// ones, once made (see tape.slot), of a text with more, whose nodes are
// allocated apart.
type (
	parsed2 struct {
		tape
		nodes   [2]node
		decoded [2]unsafe.Pointer
	}
	parsed4 struct {
		tape
		nodes   [4]node
		decoded [4]unsafe.Pointer
	}
	parsed8 struct {
		tape
		nodes   [8]node
		decoded [eagerSlots]unsafe.Pointer
	}
	parsedMore struct {
		tape
		decoded [eagerSlots]unsafe.Pointer
		later   atomic.Pointer[[]unsafe.Pointer]
	}
)

// newTape returns the tape of data with a copy of the scanned nodes.
func newTape(data []byte, scanned []node) *tape {
	n := len(scanned)
	var t *tape
	var nodes []node
	var decoded *unsafe.Pointer
	switch {
	case n <= 2:
		p := new(parsed2)
		t, nodes, decoded = &p.tape, p.nodes[:n], &p.decoded[0]
	case n <= 4:
		p := new(parsed4)
		t, nodes, decoded = &p.tape, p.nodes[:n], &p.decoded[0]
	case n <= eagerSlots:
		p := new(parsed8)
		t, nodes, decoded = &p.tape, p.nodes[:n], &p.decoded[0]
	default:
		p := new(parsedMore)
		t, nodes, decoded = &p.tape, make([]node, n), &p.decoded[0]
	}
	copy(nodes, scanned)
	t.data, t.nodes, t.decoded = data, nodes, decoded
	return t
}

func (s *scanner) parse() (Value, error) {
	data := s.data
	start := skipSpace(data, 0)
	end, _, err := s.scan(start, 0)
	if err != nil {
		return Value{}, err
	}
	if rest := skipSpace(data, end); rest != len(data) {
		return Value{}, s.errorAt(rest, "unexpected character %s after JSON value", quoteByte(data[rest]))
	}
	if len(s.nodes) == 0 {
		return (&tape{data: data}).value(start, end, 0), nil
	}
	return newTape(data, s.nodes).value(start, end, 0), nil
}

// Valid reports whether data is one JSON text JSON.parse would accept.
func Valid(data []byte) bool {
	_, err := Parse(data)
	return err == nil
}

// scanner checks a JSON text and records its structure on a tape.
type scanner struct {
	data  []byte
	nodes []node
}

// nodePool holds scratch tapes to scan into; Parse copies the result to a
// slice of the exact size.
var nodePool = sync.Pool{New: func() any { return new([]node) }}

func (s *scanner) errorAt(offset int, format string, args ...any) error {
	return &SyntaxError{Offset: offset, Msg: fmt.Sprintf(format, args...)}
}

func (s *scanner) unexpected(at int) error {
	if at >= len(s.data) {
		return s.errorAt(at, "unexpected end of JSON input")
	}
	return s.errorAt(at, "unexpected character %s", quoteByte(s.data[at]))
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("0x%02x", c)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// scan checks the value starting at i and returns where it ends and whether
// its text is canonical (exactly what Append writes for it). An array or an
// object is recorded on the tape.
func (s *scanner) scan(i, depth int) (int, bool, error) {
	if i >= len(s.data) {
		return i, false, s.unexpected(i)
	}
	switch c := s.data[i]; {
	case c == '{' || c == '[':
		k := len(s.nodes)
		s.nodes = append(s.nodes, node{})
		var end, count int
		var canonical bool
		var err error
		if c == '{' {
			end, count, canonical, err = s.scanObject(i, depth+1)
		} else {
			end, count, canonical, err = s.scanArray(i, depth+1)
		}
		if err != nil {
			return end, false, err
		}
		link := uint32(len(s.nodes))
		if canonical {
			link |= flagCanonical
		}
		s.nodes[k] = node{end: uint32(end), link: link, count: uint32(count)}
		return end, canonical, nil
	case c == '"':
		return s.scanString(i)
	case c == '-' || (c >= '0' && c <= '9'):
		return s.scanNumber(i)
	case c == 't':
		return s.scanLiteral(i, "true")
	case c == 'f':
		return s.scanLiteral(i, "false")
	case c == 'n':
		return s.scanLiteral(i, "null")
	}
	return i, false, s.unexpected(i)
}

func (s *scanner) scanLiteral(i int, lit string) (int, bool, error) {
	for j := 0; j < len(lit); j++ {
		if i+j >= len(s.data) || s.data[i+j] != lit[j] {
			return i, false, s.unexpected(i + j)
		}
	}
	return i + len(lit), true, nil
}

// scanArray checks the array at i and returns its end, its number of
// elements and whether it is canonical.
func (s *scanner) scanArray(i, depth int) (end, count int, canonical bool, err error) {
	if depth > MaxDepth {
		return i, 0, false, s.errorAt(i, "nesting deeper than %d", MaxDepth)
	}
	data := s.data
	i++
	j := skipSpace(data, i)
	canonical = j == i
	if j < len(data) && data[j] == ']' {
		return j + 1, 0, canonical, nil
	}
	i = j
	for {
		end, elemCanonical, err := s.scan(i, depth)
		if err != nil {
			return end, 0, false, err
		}
		count++
		j := skipSpace(data, end)
		canonical = canonical && elemCanonical && j == end
		if j >= len(data) {
			return j, 0, false, s.unexpected(j)
		}
		switch data[j] {
		case ']':
			return j + 1, count, canonical, nil
		case ',':
			k := skipSpace(data, j+1)
			canonical = canonical && k == j+1
			i = k
		default:
			return j, 0, false, s.unexpected(j)
		}
	}
}

// scanObject checks the object at i and returns its end, its number of
// members as written (repeated keys included) and whether it is canonical.
func (s *scanner) scanObject(i, depth int) (end, count int, canonical bool, err error) {
	if depth > MaxDepth {
		return i, 0, false, s.errorAt(i, "nesting deeper than %d", MaxDepth)
	}
	data := s.data
	var keys keyOrder
	i++
	j := skipSpace(data, i)
	canonical = j == i
	if j < len(data) && data[j] == '}' {
		return j + 1, 0, canonical, nil
	}
	i = j
	for {
		if i >= len(data) || data[i] != '"' {
			return i, 0, false, s.unexpected(i)
		}
		keyEnd, keyCanonical, err := s.scanString(i)
		if err != nil {
			return keyEnd, 0, false, err
		}
		canonical = canonical && keyCanonical && keys.add(data[i+1:keyEnd-1])
		j := skipSpace(data, keyEnd)
		if j >= len(data) || data[j] != ':' {
			return j, 0, false, s.unexpected(j)
		}
		k := skipSpace(data, j+1)
		canonical = canonical && j == keyEnd && k == j+1
		end, valueCanonical, err := s.scan(k, depth)
		if err != nil {
			return end, 0, false, err
		}
		count++
		j = skipSpace(data, end)
		canonical = canonical && valueCanonical && j == end
		if j >= len(data) {
			return j, 0, false, s.unexpected(j)
		}
		switch data[j] {
		case '}':
			return j + 1, count, canonical, nil
		case ',':
			k := skipSpace(data, j+1)
			canonical = canonical && k == j+1
			i = k
		default:
			return j, 0, false, s.unexpected(j)
		}
	}
}

// keyOrder tracks the raw keys of one object while scanning, to tell whether
// the object is already in JavaScript order with no repeated key. Only a
// canonical key reaches it, so equal keys have equal raw bytes.
type keyOrder struct {
	small     [8][]byte
	n         int
	seen      map[string]struct{}
	lastIndex int64 // last array-index key plus one, 0 before any
	sawName   bool  // a non-index key has been seen
}

// add records key and reports whether the object is still canonical.
func (k *keyOrder) add(key []byte) bool {
	if idx, ok := arrayIndexBytes(key); ok {
		if k.sawName || int64(idx) < k.lastIndex {
			return false
		}
		k.lastIndex = int64(idx) + 1
		return true // index keys ascend strictly, so they cannot repeat
	}
	k.sawName = true
	if k.seen == nil {
		for i := 0; i < k.n; i++ {
			if string(k.small[i]) == string(key) {
				return false
			}
		}
		if k.n < len(k.small) {
			k.small[k.n] = key
			k.n++
			return true
		}
		k.seen = make(map[string]struct{}, 2*len(k.small))
		for i := 0; i < k.n; i++ {
			k.seen[string(k.small[i])] = struct{}{}
		}
	}
	if _, dup := k.seen[string(key)]; dup {
		return false
	}
	k.seen[string(key)] = struct{}{}
	return true
}

func arrayIndexBytes(key []byte) (uint32, bool) {
	if len(key) == 0 || len(key) > 10 || key[0] < '0' || key[0] > '9' {
		return 0, false
	}
	return arrayIndex(string(key))
}

// stringSpecial marks the bytes that end a plain run inside a JSON string.
var stringSpecial = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// skipPlain returns the index of the first byte at or after i that ends a
// plain run of string text ('"', '\\' or a control character), or len(data).
// It looks at eight bytes at a time: most of a log's bytes are string text.
func skipPlain(data []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(data); i += 8 {
		w := binary.LittleEndian.Uint64(data[i:])
		quote := w ^ (ones * '"')
		backslash := w ^ (ones * '\\')
		// A byte is special when it is zero after the xor (quote or
		// backslash) or below 0x20; the lowest flagged byte is exact.
		special := ((quote - ones) &^ quote) | ((backslash - ones) &^ backslash) | ((w - ones*0x20) &^ w)
		if special &= highs; special != 0 {
			return i + bits.TrailingZeros64(special)/8
		}
	}
	for i < len(data) && !stringSpecial[data[i]] {
		i++
	}
	return i
}

func (s *scanner) scanString(i int) (int, bool, error) {
	data := s.data
	canonical := true
	i++
	for {
		i = skipPlain(data, i)
		if i >= len(data) {
			return i, false, s.errorAt(i, "unterminated string")
		}
		switch c := data[i]; {
		case c == '"':
			return i + 1, canonical, nil
		case c < 0x20:
			return i, false, s.errorAt(i, "bad control character in string")
		}
		// A backslash escape.
		if i+1 >= len(data) {
			return i + 1, false, s.errorAt(i+1, "unterminated string")
		}
		switch data[i+1] {
		case '"', '\\', 'b', 'f', 'n', 'r', 't':
			i += 2
		case '/':
			canonical = false
			i += 2
		case 'u':
			unit, ok := hex4(data, i+2)
			if !ok {
				return i, false, s.errorAt(i, "bad unicode escape")
			}
			escapeCanonical := isLowerHex(data[i+2 : i+6])
			i += 6
			switch {
			case unit >= 0xd800 && unit < 0xdc00:
				if low, ok := hex4Escape(data, i); ok && low >= 0xdc00 && low < 0xe000 {
					escapeCanonical = false // a pair is written back as raw UTF-8
					i += 6
				}
			case unit >= 0xdc00 && unit < 0xe000:
			case unit < 0x20:
				escapeCanonical = escapeCanonical && shortEscape(rune(unit)) == 0
			default:
				escapeCanonical = false
			}
			canonical = canonical && escapeCanonical
		default:
			return i, false, s.errorAt(i, "bad escape character")
		}
	}
}

func hex4(data []byte, i int) (uint16, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	var u uint16
	for _, c := range data[i : i+4] {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		u = u<<4 | uint16(d)
	}
	return u, true
}

// hex4Escape reads a \uXXXX escape at i, if there is one.
func hex4Escape(data []byte, i int) (uint16, bool) {
	if i+1 >= len(data) || data[i] != '\\' || data[i+1] != 'u' {
		return 0, false
	}
	return hex4(data, i+2)
}

func isLowerHex(b []byte) bool {
	for _, c := range b {
		if c >= 'A' && c <= 'F' {
			return false
		}
	}
	return true
}

func (s *scanner) scanNumber(i int) (int, bool, error) {
	data := s.data
	start := i
	if data[i] == '-' {
		i++
	}
	if i >= len(data) {
		return i, false, s.unexpected(i)
	}
	switch {
	case data[i] == '0':
		i++
	case data[i] >= '1' && data[i] <= '9':
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	default:
		return i, false, s.unexpected(i)
	}
	plainInteger := true
	if i < len(data) && data[i] == '.' {
		plainInteger = false
		i++
		digits := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		if i == digits {
			return i, false, s.unexpected(i)
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		plainInteger = false
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		digits := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		if i == digits {
			return i, false, s.unexpected(i)
		}
	}
	text := data[start:i]
	if plainInteger && len(text) <= 15 && string(text) != "-0" {
		return i, true, nil
	}
	var buf [32]byte
	return i, string(appendNumber(buf[:0], parseNumber(text))) == string(text), nil
}
