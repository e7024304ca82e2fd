package rescue

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the broken logs under testdata/rescue from the corpus")

// fixtures are the broken logs the command-line tests rescue, each made
// from a corpus log by this file's generators (fieldBug, interleave), so
// that they are data for testscripts.
func fixtures(t *testing.T) map[string][]byte {
	double := twoTurnCompaction(t)
	single := read(t, compactionRecovery)
	endOfTurn1 := int64(strings.Count(string(single), "\n") - 2)
	mixed, _ := interleave(t, read(t, loopEvents), 20, 3)
	lines := strings.SplitAfter(string(read(t, loopEvents)), "\n")
	lines[11] = lines[11][:40] + "\n"
	return map[string][]byte{
		"compaction-crossed-turn-end/session.v4.jsonl":   fieldBug(t, double, 2, endOfTurn1, false),
		"compaction-crossed-turn-start/session.v4.jsonl": fieldBug(t, single, 1, 4, false),
		"compaction-two-turns/session.v4.jsonl":          double,
		"two-writers/session.v4.jsonl":                   mixed,
		"damaged-row/session.v4.jsonl":                   []byte(strings.Join(lines, "")),
	}
}

// TestFixturesCurrent: the broken logs under testdata/rescue are what the
// generators make of the corpus (go test ./rescue -update rewrites them).
func TestFixturesCurrent(t *testing.T) {
	for name, want := range fixtures(t) {
		path := filepath.Join("../testdata/rescue", name)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is not what the generator makes (%v); run go test ./rescue -update", path, err)
		}
	}
}
