package fold_test

import (
	"fmt"
	"testing"

	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/jsonv"
)

// decodeAll decodes every container of v, so that every lookup in it takes
// the decoded path (Get) instead of reading the text (Peek).
func decodeAll(v jsonv.Value) {
	for _, m := range v.Members() {
		decodeAll(m.Value)
	}
	for _, e := range v.Elements() {
		decodeAll(e)
	}
}

// TestSeedChecksPeekAsTheyDecode checks that the seed checks, which peek at
// a message's source in its text, refuse exactly as on a row whose every
// container is decoded, for sources of every shape (repeated keys
// included, where JSON.parse keeps the last value).
func TestSeedChecksPeekAsTheyDecode(t *testing.T) {
	sources := []string{
		`{"kind":"tool","callId":"c1"}`, `{"kind":"user","callId":"c1"}`, `{"kind":"tool","callId":"c2"}`,
		`{"kind":"tool"}`, `{"kind":"tool","callId":""}`, `{"kind":"tool","callId":1}`,
		`{"kind":"x","kind":"tool","callId":"c1"}`, `{"kind":"tool","callId":"c1","callId":"c2"}`,
		`{"kind":"tool","callId":"c2","callId":"c1"}`, `{"kind":""}`, `{}`, `[]`, `"tool"`, `null`, `1`,
		`{"kind":{"a":1},"callId":"c1"}`, `{"kind":"model","provider":"p","model":"m"}`,
		`{"kind":"model","provider":"p"}`, `{"kind":"model","provider":"p","model":""}`,
		`{"kind":"model","provider":"p","model":"m","model":""}`, `{"kind":"model","provider":"","provider":"p","model":"m"}`,
		`{"kind":"system-prompt"}`, `{"kind":"user"}`, `{"kind":"tool","callId":"c\u0031"}`,
	}
	rows := []string{
		`{"type":"tool/result","seq":0,"time":1,"data":{"turn":1,"step":1,"message":{"role":"tool","source":%s,"toolCallId":"c1","content":[],"isError":false,"id":"r8"}},"surfaceOp":"append"}`,
		`{"type":"assistant/message","seq":0,"time":1,"data":{"turn":1,"step":1,"message":{"role":"assistant","content":[],"source":%s,"id":"a8"},"stream":[]},"surfaceOp":"append"}`,
		`{"type":"system/message","seq":0,"time":1,"data":{"turn":1,"step":1,"message":{"role":"system","content":[],"source":%s,"id":"s8"}},"surfaceOp":"append"}`,
		`{"type":"user/message","seq":0,"time":1,"data":{"content":[],"source":%s,"role":"user","id":"u8"},"surfaceOp":"append"}`,
		`{"type":"request/header","seq":0,"time":1,"data":{"header":{"config":%s},"reason":"initial"}}`,
	}
	for _, row := range rows {
		for _, source := range sources {
			text := fmt.Sprintf(row, source)
			peeked, decoded := event(t, text), event(t, text)
			decodeAll(decoded.Row)
			got, want := errText(fold.CheckSeedEvent(peeked, 0)), errText(fold.CheckSeedEvent(decoded, 0))
			if got != want {
				t.Errorf("%s:\npeeked:  %q\ndecoded: %q", text, got, want)
			}
		}
	}
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
