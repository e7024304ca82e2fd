package verify

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/vocab"
)

// faultCase is a testdata/v0-line-faults expect.json: a v0-line recording
// damaged in one place, and the verdict the v0 line must still give.
type faultCase struct {
	Case string `json:"case"`
	// From is the recording the damage was made to, under v0LineCorpus.
	From string `json:"from"`
	// BadLog names the testdata/corpus/bad-logs case whose fault it
	// carries, or is empty for a fault of the v0 line's own.
	BadLog   string   `json:"badLog"`
	Mutation string   `json:"mutation"`
	Declare  []string `json:"declare"`
	Verdict  struct {
		// Clean: a control, the base with no damage.
		Clean bool `json:"clean"`
		// Open is the reader's refusal of the header.
		Open *struct {
			Line  int    `json:"line"`
			Error string `json:"error"`
		} `json:"open"`
		// Findings are the error findings of verify, in order.
		Findings []faultFinding `json:"findings"`
	} `json:"verdict"`
}

type faultFinding struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Line    int    `json:"line"`
	Seq     int64  `json:"seq"`
}

// TestV0LineFaults is "leniency never hides a fault": each fault of the
// bad logs, carried into a v0-line recording whose rows the line's rules
// lift (a header without delegationDepth, a tool/result artifact, a
// version-2 descriptor, tools in snapshot form), still fails when judged
// as the v0 line with the fork's vocabulary, with the refusal or finding
// its expect.json names; so do the faults of the line's own rules (a
// descriptor of another version, a malformed artifact, a bad header).
func TestV0LineFaults(t *testing.T) {
	dirs, err := filepath.Glob("../testdata/v0-line-faults/*/expect.json")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no v0-line fault cases: %v", err)
	}
	var carried []string
	for _, path := range dirs {
		var c faultCase
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &c); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		t.Run(c.Case, func(t *testing.T) {
			if c.BadLog != "" {
				if _, err := os.Stat(filepath.Join("../testdata/corpus/bad-logs", c.BadLog, "expect.json")); err != nil {
					t.Fatalf("carries bad-logs case %q: %v", c.BadLog, err)
				}
				carried = append(carried, c.BadLog)
			}
			if c.Verdict.Clean == (c.Verdict.Open != nil || len(c.Verdict.Findings) > 0) {
				t.Fatalf("expect.json: a verdict must be clean or name a refusal or finding")
			}
			if c.Verdict.Clean && (c.BadLog != "" || !strings.HasPrefix(c.Case, "control-")) {
				t.Fatalf("expect.json: only a control may be clean")
			}
			checkFault(t, filepath.Dir(path), c)
		})
	}
	if slices.Sort(carried); len(slices.Compact(carried)) < 10 {
		t.Errorf("only %d faults of bad-logs carried into v0-line logs, want at least 10", len(carried))
	}
}

// checkFault judges the case's session.jsonl as the v0 line and compares
// the verdict with the one expected.
func checkFault(t *testing.T, dir string, c faultCase) {
	t.Helper()
	v := forkVocabulary(t, filepath.Join(v0LineCorpus, c.From))
	if len(c.Declare) > 0 {
		d := &vocab.Declaration{File: "expect.json", Kind: vocab.FileList}
		for _, name := range c.Declare {
			d.Types = append(d.Types, vocab.Type{Name: name})
		}
		v = v.With(d)
	}
	src, err := migrate.Open(filepath.Join(dir, "session.jsonl"), nil, migrate.OpenOptions{Options: migrate.Options{Vocabulary: v}})
	if c.Verdict.Open != nil {
		var located *jsonl.Error
		if !errors.As(err, &located) || located.Line != c.Verdict.Open.Line || located.Err.Error() != c.Verdict.Open.Error {
			t.Errorf("open: %v, want a refusal at line %d: %s", err, c.Verdict.Open.Line, c.Verdict.Open.Error)
		}
		if err == nil {
			src.Close()
		}
		return
	}
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer src.Close()
	var got []faultFinding
	if _, err := Check(src.Reader, func(f Finding) {
		if f.Severity == Error {
			got = append(got, faultFinding{Code: f.Code, Message: f.Message, Line: f.Line, Seq: f.Seq})
		}
	}); err != nil {
		t.Fatalf("check: %v", err)
	}
	if !slices.Equal(got, c.Verdict.Findings) {
		t.Errorf("error findings:\n got %+v\nwant %+v", got, c.Verdict.Findings)
	}
}
