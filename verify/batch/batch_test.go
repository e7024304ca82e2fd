package batch

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// writeFiles creates each file (with some content) under root.
func writeFiles(t *testing.T, root string, files ...string) {
	t.Helper()
	for _, f := range files {
		path := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func paths(targets []Target) []string {
	var out []string
	for _, t := range targets {
		out = append(out, filepath.ToSlash(t.Path))
	}
	return out
}

// TestExpand walks a store-like tree: session logs by dsh's names only,
// the generation dsh would open of each session (children are sessions
// of their own) or all of them, explicit files whatever their names,
// each file once, in path order.
func TestExpand(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root,
		"--p--/a/session.jsonl", "--p--/a/session.v3.jsonl", "--p--/a/session.v4.jsonl",
		"--p--/a/session.lock", "--p--/a/session.migration.0123abcd.v4.jsonl.tmp", "--p--/a/notes.txt",
		"--p--/a/session.1.jsonl", "--p--/a/session.1.v4.jsonl.zstd",
		"--p--/a-b/session.jsonl.gz",
		"--p--/empty/readme.md",
		"other/recorded.jsonl")
	t.Chdir(root)
	tests := []struct {
		name   string
		inputs []string
		sel    Selection
		want   []string
		empty  []string
	}{
		{"current generations", []string{"."}, Selection{}, []string{
			"--p--/a/session.1.v4.jsonl.zstd", "--p--/a/session.v4.jsonl", "--p--/a-b/session.jsonl.gz"}, nil},
		{"all generations", []string{"--p--"}, Selection{AllGenerations: true}, []string{
			"--p--/a/session.1.jsonl", "--p--/a/session.1.v4.jsonl.zstd", "--p--/a/session.jsonl",
			"--p--/a/session.v3.jsonl", "--p--/a/session.v4.jsonl", "--p--/a-b/session.jsonl.gz"}, nil},
		{"explicit files, once each, sorted", []string{"other/recorded.jsonl", "--p--/a", "./--p--/a/session.v4.jsonl", "-", "missing.jsonl"}, Selection{}, []string{
			"-", "--p--/a/session.1.v4.jsonl.zstd", "--p--/a/session.v4.jsonl", "missing.jsonl", "other/recorded.jsonl"}, nil},
		{"a directory without logs", []string{"--p--/empty", "other"}, Selection{}, nil, []string{"--p--/empty", "other"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			targets, empty := Expand(tt.inputs, tt.sel)
			if got := paths(targets); !slices.Equal(got, tt.want) {
				t.Errorf("targets %q, want %q", got, tt.want)
			}
			if !slices.Equal(empty, tt.empty) {
				t.Errorf("empty %q, want %q", empty, tt.empty)
			}
			for _, target := range targets {
				if target.Path != "-" && target.Path != "missing.jsonl" && target.Size != int64(len(filepath.ToSlash(target.Path))) {
					t.Errorf("%s: size %d", target.Path, target.Size)
				}
			}
		})
	}
}

// TestShardsCoverEveryFileOnce splits 1,000 paths into N shards for
// N = 1..5: each path falls into exactly one shard, and no shard is empty.
func TestShardsCoverEveryFileOnce(t *testing.T) {
	var targets []Target
	for i := range 1000 {
		targets = append(targets, Target{Path: fmt.Sprintf("sessions/--p%d--/s%04d/session.v4.jsonl", i%7, i)})
	}
	for n := 1; n <= 5; n++ {
		seen := map[string]int{}
		for i := 1; i <= n; i++ {
			shard := Shard{Index: i, Count: n}.Filter(targets)
			if len(shard) == 0 {
				t.Errorf("shard %d/%d is empty", i, n)
			}
			for _, target := range shard {
				seen[target.Path]++
			}
		}
		for _, target := range targets {
			if seen[target.Path] != 1 {
				t.Errorf("%d shards hold %s %d times", n, target.Path, seen[target.Path])
			}
		}
	}
}

func TestParseShard(t *testing.T) {
	for _, good := range []string{"1/1", "2/4", "4/4", "10/12"} {
		if _, err := ParseShard(good); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
	for _, bad := range []string{"", "1", "0/4", "5/4", "1/0", "-1/2", "a/b", "1/2/3"} {
		if s, err := ParseShard(bad); err == nil {
			t.Errorf("%q accepted as %+v", bad, s)
		}
	}
}

func TestComparePaths(t *testing.T) {
	sorted := []string{"-", "a/b", "a/b/c", "a-c/b", "a.d", "ab", "b"}
	got := slices.Clone(sorted)
	slices.Reverse(got)
	slices.SortFunc(got, ComparePaths)
	if !slices.Equal(got, sorted) {
		t.Errorf("sorted %q, want %q", got, sorted)
	}
}

// TestRunInOrder judges corpus files with 1 and 8 workers: the results
// come back in target order, the same each time.
func TestRunInOrder(t *testing.T) {
	files, err := filepath.Glob("../../testdata/corpus/bad-logs/*/session.v4.jsonl")
	if err != nil || len(files) < 40 {
		t.Fatalf("bad logs: %d, %v", len(files), err)
	}
	targets, _ := Expand(files, Selection{})
	var runs [][]string
	for _, jobs := range []int{1, 8} {
		var got []string
		Run(targets, Options{Jobs: jobs}, func(r Result) {
			got = append(got, fmt.Sprintf("%s %v %d %d", r.Path, r.Err, len(r.Findings), r.Chain.Requests))
		})
		runs = append(runs, got)
	}
	if len(runs[0]) != len(targets) || !slices.Equal(runs[0], runs[1]) {
		t.Errorf("-j 1 and -j 8 differ:\n%q\n%q", runs[0], runs[1])
	}
	for i, target := range targets {
		if got := runs[1][i]; got[:len(target.Path)] != target.Path {
			t.Errorf("result %d is %s, want %s", i, got, target.Path)
		}
	}
}
