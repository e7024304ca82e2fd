package migrate

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
)

// A growing file is read through the same decoding as a finished one, in
// every format: the same events, and a last line without its newline left
// unread (Unfinished), not dropped as torn.
func TestOpenGrowing(t *testing.T) {
	for _, from := range []string{
		"../testdata/seed-vectors/loop-events.v4.jsonl",
		"../testdata/corpus/golden/edge2/v0-legacy-compact-ids/session.jsonl",
	} {
		t.Run(filepath.Base(filepath.Dir(from)), func(t *testing.T) {
			data, err := os.ReadFile(from)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), filepath.Base(from))
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			opts := OpenOptions{Options: Options{Recovery: v2.Recoverable}}
			want, finished := readAllSource(t, path, opts)
			if finished.TornTail() {
				t.Fatal("the finished file has a torn tail")
			}
			const unfinished = `{"type":"turn/st`
			opts.Growing = strings.NewReader(string(data) + unfinished)
			got, src := readAllSource(t, path, opts)
			if src.TornTail() || src.Unfinished() != len(unfinished) {
				t.Errorf("torn %v, unfinished %d; want false, %d", src.TornTail(), src.Unfinished(), len(unfinished))
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("growing file read as\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// readAllSource returns the events the file at path is read as, as rows,
// and its Source once read to its end.
func readAllSource(t *testing.T, path string, opts OpenOptions) ([]string, *Source) {
	t.Helper()
	src, err := Open(path, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	var rows []string
	for {
		ev, err := src.Next()
		if err == io.EOF {
			return rows, src
		}
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, string(v2.EncodeEvent(nil, ev)))
	}
}
