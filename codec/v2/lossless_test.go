package v2

import (
	"testing"

	"github.com/dshlog/dshlog/jsonv"
)

// losslessCases are texts in and around the shapes IsLossless's canonical
// fast path trusts: canonical and spaced-out containers, -0, overflowing
// and long numbers at every depth.
var losslessCases = []struct {
	text string
	want bool
}{
	{`{"a":1,"b":[2,3.5,"x"]}`, true},
	{`{"a": 1}`, true},
	{`[0]`, true},
	{`[-0]`, false},
	{`[ -0 ]`, false},
	{`{"a":{"b":[-0.0]}}`, false},
	{`{"a":1e400}`, false},
	{`{"a":-1e400}`, false},
	{`[1e308,1E2,1.50]`, true},
	{`{"b":1,"a":2}`, true},
	{`{"2":1,"1":2}`, true},
	{`{"a":1,"a":-0}`, false},
	{`{"a":-0,"a":1}`, true},
	{`[[[[1e999]]]]`, false},
	{`[[[[123456789012345678901234567890]]]]`, true},
	{`-0`, false},
	{`0`, true},
	{`"-0"`, true},
	{`[]`, true},
	{`{}`, true},
}

// TestIsLosslessFastPath requires IsLossless, which trusts canonical text,
// to agree with the walk through every member and element.
func TestIsLosslessFastPath(t *testing.T) {
	for _, c := range losslessCases {
		v, err := jsonv.Parse([]byte(c.text))
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		if got, walked := IsLossless(v), pureLossless(v); got != c.want || walked != c.want {
			t.Errorf("IsLossless(%s) = %v, walk %v, want %v", c.text, got, walked, c.want)
		}
	}
}

// FuzzIsLossless requires the canonical fast path to agree with the walk on
// any JSON text, looked at whole and member by member.
func FuzzIsLossless(f *testing.F) {
	for _, c := range losslessCases {
		f.Add([]byte(c.text))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		v, err := jsonv.Parse(text)
		if err != nil {
			return
		}
		if got, walked := IsLossless(v), pureLossless(v); got != walked {
			t.Fatalf("IsLossless(%s) = %v, walk %v", text, got, walked)
		}
		for _, m := range v.Members() {
			if got, walked := IsLossless(m.Value), pureLossless(m.Value); got != walked {
				t.Fatalf("IsLossless(%s member %s) = %v, walk %v", text, m.Key, got, walked)
			}
		}
	})
}

// pureLossless is IsLossless without the canonical fast path anywhere.
func pureLossless(v jsonv.Value) bool {
	switch v.Kind() {
	case jsonv.Number:
		f, _ := v.Number()
		return !v.IsNegZero() && f-f == 0
	case jsonv.Array:
		for _, e := range v.Elements() {
			if !pureLossless(e) {
				return false
			}
		}
	case jsonv.Object:
		for _, m := range v.Members() {
			if !pureLossless(m.Value) {
				return false
			}
		}
	}
	return true
}
