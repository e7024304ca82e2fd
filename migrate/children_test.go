package migrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	parentID = "00000000-0000-4000-8000-000000000001"
	childID  = "00000000-0000-4000-8000-000000000002"
)

// place copies a corpus file to dir/name, creating dir.
func place(t *testing.T, corpusFile, dir, name string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, readFile(t, filepath.Join(corpus, corpusFile)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// catalogRow is the catalog entry the v3→v4 edge appends to the
// provider-cwd parent for the ralph-loop child 1, after the parent's last
// event (seq 15) with its time.
func catalogRow(data string) string {
	return `{"type":"subagent/catalog","seq":16,"time":1783600629554,"data":` + data + "}\n"
}

const (
	continuableFact = `{"version":0,"childId":"` + childID + `","childCreatedAt":1783951001000,"mode":"continuable","label":"ralph-loop child 1"}`
	unknownFact     = `{"version":1,"childId":"` + childID + `","childCreatedAt":1783951001000,"mode":"unknown"}`
)

// TestChildren checks that a v3 parent's children are found as dsh finds
// them and complete its catalog: in dsh's store (the selected generation
// of a sibling session directory), beside it in a snapshot directory (same
// version only), or given explicitly; a child that cannot be read still
// gives an entry of unknown mode.
func TestChildren(t *testing.T) {
	golden := string(readFile(t, filepath.Join(corpus, "golden/provider-cwd/session.v3.jsonl.v4.jsonl")))
	tests := []struct {
		name     string
		setup    func(t *testing.T, root string) (parent string, explicit []string)
		want     string
		warnings int
	}{
		{"store: a sibling session directory", func(t *testing.T, root string) (string, []string) {
			project := filepath.Join(root, "--workspace-demo--")
			parent := place(t, "restored/provider-cwd/session.v3.jsonl", filepath.Join(project, parentID), "session.v3.jsonl")
			child := filepath.Join(project, childID)
			place(t, "restored/ralph-loop/session.1.jsonl", child, "session.jsonl") // an older generation: not read
			place(t, "restored/ralph-loop/session.1.v4.jsonl", child, "session.v4.jsonl")
			place(t, "restored/fs-write/session.v4.jsonl", filepath.Join(root, "_no-cwd", "other"), "session.v4.jsonl")
			return parent, nil
		}, golden + catalogRow(continuableFact), 0},
		{"store: an unreadable child gives an unknown entry", func(t *testing.T, root string) (string, []string) {
			project := filepath.Join(root, "--workspace-demo--")
			parent := place(t, "restored/provider-cwd/session.v3.jsonl", filepath.Join(project, parentID), "session.v3.jsonl")
			child := place(t, "restored/ralph-loop/session.1.v4.jsonl", filepath.Join(project, childID), "session.v4.jsonl")
			corrupt(t, child)
			return parent, nil
		}, golden + catalogRow(unknownFact), 1},
		{"snapshot: a child of another version is not one", func(t *testing.T, root string) (string, []string) {
			parent := place(t, "restored/provider-cwd/session.v3.jsonl", root, "session.v3.jsonl")
			place(t, "restored/ralph-loop/session.1.v4.jsonl", root, "session.1.v4.jsonl")
			return parent, nil
		}, golden, 0},
		{"explicit child", func(t *testing.T, root string) (string, []string) {
			parent := place(t, "restored/provider-cwd/session.v3.jsonl", filepath.Join(root, "a"), "session.v3.jsonl")
			child := place(t, "restored/ralph-loop/session.1.v4.jsonl", filepath.Join(root, "b"), "child.jsonl")
			return parent, []string{child}
		}, golden + catalogRow(continuableFact), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent, explicit := tt.setup(t, t.TempDir())
			src, err := Open(parent, nil, OpenOptions{ChildFiles: explicit})
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			var out strings.Builder
			if _, err := Encode(&out, src.Reader); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("output differs: %s", firstDifference([]byte(out.String()), []byte(tt.want)))
			}
			if len(src.Warnings) != tt.warnings {
				t.Errorf("warnings %q, want %d", src.Warnings, tt.warnings)
			}
		})
	}
}

// corrupt breaks a session's third line, with a turn/end after it: dsh's
// reader refuses such a session.
func corrupt(t *testing.T, path string) {
	t.Helper()
	lines := strings.SplitAfter(string(readFile(t, path)), "\n")
	lines[2] = "{not json\n"
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestExplicitChildMustBeAChild checks that --child refuses a session that
// is not a subagent child of the parent.
func TestExplicitChildMustBeAChild(t *testing.T) {
	dir := t.TempDir()
	parent := place(t, "restored/provider-cwd/session.v3.jsonl", dir, "session.v3.jsonl")
	other := place(t, "restored/fs-write/session.v4.jsonl", filepath.Join(dir, "x"), "session.v4.jsonl")
	_, err := Open(parent, nil, OpenOptions{ChildFiles: []string{other}})
	if err == nil || !strings.Contains(err.Error(), "is not a subagent child of "+parentID) {
		t.Errorf("got %v, want a refusal of the child", err)
	}
}

// TestStoreNames checks dsh's store names for a session: the id segment,
// the project directory of a cwd, and the generation file name.
func TestStoreNames(t *testing.T) {
	cwd := "/work/my project:2~x"
	for _, tt := range []struct{ got, want string }{
		{encodeSegment("a.b-c_d"), "a.b-c_d"},
		{encodeSegment("."), "~002E"},
		{encodeSegment(".."), "~002E~002E"},
		{encodeSegment("x/y~é\xed\xa0\x80"), "x~002Fy~007E~00E9~D800"},
		{projectDirName(&cwd), "--work-my~0020project-2~007Ex--"},
		{projectDirName(nil), "_no-cwd"},
		{projectDirName(new(string)), "--root--"},
		{logFilename(0, false), "session.jsonl"},
		{logFilename(3, true), "session.v3.jsonl.zstd"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// TestNames checks which names state a generation and what Publish names
// the current generation beside a source.
func TestNames(t *testing.T) {
	for _, tt := range []struct {
		base      string
		version   int
		named     bool
		published string
	}{
		{"session.jsonl", 0, true, "session.v4.jsonl"},
		{"session.v3.jsonl", 3, true, "session.v4.jsonl"},
		{"session.v2.jsonl.zstd", 2, true, "session.v4.jsonl.zstd"},
		{"session.1.jsonl", 0, true, "session.1.v4.jsonl"},
		{"session.2.v3.jsonl", 3, true, "session.2.v4.jsonl"},
		{"session.v0.jsonl", 0, false, "session.v4.jsonl"},
		{"session.v03.jsonl", 0, false, "session.v4.jsonl"},
		{"notes.jsonl", 0, false, "notes.v4.jsonl"},
		{"old.v3.jsonl.gz", 0, false, "old.v4.jsonl"},
	} {
		v, named := GenerationOf(tt.base)
		if v != tt.version || named != tt.named {
			t.Errorf("GenerationOf(%q) = %d, %v; want %d, %v", tt.base, v, named, tt.version, tt.named)
		}
		if got := PublishedName(tt.base); got != tt.published {
			t.Errorf("PublishedName(%q) = %q, want %q", tt.base, got, tt.published)
		}
	}
}
