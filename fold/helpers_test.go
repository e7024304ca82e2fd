package fold_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// readV4 reads a current-format session file with the v4 codec alone, so
// these tests do not depend on the migration chain.
func readV4(t *testing.T, path string) (session.Header, []session.Event) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := jsonl.NewReader(bytes.NewReader(data), path)
	line, err := lines.Next()
	if err != nil {
		t.Fatal(err)
	}
	hv, err := jsonv.Parse(line.Text)
	if err != nil {
		t.Fatal(err)
	}
	h, err := v4.DecodeHeader(hv)
	if err != nil {
		t.Fatal(err)
	}
	dec := v4.NewDecoder(h, v2.Strict)
	var events []session.Event
	for {
		line, err := lines.Next()
		if err == io.EOF {
			break
		}
		if err != nil || line.Torn {
			t.Fatalf("%s: line %d: %v (torn %v)", path, line.Num, err, line.Torn)
		}
		row, err := jsonv.Parse(line.Text)
		if err != nil {
			t.Fatalf("%s: line %d: %v", path, line.Num, err)
		}
		ev, ok, err := dec.Decode(row)
		if err != nil || !ok {
			t.Fatalf("%s: line %d: %v", path, line.Num, err)
		}
		events = append(events, ev)
	}
	return h, events
}

// foldAll loads events into a fresh Fold as dsh's Session loads a log,
// failing the test on a refusal.
func foldAll(t *testing.T, events ...[]session.Event) *fold.Fold {
	t.Helper()
	f := fold.New()
	for _, list := range events {
		for _, ev := range list {
			if err := f.Load(ev); err != nil {
				t.Fatalf("seq %d (%s): %v", ev.Seq, ev.Type, err)
			}
		}
	}
	return f
}

// encodeArray returns JSON.stringify of an array of values.
func encodeArray(values []jsonv.Value) []byte {
	return jsonv.ArrayValue(values...).Encode()
}

// sha returns the lowercase hex SHA-256 of b.
func sha(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// roles returns the role of each message.
func roles(messages []jsonv.Value) []string {
	out := make([]string, len(messages))
	for i, m := range messages {
		out[i] = m.Field("role").Text()
	}
	return out
}

// isPrefix reports whether prev is a prefix of cur, message by message in
// JSON.stringify form.
func isPrefix(prev, cur []jsonv.Value) bool {
	if len(prev) > len(cur) {
		return false
	}
	for i := range prev {
		if !bytes.Equal(prev[i].Encode(), cur[i].Encode()) {
			return false
		}
	}
	return true
}
