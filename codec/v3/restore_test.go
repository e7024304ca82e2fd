package v3

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/session"
)

// restore feeds events (each `{"type":…,` then the rest; seq = position and
// time = position + 1 are spliced in unless the event has its own seq) to a
// Restorer and returns Finish's refusal text.
func restore(t *testing.T, h session.Header, cut int64, events ...string) string {
	t.Helper()
	r := NewRestorer(h)
	for i, e := range events {
		at := strings.Index(e, `",`) + 2
		if !strings.HasPrefix(e[at:], `"seq":`) {
			e = e[:at] + fmt.Sprintf(`"seq":%d,`, i) + e[at:]
		}
		e = e[:at] + fmt.Sprintf(`"time":%d,`, i+1) + e[at:]
		row := sessiontest.Parse(t, e)
		seq, _ := row.Field("seq").Count()
		r.Add(session.Event{Type: row.Field("type").Text(), Seq: seq, Row: row})
	}
	return sessiontest.RefusalText(r.Finish(cut))
}

const (
	rTurn     = `{"type":"turn/start","data":{"turn":1}}`
	rStep     = `{"type":"step/start","data":{"turn":1,"step":1}}`
	rHead     = `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"h","role":"system","source":{"kind":"plugin","plugin":"@deepseek-ai/dsh-system-prompt"},"content":[]}},"surfaceOp":"append"}`
	rStepEnd  = `{"type":"step/end","data":{"turn":1,"step":1}}`
	rTurnEnd  = `{"type":"turn/end","data":{"turn":1,"reason":{"kind":"completed"}}}`
	rMarker   = `{"type":"session/end-seed","data":{"inherited":true}}`
	rRequest  = `{"type":"request/header","data":{"header":{"config":{"provider":"mock","model":"mock"}},"reason":"initial"}}`
	rCallText = `{"type":"assistant/message","data":{"turn":1,"step":1,"message":{"id":"a","role":"assistant","content":[{"type":"tool-call","id":"c","name":"read","arguments":"{}"}],"source":{"kind":"model","provider":"mock","model":"mock"}},"stream":[]},"surfaceOp":"append"}`
)

func human(id string) string {
	return `{"type":"user/message","data":{"id":"` + id + `","role":"user","source":{"kind":"user"},"content":[{"type":"text","text":"hi"}]},"surfaceOp":"append"}`
}

func toolResult(id string, isError bool, errorMember string) string {
	return `{"type":"tool/result","data":{"turn":1,"step":1,` + errorMember + `"message":{"id":"` + id + `","role":"user","source":{"kind":"tool","callId":"c"},"content":[{"type":"tool-result","toolCallId":"c","isError":` + fmt.Sprint(isError) + `,"content":[{"type":"text","text":"` + toolNotStartedText + `"}]}]}},"surfaceOp":"append"}`
}

func TestRestorer(t *testing.T) {
	unseeded := session.Header{Version: 3, ID: "identity"}
	seeded := session.Header{Version: 3, ID: "identity", IsSeeded: true, ParentSession: session.Str("parent")}
	opening := func(events ...string) []string { return append([]string{rTurn, rStep, rHead}, events...) }
	repairError := `"error":{"name":"ToolNotStartedError","code":"TOOL_NOT_STARTED"},`
	tests := []struct {
		name   string
		header session.Header
		cut    int64
		events []string
		want   string
	}{
		{"a complete turn", unseeded, 0, opening(human("u"), rRequest, rStepEnd, rTurnEnd), ""},
		{"empty", unseeded, 0, nil, ""},
		{"header", session.Header{Version: 2}, 0, nil, "SessionFormatError: expected format v3 header"},
		{"system outside a step", unseeded, 0, []string{rTurn, rHead}, "SessionFormatError: system/message does not match an open step"},
		{"system after a surface", unseeded, 0, []string{rTurn, rStep, human("u"), rHead}, "SessionFormatError: system/message requires a protected first surface head"},
		{"partial head replacement", unseeded, 0, opening(human("u"), `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"h2","role":"system","source":{"kind":"plugin","plugin":"p"},"content":[]}},"surfaceOp":{"op":"replace","startSeq":2,"endSeq":3},"sourceEventSeqs":[2,3]}`),
			"SessionFormatError: system/message must replace exactly the current system head"},
		{"surface shadows the head", unseeded, 0, opening(`{"type":"user/message","data":{"id":"u","role":"user","source":{"kind":"user"},"content":[]},"surfaceOp":{"op":"replace","startSeq":2,"endSeq":2},"sourceEventSeqs":[2]}`),
			"SessionFormatError: surface replacement cannot shadow the protected system head"},
		{"compaction shadows the head", unseeded, 0, opening(`{"type":"compaction/prune","data":{"shadowedRange":{"start":2,"end":2},"shadowedSeqs":[2],"shadowedTokenCount":1}}`),
			"SessionFormatError: compaction cannot shadow the protected system head"},
		{"tool error not an object", unseeded, 0, opening(rCallText, `{"type":"tool/result","data":{"turn":1,"step":1,"error":"boom","message":{"id":"t","role":"user","source":{"kind":"tool","callId":"c"},"content":[{"type":"tool-result","toolCallId":"c","isError":true,"content":[]}]}},"surfaceOp":"append"}`),
			"SessionFormatError: tool error must be an object"},
		{"unknown required type", unseeded, 0, opening(`{"type":"vendor/x","data":{}}`),
			`SessionFormatUnsupportedMigrationError: format v2 contains unknown event type "vendor/x" at seq 3`},
		{"unknown ignorable type", unseeded, 0, opening(`{"type":"vendor/x","data":{},"ignorable":true,"surfaceOp":{"x":1}}`), ""},
		{"released v3-only type", unseeded, 0, opening(`{"type":"workspace/changes","data":{}}`), ""},
		{"not dense", unseeded, 0, []string{rTurn, `{"type":"turn/end","seq":2,"data":{"turn":1,"reason":{"kind":"completed"}}}`}, "SessionFormatError: format v2 event 1 is not dense"},
		{"cut exceeds", seeded, 5, []string{rMarker}, "SessionFormatError: format v2 inherited event count exceeds its events"},
		{"unseeded cut", unseeded, 1, []string{rTurn}, "SessionFormatError: unseeded format v2 Session has inherited events"},
		{"seeded cut disagrees", seeded, 0, []string{rTurn, rMarker}, "SessionFormatError: format v2 seeded header disagrees with its last inherited end-seed marker"},
		{"unseeded marker", unseeded, 0, []string{rMarker}, "SessionFormatError: format v2 unseeded Session contains an inherited end-seed marker"},
		{"marker data", unseeded, 0, []string{`{"type":"session/end-seed","data":3}`}, "SessionFormatError: session/end-seed 0 data must be an object"},
		{"pass order", unseeded, 1, []string{`{"type":"vendor/x","data":{}}`, rHead}, "SessionFormatError: system/message does not match an open step"},
		{"turn number", unseeded, 0, []string{`{"type":"turn/start","data":{"turn":2}}`}, "SessionFormatError: turn/start 2 does not open expected turn 1"},
		{"turn end", unseeded, 0, []string{`{"type":"turn/end","data":{"turn":1,"reason":{"kind":"completed"}}}`}, "SessionFormatError: turn/end 1 has no matching open turn"},
		{"turn end in a step", unseeded, 0, opening(rTurnEnd), "SessionFormatError: turn/end 1 crosses an open step"},
		{"step number", unseeded, 0, []string{rTurn, `{"type":"step/start","data":{"turn":1,"step":2}}`}, "SessionFormatError: step/start does not match the open turn and next step"},
		{"unresolved call", unseeded, 0, opening(rCallText, rStepEnd), "SessionFormatError: step/end leaves unresolved tool call c"},
		{"call mismatch", unseeded, 0, opening(rCallText, `{"type":"tool/call","data":{"turn":1,"step":1,"callId":"c","name":"write","arguments":"{}"}}`),
			"SessionFormatError: tool/call c does not match one advertised tool call"},
		{"result without call", unseeded, 0, opening(toolResult("t", false, "")), "SessionFormatError: tool/result c has no advertised tool lifecycle"},
		{"result of a call never started", unseeded, 0, opening(rCallText, toolResult("t", false, "")),
			"SessionFormatError: tool/result c is not the exact TOOL_NOT_STARTED repair"},
		{"started call settles", unseeded, 0, opening(rCallText, `{"type":"tool/call","data":{"turn":1,"step":1,"callId":"c","name":"read","arguments":"{}"}}`, toolResult("t", false, ""), rStepEnd), ""},
		{"exact repair with a historical id", unseeded, 0, opening(rCallText, toolResult("interrupted-tool-result-c-999", true, repairError), rStepEnd), ""},
		{"request outside a turn", unseeded, 0, []string{rRequest}, "SessionFormatError: request/header is outside an open turn"},
		{"retry provider", unseeded, 0, opening(`{"type":"llm/retry","data":{"turn":1,"step":1,"provider":"other","retry":1}}`),
			"SessionFormatError: llm/retry provider does not match the open request/header"},
		{"retry number", unseeded, 0, opening(rRequest, `{"type":"llm/retry","data":{"retryId":"r","turn":1,"step":1,"provider":"mock","policyKey":"k","retry":2}}`),
			"SessionFormatError: llm/retry must use retry 1"},
		{"retry started", unseeded, 0, opening(`{"type":"llm/retry-started","data":{"retryId":"r","turn":1,"step":1,"retry":1}}`),
			"SessionFormatError: llm/retry-started pairs no prior scheduled attempt"},
		{"ptc without start", unseeded, 0, opening(`{"type":"tool/ptc-dispatch","data":{"rootCallId":"r","parentCallId":"r","subCallId":"s","name":"n","arguments":{}}}`),
			"SessionFormatError: tool/code-dispatch has no unique start"},
		{"ptc pair", unseeded, 0, opening(`{"type":"tool/ptc-dispatch-start","data":{"rootCallId":"r","parentCallId":"r","subCallId":"s","name":"n","arguments":{"a":1,"b":2}}}`,
			`{"type":"tool/ptc-dispatch","data":{"rootCallId":"r","parentCallId":"r","subCallId":"s","name":"n","arguments":{"b":2,"a":1}}}`), ""},
		{"title cites a system message", unseeded, 0, opening(`{"type":"session/title","data":{"title":"t","messageSeqs":[2],"source":{"kind":"fallback"}}}`),
			"SessionFormatError: session/title 3 messageSeqs must cite earlier human user/message events"},
		{"user title", unseeded, 0, opening(`{"type":"session/title","data":{"title":"t","messageSeqs":[],"source":{"kind":"fallback"}}}`),
			"SessionFormatError: session/title 3 messageSeqs must be empty exactly for a user title"},
		{"title cites a later human message", unseeded, 0, opening(`{"type":"session/title","data":{"title":"t","messageSeqs":[4],"source":{"kind":"fallback"}}}`, human("u")), ""},
		{"later citation fails first", unseeded, 0, opening(`{"type":"session/title","data":{"title":"t","messageSeqs":[5],"source":{"kind":"fallback"}}}`, rRequest, rHead, `{"type":"turn/start","data":{"turn":1}}`),
			"SessionFormatError: session/title 3 messageSeqs must cite earlier human user/message events"},
		{"citation beyond the end", unseeded, 0, opening(`{"type":"session/title","data":{"title":"t","messageSeqs":[9],"source":{"kind":"fallback"}}}`),
			"SessionFormatError: session/title 3 messageSeqs must cite earlier human user/message events"},
		{"command citation", unseeded, 0, []string{`{"type":"command/run","data":{"commandId":"c","name":"n","source":{"kind":"user"}}}`,
			`{"type":"command/done","data":{"commandId":"c","kind":"success","sourceEventSeq":2}}`, `{"type":"command/run","data":{"commandId":"d","name":"n","source":{"kind":"user"}}}`},
			"SessionFormatError: command/done c has invalid sourceEventSeq"},
		{"command repeat", unseeded, 0, []string{`{"type":"command/run","data":{"commandId":"c"}}`, `{"type":"command/run","data":{"commandId":"c"}}`}, "SessionFormatError: command/run repeats commandId c"},
		{"foreign delivery", unseeded, 0, []string{`{"type":"session-log-deepseek/delivery-accepted","data":{"sessionId":"other","throughSeq":0,"sessionFormatVersion":3}}`},
			"SessionFormatError: current-generation delivery marker names the wrong Session"},
		{"inherited foreign delivery", seeded, 1, []string{`{"type":"session-log-deepseek/delivery-accepted","data":{"sessionId":"other","throughSeq":0,"sessionFormatVersion":3}}`, rMarker}, ""},
		{"older generation delivery", unseeded, 0, []string{`{"type":"session-log-deepseek/delivery-accepted","data":{"sessionId":"other","throughSeq":0,"sessionFormatVersion":2}}`}, ""},
		{"compaction crosses a turn", unseeded, 0, []string{rTurn, `{"type":"compaction/start","data":{"compactionId":"k","turn":1}}`, rTurnEnd},
			"SessionFormatError: turn/end crosses an open compaction"},
		{"abandoned inherited compaction", seeded, 3, []string{rTurn, `{"type":"compaction/start","data":{"compactionId":"k","turn":1}}`, rTurnEnd, rMarker}, ""},
		{"compaction crossing then ended", unseeded, 0, []string{rTurn, `{"type":"compaction/start","data":{"compactionId":"k","turn":1}}`, rTurnEnd,
			`{"type":"compaction/end","data":{"compactionId":"k","turn":1,"error":"x"}}`}, "SessionFormatError: turn/end crosses an open compaction"},
		{"compaction summary span", unseeded, 0, opening(human("u"), `{"type":"compaction/start","data":{"compactionId":"k","turn":1}}`,
			`{"type":"compaction/summary","data":{"compactionId":"k","shadowedRange":{"start":3,"end":3},"shadowedSeqs":[4]}}`),
			"SessionFormatError: compaction/summary shadowedSeqs do not name an exact current surface span"},
		{"compaction without summary", unseeded, 0, []string{rTurn, `{"type":"compaction/start","data":{"compactionId":"k","turn":1}}`, `{"type":"compaction/end","data":{"compactionId":"k","turn":1}}`},
			"SessionFormatError: successful compaction/end requires one summary"},
		{"replacement omits a node", unseeded, 0, opening(human("a"), human("b"), `{"type":"user/message","data":{"id":"c","role":"user","source":{"kind":"user"},"content":[]},"surfaceOp":{"op":"replace","startSeq":3,"endSeq":4},"sourceEventSeqs":[3]}`),
			"SessionFormatError: user/message replacement sourceEventSeqs omit a shadowed surface node"},
		{"null content block", unseeded, 0, opening(`{"type":"assistant/message","data":{"turn":1,"step":1,"message":{"content":[null]}},"surfaceOp":"append"}`),
			"TypeError: Cannot read properties of null (reading 'type')"},
		{"header without config", unseeded, 0, []string{rTurn, `{"type":"request/header","data":{"header":{}}}`},
			"TypeError: Cannot read properties of undefined (reading 'provider')"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := restore(t, tc.header, tc.cut, tc.events...); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
