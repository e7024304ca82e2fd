package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A session dsh appends to between inspect's two readings: the table shows
// the events of the first reading, aligned, and nothing half-measured.
func TestInspectTableLiveAppend(t *testing.T) {
	path := copySession(t, "../testdata/seed-vectors/crash-persisted.v4.jsonl")
	var out bytes.Buffer
	s := &streams{in: strings.NewReader(""), out: &out, err: &bytes.Buffer{}}
	opts := inspectOptions{file: path}
	table := newInspectTable(s.out, path)
	if err := sizeColumns(opts, s, table); err != nil {
		t.Fatal(err)
	}
	// dsh's crash repair closer for c1 (seed-vectors/crash-closers.json), with
	// a summary wider than any before it.
	appendLine(t, path, `{"type":"tool/result","seq":10,"time":1792499131145,"data":{"turn":1,"step":1,"message":{"id":"interrupted-tool-result-c1-10","role":"tool","toolCallId":"c1","isError":true,"source":{"kind":"tool","callId":"c1"},"content":[{"type":"text","text":"The tool call was interrupted after it was recorded, but no result was durably recorded. Its outcome is unknown. Decide whether to retry from the tool semantics: retry only if the operation is read-only or idempotent; if it may have side effects, first verify external state or ask the user. Do not retry blindly."}]},"error":{"name":"ToolOutcomeUnknownError","code":"TOOL_OUTCOME_UNKNOWN"}},"surfaceOp":"append","sourceEventSeqs":[9]}`)
	if err := inspectEvents(opts, s, table); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 11 || !strings.HasPrefix(lines[10], "  9  tool/call") {
		t.Errorf("want the header and events 0..9, got:\n%s", out.String())
	}
}

// A file replaced between the two readings by one with wider cells is an
// error, not a table with cut cells.
func TestInspectTableChangedFile(t *testing.T) {
	path := copySession(t, "../testdata/seed-vectors/crash-persisted.v4.jsonl")
	s := &streams{in: strings.NewReader(""), out: &bytes.Buffer{}, err: &bytes.Buffer{}}
	opts := inspectOptions{file: path}
	table := newInspectTable(s.out, path)
	if err := sizeColumns(opts, s, table); err != nil {
		t.Fatal(err)
	}
	crash, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	wider := strings.Replace(string(crash), `"provider":"mock","model":"mock"}}`, `"provider":"a-very-long-provider-name","model":"a-very-long-model-name-that-goes-on"}}`, 1)
	if err := os.WriteFile(path, []byte(wider), 0o644); err != nil {
		t.Fatal(err)
	}
	err = inspectEvents(opts, s, table)
	if err == nil || !strings.Contains(err.Error(), "changed between the two readings") {
		t.Errorf("err = %v, want a changed-file error", err)
	}
}

func copySession(t *testing.T, from string) string {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "session.v4.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func appendLine(t *testing.T, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
}
