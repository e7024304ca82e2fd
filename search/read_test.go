package search

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/dshlog/dshlog/store"
)

const fsWrite = "../testdata/corpus/restored/fs-write/session.v4.jsonl"

// where is the part of a hit a table test compares.
type where struct {
	Seq         int64
	Type, Role  string
	Tool, Field string
	Block       int
	Match       string
}

func searchFile(t *testing.T, q Query, path string) ([]Hit, Result) {
	t.Helper()
	s, err := New(q)
	if err != nil {
		t.Fatal(err)
	}
	var hits []Hit
	r := s.Search(File{Path: path}, func(h Hit) { hits = append(hits, h) })
	if r.Err != nil {
		t.Fatalf("%s: %v", path, r.Err)
	}
	if r.Hits != len(hits) {
		t.Fatalf("Result.Hits = %d, %d hits handed on", r.Hits, len(hits))
	}
	return hits, r
}

// TestFieldsAndFilters: each searched field of a recorded session, and
// each filter, on the session of restored/fs-write (a user prompt, a
// system prompt, an assistant message with reasoning and a write call, its
// result, a title, and the final answer).
func TestFieldsAndFilters(t *testing.T) {
	const time13 = 1783352078762 // the assistant message's time
	tests := []struct {
		name string
		q    Query
		want []where
	}{
		{"user and title", Query{Pattern: "Use the write", Fixed: true}, []where{
			{8, "user/message", "user", "", FieldText, 0, "Use the write"},
			{12, "session/title", "", "", FieldTitle, -1, "Use the write"},
		}},
		{"system prompt", Query{Pattern: "coding agent", Fixed: true}, []where{
			{7, "system/message", "system", "", FieldText, 0, "coding agent"},
		}},
		{"reasoning left out", Query{Pattern: "The user wants", Fixed: true}, nil},
		{"reasoning asked for", Query{Pattern: "The user wants", Fixed: true, Reasoning: true}, []where{
			{13, "assistant/message", "assistant", "", FieldReasoning, 0, "The user wants"},
		}},
		{"tool call name and arguments, tool result", Query{Pattern: `write|"content": "hello`}, []where{
			{8, "user/message", "user", "", FieldText, 0, "write"},
			{12, "session/title", "", "", FieldTitle, -1, "write"},
			{13, "assistant/message", "assistant", "write", FieldToolName, 1, "write"},
			{13, "assistant/message", "assistant", "write", FieldArguments, 1, `"content": "hello`},
		}},
		{"tool result with its tool", Query{Pattern: "Created file", Fixed: true}, []where{
			{15, "tool/result", "tool", "write", FieldText, 0, "Created file"},
		}},
		{"ignore case", Query{Pattern: "done", Fixed: true, IgnoreCase: true}, []where{
			{8, "user/message", "user", "", FieldText, 0, "DONE"},
			{18, "assistant/message", "assistant", "", FieldText, 1, "DONE"},
		}},
		{"role", Query{Pattern: "DONE", Fixed: true, Roles: []string{"assistant"}}, []where{
			{18, "assistant/message", "assistant", "", FieldText, 1, "DONE"},
		}},
		{"tool", Query{Pattern: "notes.txt", Fixed: true, Tools: []string{"write"}}, []where{
			{13, "assistant/message", "assistant", "write", FieldArguments, 1, "notes.txt"},
			{15, "tool/result", "tool", "write", FieldText, 0, "notes.txt"},
		}},
		{"type", Query{Pattern: "write", Fixed: true, Types: []string{"session/title"}}, []where{
			{12, "session/title", "", "", FieldTitle, -1, "write"},
		}},
		{"since", Query{Pattern: "DONE", Fixed: true, Since: time13}, []where{
			{18, "assistant/message", "assistant", "", FieldText, 1, "DONE"},
		}},
		{"until", Query{Pattern: "DONE", Fixed: true, Until: time13}, []where{
			{8, "user/message", "user", "", FieldText, 0, "DONE"},
		}},
		{"project", Query{Pattern: "DONE", Fixed: true, Project: "/workspace"}, []where{
			{8, "user/message", "user", "", FieldText, 0, "DONE"},
			{18, "assistant/message", "assistant", "", FieldText, 1, "DONE"},
		}},
		{"another project", Query{Pattern: "DONE", Fixed: true, Project: "/workspace/demo2"}, nil},
		{"first only", Query{Pattern: "DONE", Fixed: true, FirstOnly: true}, []where{
			{8, "user/message", "user", "", FieldText, 0, "DONE"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, _ := searchFile(t, tt.q, fsWrite)
			var got []where
			for _, h := range hits {
				got = append(got, where{h.Seq, h.Type, h.Role, h.Tool, h.Field, h.Block, h.Match})
				if h.Turn != 1 || h.Session != "00000000-0000-4000-8000-000000000001" {
					t.Errorf("seq %d: turn %d, session %q", h.Seq, h.Turn, h.Session)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("hits:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestHitOffsets: Start and End point at the match in the decoded text, and
// the context around it is the text's.
func TestHitOffsets(t *testing.T) {
	hits, _ := searchFile(t, Query{Pattern: "hello world", Fixed: true}, fsWrite)
	if len(hits) != 2 {
		t.Fatalf("%d hits, want 2", len(hits))
	}
	h := hits[1]
	if text := h.Before + h.Match + h.After; text != `{"file_path": "notes.txt", "content": "hello world"}` || h.Start != len(h.Before) || h.End != h.Start+len("hello world") {
		t.Errorf("hit %+v", h)
	}
}

// TestRowsAsMigrated: on every v4 log of the corpus that dsh's reader
// reads to the end, the row by row search finds exactly the hits the
// search of migrate's events finds, for patterns with and without a
// prefilter.
func TestRowsAsMigrated(t *testing.T) {
	var logs []string
	err := store.Walk("../testdata/corpus", func(d store.Dir) error {
		for _, l := range d.Logs {
			if l.Version == 4 {
				logs = append(logs, l.Path)
			}
		}
		return nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	queries := []Query{
		{Pattern: "the", Fixed: true, Reasoning: true},
		{Pattern: "e\n", Fixed: true, IgnoreCase: true},
		{Pattern: `"`, Fixed: true},
		{Pattern: `[\p{Han}—]+`},
		{Pattern: "DONE", Fixed: true, Tools: []string{"bash"}},
	}
	compared := 0
	for _, path := range logs {
		for _, q := range queries {
			s, err := New(q)
			if err != nil {
				t.Fatal(err)
			}
			var rows, migrated []Hit
			r := s.Search(File{Path: path}, func(h Hit) { rows = append(rows, h) })
			var m Result
			m.Path = path
			s.migrated(File{Path: path}, &m, func(h Hit) { migrated = append(migrated, h) })
			if m.Err != nil || len(m.Notes) > 0 || r.Err != nil {
				continue // dsh's reader stops early: rows are searched as stored
			}
			compared++
			if !reflect.DeepEqual(rows, migrated) {
				t.Errorf("%s, %q: %d hits row by row, %d in migrate's events; first difference at %s", path, q.Pattern, len(rows), len(migrated), firstDifference(rows, migrated))
			}
		}
	}
	if compared < 100 {
		t.Fatalf("only %d comparisons: the corpus is missing", compared)
	}
}

func firstDifference(a, b []Hit) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("\n  %+v\n  %+v", a[i], b[i])
		}
	}
	return "the end of the shorter"
}
