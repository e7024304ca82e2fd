package jsonv

import (
	"bytes"
	"encoding/binary"
	"sync/atomic"
	"unsafe"
)

// internTable remembers recently decoded short strings, so the keys and the
// enumeration values ("text", "append", "user/message") a log repeats on
// every row are not allocated again for each row. It is a fixed-size table
// indexed by a hash of the bytes, where a string may be in either of two
// slots, so that two frequent strings whose first slots are the same (as
// "turn" and "target" were) do not evict each other on every row: bounded
// memory, no locks, and a collision or a one-off string costs the one
// allocation it would cost anyway.
type internTable [4096]atomic.Pointer[interned]

// interned is one string of an internTable, its length and its bytes: no
// pointer, so the collector never scans one. It is 16 bytes, room for most
// keys and values; a longer string is held in a longInterned, which starts
// the same way, so that each takes the smallest size class that holds it.
type interned struct {
	n   uint8
	buf [15]byte
}

type longInterned struct {
	n   uint8
	buf [maxInterned]byte
}

func newInterned(body []byte) *interned {
	var e *interned
	if len(body) <= len(e.buf) {
		e = new(interned)
	} else {
		e = (*interned)(unsafe.Pointer(new(longInterned)))
	}
	e.n = uint8(len(body))
	copy(unsafe.Slice(&e.buf[0], len(body)), body)
	return e
}

func (e *interned) string() string { return unsafe.String(&e.buf[0], int(e.n)) }

// holds reports whether e, which may be nil, is body.
func (e *interned) holds(body []byte) bool {
	return e != nil && int(e.n) == len(body) && e.string() == string(body)
}

// Keys and values get separate tables, so that one-off values such as ids
// do not evict the keys, which repeat the most.
var keyTable, valueTable internTable

// maxInterned is the longest string kept in an internTable: a longInterned
// is then 32 bytes, a size class.
const maxInterned = 31

// get returns body (at most maxInterned bytes) as a string, from the table
// when it is there. A string not there goes to its first slot if that is
// free and to its second otherwise.
func (t *internTable) get(body []byte) string {
	h := shortHash(body)
	first, second := &t[h%uint32(len(t))], &t[h>>16%uint32(len(t))]
	e1 := first.Load()
	if e1.holds(body) {
		return e1.string()
	}
	if e := second.Load(); e.holds(body) {
		return e.string()
	}
	if len(body) == 0 {
		return ""
	}
	e := newInterned(body)
	if e1 == nil {
		first.Store(e)
	} else {
		second.Store(e)
	}
	return e.string()
}

// shortHash hashes a string of at most maxInterned bytes from its length and
// up to three overlapping words of it. It need not tell every string apart:
// two strings in one slot only cost an allocation.
func shortHash(b []byte) uint32 {
	n := len(b)
	var x, y, z uint64
	switch {
	case n >= 8:
		x = binary.LittleEndian.Uint64(b)
		y = binary.LittleEndian.Uint64(b[n-8:])
		z = binary.LittleEndian.Uint64(b[n/2-4:])
	case n >= 4:
		x = uint64(binary.LittleEndian.Uint32(b))
		y = uint64(binary.LittleEndian.Uint32(b[n-4:]))
	case n > 0:
		x = uint64(b[0]) | uint64(b[n/2])<<8 | uint64(b[n-1])<<16
	}
	h := (x^uint64(n)<<59)*0x9e3779b97f4a7c15 ^ y*0xc2b2ae3d27d4eb4f ^ z*0x165667b19e3779f9
	return uint32(h ^ h>>32)
}

// decodeKey returns the string of an object key's quoted text.
func decodeKey(text []byte) string { return decodeShort(&keyTable, text) }

// decodeValue returns the string of a string value's quoted text.
func decodeValue(text []byte) string { return decodeShort(&valueTable, text) }

func decodeShort(table *internTable, text []byte) string {
	return decodeScanned(table, text, bytes.IndexByte(text, '\\') >= 0)
}

// decodeScanned is decodeShort for a string whose scan told whether it
// holds an escape.
func decodeScanned(table *internTable, text []byte, escaped bool) string {
	body := text[1 : len(text)-1]
	switch {
	case escaped:
		return decodeString(text)
	case len(body) > maxInterned:
		return string(body)
	}
	return table.get(body)
}
