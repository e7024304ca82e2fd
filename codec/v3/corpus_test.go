package v3

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/jsonv"
)

// decodeFile reads a v3 file as dsh's JSONL layer and v3 codec do (a torn
// or unparsable last line is dropped) and feeds every accepted event to
// the Restorer. It returns the refusal text, or "" when the file decodes
// and restores.
func decodeFile(t *testing.T, path string, recovery v2.Recovery) (events int, refusal string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := jsonl.NewReader(f, path)
	line, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	hv, err := jsonv.Parse(line.Text)
	if err != nil {
		return 0, "Error: corrupt session log: header line is not valid JSON"
	}
	h, err := DecodeHeader(hv)
	if err != nil {
		return 0, sessiontest.RefusalText(err)
	}
	dec := NewDecoder(h, recovery)
	restorer := NewRestorer(h)
	var parseIssue string
	for {
		line, err := r.Next()
		if err == io.EOF || (err == nil && line.Torn) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		row, err := jsonv.Parse(line.Text)
		if err != nil {
			if parseIssue == "" {
				parseIssue = "Error: corrupt session log: row " + itoa(int64(line.Num-1)) + " is not valid JSON"
			}
			continue
		}
		if parseIssue != "" {
			if row.Field("type").Text() == "turn/end" {
				return events, parseIssue
			}
			continue
		}
		ev, ok, err := dec.Decode(row)
		if err != nil {
			return events, sessiontest.RefusalText(err)
		}
		if ok {
			events++
			restorer.Add(ev)
		}
	}
	cut, err := dec.Finish()
	if err != nil {
		return events, sessiontest.RefusalText(err)
	}
	return events, sessiontest.RefusalText(restorer.Finish(cut))
}

// TestCorpusV3 decodes and restores every real v3 file of the corpus; dsh's
// historical catalog accepts all of them.
func TestCorpusV3(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/corpus/restored/*/*.v3.jsonl")
	if len(files) < 17 {
		t.Fatalf("found %d v3 files", len(files))
	}
	for _, path := range files {
		t.Run(strings.TrimPrefix(path, "../../testdata/corpus/restored/"), func(t *testing.T) {
			for _, recovery := range []v2.Recovery{v2.Strict, v2.Recoverable} {
				if n, refusal := decodeFile(t, path, recovery); refusal != "" || n == 0 {
					t.Errorf("%s: %d events, %s", recovery, n, refusal)
				}
			}
		})
	}
}

// TestGoldenEdgeV3 checks the codec's part of every hand-made v3 edge case:
// the refusals it raises itself and the inputs it must let through.
func TestGoldenEdgeV3(t *testing.T) {
	const dir = "../../testdata/corpus/golden/"
	tests := []struct {
		file     string
		recovery v2.Recovery
		events   int
		want     string
	}{
		{"edge/torn-last-line/session.v3.jsonl", v2.Recoverable, 15, ""},
		{"edge/malformed-json-last-row/session.v3.jsonl", v2.Recoverable, 15, ""},
		{"edge/malformed-json-row/session.v3.jsonl", v2.Recoverable, 12, "Error: corrupt session log: row 13 is not valid JSON"},
		{"edge/seq-gap/session.v3.jsonl", v2.Recoverable, 12, "SessionFormatError: released v2 row 12 has seq gap (expected 12, got 13)"},
		{"edge/seq-gap/session.v3.jsonl", v2.Strict, 12, "SessionFormatError: released v2 row 12 has seq gap (expected 12, got 13)"},
		{"edge/relative-cwd/session.v3.jsonl", v2.Recoverable, 0, "SessionFormatError: format v2 header cwd must be absolute"},
		{"edge/v3-header-system/session.v3.jsonl", v2.Recoverable, 10, "SessionFormatUnsupportedMigrationError: format v3 request/header rejects retired header.system"},
		{"edge/duplicate-keys/session.v3.jsonl", v2.Strict, 16, ""},
		{"edge/lone-surrogate/session.v3.jsonl", v2.Strict, 16, ""},
		{"edge/numbers/session.v3.jsonl", v2.Strict, 17, ""},
		{"edge/non-ascii-u2028/session.v3.jsonl", v2.Strict, 16, ""},
		{"edge/invalid-utf8/session.v3.jsonl", v2.Strict, 16, ""},
		{"edge/unknown-ignorable-type/session.v3.jsonl", v2.Strict, 17, ""},
		// Unknown required types are the v3→v4 edge's refusal; the historical
		// restore refuses them too.
		{"edge/unknown-required-type/session.v3.jsonl", v2.Strict, 17, `SessionFormatUnsupportedMigrationError: format v2 contains unknown event type "vendor/custom" at seq 15`},
		{"edge2/v3-negzero-time-last-row/session.v3.jsonl", v2.Recoverable, 15, ""},
		{"edge2/v3-negzero-time-last-row/session.v3.jsonl", v2.Strict, 15, "SessionFormatError: released v2 row 15 time must be a safe integer"},
		{"edge2/v3-interrupted-turn/session.v3.jsonl", v2.Strict, 20, "SessionFormatError: turn/start 2 does not open expected turn 1"},
		{"edge2/v3-unknown-content-block/session.v3.jsonl", v2.Strict, 16, ""},
		{"edge2/v3-unknown-stream-block-type/session.v3.jsonl", v2.Strict, 16, ""},
		{"edge2/v3-request-tool-deferloading/session.v3.jsonl", v2.Strict, 16, ""},
	}
	for _, tc := range tests {
		t.Run(tc.file+"/"+tc.recovery.String(), func(t *testing.T) {
			n, got := decodeFile(t, dir+tc.file, tc.recovery)
			if got != tc.want || n != tc.events {
				t.Errorf("got %d events, %q\nwant %d events, %q", n, got, tc.events, tc.want)
			}
		})
	}
}
