package cli

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/internal/gen"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate"
)

// TestSurfacePreviews: the node table's previews, made as each event is
// folded and kept in place of the message, are the previews of the messages
// a fold keeping them all holds at the end, and the roles are theirs too.
// The surfaces are the restored corpus sessions (compactions and replaces
// among them), and each repeated to a long session.
func TestSurfacePreviews(t *testing.T) {
	files, _ := filepath.Glob("../testdata/corpus/restored/*/*.v4.jsonl")
	if len(files) == 0 {
		t.Fatal("no restored corpus sessions")
	}
	for _, path := range files {
		t.Run(filepath.Base(filepath.Dir(path)), func(t *testing.T) {
			info, _ := os.Stat(path)
			for _, session := range []string{path, generate(t, path, 8*info.Size())} {
				whole, summarizing := foldOf(t, session, nil), foldOf(t, session, messagePreview)
				if !slices.Equal(whole.Nodes(), summarizing.Nodes()) {
					t.Fatalf("nodes %v and %v", whole.Nodes(), summarizing.Nodes())
				}
				for i, n := range summarizing.Surface() {
					kept := whole.Surface()[i]
					if want := messagePreview(kept.Type, kept.Message); n.Summary() != want {
						t.Fatalf("node %d: preview %q, want %q", n.Seq, n.Summary(), want)
					}
				}
				var roles []string
				for _, m := range whole.Messages() {
					role, _ := m.Peek("role")
					roles = append(roles, role.Text())
				}
				if got := summarizing.Roles(); !slices.Equal(got, roles) {
					t.Fatalf("roles %v, want %v", got, roles)
				}
			}
		})
	}
}

// generate writes a session of at least size bytes repeating the template
// at path, and returns its path.
func generate(t *testing.T, path string, size int64) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "session.v4.jsonl")
	if _, err := gen.WriteFile(path, out, size); err != nil {
		t.Fatal(err)
	}
	return out
}

// foldOf folds every event of the session file at path, summarizing its
// nodes with summarize unless it is nil.
func foldOf(t *testing.T, path string, summarize func(string, jsonv.Value) string) *fold.Fold {
	t.Helper()
	src, err := migrate.Open(path, nil, migrate.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	f := fold.NewWith(src.Vocabulary())
	if summarize != nil {
		f.Summarize(summarize)
	}
	for {
		ev, err := src.Next()
		if err == io.EOF {
			return f
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Load(ev); err != nil {
			t.Fatal(err)
		}
	}
}
