package v2

import (
	"sort"
	"testing"

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
