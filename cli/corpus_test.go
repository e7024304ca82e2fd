package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInspectCorpus runs inspect --json on every v4 session shipped in
// testdata (seed vectors, restored corpus): each event comes out once, in
// order, and its row is byte for byte the line in the file.
func TestInspectCorpus(t *testing.T) {
	files := globAll(t, "../testdata/seed-vectors/*.v4.jsonl", "../testdata/corpus/restored/*/*.v4.jsonl")
	for _, file := range files {
		t.Run(strings.TrimPrefix(file, "../testdata/"), func(t *testing.T) {
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			rows := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")[1:]
			got, stderr := runInspectJSON(t, file)
			if stderr != "" {
				t.Errorf("stderr: %s", stderr)
			}
			if len(got) != len(rows) {
				t.Fatalf("%d events, file has %d rows", len(got), len(rows))
			}
			for i, line := range got {
				if row := rowOf(t, line); row != rows[i] {
					t.Errorf("event %d row differs from the file:\n got %s\nwant %s", i, row, rows[i])
				}
			}
		})
	}
}

// TestInspectSnapshotTwins reads each normalized snapshot in
// testdata/corpus/dsh beside its restored twin: the same events in the same
// order, with a note that seq and time were restored.
func TestInspectSnapshotTwins(t *testing.T) {
	for _, snapshot := range globAll(t, "../testdata/corpus/dsh/*/*.v4.jsonl") {
		restored := strings.Replace(snapshot, "/corpus/dsh/", "/corpus/restored/", 1)
		t.Run(strings.TrimPrefix(snapshot, "../testdata/"), func(t *testing.T) {
			got, stderr := runInspectJSON(t, snapshot)
			if !strings.Contains(stderr, "normalized snapshot: seq and time restored") {
				t.Errorf("no snapshot note; stderr: %s", stderr)
			}
			want, _ := runInspectJSON(t, restored)
			if len(got) != len(want) {
				t.Fatalf("%d events, the restored twin has %d", len(got), len(want))
			}
			for i := range got {
				if g, w := seqAndType(got[i]), seqAndType(want[i]); g != w {
					t.Errorf("event %d is %s, restored twin has %s", i, g, w)
				}
			}
		})
	}
}

func globAll(t *testing.T, patterns ...string) []string {
	t.Helper()
	var files []string
	for _, pattern := range patterns {
		matches, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		if len(matches) == 0 {
			t.Fatalf("no file matches %s", pattern)
		}
		files = append(files, matches...)
	}
	return files
}

// runInspectJSON runs "dshlog inspect --json file" in-process, requires exit 0
// and returns the output lines and stderr.
func runInspectJSON(t *testing.T, file string) ([]string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"inspect", "--json", file}, strings.NewReader(""), &stdout, &stderr); code != ExitOK {
		t.Fatalf("inspect %s: exit %d: %s", file, code, stderr.String())
	}
	return strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n"), stderr.String()
}

// rowOf returns the row member of an inspect --json line: it is the last
// member, and a `,"row":` inside a string would be escaped.
func rowOf(t *testing.T, line string) string {
	t.Helper()
	_, row, ok := strings.Cut(line, `,"row":`)
	if !ok || !strings.HasSuffix(row, "}") {
		t.Fatalf("no row in %s", line)
	}
	return strings.TrimSuffix(row, "}")
}

// seqAndType returns the seq and type members of an inspect --json line.
func seqAndType(line string) string {
	seq, _, _ := strings.Cut(line, `,"time":`)
	_, rest, _ := strings.Cut(line, `,"type":`)
	typ, _, _ := strings.Cut(rest, `,"surface":`)
	return seq + " " + typ
}
