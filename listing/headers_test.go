package listing

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/dshlog/dshlog/store"
)

// TestReadHeadersFindsChildren: the one pass over the headers finds each
// log's id and, for the parent, its subagent children in path order: the
// evidence a historical parent's migration reads.
func TestReadHeadersFindsChildren(t *testing.T) {
	dir := filepath.Join("..", "testdata", "corpus", "restored", "ralph-loop")
	var logs []store.Log
	for _, name := range []string{"session.jsonl", "session.1.jsonl", "session.2.jsonl"} {
		logs = append(logs, store.Log{Path: filepath.Join(dir, name)})
	}
	children := ReadHeaders(logs)
	if got, want := children.Of(0), []string{logs[1].Path, logs[2].Path}; !reflect.DeepEqual(got, want) {
		t.Errorf("children %v, want %v", got, want)
	}
	if got := children.Of(1); got != nil {
		t.Errorf("a child has children %v", got)
	}
}
