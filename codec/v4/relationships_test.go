package v4

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// restore runs the Restorer over rows (seq and time are given by position
// unless a row has its own) of a session with header h and cut, and returns
// the refusal text or "".
func restore(t *testing.T, h session.Header, v *vocab.Vocabulary, cut int64, rows ...string) string {
	t.Helper()
	r := NewRestorer(h, v)
	for i, text := range rows {
		row, err := jsonv.Parse([]byte(text))
		if err != nil {
			t.Fatalf("row %d %s: %v", i, text, err)
		}
		if !row.Has("seq") {
			row = row.With("seq", jsonv.IntValue(int64(i)))
		}
		if !row.Has("time") {
			row = row.With("time", jsonv.IntValue(int64(i)))
		}
		seq, _ := row.Field("seq").SafeInt()
		r.Add(session.Event{Type: row.Field("type").Text(), Seq: seq, Row: row})
	}
	if err := r.Finish(cut); err != nil {
		return refusalText(t, err)
	}
	return ""
}

var unseeded = session.Header{Version: 4, ID: "parent", CreatedAt: 1}

// Rows of a small valid turn, for building cases.
const (
	turnStart  = `{"type":"turn/start","data":{"turn":1}}`
	stepStart  = `{"type":"step/start","data":{"turn":1,"step":1}}`
	stepEnd    = `{"type":"step/end","data":{"turn":1,"step":1}}`
	turnEnd    = `{"type":"turn/end","data":{"turn":1,"reason":{"kind":"completed"}}}`
	systemHead = `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s","role":"system","source":{"kind":"system-prompt"},"content":[]}},"surfaceOp":"append"}`
	header     = `{"type":"request/header","data":{"header":{"config":{"provider":"p","model":"m"},"tools":[{"name":"bash","description":"d","parameters":{}},{"name":"half"}]},"reason":"initial"}}`
)

func user(id, kind string) string {
	return fmt.Sprintf(`{"type":"user/message","data":{"id":%q,"role":"user","source":{"kind":%q},"content":[{"type":"text","text":"x"}]},"surfaceOp":"append"}`, id, kind)
}

func assistant(calls ...string) string {
	blocks := make([]string, len(calls))
	for i, c := range calls {
		blocks[i] = fmt.Sprintf(`{"type":"tool-call","id":%q,"name":"bash","arguments":"{}"}`, c)
	}
	return `{"type":"assistant/message","data":{"turn":1,"step":1,"message":{"id":"a","role":"assistant","source":{"kind":"model"},"content":[` +
		strings.Join(blocks, ",") + `]},"stream":[]},"surfaceOp":"append"}`
}

func callRow(id, args string) string {
	return fmt.Sprintf(`{"type":"tool/call","data":{"turn":1,"step":1,"callId":%q,"name":"bash","arguments":%s}}`, id, args)
}

func toolResult(id, extraData string) string {
	return fmt.Sprintf(`{"type":"tool/result","data":{"turn":1,"step":1%s,"message":{"role":"tool","source":{"kind":"tool","callId":%q},"toolCallId":%q,"content":[{"type":"text","text":"The tool call was interrupted before the Harness recorded it as started. Retry it if it is still needed."}],"isError":true,"id":"interrupted-tool-result-%s-0"}},"surfaceOp":"append"}`, extraData, id, id, id)
}

const notStarted = `,"error":{"name":"ToolNotStartedError","code":"TOOL_NOT_STARTED"}`

func TestRestorerArtifact(t *testing.T) {
	seeded := session.Header{Version: 4, ID: "child", CreatedAt: 1, IsSeeded: true, ParentSession: session.Str("parent")}
	small := vocab.Of("feedback/record", "session/end-seed", "subagent/catalog", DeliveryType)
	fact := `{"type":"feedback/record","data":{}}`
	marker := `{"type":"session/end-seed","data":{"inherited":true}}`
	delivery := func(version int, id string) string {
		return fmt.Sprintf(`{"type":%q,"data":{"sessionId":%q,"throughSeq":0,"sessionFormatVersion":%d}}`, DeliveryType, id, version)
	}
	catalog := `{"type":"subagent/catalog","data":{"version":0,"childId":"c","childCreatedAt":2,"mode":"one-shot"}}`
	tests := []struct {
		name   string
		header session.Header
		cut    int64
		rows   []string
		want   string
	}{
		{"empty", unseeded, 0, nil, ""},
		{"header version", session.Header{Version: 3}, 0, nil, fe + "expected format v4 header"},
		{"header cwd", session.Header{Version: 4, Cwd: session.Str("rel")}, 0, nil, fe + "format v4 header cwd must be absolute"},
		{"cut beyond", unseeded, 1, nil, fe + "format v4 inherited event count exceeds its events"},
		{"unseeded cut", unseeded, 1, []string{fact}, fe + "unseeded format v4 Session has inherited events"},
		{"cut before events", unseeded, 2, []string{`{"type":"vendor/x","data":{}}`}, fe + "format v4 inherited event count exceeds its events"},
		{"unknown required", unseeded, 0, []string{fact, `{"type":"vendor/x","data":{}}`},
			ue + `format v4 contains unknown event type "vendor/x" at seq 1`},
		{"unknown ignorable", unseeded, 0, []string{`{"type":"vendor/x","ignorable":true,"data":{"anything":[]}}`}, ""},
		{"unknown type quoted", unseeded, 0, []string{`{"type":"a\"b\u0001","data":{}}`},
			ue + `format v4 contains unknown event type "a\"b\u0001" at seq 0`},
		{"not dense", unseeded, 0, []string{`{"type":"feedback/record","seq":1,"data":{}}`}, fe + "format v4 event 0 is not dense"},
		{"marker unseeded", unseeded, 0, []string{marker}, fe + "format v4 unseeded Session contains an inherited end-seed marker"},
		{"marker disagrees", seeded, 1, []string{fact, marker, fact}, ""},
		{"marker disagrees with cut", seeded, 0, []string{fact, marker}, fe + "format v4 seeded header disagrees with its last inherited end-seed marker"},
		{"event refusal before ownership", unseeded, 0, []string{delivery(4, "other"), `{"type":"vendor/x","data":{}}`},
			ue + `format v4 contains unknown event type "vendor/x" at seq 1`},
		{"delivery other generations", unseeded, 0, []string{fact, delivery(3, "other"), delivery(5, "other")}, ""},
		{"delivery own", unseeded, 0, []string{fact, delivery(4, "parent")}, ""},
		{"delivery foreign", unseeded, 0, []string{fact, delivery(4, "other")}, fe + "current-generation delivery marker names the wrong Session"},
		{"delivery inside seed", seeded, 2, []string{fact, delivery(4, "parent"), marker}, ""},
		{"delivery after seed", seeded, 1, []string{fact, marker, delivery(4, "parent")}, fe + "current-generation delivery marker names the wrong Session"},
		{"delivery before a later seed", seeded, 3, []string{fact, marker, delivery(4, "parent"), marker}, ""},
		{"delivery throughSeq", unseeded, 0, []string{fact, `{"type":"session-log-deepseek/delivery-accepted","data":{"sessionId":"parent","throughSeq":1,"sessionFormatVersion":4}}`},
			fe + "delivery throughSeq must precede its marker"},
		{"delivery version", unseeded, 0, []string{`{"type":"session-log-deepseek/delivery-accepted","data":{"sessionFormatVersion":-0}}`},
			fe + "delivery sessionFormatVersion must be a non-negative safe integer"},
		{"delivery id", unseeded, 0, []string{fact, `{"type":"session-log-deepseek/delivery-accepted","data":{"sessionId":3,"throughSeq":0,"sessionFormatVersion":4}}`},
			fe + "delivery requires a nonempty Session id"},
		{"delivery data", unseeded, 0, []string{`{"type":"session-log-deepseek/delivery-accepted","data":null}`}, fe + "delivery-accepted data must be an object"},
		{"catalog duplicate", unseeded, 0, []string{catalog, catalog}, fe + "duplicate catalog child c"},
		{"catalog invalid", unseeded, 0, []string{`{"type":"subagent/catalog","data":{"version":0,"childId":"c","childCreatedAt":2,"mode":"unknown"}}`},
			fe + "subagent/catalog requires a supported versioned catalog fact"},
		{"catalog time", unseeded, 0, []string{`{"type":"subagent/catalog","data":{"version":1,"childId":"c","childCreatedAt":-1,"mode":"unknown"}}`},
			fe + "catalog child creation time must be a non-negative safe integer"},
		{"catalog inherited", seeded, 1, []string{catalog, marker, catalog}, ""},
		{"catalog inherited invalid", seeded, 1, []string{`{"type":"subagent/catalog","data":{"version":99}}`, marker}, ""},
		{"catalog own duplicate", seeded, 1, []string{catalog, marker, catalog, catalog}, fe + "duplicate catalog child c"},
		{"first ownership refusal wins", seeded, 1, []string{fact, marker, catalog, delivery(4, "other"), catalog}, fe + "current-generation delivery marker names the wrong Session"},
		{"ownership before lifecycle", unseeded, 0, []string{stepEnd, delivery(4, "other")}, fe + "current-generation delivery marker names the wrong Session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := vocab.Zdsh.Vocabulary()
			if strings.HasPrefix(tt.name, "marker") || strings.HasPrefix(tt.name, "cut") || tt.name == "empty" {
				v = small
			}
			if got := restore(t, tt.header, v, tt.cut, tt.rows...); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestRestorerRelationships(t *testing.T) {
	compactionStart := `{"type":"compaction/start","data":{"compactionId":"k","turn":1}}`
	tests := []struct {
		name string
		rows []string
		want string
	}{
		{"complete turn", []string{turnStart, stepStart, systemHead, user("u", "user"), header, stepEnd, turnEnd}, ""},
		{"open tail", []string{turnStart, stepStart, systemHead, assistant("c1")}, ""},
		{"data not object", []string{`{"type":"turn/start","data":1}`}, fe + "turn/start requires an object"},
		{"turn number", []string{`{"type":"turn/start","data":{"turn":2}}`}, fe + "turn/start does not open the expected turn"},
		{"turn inside turn", []string{turnStart, turnStart}, fe + "turn/start does not open the expected turn"},
		{"turn end with open step", []string{turnStart, stepStart, turnEnd}, fe + "turn/end does not match the open turn with no open step"},
		{"step outside turn", []string{stepStart}, fe + "step/start does not match the open turn and next step"},
		{"step end without start", []string{turnStart, stepEnd}, fe + "step/end does not match an open turn and step"},
		{"system outside step", []string{turnStart, systemHead}, fe + "system/message does not match an open turn and step"},
		{"attempt outside step", []string{`{"type":"assistant/attempt","data":{"turn":1,"step":1,"stream":[]}}`}, fe + "assistant/attempt does not match an open turn and step"},
		{"header outside turn", []string{header}, fe + "request/header is outside an open turn"},
		{"context outside turn", []string{`{"type":"request/context","data":{"provider":"p","model":"m"}}`}, fe + "request/context is outside an open turn"},
		{"header config", []string{turnStart, `{"type":"request/header","data":{"header":{"config":1}}}`}, fe + "request config requires an object"},
		{"system after user", []string{turnStart, stepStart, user("u", "user"), systemHead}, fe + "system/message requires a protected first surface head"},
		{"surfaceOp missing", []string{`{"type":"user/message","data":{"source":{"kind":"user"}}}`}, fe + "user/message surfaceOp requires an object"},
		{"replacement start", []string{`{"type":"user/message","data":{"source":{"kind":"user"}},"surfaceOp":{"op":"replace","startSeq":0,"endSeq":0}}`},
			fe + "replacement start must name an earlier event"},
		{"replacement end", []string{user("u", "user"), `{"type":"user/message","data":{"source":{"kind":"user"}},"surfaceOp":{"op":"replace","startSeq":0,"endSeq":-1}}`},
			fe + "replacement end must be a non-negative safe integer"},
		{"replacement off surface", []string{user("u", "user"), `{"type":"feedback/record","data":{}}`, `{"type":"user/message","data":{"source":{"kind":"user"}},"surfaceOp":{"op":"replace","startSeq":1,"endSeq":1},"sourceEventSeqs":[1]}`},
			fe + "user/message replacement range is not on the current surface"},
		{"replacement sources", []string{user("u", "user"), `{"type":"user/message","data":{"source":{"kind":"user"}},"surfaceOp":{"op":"replace","startSeq":0,"endSeq":0}}`},
			fe + "replacement sourceEventSeqs requires an array"},
		{"replacement omits", []string{user("u", "user"), user("v", "user"), `{"type":"user/message","data":{"source":{"kind":"user"}},"surfaceOp":{"op":"replace","startSeq":0,"endSeq":1},"sourceEventSeqs":[0]}`},
			fe + "replacement sourceEventSeqs omit a shadowed surface node"},
		{"replacement of head", []string{turnStart, stepStart, systemHead, `{"type":"user/message","data":{"source":{"kind":"user"}},"surfaceOp":{"op":"replace","startSeq":2,"endSeq":2},"sourceEventSeqs":[2]}`},
			fe + "surface replacement cannot shadow the protected system head"},
		{"head replaced by system", []string{turnStart, stepStart, systemHead, user("u", "user"),
			`{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s2","role":"system","source":{"kind":"system-prompt"},"content":[]}},"surfaceOp":{"op":"replace","startSeq":2,"endSeq":2},"sourceEventSeqs":[2]}`,
			`{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s3","role":"system","source":{"kind":"system-prompt"},"content":[]}},"surfaceOp":{"op":"replace","startSeq":4,"endSeq":4},"sourceEventSeqs":[4]}`}, ""},
		{"assistant content", []string{turnStart, stepStart, `{"type":"assistant/message","data":{"turn":1,"step":1,"message":{"source":{"kind":"model"},"content":{}}},"surfaceOp":"append"}`}, fe + "assistant content requires an array"},
		{"assistant block", []string{turnStart, stepStart, `{"type":"assistant/message","data":{"turn":1,"step":1,"message":{"source":{"kind":"model"},"content":[null]}},"surfaceOp":"append"}`}, fe + "assistant content block requires an object"},
		{"assistant call id", []string{turnStart, stepStart, `{"type":"assistant/message","data":{"turn":1,"step":1,"message":{"source":{"kind":"model"},"content":[{"type":"tool-call","id":""}]}},"surfaceOp":"append"}`}, fe + "tool call id requires a nonempty string"},
		{"repeated call", []string{turnStart, stepStart, assistant("c1", "c1")}, fe + "assistant/message repeats advertised tool call c1"},
		{"unresolved at step end", []string{turnStart, stepStart, assistant("c1", "c2"), callRow("c1", `"{}"`), toolResult("c1", ""), stepEnd}, fe + "step/end leaves unresolved tool call c2"},
		{"call without advert", []string{turnStart, stepStart, callRow("c9", `"{}"`)}, fe + "tool/call c9 has no advertised tool lifecycle"},
		{"call args differ", []string{turnStart, stepStart, assistant("c1"), callRow("c1", `"{ }"`)}, fe + "tool/call c1 does not match one advertised tool call"},
		{"call args object", []string{turnStart, stepStart, strings.Replace(assistant("c1"), `"arguments":"{}"`, `"arguments":{}`, 1), callRow("c1", `{}`)}, fe + "tool/call c1 does not match one advertised tool call"},
		{"call twice", []string{turnStart, stepStart, assistant("c1"), callRow("c1", `"{}"`), callRow("c1", `"{}"`)}, fe + "tool/call c1 does not match one advertised tool call"},
		{"result without error", []string{turnStart, stepStart, assistant("c1"), toolResult("c1", "")}, fe + "not-started error requires an object"},
		{"result repair", []string{turnStart, stepStart, assistant("c1"), toolResult("c1", notStarted), stepEnd}, ""},
		{"result repair text", []string{turnStart, stepStart, assistant("c1"), strings.Replace(toolResult("c1", notStarted), "Retry it", "retry it", 1)},
			fe + "tool/result c1 is not the exact TOOL_NOT_STARTED repair"},
		{"result unknown call", []string{turnStart, stepStart, assistant("c1"), toolResult("c9", notStarted)}, fe + "tool/result c9 has no advertised tool lifecycle"},
		{"replacement result needs a turn", []string{user("u", "user"), strings.Replace(toolResult("c1", ""), `"surfaceOp":"append"`, `"surfaceOp":{"op":"replace","startSeq":0,"endSeq":0},"sourceEventSeqs":[0]`, 1)}, fe + "tool/result is outside an open turn"},
		{"ptc ok", []string{turnStart,
			`{"type":"tool/ptc-dispatch-start","data":{"rootCallId":"r","parentCallId":"r","subCallId":"a","name":"n","arguments":{"x":1,"y":[1]}}}`,
			`{"type":"tool/ptc-dispatch-start","data":{"rootCallId":"r","parentCallId":"a","subCallId":"b","name":"n","arguments":{}}}`,
			`{"type":"tool/ptc-dispatch","data":{"rootCallId":"r","parentCallId":"r","subCallId":"a","name":"n","arguments":{"y":[1],"x":1},"isError":false,"content":[]}}`}, ""},
		{"ptc outside turn", []string{`{"type":"tool/ptc-dispatch-start","data":{}}`}, fe + "tool/ptc-dispatch-start is outside an open turn"},
		{"ptc sub id", []string{turnStart, `{"type":"tool/ptc-dispatch-start","data":{}}`}, fe + "PTC subCallId requires a nonempty string"},
		{"ptc parent", []string{turnStart, `{"type":"tool/ptc-dispatch-start","data":{"rootCallId":"r","parentCallId":"p","subCallId":"a"}}`}, fe + "PTC parentCallId does not belong to rootCallId"},
		{"ptc repeat", []string{turnStart, `{"type":"tool/ptc-dispatch-start","data":{"rootCallId":"r","parentCallId":"r","subCallId":"a"}}`, `{"type":"tool/ptc-dispatch-start","data":{"rootCallId":"r","parentCallId":"r","subCallId":"a"}}`}, fe + "PTC dispatch repeats subCallId"},
		{"ptc root change", []string{turnStart, `{"type":"tool/ptc-dispatch-start","data":{"rootCallId":"r","parentCallId":"r","subCallId":"a"}}`, `{"type":"tool/ptc-dispatch","data":{"rootCallId":"q","parentCallId":"q","subCallId":"a"}}`}, fe + "PTC dispatch changes its rootCallId"},
		{"ptc no start", []string{turnStart, `{"type":"tool/ptc-dispatch","data":{"rootCallId":"r","parentCallId":"r","subCallId":"a"}}`}, fe + "PTC dispatch has no unique start"},
		{"ptc settled twice", []string{turnStart, `{"type":"tool/ptc-dispatch-start","data":{"rootCallId":"r","parentCallId":"r","subCallId":"a"}}`, `{"type":"tool/ptc-dispatch","data":{"rootCallId":"r","parentCallId":"r","subCallId":"a"}}`, `{"type":"tool/ptc-dispatch","data":{"rootCallId":"r","parentCallId":"r","subCallId":"a"}}`}, fe + "PTC dispatch has no unique start"},
		{"ptc arguments differ", []string{turnStart, `{"type":"tool/ptc-dispatch-start","data":{"rootCallId":"r","parentCallId":"r","subCallId":"a","arguments":{"x":0}}}`, `{"type":"tool/ptc-dispatch","data":{"rootCallId":"r","parentCallId":"r","subCallId":"a","arguments":{"x":-0}}}`}, fe + "PTC dispatch does not match its start"},
		{"retry chain", []string{turnStart, stepStart, header,
			`{"type":"llm/retry","data":{"turn":1,"step":1,"provider":"p","policyKey":"k","retryId":"r","retry":1}}`,
			`{"type":"llm/retry-started","data":{"turn":1,"step":1,"retryId":"r","retry":1}}`,
			`{"type":"llm/retry","data":{"turn":1,"step":1,"provider":"p","policyKey":"k","retryId":"r","retry":2}}`}, ""},
		{"retry id", []string{`{"type":"llm/retry","data":{}}`}, fe + "retryId requires a nonempty string"},
		{"retry number", []string{`{"type":"llm/retry","data":{"retryId":"r","retry":1.5}}`}, fe + "retry must be a non-negative safe integer"},
		{"retry outside step", []string{turnStart, `{"type":"llm/retry","data":{"turn":1,"step":1,"retryId":"r","retry":1}}`}, fe + "llm/retry does not match the current turn and step"},
		{"retry after step", []string{turnStart, stepStart, header, stepEnd, `{"type":"llm/retry","data":{"turn":1,"step":1,"provider":"p","retryId":"r","retry":1}}`}, ""},
		{"retry provider", []string{turnStart, stepStart, header, `{"type":"llm/retry","data":{"turn":1,"step":1,"provider":"q","retryId":"r","retry":1}}`}, fe + "llm/retry provider does not match the open request/header"},
		{"retry skips", []string{turnStart, stepStart, `{"type":"llm/retry","data":{"turn":1,"step":1,"retryId":"r","retry":2}}`}, fe + "llm/retry skips its policy attempt sequence"},
		{"retry object key never chains", []string{turnStart, stepStart,
			`{"type":"llm/retry","data":{"turn":1,"step":1,"policyKey":{},"retryId":"r","retry":1}}`,
			`{"type":"llm/retry","data":{"turn":1,"step":1,"policyKey":{},"retryId":"s","retry":1}}`}, ""},
		{"retry id reused", []string{turnStart, stepStart,
			`{"type":"llm/retry","data":{"turn":1,"step":1,"policyKey":"a","retryId":"r","retry":1}}`,
			`{"type":"llm/retry","data":{"turn":1,"step":1,"policyKey":"b","retryId":"r","retry":1}}`}, fe + "llm/retry must keep one retryId per policy chain"},
		{"retry id changed", []string{turnStart, stepStart,
			`{"type":"llm/retry","data":{"turn":1,"step":1,"retryId":"r","retry":1}}`,
			`{"type":"llm/retry","data":{"turn":1,"step":1,"retryId":"s","retry":2}}`}, fe + "llm/retry must keep one retryId per policy chain"},
		{"retry started unpaired", []string{`{"type":"llm/retry-started","data":{"retryId":"r","retry":1}}`}, fe + "llm/retry-started pairs no prior scheduled attempt"},
		{"retry started moved", []string{turnStart, stepStart,
			`{"type":"llm/retry","data":{"turn":1,"step":1,"retryId":"r","retry":1}}`,
			`{"type":"llm/retry-started","data":{"turn":1,"step":2,"retryId":"r","retry":1}}`}, fe + "llm/retry-started changes scheduled coordinates"},
		{"retry started twice", []string{turnStart, stepStart,
			`{"type":"llm/retry","data":{"turn":1,"step":1,"retryId":"r","retry":1}}`,
			`{"type":"llm/retry-started","data":{"turn":1,"step":1,"retryId":"r","retry":1}}`,
			`{"type":"llm/retry-started","data":{"turn":1,"step":1,"retryId":"r","retry":1}}`}, fe + "llm/retry-started repeats one scheduled attempt"},
		{"title ok", []string{user("u", "user"), `{"type":"session/title","data":{"title":"t","source":{"kind":"fallback"},"messageSeqs":[0]}}`}, ""},
		{"title seqs", []string{`{"type":"session/title","data":{"source":{"kind":"user"}}}`}, fe + "title messageSeqs requires an array"},
		{"title user kind", []string{`{"type":"session/title","data":{"source":{"kind":"user"},"messageSeqs":[0]}}`}, fe + "session/title messageSeqs must be empty exactly for a user title"},
		{"title not human", []string{user("u", "runtime-context"), `{"type":"session/title","data":{"title":"t","source":{"kind":"fallback"},"messageSeqs":[0]}}`},
			fe + "session/title messageSeqs must cite distinct earlier human user/message events"},
		{"title repeated", []string{user("u", "user"), `{"type":"session/title","data":{"title":"t","source":{"kind":"fallback"},"messageSeqs":[0,0]}}`},
			fe + "session/title messageSeqs must cite distinct earlier human user/message events"},
		{"title later", []string{`{"type":"session/title","data":{"source":{"kind":"fallback"},"messageSeqs":[0]}}`}, fe + "title messageSeqs must name an earlier event"},
		{"title request ok", []string{user("u", "user"), `{"type":"session/title-llm-request","data":{"messageSeqs":[0],"messages":[{"role":"user","source":{"kind":"dsh-session-title-llm"},"content":[{"type":"text","text":"x"}]}]}}`}, ""},
		{"title request messages", []string{user("u", "user"), `{"type":"session/title-llm-request","data":{"messageSeqs":[0],"messages":[]}}`}, fe + "title message requires an object"},
		{"title request shape", []string{user("u", "user"), `{"type":"session/title-llm-request","data":{"messageSeqs":[0],"messages":[{"role":"user","source":{"kind":"user"},"content":[]}]}}`},
			fe + "session/title-llm-request messages do not represent messageSeqs"},
		{"command ok", []string{`{"type":"command/run","data":{"commandId":"c"}}`, fact(), `{"type":"command/done","data":{"commandId":"c","kind":"success","sourceEventSeq":1}}`}, ""},
		{"command repeated", []string{`{"type":"command/run","data":{"commandId":"c"}}`, `{"type":"command/run","data":{"commandId":"c"}}`}, fe + "command/run repeats commandId c"},
		{"command done alone", []string{`{"type":"command/done","data":{"commandId":"c"}}`}, fe + "command/done has no prior command/run"},
		{"command cites command", []string{`{"type":"command/run","data":{"commandId":"c"}}`, `{"type":"command/done","data":{"commandId":"c","kind":"success","sourceEventSeq":0}}`}, fe + "command/done has invalid sourceEventSeq"},
		{"command not success", []string{`{"type":"command/run","data":{"commandId":"c"}}`, fact(), `{"type":"command/done","data":{"commandId":"c","kind":"error","sourceEventSeq":1}}`}, fe + "command/done has invalid sourceEventSeq"},
		{"compaction ok", []string{turnStart, stepStart, systemHead, user("u", "user"), stepEnd, compactionStart,
			`{"type":"compaction/summary","data":{"compactionId":"k","shadowedRange":{"start":3,"end":3},"shadowedSeqs":[3]}}`,
			`{"type":"user/message","data":{"source":{"kind":"compact-checkpoint","compactionId":"k"}},"surfaceOp":{"op":"replace","startSeq":3,"endSeq":3},"sourceEventSeqs":[3]}`,
			`{"type":"compaction/end","data":{"compactionId":"k","turn":1}}`, turnEnd}, ""},
		{"compaction overlap", []string{turnStart, compactionStart, compactionStart}, fe + "compaction/start overlaps an open compaction"},
		{"compaction turn", []string{`{"type":"compaction/start","data":{"compactionId":"k"}}`}, fe + "compaction turn must be a non-negative safe integer"},
		{"compaction wrong turn", []string{compactionStart}, fe + "compaction/start does not match the open turn"},
		{"compaction outside turn", []string{`{"type":"compaction/start","data":{"compactionId":"k","turn":null}}`, `{"type":"compaction/end","data":{"compactionId":"k","turn":null,"error":{}}}`}, ""},
		{"compaction id", []string{turnStart, `{"type":"compaction/start","data":{"turn":1}}`}, fe + "compactionId requires a nonempty string"},
		{"compaction summary unmatched", []string{turnStart, `{"type":"compaction/summary","data":{"shadowedRange":{"start":0,"end":0},"shadowedSeqs":[0]}}`}, fe + "compaction/summary shadowedSeqs do not name an exact current surface span"},
		{"compaction no start", []string{`{"type":"compaction/end","data":{"compactionId":"k"}}`}, fe + "compaction/end has no matching compaction/start"},
		{"compaction summary twice", []string{turnStart, stepStart, systemHead, user("u", "user"), stepEnd, compactionStart,
			`{"type":"compaction/summary","data":{"compactionId":"k","shadowedRange":{"start":3,"end":3},"shadowedSeqs":[3]}}`,
			`{"type":"compaction/summary","data":{"compactionId":"k","shadowedRange":{"start":3,"end":3},"shadowedSeqs":[3]}}`}, fe + "compaction/summary repeats"},
		{"compaction head", []string{turnStart, stepStart, systemHead, stepEnd, compactionStart,
			`{"type":"compaction/prune","data":{"shadowedRange":{"start":2,"end":2},"shadowedSeqs":[2]}}`}, fe + "compaction cannot shadow the protected system head"},
		{"compaction end without summary", []string{turnStart, compactionStart, `{"type":"compaction/end","data":{"compactionId":"k","turn":1}}`}, fe + "successful compaction/end requires one summary"},
		{"compaction end owner", []string{turnStart, compactionStart, `{"type":"compaction/end","data":{"compactionId":"k","error":{}}}`}, fe + "compaction/end changes its owner turn"},
		{"compaction checkpoint", []string{user("u", "user"), `{"type":"user/message","data":{"source":{"kind":"compact-checkpoint"}},"surfaceOp":{"op":"replace","startSeq":0,"endSeq":0},"sourceEventSeqs":[0]}`},
			fe + "compaction checkpoint has no matching compaction/start"},
		{"compaction crossed", []string{turnStart, compactionStart, turnEnd}, fe + "turn/end crosses an open compaction"},
		{"compaction crossed, refused later", []string{turnStart, compactionStart, turnEnd, `{"type":"compaction/end","data":{"compactionId":"k","turn":1,"error":{}}}`}, fe + "turn/end crosses an open compaction"},
		{"crossing wins over a later refusal", []string{turnStart, compactionStart, turnEnd, `{"type":"turn/start","data":{"turn":5}}`}, fe + "turn/end crosses an open compaction"},
		{"orphaned compaction may be crossed", []string{turnStart, compactionStart, turnEnd, `{"type":"session/end-seed","data":{}}`}, ""},
		{"orphaned crossing, later refusal stands", []string{turnStart, compactionStart, turnEnd, `{"type":"turn/start","data":{"turn":5}}`, `{"type":"session/end-seed","data":{}}`},
			fe + "turn/start does not open the expected turn"},
		{"developer addition", []string{turnStart, stepStart, header,
			`{"type":"developer/message","data":{"turn":1,"step":1,"headerSeq":2,"message":{"id":"d","role":"developer","source":{"kind":"tools"},"content":[{"type":"tool-addition","toolName":"bash"}]}},"surfaceOp":"append"}`}, ""},
		{"developer header later", []string{turnStart, stepStart,
			`{"type":"developer/message","data":{"turn":1,"step":1,"headerSeq":2,"message":{"id":"d","role":"developer","source":{"kind":"tools"},"content":[{"type":"tool-addition","toolName":"bash"}]}},"surfaceOp":"append"}`},
			fe + "developer/message headerSeq must name an earlier event"},
		{"developer header kind", []string{turnStart, stepStart,
			`{"type":"developer/message","data":{"turn":1,"step":1,"headerSeq":1,"message":{"id":"d","role":"developer","source":{"kind":"tools"},"content":[{"type":"tool-addition","toolName":"bash"}]}},"surfaceOp":"append"}`},
			fe + "developer/message headerSeq must reference an earlier request/header"},
		{"developer tool missing", []string{turnStart, stepStart, header,
			`{"type":"developer/message","data":{"turn":1,"step":1,"headerSeq":2,"message":{"id":"d","role":"developer","source":{"kind":"tools"},"content":[{"type":"tool-addition","toolName":"read"}]}},"surfaceOp":"append"}`},
			fe + `developer/message tool-addition "read" must name exactly one tool in headerSeq 2`},
		{"developer tool incomplete", []string{turnStart, stepStart, header,
			`{"type":"developer/message","data":{"turn":1,"step":1,"headerSeq":2,"message":{"id":"d","role":"developer","source":{"kind":"tools"},"content":[{"type":"tool-addition","toolName":"half"}]}},"surfaceOp":"append"}`},
			fe + `developer/message tool-addition "half" requires a complete tool definition in headerSeq 2`},
		{"snapshot tool names: name checked", []string{turnStart, stepStart, namesHeader,
			addition("bash")}, ""},
		{"snapshot tool names: unknown name", []string{turnStart, stepStart, namesHeader, addition("read")},
			fe + `developer/message tool-addition "read" must name exactly one tool in headerSeq 2`},
		{"snapshot tool names: repeated name", []string{turnStart, stepStart, strings.Replace(namesHeader, `["bash"`, `["bash","bash"`, 1), addition("bash")},
			fe + `developer/message tool-addition "bash" must name exactly one tool in headerSeq 2`},
		{"snapshot tools placeholder: nothing to check", []string{turnStart, stepStart, strings.Replace(namesHeader, `["bash","half"]`, `"{{tools}}"`, 1), addition("read")}, ""},
		{"user source", []string{`{"type":"user/message","data":{"source":1},"surfaceOp":"append"}`}, fe + "format v4 message requires a producer-owned source kind"},
		{"message required", []string{`{"type":"assistant/message","data":{}}`}, fe + "assistant/message requires a message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := restore(t, unseeded, vocab.Zdsh.Vocabulary(), 0, tt.rows...); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// namesHeader is a request/header in dsh's normalized snapshot form, naming
// its tools instead of giving their schemas.
const namesHeader = `{"type":"request/header","data":{"header":{"config":{"provider":"p","model":"m"},"tools":["bash","half"]},"reason":"initial"}}`

// addition is a developer/message adding the tool name, after the header at seq 2.
func addition(name string) string {
	return `{"type":"developer/message","data":{"turn":1,"step":1,"headerSeq":2,"message":{"id":"d","role":"developer","source":{"kind":"tools"},"content":[{"type":"tool-addition","toolName":"` + name + `"}]}},"surfaceOp":"append"}`
}

func fact() string { return `{"type":"feedback/record","data":{}}` }

// TestRestorerUnknownHeader covers a vocabulary without request/header.
func TestRestorerUnknownHeader(t *testing.T) {
	small := vocab.Of("turn/start", "step/start", "developer/message")
	got := restore(t, unseeded, small, 0, turnStart, stepStart, strings.Replace(header, `"type"`, `"ignorable":true,"type"`, 1),
		`{"type":"developer/message","data":{"turn":1,"step":1,"headerSeq":2,"message":{"id":"d","role":"developer","source":{"kind":"tools"},"content":[{"type":"tool-addition","toolName":"bash"}]}},"surfaceOp":"append"}`)
	if want := fe + "developer/message headerSeq must reference a known request/header"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
