package snapshot

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/dshlog/dshlog/jsonv"
)

// loopValues are values unlike R1's, as a loop's own log could have them.
func loopValues(t *testing.T) Values {
	tools, err := jsonv.Parse([]byte(`[{"name":"echo","description":"Echo the text.","parameters":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}]`))
	if err != nil {
		t.Fatal(err)
	}
	return Values{
		Cwd: "/home/dev/loop-ws-7f3a",
		IDFormats: map[string]string{
			"session":  "sess-%04d",
			"message":  "msg-%d",
			"id":       "compaction-%d",
			"workflow": "wf-%d",
		},
		System:   "You are the scripted loop's agent.\nAnswer briefly.",
		Tools:    tools,
		TimeStep: 7,
	}
}

// TestRoundTrip takes every v4 snapshot of the corpus, restores it with
// values other than R1's into a log like a loop's, and checks that
// normalizing that log gives the snapshot back and that restoring the
// normalized form with the same values gives the log back, byte for byte.
func TestRoundTrip(t *testing.T) {
	values := loopValues(t)
	var files []string
	for _, folder := range []string{"dsh", "mainline"} {
		paths, err := filepath.Glob(filepath.Join(corpus, folder, "*", "session*.v4.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			rel, _ := filepath.Rel(corpus, p)
			files = append(files, rel)
		}
	}
	if len(files) != 44 {
		t.Fatalf("%d v4 snapshots, want 44 (22 in dsh/, 22 in mainline/)", len(files))
	}
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			snapshot := readCorpus(t, file)
			log := restoreBytes(t, snapshot, file, RestoreOptions{Values: values})
			normalized := normalizeBytes(t, log, file, NormalizeOptions{IDFormats: values.IDFormats})
			if !bytes.Equal(normalized, snapshot) {
				t.Fatalf("normalize(log) is not the snapshot:\n%s", firstDiff(normalized, snapshot))
			}
			again := restoreBytes(t, normalized, file, RestoreOptions{Values: values})
			if !bytes.Equal(again, log) {
				t.Fatalf("restore(normalize(log)) is not the log:\n%s", firstDiff(again, log))
			}
		})
	}
}

// TestNormalizeIdempotent checks that normalizing a recorded log with its
// own ids and times (not restorable byte for byte: its clock and UUIDs are
// gone) is a fixed point: the normalized form of its restoration is the
// normalized form itself.
func TestNormalizeIdempotent(t *testing.T) {
	paths, err := filepath.Glob("../testdata/seed-vectors/*.v4.jsonl")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no seed vectors: %v", err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			log := readFile(t, path)
			once := normalizeBytes(t, log, path, NormalizeOptions{})
			if bytes.Contains(once, []byte(`"seq":`)) || !bytes.Contains(once, []byte("{{message:1}}")) {
				t.Fatalf("normalized form keeps seqs or has no message placeholder:\n%.600s", once)
			}
			restored := restoreBytes(t, once, path, RestoreOptions{Values: Defaults()})
			twice := normalizeBytes(t, restored, path, NormalizeOptions{IDFormats: Defaults().IDFormats})
			if !bytes.Equal(once, twice) {
				t.Fatalf("normalize is not a fixed point:\n%s", firstDiff(twice, once))
			}
		})
	}
}
