package v2

import (
	"errors"
	"testing"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// FuzzPayload runs arbitrary event rows through the released payload
// validation of every generation: it must refuse with dsh's typed refusals,
// never panic, and refuse quietly exactly when it refuses with labels.
func FuzzPayload(f *testing.F) {
	for typ, data := range validPayloads {
		f.Add([]byte(`{"type":"`+typ+`","seq":3,"time":4,"data":`+data+`}`), uint8(1))
	}
	f.Add([]byte(`{"type":"user/message","seq":0,"data":{"id":"u","role":"user","content":[],"source":{"kind":"goal","goalId":"g","revision":1,"round":0,"change":{}}},"surfaceOp":{"op":"replace","start":0,"end":0}}`), uint8(0))
	f.Fuzz(func(t *testing.T, text []byte, version uint8) {
		row, err := jsonv.Parse(text)
		if err != nil {
			return
		}
		seq, _ := row.Field("seq").Count()
		ev := session.Event{Type: row.Field("type").Text(), Seq: seq, Row: row}
		for _, err := range []error{
			CheckEventPayload(ev, int(version%2)),
			CheckPayloadSemantics(ev, int(version%4)),
			CheckSurfaceMetadata(row, seq, ev.Type, AssistantSources(version%2)),
		} {
			var refusal *session.Refusal
			if err != nil && !errors.As(err, &refusal) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
		}
		quietAgrees(t, string(text), ev)
	})
}
