package lift

import (
	"testing"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// FuzzLift feeds any JSON header and rows to a v0-line Lifter and puts
// every lifted row back as if the chain had carried it: no input may make
// it panic, a row it leaves alone comes back unchanged, and a stand-in it
// makes is put back as the row it stood in for, ignorable.
func FuzzLift(f *testing.F) {
	f.Add(`{"type":"session","version":0,"id":"s","createdAt":1}`,
		`{"type":"subagent/descriptor","seq":0,"time":1,"data":{"version":2,"mode":"one-shot","provider":"p"}}`)
	f.Add(`{"type":"session","version":0,"id":"s","createdAt":1,"agentPreset":"x"}`,
		`{"type":"tool/result","seq":3,"time":1,"data":{"artifact":{"kind":"full-result","locator":"l","bytes":1},"message":{"content":[{"type":"tool-result","loadedTools":[{"name":"t"}]}]}}}`)
	f.Add(`{}`, `{"type":"`+forkType+`","seq":5,"time":9,"data":{"at":3}}`)
	f.Add(`[]`, `{"type":"request/header","seq":1,"time":1,"data":{"header":{"tools":"{{tools}}","system":"p"}}}`)
	f.Add(`null`, `{"type":"user/message","seq":1,"time":1,"surfaceOp":"append"}`)
	f.Fuzz(func(t *testing.T, header, row string) {
		hv, err := jsonv.Parse([]byte(header))
		if err != nil {
			return
		}
		rv, err := jsonv.Parse([]byte(row))
		if err != nil {
			return
		}
		for _, format := range []int{0, 1, 3} {
			l := New(v0Line(), format, true)
			l.Header(hv)
			lifted, changed := l.Row(rv, 2)
			if !changed && lifted.String() != rv.String() {
				t.Fatalf("unchanged row came back as %s, want %s", lifted, rv)
			}
			seq, _ := lifted.Field("seq").SafeInt()
			ev := session.Event{Type: lifted.Field("type").Text(), Seq: seq, Row: lifted}
			back := l.PutBack(ev)
			if changed && len(l.Changes()) > 0 && l.Changes()[len(l.Changes())-1].Rule == RuleForkEvent {
				if back.Type != rv.Field("type").Text() || !back.Ignorable() {
					t.Fatalf("stand-in %s put back as %s, want the %q row, ignorable", lifted, back.Row, rv.Field("type").Text())
				}
			}
		}
	})
}
