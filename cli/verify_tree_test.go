package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/verify/batch"
)

// acceptedBadLogs are the bad logs a verifier must not fail: valid, or at
// most worth a warning or an info (testdata/corpus/bad-logs/README.md,
// "Which damages dsh accepts").
var acceptedBadLogs = []string{"empty-assistant-content", "truncated-tail-open-tool-call", "unknown-ignorable-with-surfaceop", "unknown-type-ignorable"}

// verifyTree builds a store-like tree in a temporary directory: every
// session directory of testdata/corpus/restored (several generations each,
// subagent children beside their parent) and each seed vector in a
// session directory of its own, named as dsh names a v4 generation; with
// bad, each bad log too. It returns the tree's root.
func verifyTree(t *testing.T, bad bool) string {
	t.Helper()
	root := t.TempDir()
	copyTree(t, "../testdata/corpus/restored", filepath.Join(root, "restored"))
	for _, vector := range globAll(t, "../testdata/seed-vectors/*.v4.jsonl") {
		name := strings.TrimSuffix(filepath.Base(vector), ".v4.jsonl")
		copyFile(t, vector, filepath.Join(root, "seed-vectors", name, "session.v4.jsonl"))
	}
	if bad {
		for _, log := range globAll(t, "../testdata/corpus/bad-logs/*/session.v4.jsonl") {
			copyFile(t, log, filepath.Join(root, "bad-logs", filepath.Base(filepath.Dir(log)), "session.v4.jsonl"))
		}
	}
	return root
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		copyFile(t, path, filepath.Join(to, rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// runVerify runs dshlog verify with args in dir and returns its exit code
// and outputs.
func runVerifyIn(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	code := Run(append([]string{"verify"}, args...), strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// fileResults reads the per-file objects of verify --json: file -> result.
func fileResults(t *testing.T, stdout string) map[string]string {
	t.Helper()
	results := map[string]string{}
	dec := json.NewDecoder(strings.NewReader(stdout))
	for {
		var object struct {
			File   string  `json:"file"`
			Result *string `json:"result"`
		}
		if err := dec.Decode(&object); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if object.Result != nil {
			if _, dup := results[object.File]; dup {
				t.Errorf("%s reported twice", object.File)
			}
			results[object.File] = *object.Result
		}
	}
	return results
}

// TestVerifyTreeClean verifies a tree of every restored corpus session and
// the seed vectors: the generation dsh would open of each session, then
// every generation, all clean.
func TestVerifyTreeClean(t *testing.T) {
	root := verifyTree(t, false)
	for _, args := range [][]string{{"--json", "."}, {"--json", "--all-generations", "."}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, stdout, stderr := runVerifyIn(t, root, args...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
			}
			results := fileResults(t, stdout)
			want := 22 + 2 // the current generation of each restored session (ralph-loop has two children), the seed vectors
			if slices.Contains(args, "--all-generations") {
				want = 52 + 2
			}
			if len(results) != want {
				t.Errorf("%d files judged, want %d: %v", len(results), want, slices.Sorted(maps.Keys(results)))
			}
			for file, result := range results {
				if result != "ok" {
					t.Errorf("%s: %s", file, result)
				}
			}
		})
	}
}

// TestVerifyTreeBadLogs adds the bad logs to the tree: exactly the 36 that
// dsh refuses or its writer never produces fail, with exit code 1, and
// nothing else.
func TestVerifyTreeBadLogs(t *testing.T) {
	var want []string
	for _, log := range globAll(t, "../testdata/corpus/bad-logs/*/session.v4.jsonl") {
		name := filepath.Base(filepath.Dir(log))
		if !slices.Contains(acceptedBadLogs, name) {
			want = append(want, filepath.Join("bad-logs", name, "session.v4.jsonl"))
		}
	}
	if len(want) != 36 {
		t.Fatalf("%d faulty bad logs in testdata, want 36", len(want))
	}
	root := verifyTree(t, true)
	code, stdout, stderr := runVerifyIn(t, root, "--json", ".")
	if code != ExitProblems {
		t.Fatalf("exit %d, want %d: %s", code, ExitProblems, stderr)
	}
	var failed []string
	for file, result := range fileResults(t, stdout) {
		if result != "ok" {
			failed = append(failed, file)
		}
	}
	slices.SortFunc(failed, batch.ComparePaths)
	if !slices.Equal(failed, want) {
		t.Errorf("failed files:\n%s\nwant:\n%s", strings.Join(failed, "\n"), strings.Join(want, "\n"))
	}
	if wantErr := fmt.Sprintf("dshlog: error: 36 of %d files: ", 24+40); !strings.Contains(stderr, wantErr) {
		t.Errorf("stderr %q, want %q", stderr, wantErr)
	}
}

// TestVerifyJobsStable runs the tree with one job and with eight, in every
// format: the reports are byte for byte the same.
func TestVerifyJobsStable(t *testing.T) {
	root := verifyTree(t, true)
	for _, format := range []string{"text", "json", "github"} {
		t.Run(format, func(t *testing.T) {
			_, one, errOne := runVerifyIn(t, root, "--format", format, "--all-generations", "-j", "1", ".")
			_, eight, errEight := runVerifyIn(t, root, "--format", format, "--all-generations", "-j", "8", ".")
			if one != eight || errOne != errEight {
				t.Errorf("-j 1 and -j 8 differ:\n%s", diffLines(one+errOne, eight+errEight))
			}
			if !strings.Contains(one, "bad-logs/seq-gap/session.v4.jsonl") {
				t.Errorf("the report names no bad log:\n%s", one)
			}
		})
	}
}

// TestVerifyShards runs the tree in N shards for N = 1..5: together they
// judge every file of the unsharded run exactly once.
func TestVerifyShards(t *testing.T) {
	root := verifyTree(t, true)
	_, stdout, _ := runVerifyIn(t, root, "--json", "--all-generations", ".")
	all := fileResults(t, stdout)
	for n := 1; n <= 5; n++ {
		seen := map[string]int{}
		for i := 1; i <= n; i++ {
			_, stdout, stderr := runVerifyIn(t, root, "--json", "--all-generations", "--shard", fmt.Sprintf("%d/%d", i, n), ".")
			shard := fileResults(t, stdout)
			if n > 1 && len(shard) == len(all) {
				t.Errorf("shard %d/%d holds every file", i, n)
			}
			for file, result := range shard {
				seen[file]++
				if result != all[file] {
					t.Errorf("shard %d/%d: %s is %s, unsharded %s (%s)", i, n, file, result, all[file], stderr)
				}
			}
		}
		if len(seen) != len(all) {
			t.Errorf("%d shards judge %d files, the whole run %d", n, len(seen), len(all))
		}
		for file, times := range seen {
			if times != 1 {
				t.Errorf("%d shards judge %s %d times", n, file, times)
			}
		}
	}
}
