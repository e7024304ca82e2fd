package vocab

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/jsonv"
)

const builds = "../testdata/dsh-builds"

func names(v *Vocabulary) []string {
	var out []string
	for _, t := range v.Types() {
		out = append(out, t.Name)
	}
	return out
}

// quotedNames lists the names between quotes in the KNOWN_SESSION_EVENT_TYPES
// set of a known-event-types.ts, read independently of the loader.
func quotedNames(t *testing.T, path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, set, _ := strings.Cut(string(data), "KNOWN_SESSION_EVENT_TYPES")
	set, _, _ = strings.Cut(set, "])")
	var out []string
	for _, line := range strings.Split(set, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "'") {
			out = append(out, strings.Trim(line, "',"))
		}
	}
	return out
}

// TestKnownEventTypesFiles loads each build's known-event-types.ts: the
// declaration equals the file's list, and a built-in build's vocabulary
// equals its own file.
func TestKnownEventTypesFiles(t *testing.T) {
	tests := []struct {
		folder string
		count  int
		build  *Build
	}{
		{"mainline-v0.2.1-alpha.2", 60, Official},
		{"fork-zdsh", 60, Zdsh},
		{"fork-hebilicious", 62, nil},
		{"fork-1394225561", 60, nil},
	}
	for _, tt := range tests {
		t.Run(tt.folder, func(t *testing.T) {
			path := filepath.Join(builds, tt.folder, "packages/core/session/src/known-event-types.ts")
			d, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, typ := range d.Types {
				got = append(got, typ.Name)
				if typ.Surface != (typ.Name == "image/offload") {
					t.Errorf("%s: surface %v", typ.Name, typ.Surface)
				}
			}
			want := quotedNames(t, path)
			if !slices.Equal(got, want) || len(got) != tt.count {
				t.Errorf("loaded %d names %v\nwant %d: %v", len(got), got, tt.count, want)
			}
			if d.Kind != FileKnownEventTypes {
				t.Errorf("kind %q", d.Kind)
			}
			if tt.build != nil {
				slices.Sort(want)
				if own := names(tt.build.Vocabulary()); !slices.Equal(own, want) {
					t.Errorf("built-in %s differs from its file:\n%v\n%v", tt.build.Name, own, want)
				}
			}
		})
	}
}

// TestBuildsDiffer pins the difference between the default build and zDSH.
func TestBuildsDiffer(t *testing.T) {
	official, zdsh := Default(), Zdsh.Vocabulary()
	var onlyOfficial, onlyZdsh []string
	for _, n := range names(official) {
		if !zdsh.Has(n) {
			onlyOfficial = append(onlyOfficial, n)
		}
	}
	for _, n := range names(zdsh) {
		if !official.Has(n) {
			onlyZdsh = append(onlyZdsh, n)
		}
	}
	if !slices.Equal(onlyOfficial, []string{"working-directory/change"}) || !slices.Equal(onlyZdsh, []string{"slots/dispatch"}) {
		t.Errorf("only official %v, only zdsh %v", onlyOfficial, onlyZdsh)
	}
	if !official.ExternalCatalog() || zdsh.ExternalCatalog() {
		t.Error("version-2 catalog facts are the official line's")
	}
	for _, name := range []string{"v0.2.1-alpha.2", "official", "ZDSH"} {
		if _, ok := FindBuild(name); !ok {
			t.Errorf("FindBuild(%q) failed", name)
		}
	}
	if _, ok := FindBuild("v5"); ok {
		t.Error("FindBuild found v5")
	}
}

func TestPersistenceSchemaFiles(t *testing.T) {
	tests := []struct {
		file  string
		types []string
	}{
		{"fork-hebilicious/docs/persistence-changes/2026-09-20-external-harness-bindings.schema.json", []string{"agent-acp/session", "agent-codex/thread"}},
		{"fork-hebilicious/docs/persistence-changes/2026-09-22-agent-harness-record.schema.json", []string{"agent/harness"}},
		{"fork-hebilicious/docs/persistence-changes/2026-09-24-agent-tool-bridge-exposed.schema.json", []string{"agent-tool-bridge/exposed"}},
		{"fork-1394225561/docs/persistence-changes/2026-09-17-external-subagent-activations.schema.json", []string{"subagent/external-end", "subagent/external-start"}},
		{"mainline-v0.2.1-alpha.2/docs/persistence-changes/2026-10-07-title-reasoning-effort.schema.json", []string{"session/title-llm-request"}},
	}
	for _, tt := range tests {
		d, err := Load(filepath.Join(builds, tt.file))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, typ := range d.Types {
			got = append(got, typ.Name)
			if typ.Schema == nil || typ.Surface {
				t.Errorf("%s: %s: schema %v surface %v", tt.file, typ.Name, typ.Schema != nil, typ.Surface)
			}
		}
		if !slices.Equal(got, tt.types) {
			t.Errorf("%s: %v, want %v", tt.file, got, tt.types)
		}
	}
}

func TestSchemaCheck(t *testing.T) {
	d, err := Load(filepath.Join(builds, "fork-hebilicious/docs/persistence-changes/2026-09-24-agent-tool-bridge-exposed.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	schema := d.Types[0].Schema
	tests := []struct{ data, err string }{
		{`{"tools":["a","b"]}`, ""},
		{`{"tools":[]}`, ""},
		{`{"tools":["a",1]}`, "data.tools[1]: expected string"},
		{`{}`, `data: lacks the required member "tools"`},
		{`{"tools":[],"extra":1}`, `data: has the undeclared member "extra"`},
		{`[]`, "data: expected an object"},
	}
	for _, tt := range tests {
		err := schema.Check(mustParse(t, tt.data), "data")
		if got := errText(err); got != tt.err {
			t.Errorf("%s: %q, want %q", tt.data, got, tt.err)
		}
	}
	wd := Default().Lookup(WorkingDirectoryChange).Schema
	if err := wd.Check(mustParse(t, `{"cwd":"/a"}`), "data"); err != nil {
		t.Error(err)
	}
	if err := wd.Check(mustParse(t, `{"cwd":7}`), "data"); errText(err) != "data.cwd: expected string" {
		t.Error(err)
	}
}

func TestSchemaUnionsAndLiterals(t *testing.T) {
	d, err := Load(filepath.Join(builds, "mainline-v0.2.1-alpha.2/docs/persistence-changes/2026-09-19-external-subagent-catalog.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := d.Types[0].Schema
	for data, ok := range map[string]bool{
		`{"version":2,"childId":"c","childCreatedAt":1,"mode":"external"}`:              true,
		`{"version":0,"childId":"c","childCreatedAt":1,"mode":"one-shot"}`:              true,
		`{"version":1,"childId":"c","childCreatedAt":1,"mode":"unknown"}`:               true,
		`{"version":0,"childId":"c","childCreatedAt":1,"mode":"unknown"}`:               false,
		`{"version":2,"childId":"c","childCreatedAt":1,"mode":"continuable"}`:           false,
		`{"version":0,"childId":"c","childCreatedAt":1,"mode":"continuable","label":3}`: false,
	} {
		if err := s.Check(mustParse(t, data), "data"); (err == nil) != ok {
			t.Errorf("%s: %v", data, err)
		}
	}
}

func TestParseList(t *testing.T) {
	d, err := Parse([]byte("# a fork's types\nagent/harness\n\n  agent-acp/session  # bound sessions\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Kind != FileList || len(d.Types) != 2 || d.Types[1].Name != "agent-acp/session" {
		t.Errorf("%+v", d)
	}
	for _, bad := range []string{"", "# nothing\n", "agent harness\n", `{"formatVersion":1}`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestWith(t *testing.T) {
	list, _ := Parse([]byte("agent/harness\nuser/message\n"))
	list.File = "a.txt"
	schema, err := Load(filepath.Join(builds, "fork-hebilicious/docs/persistence-changes/2026-09-22-agent-harness-record.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	base := Default()
	v := base.With(list).With(schema)
	if base.Has("agent/harness") {
		t.Error("With changed its receiver")
	}
	harness := v.Lookup("agent/harness")
	if harness == nil || harness.Schema == nil || harness.Derivable || !strings.HasPrefix(harness.Origin, "a.txt, ") {
		t.Errorf("%+v", harness)
	}
	if user := v.Lookup("user/message"); user.Origin != "built in (v0.2.1-alpha.2)" || !user.Derivable {
		t.Errorf("%+v", user)
	}
}

func TestHint(t *testing.T) {
	tests := []struct {
		v        *Vocabulary
		typ      string
		contains string
	}{
		{Default(), "slots/dispatch", "--dsh zdsh"},
		{Zdsh.Vocabulary(), "working-directory/change", "--dsh v0.2.1-alpha.2"},
		{Default(), "agent/harness", "Hebilicious"},
		{Default(), "subagent/external-start", "1394225561"},
	}
	for _, tt := range tests {
		hint, ok := tt.v.Hint(tt.typ)
		if !ok || !strings.Contains(hint, tt.contains) {
			t.Errorf("%s: %q", tt.typ, hint)
		}
	}
	if _, ok := Default().Hint("no/such"); ok {
		t.Error("hint for an undeclared type")
	}
	if _, ok := Default().Hint("working-directory/change"); ok {
		t.Error("hint for a type the build knows")
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func mustParse(t *testing.T, s string) jsonv.Value {
	t.Helper()
	v, err := jsonv.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSchemaRecursiveUnion: a union naming itself ends with an error, not
// an endless or exponential check.
func TestSchemaRecursiveUnion(t *testing.T) {
	s := &Schema{Nodes: []Node{{Kind: KindUnion, Types: []int{0, 0}}}}
	if err := s.Check(mustParse(t, `1`), "data"); err == nil || !strings.Contains(err.Error(), "too complex") && !strings.Contains(err.Error(), "too deeply") {
		t.Errorf("%v", err)
	}
}
