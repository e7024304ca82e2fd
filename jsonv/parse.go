package jsonv

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is how deeply arrays and objects may nest. Deeper input is refused
// with a SyntaxError instead of exhausting the stack.
const MaxDepth = 10000

// SyntaxError describes JSON text that JSON.parse would refuse.
type SyntaxError struct {
	Offset int    // byte offset into the parsed text where the problem was found
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
	if !utf8.Valid(data) {
		data = ToWellFormed(data)
	}
	s := scanner{data: data}
	start := s.skipSpace(0)
	end, canonical, err := s.scan(start, 0)
	if err != nil {
		return Value{}, err
	}
	if rest := s.skipSpace(end); rest != len(data) {
		return Value{}, s.errorAt(rest, "unexpected character %s after JSON value", quoteByte(data[rest]))
	}
	return s.value(start, end, canonical)
}

// Valid reports whether data is one JSON text JSON.parse would accept.
func Valid(data []byte) bool {
	_, err := Parse(data)
	return err == nil
}

type scanner struct {
	data []byte
}

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

func (s *scanner) skipSpace(i int) int {
	for i < len(s.data) && isSpace(s.data[i]) {
		i++
	}
	return i
}

// scan checks the value starting at i and returns where it ends and whether
// its text is canonical (exactly what Append would write for it).
func (s *scanner) scan(i, depth int) (end int, canonical bool, err error) {
	if i >= len(s.data) {
		return i, false, s.unexpected(i)
	}
	switch c := s.data[i]; {
	case c == '{':
		return s.scanObject(i, depth+1)
	case c == '[':
		return s.scanArray(i, depth+1)
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

func (s *scanner) scanArray(i, depth int) (int, bool, error) {
	if depth > MaxDepth {
		return i, false, s.errorAt(i, "nesting deeper than %d", MaxDepth)
	}
	canonical := true
	i++
	j := s.skipSpace(i)
	canonical = canonical && j == i
	if j < len(s.data) && s.data[j] == ']' {
		return j + 1, canonical, nil
	}
	i = j
	for {
		end, elemCanonical, err := s.scan(i, depth)
		if err != nil {
			return end, false, err
		}
		j := s.skipSpace(end)
		canonical = canonical && elemCanonical && j == end
		if j >= len(s.data) {
			return j, false, s.unexpected(j)
		}
		switch s.data[j] {
		case ']':
			return j + 1, canonical, nil
		case ',':
			k := s.skipSpace(j + 1)
			canonical = canonical && k == j+1
			i = k
		default:
			return j, false, s.unexpected(j)
		}
	}
}

func (s *scanner) scanObject(i, depth int) (int, bool, error) {
	if depth > MaxDepth {
		return i, false, s.errorAt(i, "nesting deeper than %d", MaxDepth)
	}
	keys := keyOrder{}
	canonical := true
	i++
	j := s.skipSpace(i)
	canonical = canonical && j == i
	if j < len(s.data) && s.data[j] == '}' {
		return j + 1, canonical, nil
	}
	i = j
	for {
		if i >= len(s.data) || s.data[i] != '"' {
			return i, false, s.unexpected(i)
		}
		keyEnd, keyCanonical, err := s.scanString(i)
		if err != nil {
			return keyEnd, false, err
		}
		canonical = canonical && keyCanonical && keys.add(s.data[i+1:keyEnd-1])
		j := s.skipSpace(keyEnd)
		if j >= len(s.data) || s.data[j] != ':' {
			return j, false, s.unexpected(j)
		}
		k := s.skipSpace(j + 1)
		canonical = canonical && j == keyEnd && k == j+1
		end, valueCanonical, err := s.scan(k, depth)
		if err != nil {
			return end, false, err
		}
		j = s.skipSpace(end)
		canonical = canonical && valueCanonical && j == end
		if j >= len(s.data) {
			return j, false, s.unexpected(j)
		}
		switch s.data[j] {
		case '}':
			return j + 1, canonical, nil
		case ',':
			k := s.skipSpace(j + 1)
			canonical = canonical && k == j+1
			i = k
		default:
			return j, false, s.unexpected(j)
		}
	}
}

// keyOrder tracks the raw keys of one object while scanning, to tell whether
// the object is already in JavaScript order with no repeated key.
type keyOrder struct {
	small     [8][]byte
	n         int
	seen      map[string]struct{}
	lastIndex int64 // last array-index key, -1 before any
	sawName   bool  // a non-index key has been seen
	started   bool
}

// add records key and reports whether the object is still canonical.
func (k *keyOrder) add(key []byte) bool {
	if !k.started {
		k.started, k.lastIndex = true, -1
	}
	if idx, ok := arrayIndexBytes(key); ok {
		if k.sawName || int64(idx) <= k.lastIndex {
			return false
		}
		k.lastIndex = int64(idx)
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

func (s *scanner) scanString(i int) (int, bool, error) {
	data := s.data
	canonical := true
	i++
	for {
		for i < len(data) && !stringSpecial[data[i]] {
			i++
		}
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
					canonical = false // a pair is written back as raw UTF-8
					i += 6
				} else {
					canonical = canonical && escapeCanonical
				}
			case unit >= 0xdc00 && unit < 0xe000:
				canonical = canonical && escapeCanonical
			case unit < 0x20:
				canonical = canonical && escapeCanonical && shortEscape(rune(unit)) == 0
			default:
				canonical = false
			}
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

func parseNumber(text []byte) float64 {
	// The scanner has checked the grammar, which is a subset of Go's; an
	// out-of-range literal becomes ±Inf or 0 as in JavaScript.
	f, _ := strconv.ParseFloat(string(text), 64)
	return f
}

// value builds the Value for the checked text data[start:end].
func (s *scanner) value(start, end int, canonical bool) (Value, error) {
	text := s.data[start:end]
	switch text[0] {
	case '{':
		return Value{kind: Object, c: &container{raw: text, canonical: canonical, lazy: true}}, nil
	case '[':
		return Value{kind: Array, c: &container{raw: text, canonical: canonical, lazy: true}}, nil
	case '"':
		return Value{kind: String, str: decodeString(text)}, nil
	case 't':
		return Value{kind: Bool, b: true}, nil
	case 'f':
		return Value{kind: Bool}, nil
	case 'n':
		return Value{}, nil
	}
	return Value{kind: Number, num: parseNumber(text)}, nil
}

// decodeString returns the contents of the quoted, already checked JSON
// string text. Lone surrogates are kept in generalized UTF-8.
func decodeString(text []byte) string {
	body := text[1 : len(text)-1]
	plain := true
	for _, c := range body {
		if c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		return string(body)
	}
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); {
		c := body[i]
		if c != '\\' {
			out = append(out, c)
			i++
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
	return string(out)
}

// appendWTF8 appends r in UTF-8, writing a surrogate code point as the
// three-byte sequence generalized UTF-8 uses for it.
func appendWTF8(b []byte, r rune) []byte {
	if r >= 0xd800 && r < 0xe000 {
		return append(b, 0xe0|byte(r>>12), 0x80|byte(r>>6)&0x3f, 0x80|byte(r)&0x3f)
	}
	return utf8.AppendRune(b, r)
}

// decode fills a lazy container from its raw text.
func (c *container) decode(kind Kind) {
	if !c.lazy {
		return
	}
	s := scanner{data: c.raw}
	i := s.skipSpace(1)
	if kind == Array {
		var elems []Value
		for c.raw[i] != ']' {
			end, canonical, _ := s.scan(i, 0)
			v, _ := s.value(i, end, canonical)
			elems = append(elems, v)
			i = s.skipSpace(end)
			if c.raw[i] == ',' {
				i = s.skipSpace(i + 1)
			}
		}
		c.elems = elems
	} else {
		var members []Member
		for c.raw[i] != '}' {
			keyEnd, _, _ := s.scanString(i)
			key := decodeString(c.raw[i:keyEnd])
			i = s.skipSpace(s.skipSpace(keyEnd) + 1)
			end, canonical, _ := s.scan(i, 0)
			v, _ := s.value(i, end, canonical)
			if c.canonical {
				members = append(members, Member{key, v})
			} else {
				members = setMember(members, key, v)
			}
			i = s.skipSpace(end)
			if c.raw[i] == ',' {
				i = s.skipSpace(i + 1)
			}
		}
		c.members = members
	}
	c.lazy = false
	if !c.canonical {
		c.raw = nil
	}
}

func (v Value) elements() []Value {
	if v.c == nil {
		return nil
	}
	v.c.decode(Array)
	return v.c.elems
}

func (v Value) objectMembers() []Member {
	if v.c == nil {
		return nil
	}
	v.c.decode(Object)
	return v.c.members
}
