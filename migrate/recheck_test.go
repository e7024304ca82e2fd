package migrate

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// TestRecheckRules is the per-rule case for keeping the v4 re-check behind
// the migration as dsh runs it. Each case changes one row of a v3 corpus
// session. For the rules the re-check alone enforces, the stages carry the
// row to v4 and only the re-check refuses it, with dsh's words; skipping
// the rule would publish an artifact dsh refuses. For the two rules the
// stages do prove, the row never reaches the re-check: v3's row admission
// refuses it first, with or without the re-check.
func TestRecheckRules(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpus, "restored/fs-write/session.v3.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		seq      int    // the row changed
		old, new string // the text replaced in it
		want     string // the refusal, with the re-check
		proven   bool   // the stages refuse it without the re-check
	}{
		{
			name: "wrapper in a user message", seq: 8,
			old:  `"content":[{"type":"text"`,
			new:  `"content":[{"type":"tool-result","toolCallId":"c","content":[]},{"type":"text"`,
			want: "Session migration from v3 to v4 refuses the transformed artifact: format v4 user/message at seq 8 content must not contain a released tool-result wrapper",
		},
		{
			name: "wrapper in an assistant message", seq: 13,
			old:  `"content":[{"type":"reasoning"`,
			new:  `"content":[{"type":"tool-result","toolCallId":"c","content":[]},{"type":"reasoning"`,
			want: "Session migration from v3 to v4 refuses the transformed artifact: format v4 assistant/message at seq 13 content must not contain a released tool-result wrapper",
		},
		{
			name: "wrapper in a system message", seq: 7,
			old:  `"content":[{"type":"text"`,
			new:  `"content":[{"type":"tool-result","toolCallId":"c","content":[]},{"type":"text"`,
			want: "Session migration from v3 to v4 refuses the transformed artifact: format v4 system content rejects retired tool-result wrappers",
		},
		{
			name: "message source that is not an object", seq: 8,
			old:  `"source":{"kind":"user"}`,
			new:  `"source":"user"`,
			want: "Session migration from v3 to v4 refuses the transformed artifact: format v4 message requires a producer-owned source kind",
		},
		{
			name: "retired header.system", seq: 10,
			old:  `"header":{`,
			new:  `"header":{"system":"s",`,
			want: "format v3 request/header rejects retired header.system", proven: true,
		},
		{
			name: "retired PTC type", seq: 14,
			old:  `"type":"tool/call"`,
			new:  `"type":"tool/code-dispatch"`,
			want: `format v3 contains unknown event type "tool/code-dispatch" at seq 14`, proven: true,
		},
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			changed := make([][]byte, len(lines))
			copy(changed, lines)
			row := string(lines[tt.seq+1])
			if !strings.Contains(row, tt.old) {
				t.Fatalf("row %d holds no %s", tt.seq, tt.old)
			}
			changed[tt.seq+1] = []byte(strings.Replace(row, tt.old, tt.new, 1))

			full := newCatalog(nil, nil)
			if err := restoreRows(full, changed); err == nil || err.Error() != tt.want {
				t.Errorf("with the re-check: %v, want %s", err, tt.want)
			}
			unchecked := newCatalog(nil, nil)
			unchecked.newValidator = nil
			err := restoreRows(unchecked, changed)
			switch {
			case tt.proven && (err == nil || err.Error() != tt.want):
				t.Errorf("without the re-check: %v, want the stages' %s", err, tt.want)
			case !tt.proven && err != nil:
				t.Errorf("without the re-check: %v, want the stages to pass it", err)
			}
		})
	}
}

// restoreRows restores a session's lines through c's codec and chain, as
// a reader of the migrated events does, and returns the refusal.
func restoreRows(c *catalog, lines [][]byte) error {
	hv, err := jsonv.Parse(lines[0])
	if err != nil {
		return err
	}
	r, err := c.newRestore(hv, v2.Recoverable, Transformed, func(session.Event) error { return nil })
	if err != nil {
		return err
	}
	for _, line := range lines[1:] {
		row, err := jsonv.Parse(line)
		if err != nil {
			return err
		}
		if err := r.decodeRow(row); err != nil {
			return err
		}
	}
	_, err = r.finish()
	return err
}
