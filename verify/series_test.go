package verify

import (
	"slices"
	"testing"

	"github.com/dshlog/dshlog/jsonv"
)

// TestSeriesRule checks request 2 against request 1 (messages a, content
// generation 0) under the rule of semantics.md §4.6: a request extends the
// previous one unless a series header, or a session/end-seed after the
// last rewrite, lies between them; a rewrite calls for a series header.
func TestSeriesRule(t *testing.T) {
	a, b, c := jsonv.StringValue("a"), jsonv.StringValue("b"), jsonv.StringValue("c")
	tests := []struct {
		name     string
		messages []jsonv.Value
		gen      int
		series   bool // a series header since request 1
		seedGen  int  // content generation at a session/end-seed since request 1; -1: none
		want     []string
	}{
		{"extends", []jsonv.Value{a, b}, 0, false, -1, nil},
		{"retry: an equal list extends", []jsonv.Value{a}, 0, false, -1, nil},
		{"break", []jsonv.Value{c, b}, 1, false, -1, []string{CodeNotExtending}},
		{"break after a series header", []jsonv.Value{c, b}, 1, true, -1, nil},
		{"break across a lifecycle boundary after the rewrite", []jsonv.Value{c, b}, 1, false, 1, nil},
		{"break by a rewrite after the lifecycle boundary", []jsonv.Value{c, b}, 1, false, 0, []string{CodeNotExtending}},
		{"rewrite without a series header", []jsonv.Value{a, b}, 1, false, -1, []string{CodeSeriesMarker}},
		{"rewrite with a series header", []jsonv.Value{a, b}, 1, true, -1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			j := newJudge(func(f Finding) { got = append(got, f.Code) }, true)
			j.prev = &request{index: 1, seq: 5, count: 1, messages: []jsonv.Value{a}}
			if tt.series {
				j.since.series = 7
			}
			if tt.seedGen >= 0 {
				j.since.seed, j.since.seedGen = 8, tt.seedGen
			}
			j.settlement(request{index: 2, seq: 9, count: len(tt.messages), messages: tt.messages, contentGeneration: tt.gen}, true)
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings %v, want %v", got, tt.want)
			}
		})
	}
}
