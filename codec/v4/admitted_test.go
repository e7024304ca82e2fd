package v4

import (
	"bytes"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// FuzzAdmittedRestorer checks that a restorer told its events' rows were
// admitted reaches exactly the verdicts of one that checks everything
// again, after every event (the refusal a prefix earns) and at the end,
// for the events a Decoder hands out of any file.
func FuzzAdmittedRestorer(f *testing.F) {
	sessiontest.Seed(f, sessiontest.Glob(f,
		"../../testdata/corpus/restored/*/*.v4.jsonl",
		"../../testdata/corpus/bad-logs/*/*.v4.jsonl",
		"../../testdata/corpus/golden/edge*/*/*.v4.jsonl",
		"../../testdata/seed-vectors/*.v4.jsonl",
	))
	header := `{"type":"session","version":4,"id":"s","createdAt":0,"isSeeded":false,"delegationDepth":0}` + "\n"
	for _, body := range []string{
		// Admission leaves an ignorable developer/message to the restore:
		// a retired wrapper, a developer role elsewhere, a bad turn.
		`{"type":"developer/message","seq":0,"time":0,"ignorable":true,"data":{"turn":1,"step":1,"message":{"id":"d","role":"developer","content":[{"type":"tool-result"}],"source":{"kind":"tools"}}}}`,
		`{"type":"developer/message","seq":0,"time":0,"ignorable":true,"data":{"turn":0,"step":1,"message":{"id":"d","role":"developer","content":[],"source":{"kind":"tools"}}}}`,
		`{"type":"developer/message","seq":0,"time":0,"ignorable":true,"data":{"turn":1,"step":1,"message":{"id":"d","role":"user","content":[],"source":{"kind":"tools"}}}}`,
		`{"type":"developer/message","seq":0,"time":0,"data":{"turn":1,"step":1,"message":{"id":"d","role":"developer","content":[],"source":{"kind":"tools"}}}}`,
		`{"type":"system/message","seq":0,"time":0,"ignorable":true,"data":{"turn":1,"step":1,"message":{"id":"s","role":"system","content":[]}}}`,
	} {
		f.Add([]byte(header + body + "\n"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		headerLine, body, _ := bytes.Cut(data, []byte("\n"))
		hv, err := jsonv.Parse(headerLine)
		if err != nil {
			return
		}
		h, err := DecodeHeader(hv)
		if err != nil {
			return
		}
		v := vocab.Zdsh.Vocabulary()
		dec := NewDecoder(h, v2.Recoverable)
		full, admitted := NewRestorer(h, v), NewAdmittedRestorer(h, v)
		for _, line := range bytes.Split(body, []byte("\n")) {
			row, err := jsonv.Parse(line)
			if err != nil {
				continue
			}
			ev, ok, err := dec.Decode(row)
			if err != nil || !ok {
				continue
			}
			full.Add(ev)
			admitted.Add(ev)
			if got, want := verdict(admitted.prefixRefusal()), verdict(full.prefixRefusal()); got != want {
				t.Fatalf("after seq %d: admitted restorer says %q, full restorer %q", ev.Seq, got, want)
			}
		}
		cut, err := dec.Finish()
		if err != nil {
			return
		}
		if got, want := verdict(admitted.Finish(cut)), verdict(full.Finish(cut)); got != want {
			t.Fatalf("admitted restorer finishes with %q, full restorer with %q", got, want)
		}
	})
}

func verdict(err error) string {
	if err == nil {
		return ""
	}
	if r, ok := err.(*session.Refusal); ok {
		return r.Text()
	}
	return err.Error()
}
