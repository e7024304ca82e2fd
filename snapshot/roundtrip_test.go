package snapshot

import (
	"bytes"
	"path/filepath"
	"slices"
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

// retime rewrites a log's row times to createdAt + seq, the clock of a
// deterministic loop.
func retime(t *testing.T, log []byte) []byte {
	t.Helper()
	lines := bytes.SplitAfter(log, []byte("\n"))
	header, err := jsonv.Parse(lines[0])
	if err != nil {
		t.Fatal(err)
	}
	createdAt, _ := header.Field("createdAt").Number()
	out := append([]byte{}, lines[0]...)
	for _, line := range lines[1:] {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		row, err := jsonv.Parse(line)
		if err != nil {
			t.Fatal(err)
		}
		seq, _ := row.Field("seq").Number()
		out = append(row.With("time", jsonv.NumberValue(createdAt+seq)).Append(out), '\n')
	}
	return out
}

// TestRoundTripRecorded normalizes logs with their own UUIDs, prompts,
// tools and clock, keeps what the placeholders stood for (Recorded, through
// its encoding), and restores the log from the two byte for byte: the seed
// vectors as recorded, and retimed to a loop's fixed clock, which is one run.
func TestRoundTripRecorded(t *testing.T) {
	paths, err := filepath.Glob("../testdata/seed-vectors/*.v4.jsonl")
	if err != nil || len(paths) != 2 {
		t.Fatalf("seed vectors: %v %v", paths, err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			original := readFile(t, path)
			for _, log := range [][]byte{original, retime(t, original)} {
				normalized, recorded := normalizeRecorded(t, log, path)
				if len(recorded.IDs) == 0 || len(recorded.Prompts) == 0 || len(recorded.Tools) == 0 {
					t.Fatalf("recorded %+v", recorded)
				}
				decoded, err := ParseRecorded(recorded.Encode())
				if err != nil {
					t.Fatal(err)
				}
				restored := restoreBytes(t, normalized, path, decoded.RestoreOptions())
				if !bytes.Equal(restored, log) {
					t.Fatalf("restore(normalize(log)) is not the log:\n%s", firstDiff(restored, log))
				}
			}
			_, recorded := normalizeRecorded(t, retime(t, original), path)
			if want := []ClockRun{{Seq: 0, Time: createdAt(t, original), Step: 1}}; !slices.Equal(recorded.Clock, want) {
				t.Errorf("clock of a retimed log: %v, want %v", recorded.Clock, want)
			}
		})
	}
}

func normalizeRecorded(t *testing.T, log []byte, name string) ([]byte, Recorded) {
	t.Helper()
	var out bytes.Buffer
	recorded, err := NormalizeRecorded(&out, bytes.NewReader(log), name, NormalizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), recorded
}

func createdAt(t *testing.T, log []byte) float64 {
	header, err := jsonv.Parse(log[:bytes.IndexByte(log, '\n')])
	if err != nil {
		t.Fatal(err)
	}
	n, _ := header.Field("createdAt").Number()
	return n
}
