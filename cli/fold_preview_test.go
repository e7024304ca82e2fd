package cli

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/internal/gen"
	"github.com/dshlog/dshlog/migrate"
)

// TestEachPreviewInOrder: the node table's previews, made ahead on several
// goroutines for a long surface, are each node's own preview, in surface
// order, as one goroutine makes them. The surfaces are the restored corpus
// sessions (compactions, projections and replaces among them) repeated to
// several chunks of nodes.
func TestEachPreviewInOrder(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	files, _ := filepath.Glob("../testdata/corpus/restored/*/*.v4.jsonl")
	if len(files) == 0 {
		t.Fatal("no restored corpus sessions")
	}
	long := 0 // surfaces of several chunks
	for _, path := range files {
		t.Run(filepath.Base(filepath.Dir(path)), func(t *testing.T) {
			f := foldOf(t, path)
			if nodes := len(f.Surface()); nodes > 0 {
				// A compacting session's surface stays short however long it
				// gets; the others grow with each copy.
				info, _ := os.Stat(path)
				f = foldOf(t, generate(t, path, int64(3*previewChunk/nodes+2)*info.Size()))
			}
			if len(f.Surface()) > 3*previewChunk {
				long++
			}
			replaced := map[int64]fold.Replacement{}
			for _, r := range f.Replacements() {
				replaced[r.Seq] = r
			}
			nodes := f.Surface()
			i := 0
			eachPreview(nodes, replaced, func(n fold.Node, preview string) {
				if n.Seq != nodes[i].Seq {
					t.Fatalf("preview %d is of node %d, want node %d", i, n.Seq, nodes[i].Seq)
				}
				if want := nodePreview(n, replaced); preview != want {
					t.Fatalf("node %d: preview %q, want %q", n.Seq, preview, want)
				}
				i++
			})
			if i != len(nodes) {
				t.Fatalf("%d previews for %d nodes", i, len(nodes))
			}
		})
	}
	if long < len(files)/4 {
		t.Fatalf("only %d of %d sessions made a surface of several chunks", long, len(files))
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

// foldOf folds every event of the session file at path.
func foldOf(t *testing.T, path string) *fold.Fold {
	t.Helper()
	src, err := migrate.Open(path, nil, migrate.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	f := fold.NewWith(src.Vocabulary())
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
