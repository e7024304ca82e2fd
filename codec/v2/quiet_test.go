package v2

import (
	"sort"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// quietAgrees requires each exported check's quiet pass (the empty label)
// to refuse exactly when its labelled pass does, the premise of running
// quietly first. It returns how many of the checks refused.
func quietAgrees(t *testing.T, what string, ev session.Event) int {
	t.Helper()
	refused := 0
	for version := 0; version < 4; version++ {
		label := eventLabel(ev)
		pairs := []struct {
			name          string
			quiet, loudly error
		}{
			{"semantics", payloadSemantics(ev, "", version), payloadSemantics(ev, label, version)},
			{"surface", surfaceMetadata(ev.Row, ev.Seq, ev.Type, "", AssistantSources(version%2)),
				surfaceMetadata(ev.Row, ev.Seq, ev.Type, label, AssistantSources(version%2))},
			{"block", contentBlockValue(ev.Data(), "", version), contentBlockValue(ev.Data(), label, version)},
		}
		if version < 2 {
			pairs = append(pairs, struct {
				name          string
				quiet, loudly error
			}{"event", eventPayload(ev, "", version), eventPayload(ev, label, version)})
		}
		for _, p := range pairs {
			if (p.quiet == nil) != (p.loudly == nil) {
				t.Errorf("%s: %s v%d: quietly %q, labelled %q", what, p.name, version,
					sessiontest.RefusalText(p.quiet), sessiontest.RefusalText(p.loudly))
			}
			if p.loudly != nil {
				refused++
			}
		}
	}
	return refused
}

// TestQuietPassAgrees runs every fixture and every leaf corruption of it
// through the quiet and the labelled pass of each check.
func TestQuietPassAgrees(t *testing.T) {
	types := make([]string, 0, len(validPayloads))
	for typ := range validPayloads {
		types = append(types, typ)
	}
	sort.Strings(types)
	refused := 0
	for _, typ := range types {
		data := sessiontest.Parse(t, validPayloads[typ])
		refused += quietAgrees(t, typ, payloadEvent(t, typ, data))
		for _, path := range leafPaths(typ, data, nil) {
			refused += quietAgrees(t, typ, payloadEvent(t, typ, replaceAt(data, path, wrongType(valueAt(data, path)))))
		}
		changed := data.With("unexpected", jsonv.BoolValue(true))
		refused += quietAgrees(t, typ, payloadEvent(t, typ, changed))
	}
	if refused < 1000 {
		t.Errorf("only %d refusals compared", refused)
	}
}

// TestReleasedMembersOneScan compares ReleasedMembers, which looks for a
// missing member only when the scan for unexpected ones did not count every
// required one, with dsh's two passes: the first unexpected member, then
// the first missing one.
func TestReleasedMembersOneScan(t *testing.T) {
	twoPasses := func(v jsonv.Value, required, optional []string) string {
		if k, ok := jsform.UnexpectedKey(v, required, optional); ok {
			return "unexpected " + k
		}
		if k, ok := jsform.MissingKey(v, required); ok {
			return "lacks " + k
		}
		return ""
	}
	objects := []string{`{}`, `{"a":1}`, `{"a":1,"b":2}`, `{"b":2,"a":1}`, `{"a":1,"c":3}`, `{"c":3,"x":0}`,
		`{"a":1,"b":2,"c":3}`, `{"x":1,"a":1}`, `{"1":0,"a":1}`, `[]`, `null`, `"a"`}
	lists := [][2][]string{
		{nil, nil}, {{"a"}, nil}, {{"a", "b"}, nil}, {{"a"}, {"b"}}, {{"a", "a"}, nil}, {{"a"}, {"a", "c"}},
		{{"b", "a"}, {"c"}}, {nil, {"a", "b", "c"}}, {{"a", "b", "c"}, {"x"}}, {{"1"}, {"a"}},
	}
	for _, text := range objects {
		v := sessiontest.Parse(t, text)
		for _, l := range lists {
			want := twoPasses(v, l[0], l[1])
			got := ""
			if err := ReleasedMembers(v, "x", l[0], l[1]); err != nil {
				r := err.(*session.Refusal)
				got = strings.TrimPrefix(strings.TrimPrefix(r.Msg, "x has "), "x ")
				got = strings.Replace(strings.Replace(got, "unexpected member ", "unexpected ", 1), "lacks required member ", "lacks ", 1)
				got = strings.ReplaceAll(got, `"`, "")
			}
			if got != want {
				t.Errorf("%s %v: got %q, want %q", text, l, got, want)
			}
		}
	}
}
