package jsonv

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

// The intern tables return what decoding the string afresh returns, on a
// miss and on a hit, whatever else shares the slot.
func TestInternAgreesWithDecode(t *testing.T) {
	var texts []string
	for n := range maxInterned + 3 {
		texts = append(texts, strings.Repeat("a", n), strings.Repeat("b", n), "x"+strings.Repeat("-", n))
	}
	texts = append(texts, `\"`, `a\nb`, "é", "message-1-t1", "message-2-t1", "inputTokens", "outputTokens")
	for round := range 3 {
		for _, body := range texts {
			quoted := []byte(`"` + body + `"`)
			want := decodeString(quoted)
			if got := decodeKey(quoted); got != want {
				t.Fatalf("round %d: decodeKey(%s) = %q, want %q", round, quoted, got, want)
			}
			if got := decodeValue(quoted); got != want {
				t.Fatalf("round %d: decodeValue(%s) = %q, want %q", round, quoted, got, want)
			}
		}
	}
}

// shortHash spreads strings that share a prefix, a suffix and a length
// over many slots.
func TestShortHashSpreads(t *testing.T) {
	slots := map[uint32]bool{}
	for i := range 1000 {
		body := fmt.Appendf(nil, "message-%03d-t1", i)
		slots[shortHash(body)%uint32(len(internTable{}))] = true
	}
	if len(slots) < 500 {
		t.Errorf("1000 ids fall in %d slots", len(slots))
	}
}

// Decoding a string as the object decoder does, with the scan's word on
// escapes, gives what decodeString gives.
func TestDecodeScannedAgrees(t *testing.T) {
	texts := []string{`""`, `"a"`, `"\""`, `"\\"`, `"a\nb"`, `"\u00e9"`, `"\ud83d\ude00"`, `"\ud800"`,
		`"` + strings.Repeat("x", maxInterned) + `"`, `"` + strings.Repeat("x", maxInterned+1) + `"`,
		`"` + strings.Repeat("x", 40) + `\/"`, `"tool-result"`, `"é"`}
	for _, text := range texts {
		end, escaped := skipEscapes([]byte(text+`,`), 0)
		if end != len(text) {
			t.Fatalf("skipEscapes(%s) ends at %d, want %d", text, end, len(text))
		}
		if escaped != strings.Contains(text, `\`) {
			t.Errorf("skipEscapes(%s) escaped = %v", text, escaped)
		}
		want := decodeString([]byte(text))
		for _, table := range []*internTable{&keyTable, &valueTable} {
			if got := decodeScanned(table, []byte(text), escaped); got != want {
				t.Errorf("decodeScanned(%s) = %q, want %q", text, got, want)
			}
		}
	}
}

// Two strings whose first slots are the same are both kept, whichever comes
// first: a log's frequent keys must not evict each other on every row.
func TestInternKeepsTwoStringsOfOneSlot(t *testing.T) {
	slotOf := func(s string) uint32 { return shortHash([]byte(s)) % uint32(len(internTable{})) }
	var a, b string
	seen := map[uint32]string{}
	for i := 0; a == ""; i++ {
		s := fmt.Sprintf("key%d", i)
		if other, ok := seen[slotOf(s)]; ok && shortHash([]byte(s))>>16%uint32(len(internTable{})) != slotOf(other) {
			a, b = other, s
		}
		seen[slotOf(s)] = s
	}
	var table internTable
	first := map[string]string{a: table.get([]byte(a)), b: table.get([]byte(b))}
	for range 3 {
		for _, s := range []string{a, b} {
			if got := table.get([]byte(s)); got != s || unsafe.StringData(got) != unsafe.StringData(first[s]) {
				t.Errorf("get(%q) = %q, a fresh copy; want the one the table holds", s, got)
			}
		}
	}
}

// The two forms of an interned string are exactly two size classes, 16 and
// 32 bytes: a byte more would put each in the next class up.
func TestInternedSizes(t *testing.T) {
	if n := unsafe.Sizeof(interned{}); n != 16 {
		t.Errorf("interned is %d bytes, want 16", n)
	}
	if n := unsafe.Sizeof(longInterned{}); n != 32 {
		t.Errorf("longInterned is %d bytes, want 32", n)
	}
}
