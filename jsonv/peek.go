package jsonv

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// Peek returns the value of key in an object, and whether it is present,
// as Get does, but without decoding the object when nothing has looked into
// it yet: it finds the key in the parsed text, stepping over the other
// members, so checking the type tag of a block that also carries a long
// text costs no allocation for the text. Peek suits a member looked at
// once, Get members looked at again; a container either returns is decoded
// once, on the first look into it through either. Peek never changes v, but
// like every accessor it is not safe to call while another goroutine
// decodes v for the first time.
func (v Value) Peek(key string) (Value, bool) { return v.PeekPath(key) }

// PeekPath returns the value at a path of object keys, and whether every
// object on the way holds the next key: v.PeekPath("chunk", "type") is
// v.Peek("chunk") and then Peek("type") on that, but the objects on the way
// cost nothing when they have not been decoded. An empty path returns v.
func (v Value) PeekPath(keys ...string) (Value, bool) {
	cur := v
	for _, key := range keys {
		var ok bool
		if cur, ok = cur.peek(key); !ok {
			return Value{}, false
		}
	}
	return cur, true
}

// peek is Peek: Get on a container already decoded or built, and a look at
// the text on one not yet decoded.
func (v Value) peek(key string) (Value, bool) {
	if v.Kind() != Object {
		return Value{}, false
	}
	if !v.onTape() {
		c := (*container)(v.p)
		if !c.unscanned {
			return v.Get(key)
		}
		v, _ = Parse(c.raw) // Detach's copy: scan it afresh, leaving it undecoded
	}
	t, node, start := v.tapeNode()
	if t.isDecoded(node) {
		return v.Get(key)
	}
	vStart, vEnd, vNode, ok := t.find(node, start, key)
	if !ok {
		return Value{}, false
	}
	return t.value(vStart, vEnd, vNode), true
}

// find looks up key in the object whose text starts at start and is node on
// the tape, and returns where the member's value is: its text and, for a
// container, its node. A repeated key's last value is JSON.parse's.
func (t *tape) find(node uint32, start int, key string) (vStart, vEnd int, vNode uint32, found bool) {
	data, nodes := t.data, t.nodes
	self := nodes[node]
	canonical := self.link&flagCanonical != 0 // then no key repeats
	child := node + 1                         // the next child container's node
	pos := start + 1
	for range self.count {
		pos = skipSpace(data, pos)
		keyEnd := skipString(data, pos)
		match := keyIs(data[pos:keyEnd], key)
		pos = skipSpace(data, skipSpace(data, keyEnd)+1) // past ':'
		end := t.end(pos, child)
		container := data[pos] == '{' || data[pos] == '['
		if match {
			vStart, vEnd, vNode, found = pos, end, 0, true
			if container {
				vNode = child
			}
			if canonical {
				return
			}
		}
		if container {
			child = nodes[child].next()
		}
		pos = skipSpace(data, end) + 1 // past ',' or '}'
	}
	return
}

// keyIs reports whether the quoted key text decodes to key.
func keyIs(text []byte, key string) bool {
	body := text[1 : len(text)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body) == key
	}
	return decodeString(text) == key
}

// MayHoldString reports whether a string equal to s may occur in v, as a
// value or a key. It is false only when v's text is canonical (exactly what
// Append writes, see Raw) and lacks s as JSON.stringify quotes it, which no
// string of v can then be: a check looking for a rare tag can pass over a
// whole subtree with one scan of its bytes and no decoding.
func (v Value) MayHoldString(s string) bool {
	raw := v.Raw()
	if raw == nil {
		kind := v.Kind()
		return kind == Array || kind == Object || (kind == String && v.str() == s)
	}
	if pivot := plainPivot(s); pivot >= 0 {
		return containsPlain(raw, s, pivot)
	}
	var buf [64]byte
	return containsQuoted(raw, AppendString(buf[:0], s))
}

// plainPivot returns, for a string JSON.stringify quotes without escaping
// anything (printable ASCII without '"' or '\\'), the index of its first
// byte that is neither a letter nor a space, which JSON text has far fewer
// of ('-' in "tool-call"); it returns -1 for any other string.
func plainPivot(s string) int {
	pivot := -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return -1
		}
		if pivot < 0 && c != ' ' && (c|0x20 < 'a' || c|0x20 > 'z') {
			pivot = i
		}
	}
	return pivot
}

// containsPlain reports whether text contains s between quotes, where s
// needs no escaping and s[pivot] is its first byte that is neither a letter
// nor a space: containsQuoted for such a string, without quoting it.
func containsPlain(text []byte, s string, pivot int) bool {
	for i := pivot + 1; i < len(text); {
		j := bytes.IndexByte(text[i:], s[pivot])
		if j < 0 {
			return false
		}
		start := i + j - pivot // of s, after its opening quote
		if end := start + len(s); end < len(text) && text[start-1] == '"' && text[end] == '"' && string(text[start:end]) == s {
			return true
		}
		i += j + 1
	}
	return false
}

// containsQuoted reports whether text contains quoted, a quoted string. It
// looks for the quoted string's first byte that is neither a letter, a
// space nor a quote, which JSON text has far fewer of, and compares around
// each one; a string of letters only is searched for as a whole.
func containsQuoted(text, quoted []byte) bool {
	pivot := -1
	for i, c := range quoted {
		if c != '"' && c != ' ' && (c|0x20 < 'a' || c|0x20 > 'z') {
			pivot = i
			break
		}
	}
	if pivot < 0 {
		return bytes.Contains(text, quoted)
	}
	for i := pivot; i < len(text); {
		j := bytes.IndexByte(text[i:], quoted[pivot])
		if j < 0 {
			return false
		}
		if start := i + j - pivot; bytes.HasPrefix(text[start:], quoted) {
			return true
		}
		i += j + 1
	}
	return false
}

// PeekStringPrefix returns the string member key of an object, as Peek and
// Str would, but without decoding more of a long one than its start: whole
// reports whether s is the whole string; when it is not, s is a start of it
// of at most max bytes that ends on a whole character (an escape, a
// surrogate pair written as two escapes, or a UTF-8 sequence). A string
// whose text is longer than max bytes may come back cut even when it
// decodes to fewer. ok is false when key is absent or not a string.
func (v Value) PeekStringPrefix(key string, max int) (s string, whole, ok bool) {
	if v.Kind() == Object && v.onTape() {
		t, node, start := v.tapeNode()
		if !t.isDecoded(node) {
			vStart, vEnd, _, found := t.find(node, start, key)
			if !found || t.data[vStart] != '"' {
				return "", false, false
			}
			text := t.data[vStart:vEnd]
			if body := text[1 : len(text)-1]; len(body) > max {
				return decodeBody(body[:prefixEnd(body, max)]), false, true
			}
			return decodeValue(text), true, true
		}
	}
	member, _ := v.Peek(key)
	s, ok = member.Str()
	return s, ok, ok
}

// prefixEnd returns the longest start of a checked string's body, at most
// max bytes, that ends on a whole character: it never splits an escape, a
// surrogate pair of escapes that decodeBody joins, or a UTF-8 sequence.
func prefixEnd(body []byte, max int) int {
	i := 0
	for i < len(body) {
		n := 1
		switch c := body[i]; {
		case c == '\\' && body[i+1] == 'u':
			n = 6
			if unit, _ := hex4(body, i+2); utf16.IsSurrogate(rune(unit)) && unit < 0xdc00 {
				if low, ok := hex4Escape(body, i+6); ok && low >= 0xdc00 && low < 0xe000 {
					n = 12
				}
			}
		case c == '\\':
			n = 2
		case c >= utf8.RuneSelf:
			_, n = utf8.DecodeRune(body[i:])
		}
		if i+n > max {
			break
		}
		i += n
	}
	return i
}
