package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/verify"
)

// TestRepairAppendAtEveryCut cuts every log in testdata (restored corpus in
// all its formats, the current dsh's mainline logs in their real form, the
// seed vectors) after every line, runs repair --append on the cut and
// requires that the result verifies clean, or that repair refused and left
// the file byte for byte as it was.
func TestRepairAppendAtEveryCut(t *testing.T) {
	wallClock = func() int64 { return 1_800_000_000_000 }
	files := globAll(t, "../testdata/corpus/restored/*/*.jsonl", "../testdata/corpus/mainline/*/*.v4.jsonl",
		"../testdata/seed-vectors/*.v4.jsonl")
	cuts, appended, markers, refused := 0, 0, 0, map[string]int{}
	for _, file := range files {
		name := strings.TrimPrefix(file, "../testdata/corpus/")
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(name, "mainline/") {
			data = realForm(t, data)
		}
		lines := strings.SplitAfter(string(data), "\n")
		for n := 1; n <= len(lines); n++ {
			cut := strings.Join(lines[:n], "")
			if n > 1 && cut == strings.Join(lines[:n-1], "") {
				continue
			}
			cuts++
			path := filepath.Join(t.TempDir(), filepath.Base(file))
			if err := os.WriteFile(path, []byte(cut), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			code := Run([]string{"repair", "--append", path}, nil, &stdout, &stderr)
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if code != ExitOK {
				if !bytes.Equal(after, []byte(cut)) {
					t.Errorf("%s cut after line %d: repair refused (%s) but changed the file", name, n, stderr.String())
				}
				kind := refusalKind(stderr.String())
				if strings.HasPrefix(name, "mainline/") {
					t.Errorf("%s cut after line %d: a log the current dsh wrote is refused: %s", name, n, stderr.String())
				}
				refused[kind]++
				continue
			}
			if len(after) > len(cut) {
				appended++
			}
			if strings.Contains(stdout.String(), "resume marker") {
				markers++
			}
			if problems := verifyErrors(t, path); len(problems) > 0 {
				t.Errorf("%s cut after line %d: repair exit 0 (%s) but the result does not verify: %s",
					name, n, strings.TrimSpace(stdout.String()), strings.Join(problems, "; "))
			}
		}
	}
	t.Logf("%d cuts of %d logs: %d repaired, %d with the resume marker, refusals %v", cuts, len(files), appended, markers, refused)
	if markers == 0 {
		t.Error("no cut fell inside a compaction bracket; the corpus should hold compaction-recovery")
	}
}

// refusalKind names a repair refusal by its reason, for the test's log.
func refusalKind(stderr string) string {
	_, reason, _ := strings.Cut(stderr, "refusing to append: ")
	reason, _, _ = strings.Cut(reason, ";")
	reason, _, _ = strings.Cut(reason, ":")
	return reason
}

// verifyErrors returns verify's errors about the file at path.
func verifyErrors(t *testing.T, path string) []string {
	t.Helper()
	src, err := migrate.Open(path, nil, migrate.OpenOptions{Options: migrate.Options{Recovery: v2.Recoverable}})
	if err != nil {
		return []string{err.Error()}
	}
	defer src.Close()
	found, err := verify.Errors(src.Reader, nil)
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	for _, f := range found {
		problems = append(problems, f.Code+": "+f.Message)
	}
	return problems
}

// realForm turns a normalized snapshot (rows without seq and time, cwd
// {{cwd}}) into the file dsh's writer would have written: seq by row, time
// as createdAt + seq, the cwd dshlog's reader gives the placeholder, each
// row's other members as they were.
func realForm(t *testing.T, snapshot []byte) []byte {
	t.Helper()
	var out []byte
	var createdAt int64
	for i, line := range strings.Split(strings.TrimSuffix(string(snapshot), "\n"), "\n") {
		v, err := jsonv.Parse([]byte(line))
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if i == 0 {
			createdAt, _ = v.Field("createdAt").SafeInt()
			if cwd, ok := v.Field("cwd").Str(); ok {
				v = v.With("cwd", jsonv.StringValue(strings.Replace(cwd, "{{cwd}}", "/workspace/demo", 1)))
			}
			out = append(append(out, v.Encode()...), '\n')
			continue
		}
		seq := int64(i - 1)
		members := []jsonv.Member{jsonv.M("type", v.Field("type")), jsonv.M("seq", jsonv.IntValue(seq)),
			jsonv.M("time", jsonv.IntValue(createdAt+seq))}
		for _, m := range v.Members() {
			if m.Key != "type" {
				members = append(members, m)
			}
		}
		out = append(append(out, jsonv.ObjectValue(members...).Encode()...), '\n')
	}
	return out
}
