package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"

	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/session"
)

func TestExitCode(t *testing.T) {
	_, missing := os.Open("no-such-file")
	located := &jsonl.Error{File: "s.jsonl", Line: 4, Column: 9, Err: session.Plainf("corrupt session log: row 3 is not valid JSON")}
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"success", nil, ExitOK},
		{"problems", &ProblemsError{File: "s.jsonl", Count: 2}, ExitProblems},
		{"wrapped problems", fmt.Errorf("verify: %w", &ProblemsError{File: "s.jsonl", Count: 1}), ExitProblems},
		{"usage", usageErrorf("bad flag"), ExitUsage},
		{"usage with hint", withHint(usageErrorf("bad flag"), "try this"), ExitUsage},
		{"malformed row", located, ExitInput},
		{"refusal", session.Unsupportedf("stored Session uses newer format v5; this build writes v4"), ExitInput},
		{"missing file", missing, ExitInput},
		{"anything else", errors.New("disk full"), ExitInput},
	}
	for _, tt := range tests {
		if got := ExitCode(tt.err); got != tt.want {
			t.Errorf("%s: ExitCode = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestPrintError(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"located refusal",
			&jsonl.Error{File: "s.jsonl", Line: 4, Column: 9, Err: session.Plainf("corrupt session log: row 3 is not valid JSON")},
			"dshlog: error: s.jsonl:4:9: corrupt session log: row 3 is not valid JSON\n"},
		{"file error names the file first",
			&fs.PathError{Op: "open", Path: "s.jsonl", Err: fs.ErrNotExist},
			"dshlog: error: s.jsonl: file does not exist\n"},
		{"hints in order",
			withHint(withHint(errors.New("refused"), "inner"), "outer", "second"),
			"dshlog: error: refused\ndshlog: hint: outer\ndshlog: hint: second\ndshlog: hint: inner\n"},
		{"usage names its help",
			&UsageError{Err: errors.New("accepts 1 arg(s), received 0"), Command: "dshlog inspect"},
			"dshlog: error: accepts 1 arg(s), received 0\ndshlog: hint: run 'dshlog inspect --help' for usage\n"},
		{"problems",
			&ProblemsError{File: "s.jsonl", Count: 1},
			"dshlog: error: s.jsonl: 1 problem found\n"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		printError(&buf, tt.err)
		if got := buf.String(); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}
