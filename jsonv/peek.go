package jsonv

import "bytes"

// Peek returns the value of key in an object, and whether it is present,
// as Get does, but without decoding the object when nothing has looked into
// it yet: it finds the key in the parsed text, stepping over the other
// members, so checking the type tag of a block that also carries a long
// text costs no allocation for the text. A container Peek returns is
// separate from the one Get would return and is decoded on its own; Peek
// suits a member looked at once, Get members looked at again. Peek never
// changes v and is safe for concurrent use.
func (v Value) Peek(key string) (Value, bool) {
	if v.kind != Object || v.c == nil {
		return Value{}, false
	}
	c := v.c
	t := c.tape
	if t == nil {
		return v.Get(key)
	}
	data, nodes := t.data, t.nodes
	self := nodes[c.node]
	child := c.node + 1 // the next child container's node
	pos := int(self.end) - len(c.raw) + 1
	var found Value
	present := false
	for range self.count {
		pos = skipSpace(data, pos)
		keyEnd := skipString(data, pos)
		match := keyIs(data[pos:keyEnd], key)
		pos = skipSpace(data, skipSpace(data, keyEnd)+1) // past ':'
		end := t.end(pos, child)
		container := data[pos] == '{' || data[pos] == '['
		if match {
			node := uint32(0)
			if container {
				node = child
			}
			found, present = t.value(pos, end, node, nil), true
			if c.canonical {
				return found, true // a canonical object repeats no key
			}
		}
		if container {
			child = nodes[child].next()
		}
		pos = skipSpace(data, end) + 1 // past ',' or '}'
	}
	return found, present // a repeated key's last value, as JSON.parse keeps
}

// keyIs reports whether the quoted key text decodes to key.
func keyIs(text []byte, key string) bool {
	body := text[1 : len(text)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body) == key
	}
	return decodeString(text) == key
}
