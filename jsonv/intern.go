package jsonv

import (
	"bytes"
	"sync/atomic"
	"unsafe"
)

// internTable remembers recently decoded short strings, so the keys and the
// enumeration values ("text", "append", "user/message") a log repeats on
// every row are not allocated again for each row. It is a fixed-size table
// indexed by a hash of the bytes: bounded memory, no locks, and a collision
// or a one-off string costs the one allocation it would cost anyway.
type internTable [4096]atomic.Pointer[interned]

// interned is one string of an internTable, allocated with its bytes.
type interned struct {
	s   string // refers to buf, which never changes after it is filled
	buf [maxInterned]byte
}

// Keys and values get separate tables, so that one-off values such as ids
// do not evict the keys, which repeat the most.
var keyTable, valueTable internTable

// maxInterned is the longest string kept in an internTable.
const maxInterned = 32

// get returns body (at most maxInterned bytes) as a string, from the table
// when it is there.
func (t *internTable) get(body []byte) string {
	h := uint32(2166136261) // FNV-1a
	for _, c := range body {
		h = (h ^ uint32(c)) * 16777619
	}
	slot := &t[h%uint32(len(t))]
	if e := slot.Load(); e != nil && e.s == string(body) {
		return e.s
	}
	e := new(interned)
	n := copy(e.buf[:], body)
	e.s = unsafe.String(&e.buf[0], n)
	slot.Store(e)
	return e.s
}

// decodeKey returns the string of an object key's quoted text.
func decodeKey(text []byte) string { return decodeShort(&keyTable, text) }

// decodeValue returns the string of a string value's quoted text.
func decodeValue(text []byte) string { return decodeShort(&valueTable, text) }

func decodeShort(table *internTable, text []byte) string {
	body := text[1 : len(text)-1]
	if len(body) > maxInterned || bytes.IndexByte(body, '\\') >= 0 {
		return decodeString(text)
	}
	return table.get(body)
}
