package v2to3

import (
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// The content audit checks a block directly where dsh builds a probe
// user/message around it: both must refuse alike, word for word.
func TestProbeBlockMatchesProbeMessage(t *testing.T) {
	blocks := []string{
		`{"type":"text","text":"hi"}`,
		`{"type":"text","text":"hi","extra":1}`,
		`{"type":"text","text":7}`,
		`{"type":"text"}`,
		`{"type":"reasoning","text":"why"}`,
		`{"type":"tool-call","id":"c1","name":"bash","arguments":"{}"}`,
		`{"type":"tool-call","id":"","name":"bash","arguments":"{}"}`,
		`{"type":"tool-call","id":"c1","name":"bash"}`,
		`{"type":"tool-result","toolCallId":"c1","content":[]}`,
		`{"type":"tool-result","toolCallId":"c1","content":[],"isError":"yes"}`,
		`{"type":"image","attachment":{"attachmentId":"a","mediaType":"image/bmp","bytes":1,"width":1,"height":1}}`,
		`{"type":"image","attachment":{"attachmentId":"a","mediaType":"image/png","bytes":1,"width":1,"height":1}}`,
		`{"type":"mystery"}`,
		`{"type":""}`,
		`{"type":null}`,
	}
	for _, text := range blocks {
		block, err := jsonv.Parse([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		probe := jsonv.ObjectValue(
			jsonv.M("type", jsonv.StringValue("user/message")),
			jsonv.M("seq", jsonv.IntValue(0)),
			jsonv.M("time", jsonv.IntValue(0)),
			jsonv.M("data", jsonv.ObjectValue(
				jsonv.M("id", jsonv.StringValue("content-admission")),
				jsonv.M("role", jsonv.StringValue("user")),
				jsonv.M("source", jsonv.ObjectValue(jsonv.M("kind", jsonv.StringValue("user")))),
				jsonv.M("content", jsonv.ArrayValue(block)))))
		want := v2.CheckPayloadSemantics(session.Event{Type: "user/message", Row: probe}, 2)
		got := v2.CheckContentBlock(block, probeBlockLabel, 2)
		if errText(got) != errText(want) {
			t.Errorf("%s: direct check %q, probe message %q", text, errText(got), errText(want))
		}
	}
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return refusalString(err)
}
