package snapshot

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestParseSystemPrompts(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"One prompt.\n", []string{"One prompt."}},
		{"Line one.\n\nLine two.\n", []string{"Line one.\n\nLine two."}},
		{"First.\n\n<!-- request/header change 1 -->\n\nSecond.\n\n<!-- request/header change 2 -->\n\nThird.\n", []string{"First.", "Second.", "Third."}},
		{"Ends in a blank line.\n\n", []string{"Ends in a blank line.\n"}},
	}
	for _, tt := range tests {
		if got := ParseSystemPrompts(tt.file); !slices.Equal(got, tt.want) {
			t.Errorf("ParseSystemPrompts(%q) = %q, want %q", tt.file, got, tt.want)
		}
	}
}

func TestParseToolSchemasRefuses(t *testing.T) {
	for _, text := range []string{`[]`, `{"initial":[]}`, `{"initial":[],"changes":[{}]}`, `{`} {
		if _, err := ParseToolSchemas([]byte(text)); err == nil {
			t.Errorf("ParseToolSchemas(%s) accepted", text)
		}
	}
}

// TestRestoreExpectedChanges substitutes a later header change's tools and
// prompt: the first request/header and system/message get the initial ones,
// a "series" header keeps the tools in force, a "change" header and the
// next system message take the next ones; a name list counts as {{tools}}.
func TestRestoreExpectedChanges(t *testing.T) {
	snapshot := strings.Join([]string{
		`{"type":"session","version":4,"id":"{{session:1}}","createdAt":0,"cwd":"{{cwd}}"}`,
		`{"type":"system/message","data":{"message":{"role":"system","content":[{"type":"text","text":"{{system}}"}]}}}`,
		`{"type":"request/header","data":{"header":{"tools":"{{tools}}"},"reason":"initial"}}`,
		`{"type":"request/header","data":{"header":{"tools":"{{tools}}"},"reason":"series"}}`,
		`{"type":"system/message","data":{"message":{"role":"system","content":[{"type":"text","text":"{{system}}"}]}}}`,
		`{"type":"request/header","data":{"header":{"tools":["b"]},"reason":"change"}}`,
	}, "\n") + "\n"
	tools, err := ParseToolSchemas([]byte(`{"initial":[{"name":"a"}],"changes":[[{"name":"b","cwd":"{{cwd}}"}]]}`))
	if err != nil {
		t.Fatal(err)
	}
	exp := &Expected{Prompts: []string{"P1 in {{cwd}}", "P2"}, Tools: tools}
	var out bytes.Buffer
	if err := Restore(&out, strings.NewReader(snapshot), "s", RestoreOptions{Values: Defaults(), Expected: exp}); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		`{"type":"session","version":4,"id":"00000000-0000-4000-8000-000000000001","createdAt":0,"cwd":"/workspace/demo"}`,
		`{"type":"system/message","seq":0,"time":0,"data":{"message":{"role":"system","content":[{"type":"text","text":"P1 in /workspace/demo"}]}}}`,
		`{"type":"request/header","seq":1,"time":1,"data":{"header":{"tools":[{"name":"a"}]},"reason":"initial"}}`,
		`{"type":"request/header","seq":2,"time":2,"data":{"header":{"tools":[{"name":"a"}]},"reason":"series"}}`,
		`{"type":"system/message","seq":3,"time":3,"data":{"message":{"role":"system","content":[{"type":"text","text":"P2"}]}}}`,
		`{"type":"request/header","seq":4,"time":4,"data":{"header":{"tools":[{"name":"b","cwd":"/workspace/demo"}]},"reason":"change"}}`,
	}, "\n") + "\n"
	if out.String() != want {
		t.Errorf("restored:\n%s\nwant:\n%s", out.String(), want)
	}
}
