package v4

import (
	"bytes"
	"os"
	"testing"

	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// TestAppenderWritesSeedVectors: every event of the seed sessions is
// admitted and written back to the same bytes.
func TestAppenderWritesSeedVectors(t *testing.T) {
	for _, path := range []string{
		"../../testdata/seed-vectors/loop-events.v4.jsonl",
		"../../testdata/seed-vectors/crash-persisted.v4.jsonl",
	} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var a *Appender
		var out []byte
		err = sessiontest.ReadRows(data, func(header jsonv.Value) error {
			h, err := DecodeHeader(header)
			if err != nil {
				return err
			}
			a, err = NewAppender(h, vocab.Default())
			if err != nil {
				return err
			}
			out, err = AppendHeader(out, h, 0)
			return err
		}, func(row jsonv.Value) error {
			ev, err := eventOf(row)
			if err != nil {
				return err
			}
			out, err = a.Append(out, ev)
			return err
		})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !bytes.Equal(out, data) {
			t.Errorf("%s: written bytes differ from the file", path)
		}
	}
}

func eventOf(row jsonv.Value) (session.Event, error) {
	seq, _ := row.Field("seq").SafeInt()
	time, _ := row.Field("time").SafeInt()
	return session.Event{Type: row.Field("type").Text(), Seq: seq, Time: time, Row: row}, nil
}

// TestAppenderRefuses: an event the reader would refuse is refused with
// the reader's words, nothing is written, and the appender stays refused.
func TestAppenderRefuses(t *testing.T) {
	const start = `{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}`
	tests := []struct{ name, row, want string }{
		{"seq gap", `{"type":"turn/start","seq":1,"time":1,"data":{"turn":1}}`,
			fe + "released v2 row 0 has seq gap (expected 0, got 1)"},
		{"unknown type", `{"type":"made/up","seq":0,"time":1,"data":{}}`,
			ue + `format v4 contains unknown event type "made/up" at seq 0`},
		{"unexpected envelope field", `{"type":"turn/start","seq":0,"time":1,"data":{"turn":1},"extra":1}`,
			fe + "released v2 row 0 has unexpected field extra"},
		{"user message with a plugin source", `{"type":"user/message","seq":0,"time":1,"data":{"id":"u","role":"user","source":{"kind":"plugin","plugin":"x"},"content":[]},"surfaceOp":"append"}`,
			admitText(t, `{"type":"user/message","seq":0,"time":1,"data":{"id":"u","role":"user","source":{"kind":"plugin","plugin":"x"},"content":[]},"surfaceOp":"append"}`)},
		{"step outside a turn", `{"type":"step/start","seq":0,"time":1,"data":{"turn":1,"step":1}}`,
			""}, // filled below from the restore's own verdict
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := NewAppender(session.Header{ID: "s", CreatedAt: 1}, vocab.Default())
			if err != nil {
				t.Fatal(err)
			}
			ev, _ := eventOf(sessiontest.Parse(t, tt.row))
			out, err := a.Append([]byte("kept"), ev)
			if err == nil {
				t.Fatalf("admitted %s", tt.row)
			}
			if string(out) != "kept" {
				t.Errorf("wrote %q on a refusal", out)
			}
			want := tt.want
			if want == "" {
				want = restoreText(t, tt.row)
			}
			if got := sessiontest.RefusalText(err); got != want {
				t.Errorf("refusal %q, want %q", got, want)
			}
			good, _ := eventOf(sessiontest.Parse(t, start))
			if _, err := a.Append(nil, good); err == nil {
				t.Error("admitted an event after a refusal")
			}
		})
	}
}

// admitText is AdmitRow's verdict on a row, as text.
func admitText(t *testing.T, row string) string {
	err := AdmitRow(sessiontest.Parse(t, row))
	if err == nil {
		t.Fatalf("AdmitRow admits %s", row)
	}
	return sessiontest.RefusalText(err)
}

// restoreText is the v4 restore's verdict on a one-event artifact.
func restoreText(t *testing.T, row string) string {
	ev, _ := eventOf(sessiontest.Parse(t, row))
	r := NewRestorer(session.Header{Version: Version, ID: "s", CreatedAt: 1}, vocab.Default())
	r.Add(ev)
	err := r.Finish(0)
	if err == nil {
		t.Fatalf("the restore accepts %s", row)
	}
	return sessiontest.RefusalText(err)
}
