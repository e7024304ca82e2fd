package v0to1_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/session"
)

// migrateFile runs a session file through the whole v4 chain as dsh's write
// open reads it and returns the migrated lines.
func migrateFile(t *testing.T, path string) ([]string, error) {
	t.Helper()
	src, err := migrate.Open(path, nil, migrate.OpenOptions{})
	if err != nil {
		return nil, err
	}
	defer src.Close()
	var out bytes.Buffer
	if _, err := migrate.Encode(&out, src.Reader); err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n"), nil
}

// TestFrozenFixtureRefused runs dsh's frozen released-v0 fixture
// (format-v0-v2.md §8.1): v0→v1 and v1→v2 accept it, but the v4 chain
// refuses a surface event before the first step.
func TestFrozenFixtureRefused(t *testing.T) {
	_, err := migrateFile(t, "testdata/released-v0-real-shapes.jsonl")
	var r *session.Refusal
	if !errors.As(err, &r) || r.Class != session.ClassUnsupported || !strings.Contains(r.Msg, "surface before first step") {
		t.Fatalf("got %v, want an unsupported-migration refusal naming a surface before the first step", err)
	}
}

// TestSeededMultiEdge runs dsh's multi-edge publication vector (V-J of
// format-v2-v4.md, §8.2 of format-v0-v2.md) in its v0 and v1 forms through
// the whole chain and checks what dsh's test asserts of the v4 result.
func TestSeededMultiEdge(t *testing.T) {
	var first []string
	for _, file := range []string{"testdata/multi-edge-seeded.jsonl", "testdata/multi-edge-seeded.v1.jsonl"} {
		lines, err := migrateFile(t, file)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if first == nil {
			first = lines
		} else if strings.Join(lines, "\n") != strings.Join(first, "\n") {
			t.Errorf("%s: the v1 form migrates differently from the v0 form", file)
		}
		if lines[0] != `{"type":"session","version":4,"id":"multi-edge-seeded","createdAt":1,"parentSession":"parent","isSeeded":true,"delegationDepth":0}` {
			t.Errorf("%s: header %s", file, lines[0])
		}
		events := lines[1:]
		if len(events) != 23 {
			t.Fatalf("%s: %d events, want 23", file, len(events))
		}
		field := func(seq int, path ...string) string {
			v, err := jsonv.Parse([]byte(events[seq]))
			if err != nil {
				t.Fatal(err)
			}
			for _, key := range path {
				v = v.Field(key)
			}
			return v.String()
		}
		checks := []struct {
			seq  int
			path []string
			want string
		}{
			{6, []string{"type"}, `"assistant/message"`},
			{6, []string{"time"}, `108`},
			{6, []string{"surfaceOp"}, `"append"`},
			{6, []string{"data", "stream"}, `[{"type":"text-chunks","time0":104,"index":0,"dt":[1,1],"texts":["he","l","lo"]},{"type":"chunk","time":107,"chunk":{"type":"finish","reason":{"kind":"stop"}}}]`},
			{9, nil, `{"type":"session/end-seed","seq":9,"time":111,"data":{"inherited":true}}`},
			{2, []string{"type"}, `"system/message"`},
			{2, []string{"surfaceOp"}, `"append"`},
			{2, []string{"data", "message", "content"}, `[]`},
			{4, []string{"surfaceOp"}, `{"op":"replace","startSeq":2,"endSeq":2}`},
			{4, []string{"sourceEventSeqs"}, `[2]`},
			{4, []string{"data", "message", "content"}, `[{"type":"text","text":"seed prompt"}]`},
			{13, []string{"surfaceOp"}, `{"op":"replace","startSeq":4,"endSeq":4}`},
			{13, []string{"sourceEventSeqs"}, `[4]`},
			{13, []string{"data", "message", "content"}, `[{"type":"text","text":"changed prompt"}]`},
			{15, []string{"data", "shadowedRange"}, `{"start":3,"end":6}`},
			{15, []string{"data", "shadowedSeqs"}, `[3,6]`},
			{16, []string{"surfaceOp"}, `{"op":"replace","startSeq":3,"endSeq":6}`},
			{16, []string{"sourceEventSeqs"}, `[3,6]`},
			{18, []string{"data", "sourceEventSeq"}, `16`},
			{19, []string{"data", "messageSeqs"}, `[3,12]`},
		}
		for _, c := range checks {
			if got := field(c.seq, c.path...); got != c.want {
				t.Errorf("%s: event %d %v = %s, want %s", file, c.seq, c.path, got, c.want)
			}
		}
		assistant := 0
		for seq := range events {
			if strings.HasPrefix(field(seq, "type"), `"assistant/`) {
				assistant++
			}
		}
		if assistant != 1 {
			t.Errorf("%s: %d assistant events, want only the message", file, assistant)
		}
	}
}
