package v2to3

import (
	"testing"

	"github.com/dshlog/dshlog/jsonv"
)

// TestUnchangedReferencesStay requires list and span, which hand back a
// list or range whose references all map to themselves, to write the same
// text as mapping every reference into a new value, under a target that
// moves nothing and one that moves every seq.
func TestUnchangedReferencesStay(t *testing.T) {
	targets := map[string]func(int64) int64{
		"same":    func(s int64) int64 { return s },
		"shifted": func(s int64) int64 { return s + 1 },
		"partly":  func(s int64) int64 { return s + s%2 },
	}
	lists := []string{`[]`, `[0]`, `[1,2,3]`, `[1.0, 2e0]`, `[4,5]`}
	spans := []string{`{"start":1,"end":2}`, `{"op":"replace","start":0,"end":3}`, `{"end":2.0,"start":1}`, `{"start":3,"end":3,"x":[1]}`}
	for _, text := range []string{`[-0]`, `{"start":-0,"end":1}`} {
		v := parse(t, text)
		if _, err := (references{sourceSeq: 10, target: targets["same"]}).list(v); err == nil && v.Kind() == jsonv.Array {
			t.Errorf("list %s: -0 accepted", text)
		}
		if _, err := (references{sourceSeq: 10, target: targets["same"]}).span(v); err == nil && v.Kind() == jsonv.Object {
			t.Errorf("span %s: -0 accepted", text)
		}
	}
	for name, target := range targets {
		refs := references{sourceSeq: 10, target: target}
		for _, text := range lists {
			v := parse(t, text)
			got, err := refs.list(v)
			if err != nil {
				t.Fatalf("%s list %s: %v", name, text, err)
			}
			want := make([]jsonv.Value, 0, v.Len())
			for _, e := range v.Elements() {
				m, _ := refs.one(e)
				want = append(want, m)
			}
			if g, w := got.String(), jsonv.ArrayValue(want...).String(); g != w {
				t.Errorf("%s list %s = %s, want %s", name, text, g, w)
			}
		}
		for _, text := range spans {
			v := parse(t, text)
			got, err := refs.span(v)
			if err != nil {
				t.Fatalf("%s span %s: %v", name, text, err)
			}
			start, _ := refs.one(v.Field("start"))
			end, _ := refs.one(v.Field("end"))
			if g, w := got.String(), v.With("start", start).With("end", end).String(); g != w {
				t.Errorf("%s span %s = %s, want %s", name, text, g, w)
			}
		}
	}
}

func parse(t *testing.T, text string) jsonv.Value {
	t.Helper()
	v, err := jsonv.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return v
}
