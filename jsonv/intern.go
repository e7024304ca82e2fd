package jsonv

import (
	"bytes"
	"sync/atomic"
)

// internTable remembers recently decoded short strings, so the keys and the
// enumeration values ("text", "append", "user/message") a log repeats on
// every row are not allocated again for each row. It is a fixed-size table
// indexed by a hash of the bytes: bounded memory, no locks, and a collision
// or a one-off string costs only an allocation.
type internTable [4096]atomic.Pointer[string]

// Keys and values get separate tables, so that one-off values such as ids
// do not evict the keys, which repeat the most.
var keyTable, valueTable internTable

// maxInterned is the longest string kept in an internTable.
const maxInterned = 32

// get returns body as a string, from the table when it is there.
func (t *internTable) get(body []byte) string {
	h := uint32(2166136261) // FNV-1a
	for _, c := range body {
		h = (h ^ uint32(c)) * 16777619
	}
	slot := &t[h%uint32(len(t))]
	if p := slot.Load(); p != nil && *p == string(body) {
		return *p
	}
	s := string(body)
	slot.Store(&s)
	return s
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
