package v2to3

import (
	"os"
	"strings"
	"testing"
)

func readVector(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestVectorA is V-A of format-v2-v4.md: the edge alone must hand on the v3
// intermediate dsh's migrator builds.
func TestVectorA(t *testing.T) {
	r := migrateV2(t, readVector(t, "vector-a.v2.jsonl"), -1)
	if r.err != nil {
		t.Fatal(r.text())
	}
	want := strings.Split(strings.TrimSuffix(readVector(t, "vector-a.v3.jsonl"), "\n"), "\n")
	if len(r.lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(r.lines), len(want), strings.Join(r.lines, "\n"))
	}
	for i := range want {
		if r.lines[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i, r.lines[i], want[i])
		}
	}
	if r.cut != 0 {
		t.Errorf("cut %d", r.cut)
	}
}

// TestVectorAPreset is V-A's variant with the retired "code" preset in the
// header and in a trailing agent-preset/selected event.
func TestVectorAPreset(t *testing.T) {
	input := strings.Replace(readVector(t, "vector-a.v2.jsonl"), `"delegationDepth":0}`, `"delegationDepth":0,"agentPreset":"code"}`, 1) +
		`{"type":"agent-preset/selected","seq":13,"time":14,"data":{"agentPreset":"code"}}` + "\n"
	r := migrateV2(t, input, -1)
	if r.err != nil {
		t.Fatal(r.text())
	}
	if !strings.HasSuffix(r.lines[0], `"agentPreset":"ptc"}`) || r.lines[17] != `{"type":"agent-preset/selected","seq":16,"time":14,"data":{"agentPreset":"ptc"}}` {
		t.Errorf("got %s\n%s", r.lines[0], r.lines[17])
	}
}
