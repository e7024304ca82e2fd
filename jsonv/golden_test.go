package jsonv

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// migratedMembers lists, per golden edge case, the members dsh's v3→v4
// migration itself rewrites, by 1-based line and key path. Everywhere else
// the golden line is exactly JSON.stringify(JSON.parse(input line)), so these
// cases judge the JSON layer alone:
//   - line 1, the header: version 3 becomes 4;
//   - line 9, the seed system message: source {kind:plugin,…} becomes
//     {kind:system-prompt};
//   - line 11, the runtime-context user message: source kind plugin becomes
//     runtime-context and loses its plugin key;
//   - numbers line 17: the unknown ignorable type vendor/metrics is renamed
//     plugin:vendor/metrics (its data, the number cases, is untouched).
var migratedMembers = map[string]map[int][]string{
	"*": {
		1:  {"version"},
		9:  {"data", "message", "source"},
		11: {"data", "source"},
	},
	"numbers": {17: {"type"}},
}

var jsonEdgeCases = []string{"duplicate-keys", "lone-surrogate", "non-ascii-u2028", "invalid-utf8", "numbers"}

func TestGoldenEdgeRows(t *testing.T) {
	for _, name := range jsonEdgeCases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("..", "testdata", "corpus", "golden", "edge", name)
			in := readLines(t, filepath.Join(dir, "session.v3.jsonl"))
			want := readLines(t, filepath.Join(dir, "session.v3.jsonl.v4.jsonl"))
			if len(in) != len(want) {
				t.Fatalf("%d input lines, %d golden lines", len(in), len(want))
			}
			for i := range in {
				num := i + 1
				v, err := Parse(in[i])
				if err != nil {
					t.Fatalf("line %d: %v", num, err)
				}
				path := migratedMembers[name][num]
				if path == nil {
					path = migratedMembers["*"][num]
				}
				if path != nil {
					golden, err := Parse(want[i])
					if err != nil {
						t.Fatalf("golden line %d: %v", num, err)
					}
					if Equal(at(v, path), at(golden, path)) {
						t.Errorf("line %d: %s is not changed by the migration; drop it from migratedMembers", num, strings.Join(path, "."))
					}
					v = withAt(v, path, at(golden, path))
				}
				if got := v.Encode(); !bytes.Equal(got, want[i]) {
					t.Errorf("line %d:\n got %s\nwant %s", num, got, want[i])
				}
			}
		})
	}
}

func readLines(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(data, []byte("\n")) {
		t.Fatalf("%s: no final newline", path)
	}
	return bytes.Split(data[:len(data)-1], []byte("\n"))
}

func at(v Value, path []string) Value {
	for _, key := range path {
		v = v.Field(key)
	}
	return v
}

func withAt(v Value, path []string, val Value) Value {
	if len(path) == 1 {
		return v.With(path[0], val)
	}
	return v.With(path[0], withAt(v.Field(path[0]), path[1:], val))
}
