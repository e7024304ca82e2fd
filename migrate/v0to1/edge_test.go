package v0to1

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v0"
	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate/stage"
	"github.com/dshlog/dshlog/session"
)

// result is what migrating a v0 text through the codec and the edge gave:
// one line per emitted item as the v0/v1 writer writes it (an event's row
// with its sourceEventSeqs range-encoded, a forwarded run as its packed
// row), the target header and cut, or the refusal.
type result struct {
	lines  []string
	header session.Header
	cut    int64
	err    error
}

// text renders the refusal as "<Class>: <message>", or "" for none.
func (r result) text() string { return sessiontest.RefusalText(r.err) }

// migrateV0 runs a v0 session text (header line, then rows) through the v0
// codec (strict) and the edge.
func migrateV0(t *testing.T, text string) result {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	dec, err := v0.NewDecoder(sessiontest.Parse(t, lines[0]), 0, v2.Strict)
	if err != nil {
		return result{err: err}
	}
	var e Edge
	target, err := e.MigrateHeader(dec.Header())
	if err == nil {
		err = e.ValidateTargetHeader(target)
	}
	if err != nil {
		return result{err: err}
	}
	st, err := e.NewStage(stage.StageInput{SourceHeader: dec.Header(), TargetHeader: target, SourceCut: dec.HeaderCut(), Decoded: true})
	if err != nil {
		return result{err: err}
	}
	r := result{header: target}
	emit := func(item session.Item) error {
		if run, ok := item.Run.(*v0.ChunkRun); ok {
			r.lines = append(r.lines, packedRow(run))
			return nil
		}
		r.lines = append(r.lines, string(v2.EncodeEvent(nil, item.Event)))
		return nil
	}
	entry := func(item session.Item) error { return st.Transform(item, emit) }
	for _, line := range lines[1:] {
		if r.err = dec.Decode(sessiontest.Parse(t, line), entry); r.err != nil {
			return r
		}
	}
	if _, r.err = dec.Finish(entry); r.err != nil {
		return r
	}
	if st.HeaderCut() != dec.HeaderCut() {
		t.Errorf("stage cut %d, codec cut %d", st.HeaderCut(), dec.HeaderCut())
	}
	r.cut, r.err = st.Finish(emit)
	return r
}

// packedRow writes a forwarded run back as the packed row of the old writer.
func packedRow(run *v0.ChunkRun) string {
	s := run.Stream()
	data := []jsonv.Member{
		jsonv.M("turn", jsonv.IntValue(run.Turn())),
		jsonv.M("step", jsonv.IntValue(run.Step())),
		jsonv.M("index", s.Field("index")),
		jsonv.M("dt", s.Field("dt")),
	}
	for _, key := range []string{"id", "name", "texts", "args"} {
		if v, ok := s.Get(key); ok {
			data = append(data, jsonv.M(key, v))
		}
	}
	return jsonv.ObjectValue(
		jsonv.M("type", s.Field("type")),
		jsonv.M("seq0", jsonv.IntValue(run.FirstSeq())),
		jsonv.M("time0", s.Field("time0")),
		jsonv.M("data", jsonv.ObjectValue(data...)),
	).String()
}

func headerLine(id string) string {
	return `{"type":"session","version":0,"id":"` + id + `","createdAt":1,"cwd":"/work","delegationDepth":0}`
}

// Fragments of payloads that pass dsh's released validation.
const (
	userText  = `"content":[{"type":"text","text":"hi"}],"source":{"kind":"user"}`
	modelSrc  = `"source":{"kind":"model","provider":"mock","model":"mock"}`
	failure   = `{"message":"provider","code":"SERVER"}`
	retryData = `"turn":1,"step":1,"provider":"mock","mode":"normal","policyKey":"k","retry":1,"maxRetries":2,"delayMs":5,"failure":` + failure
)

// TestVectors runs the v0→v1 vectors of dsh's legacy.spec.ts and
// migration.spec.ts (format-v0-v2.md §8.4): each input row maps to the
// given output line.
func TestVectors(t *testing.T) {
	tests := []struct {
		name string
		id   string
		rows []string // input row, then "=> output" when it changes
	}{
		{name: "identity on a canonical log", id: "identity", rows: []string{
			`{"type":"turn/start","seq":0,"time":2,"data":{"turn":1}}`,
			`{"type":"step/start","seq":1,"time":3,"data":{"turn":1,"step":1}}`,
			`{"type":"text-chunks","seq0":2,"time0":4,"data":{"turn":1,"step":1,"index":0,"dt":[1,1],"texts":["a","b","c"]}}`,
			`{"type":"assistant/chunk","seq":5,"time":7,"data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}}`,
			`{"type":"assistant/message","seq":6,"time":8,"data":{"turn":1,"step":1,"message":{"id":"a","role":"assistant","content":[{"type":"text","text":"abc"}],` + modelSrc + `}},"sourceEventSeqs":[[2,5]],"surfaceOp":"append"}`,
		}},
		{name: "legacy messages", id: "legacy", rows: []string{
			`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}`,
			`{"type":"user/message","seq":1,"time":1,"data":{` + userText + `},"surfaceOp":"append"}`,
			`=> {"type":"user/message","seq":1,"time":1,"data":{` + userText + `,"id":"legacy-message:legacy:1","role":"user"},"surfaceOp":"append"}`,
			`{"type":"step/start","seq":2,"time":1,"data":{"turn":1,"step":1}}`,
			`{"type":"assistant/message","seq":3,"time":1,"data":{"turn":1,"step":1,"content":[{"type":"text","text":"a"}],"provenance":{"provider":"mock","model":"mock"},"usage":{"inputTokens":1,"outputTokens":1}},"surfaceOp":"append"}`,
			`=> {"type":"assistant/message","seq":3,"time":1,"data":{"turn":1,"step":1,"usage":{"inputTokens":1,"outputTokens":1},"message":{"id":"legacy-message:legacy:3","role":"assistant","content":[{"type":"text","text":"a"}],"source":{"provider":"mock","model":"mock","kind":"model"}}},"surfaceOp":"append"}`,
			`{"type":"tool/call","seq":4,"time":1,"data":{"turn":1,"step":1,"callId":"c","name":"read","arguments":"{}"}}`,
			`{"type":"tool/result","seq":5,"time":1,"data":{"turn":1,"step":1,"callId":"c","content":[{"type":"text","text":"ok"}],"isError":false},"surfaceOp":"append"}`,
			`=> {"type":"tool/result","seq":5,"time":1,"data":{"turn":1,"step":1,"message":{"id":"legacy-message:legacy:5","role":"user","content":[{"type":"tool-result","toolCallId":"c","content":[{"type":"text","text":"ok"}],"isError":false}],"source":{"kind":"tool","callId":"c"}}},"surfaceOp":"append"}`,
			`{"type":"tool/result","seq":6,"time":1,"data":{"turn":1,"step":1,"callId":"c","content":[],"isError":true},"sourceEventSeqs":[5],"surfaceOp":{"op":"replace","start":5,"end":5}}`,
			`=> {"type":"tool/result","seq":6,"time":1,"data":{"turn":1,"step":1,"message":{"id":"legacy-message:legacy:5","role":"user","content":[{"type":"tool-result","toolCallId":"c","content":[],"isError":true}],"source":{"kind":"tool","callId":"c"}}},"sourceEventSeqs":[5],"surfaceOp":{"op":"replace","start":5,"end":5}}`,
			`{"type":"assistant/message","seq":7,"time":1,"data":{"turn":1,"step":1,"content":[],"provenance":{"kind":"old","provider":"mock","model":"mock"}}}`,
			`=> {"type":"assistant/message","seq":7,"time":1,"data":{"turn":1,"step":1,"message":{"id":"legacy-message:legacy:7","role":"assistant","content":[],"source":{"kind":"model","provider":"mock","model":"mock"}}}}`,
		}},
		{name: "steering", id: "legacy", rows: []string{
			`{"type":"steering/message","seq":0,"time":1,"data":{"turn":1,"message":{"id":"wrapped","role":"user",` + userText + `}},"surfaceOp":"append"}`,
			`=> {"type":"user/message","seq":0,"time":1,"data":{"id":"wrapped","role":"user",` + userText + `},"surfaceOp":"append"}`,
			`{"type":"steering/message","seq":1,"time":1,"data":{` + userText + `,"turn":1},"surfaceOp":"append"}`,
			`=> {"type":"user/message","seq":1,"time":1,"data":{` + userText + `,"id":"legacy-message:legacy:1","role":"user"},"surfaceOp":"append"}`,
		}},
		{name: "turn reasons", id: "legacy", rows: []string{
			`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1,"trigger":{"kind":"user"}}}`,
			`=> {"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}`,
			`{"type":"turn/end","seq":1,"time":1,"data":{"reason":{"kind":"error","step":1,"failure":` + failure + `},"turn":1}}`,
			`=> {"type":"turn/end","seq":1,"time":1,"data":{"reason":{"kind":"error","error":` + failure + `},"turn":1}}`,
			`{"type":"turn/end","seq":2,"time":1,"data":{"turn":1,"reason":{"kind":"aborted"}}}`,
			`=> {"type":"turn/end","seq":2,"time":1,"data":{"turn":1,"reason":{"kind":"aborted","reason":{"kind":"legacy"}}}}`,
			`{"type":"turn/end","seq":3,"time":1,"data":{"turn":1,"reason":{"kind":"disposed"}}}`,
			`=> {"type":"turn/end","seq":3,"time":1,"data":{"turn":1,"reason":{"kind":"aborted","reason":{"kind":"disposed"}}}}`,
			`{"type":"turn/end","seq":4,"time":1,"data":{"turn":1,"reason":{"kind":"error","step":1,"message":"thrown"}}}`,
			`=> {"type":"turn/end","seq":4,"time":1,"data":{"turn":1,"reason":{"kind":"error","error":{"message":"thrown","code":"UNKNOWN"}}}}`,
			`{"type":"turn/end","seq":5,"time":1,"data":{"turn":1,"reason":{"step":1,"failure":{"requestId":"r","message":"m","code":"C","status":500,"providerRetryAfterMs":10},"kind":"error"}}}`,
			`=> {"type":"turn/end","seq":5,"time":1,"data":{"turn":1,"reason":{"kind":"error","error":{"requestId":"r","message":"m","code":"C","status":500,"providerRetryAfterMs":10}}}}`,
			`{"type":"turn/end","seq":6,"time":1,"data":{"turn":1,"reason":{"kind":"error","step":0,"message":"coded","code":"CODED"}}}`,
			`=> {"type":"turn/end","seq":6,"time":1,"data":{"turn":1,"reason":{"kind":"error","error":{"message":"coded","code":"CODED"}}}}`,
			`{"type":"turn/end","seq":7,"time":1,"data":{"turn":1,"reason":{"kind":"future-reason"}}}`,
			`{"type":"turn/end","seq":8,"time":1,"data":{"turn":1,"reason":{"kind":"aborted","reason":{"kind":"user"}}}}`,
			`{"type":"turn/end","seq":9,"time":1,"data":{"turn":1,"reason":{"kind":"error","error":` + failure + `}}}`,
			`{"type":"turn/start","seq":10,"time":1,"data":{"turn":2}}`,
		}},
		{name: "request header prefix", id: "legacy", rows: []string{
			`{"type":"request/header","seq":0,"time":1,"data":{"header":{"messagePrefix":[],"config":{"provider":"mock","model":"mock"},"system":"s"},"reason":"initial"}}`,
			`=> {"type":"request/header","seq":0,"time":1,"data":{"header":{"config":{"provider":"mock","model":"mock"},"system":"s"},"reason":"initial"}}`,
		}},
		{name: "retry ids", id: "retry", rows: []string{
			`{"type":"llm/retry","seq":0,"time":1,"data":{` + retryData + `}}`,
			`=> {"type":"llm/retry","seq":0,"time":1,"data":{` + retryData + `,"retryId":"legacy-retry:retry:0"}}`,
			`{"type":"llm/retry","seq":1,"time":1,"data":{` + strings.Replace(retryData, `"retry":1`, `"retry":2`, 1) + `}}`,
			`=> {"type":"llm/retry","seq":1,"time":1,"data":{` + strings.Replace(retryData, `"retry":1`, `"retry":2`, 1) + `,"retryId":"legacy-retry:retry:0"}}`,
			`{"type":"llm/retry","seq":2,"time":1,"data":{` + strings.Replace(retryData, `"step":1`, `"step":2`, 1) + `}}`,
			`=> {"type":"llm/retry","seq":2,"time":1,"data":{` + strings.Replace(retryData, `"step":1`, `"step":2`, 1) + `,"retryId":"legacy-retry:retry:2"}}`,
			`{"type":"llm/retry","seq":3,"time":1,"data":{"retryId":"named",` + retryData + `}}`,
			`{"type":"llm/retry","seq":4,"time":1,"data":{` + retryData + `}}`,
			`=> {"type":"llm/retry","seq":4,"time":1,"data":{` + retryData + `,"retryId":"named"}}`,
		}},
		{name: "compaction ids", id: "compact", rows: []string{
			`{"type":"compaction/start","seq":0,"time":1,"data":{"turn":null}}`,
			`=> {"type":"compaction/start","seq":0,"time":1,"data":{"turn":null,"compactionId":"legacy-compaction:compact:0"}}`,
			`{"type":"compaction/summary","seq":1,"time":1,"data":{"summary":[],"shadowedRange":{"start":0,"end":0},"shadowedSeqs":[0],"shadowedTokenCount":1,"provider":"mock","model":"mock"}}`,
			`=> {"type":"compaction/summary","seq":1,"time":1,"data":{"summary":[],"shadowedRange":{"start":0,"end":0},"shadowedSeqs":[0],"shadowedTokenCount":1,"provider":"mock","model":"mock","compactionId":"legacy-compaction:compact:0"}}`,
			`{"type":"compaction/prune","seq":2,"time":1,"data":{"shadowedRange":{"start":0,"end":1},"shadowedSeqs":[0,1],"shadowedTokenCount":1}}`,
			`{"type":"user/message","seq":3,"time":1,"data":{"id":"c","role":"user","content":[],"source":{"kind":"plugin","plugin":"compact"}},"sourceEventSeqs":[1],"surfaceOp":"append"}`,
			`=> {"type":"user/message","seq":3,"time":1,"data":{"id":"c","role":"user","content":[],"source":{"kind":"plugin","plugin":"compact","compactionId":"legacy-compaction:compact:0"}},"sourceEventSeqs":[1],"surfaceOp":"append"}`,
			`{"type":"compaction/end","seq":4,"time":1,"data":{"turn":null}}`,
			`=> {"type":"compaction/end","seq":4,"time":1,"data":{"turn":null,"compactionId":"legacy-compaction:compact:0"}}`,
			`{"type":"compaction/end","seq":5,"time":1,"data":{"compactionId":"x","turn":null}}`,
		}},
		{name: "compact names", id: "compact", rows: []string{
			`{"type":"compact/start","seq":0,"time":1,"data":{"turn":null}}`,
			`=> {"type":"compaction/start","seq":0,"time":1,"data":{"turn":null,"compactionId":"legacy-compaction:compact:0"}}`,
			`{"type":"compact/end","seq":1,"time":1,"data":{"turn":null}}`,
			`=> {"type":"compaction/end","seq":1,"time":1,"data":{"turn":null,"compactionId":"legacy-compaction:compact:0"}}`,
			`{"type":"compact/prune","seq":2,"time":1,"data":{"shadowedRange":{"start":0,"end":1},"shadowedSeqs":[0,1],"shadowedTokenCount":1}}`,
			`=> {"type":"compaction/prune","seq":2,"time":1,"data":{"shadowedRange":{"start":0,"end":1},"shadowedSeqs":[0,1],"shadowedTokenCount":1}}`,
		}},
		{name: "delivery markers", id: "own", rows: []string{
			`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}`,
			`{"type":"session-log-deepseek/delivery-accepted","seq":1,"time":1,"data":{"sessionId":"own","throughSeq":0}}`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var in, want []string
			for _, row := range tc.rows {
				if out, ok := strings.CutPrefix(row, "=> "); ok {
					want[len(want)-1] = out
					continue
				}
				in = append(in, row)
				want = append(want, row)
			}
			r := migrateV0(t, headerLine(tc.id)+"\n"+strings.Join(in, "\n"))
			if r.err != nil {
				t.Fatalf("refused: %s", r.text())
			}
			for i := range max(len(r.lines), len(want)) {
				var got, w string
				if i < len(r.lines) {
					got = r.lines[i]
				}
				if i < len(want) {
					w = want[i]
				}
				if got != w {
					t.Errorf("line %d:\n got %s\nwant %s", i, got, w)
				}
			}
			if r.header.Version != 1 || r.cut != 0 {
				t.Errorf("header v%d, cut %d", r.header.Version, r.cut)
			}
		})
	}
}

// TestRefusals covers every refusal of the edge (format-v0-v2.md §3.7 and
// the refused legacy shapes of dsh's legacy.spec.ts), with dsh's exact
// class and text as the stage raises it (the chain adds the edge prefix to
// the SessionFormatErrors).
func TestRefusals(t *testing.T) {
	const (
		start = `{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}`
		step  = `{"type":"step/start","seq":1,"time":1,"data":{"turn":1,"step":1}}`
	)
	turnEnd := func(data string) string { return `{"type":"turn/end","seq":0,"time":1,"data":` + data + `}` }
	tests := []struct {
		name string
		rows []string
		want string
	}{
		{"null trigger", []string{`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1,"trigger":null}}`},
			"SessionFormatError: turn/start 0 trigger must be a JSON object"},
		{"trigger with a stray member", []string{`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1,"trigger":{"kind":"user"},"x":1}}`},
			`SessionFormatError: turn/start 0 data has unexpected member "x"`},
		{"trigger on turn 0", []string{`{"type":"turn/start","seq":0,"time":1,"data":{"turn":0,"trigger":{"kind":"user"}}}`},
			`SessionFormatError: session "legacy" contains malformed pre-react-loop turn/start at seq 0`},
		{"trigger without kind", []string{`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1,"trigger":{"kind":""}}}`},
			`SessionFormatError: session "legacy" contains malformed pre-react-loop turn/start at seq 0`},
		{"turn/start turn as string", []string{`{"type":"turn/start","seq":0,"time":1,"data":{"turn":"1","trigger":{"kind":"user"}}}`},
			"SessionFormatError: turn/start 0 turn must be a non-negative safe integer"},
		{"flat steering with a stray member", []string{`{"type":"steering/message","seq":0,"time":1,"data":{` + userText + `,"turn":1,"extra":1}}`},
			`SessionFormatError: steering/message 0 data has unexpected member "extra"`},
		{"wrapped steering with a stray member", []string{`{"type":"steering/message","seq":0,"time":1,"data":{"message":{},"turn":1,"extra":1}}`},
			`SessionFormatError: steering/message 0 data has unexpected member "extra"`},
		{"steering without a turn", []string{`{"type":"steering/message","seq":0,"time":1,"data":{"message":{}}}`},
			`SessionFormatError: steering/message 0 data lacks required member "turn"`},
		{"steering turn not a count", []string{`{"type":"steering/message","seq":0,"time":1,"data":{` + userText + `,"turn":-1}}`},
			"SessionFormatError: steering/message 0 turn must be a non-negative safe integer"},
		{"null steering data", []string{`{"type":"steering/message","seq":0,"time":1,"data":null}`},
			"SessionFormatError: steering/message 0 data must be a JSON object"},
		{"wrapped steering message not an object", []string{`{"type":"steering/message","seq":0,"time":1,"data":{"turn":1,"message":"hi"}}`},
			"SessionFormatError: user/message 0 data must be a JSON object"},
		{"reason with a stray member", []string{turnEnd(`{"turn":1,"reason":{"kind":"completed","x":1}}`)},
			`SessionFormatError: turn/end 0 reason has unexpected member "x"`},
		{"null reason", []string{turnEnd(`{"turn":1,"reason":null}`)},
			"SessionFormatError: turn/end 0 reason must be a JSON object"},
		{"turn/end with a step", []string{turnEnd(`{"turn":1,"step":1,"reason":{"kind":"completed"}}`)},
			`SessionFormatError: turn/end 0 data has unexpected member "step"`},
		{"turn/end without a reason", []string{turnEnd(`{"turn":1}`)},
			`SessionFormatError: turn/end 0 data lacks required member "reason"`},
		{"turn/end on turn 0", []string{turnEnd(`{"turn":0,"reason":{"kind":"completed"}}`)},
			`SessionFormatError: session "legacy" contains malformed pre-react-loop turn/end at seq 0`},
		{"reason kind not a string", []string{turnEnd(`{"turn":1,"reason":{"kind":1}}`)},
			`SessionFormatError: session "legacy" contains malformed pre-react-loop turn/end at seq 0`},
		{"aborted with extras", []string{turnEnd(`{"turn":1,"reason":{"kind":"aborted","step":1}}`)},
			`SessionFormatError: turn/end 0 reason has unexpected member "step"`},
		{"disposed with extras", []string{turnEnd(`{"turn":1,"reason":{"kind":"disposed","step":1}}`)},
			`SessionFormatError: turn/end 0 reason has unexpected member "step"`},
		{"error step -1", []string{turnEnd(`{"turn":1,"reason":{"kind":"error","step":-1,"message":"m"}}`)},
			"SessionFormatError: turn/end 0 error step must be a non-negative safe integer"},
		{"numeric error code", []string{turnEnd(`{"turn":1,"reason":{"kind":"error","step":1,"message":"m","code":5}}`)},
			`SessionFormatError: session "legacy" contains malformed pre-react-loop turn/end at seq 0`},
		{"error with a stray member", []string{turnEnd(`{"turn":1,"reason":{"kind":"error","step":1,"message":"m","x":1}}`)},
			`SessionFormatError: turn/end 0 reason has unexpected member "x"`},
		{"failure beside a message", []string{turnEnd(`{"turn":1,"reason":{"kind":"error","step":1,"message":"m","failure":` + failure + `}}`)},
			`SessionFormatError: turn/end 0 reason has unexpected member "message"`},
		{"failure not an object", []string{turnEnd(`{"turn":1,"reason":{"kind":"error","step":1,"failure":[]}}`)},
			"SessionFormatError: turn/end 0 failure must be a JSON object"},
		{"failure with a stray member", []string{turnEnd(`{"turn":1,"reason":{"kind":"error","step":1,"failure":{"message":"m","code":"c","x":1}}}`)},
			`SessionFormatError: turn/end 0 failure has unexpected member "x"`},
		{"numeric failure message", []string{turnEnd(`{"turn":1,"reason":{"kind":"error","step":1,"failure":{"message":1,"code":"c"}}}`)},
			`SessionFormatError: session "legacy" contains malformed pre-react-loop turn/end at seq 0`},
		{"legacy header delta", []string{`{"type":"request/header-delta","seq":0,"time":1,"data":{}}`},
			`SessionFormatUnsupportedMigrationError: session "legacy" contains unsupported legacy request/header-delta event at seq 0`},
		{"legacy mode/set", []string{start, `{"type":"mode/set","seq":1,"time":1,"data":{"mode":"plan"}}`},
			`SessionFormatUnsupportedMigrationError: session "legacy" contains unsupported legacy mode/set event at seq 1`},
		{"fallback header", []string{`{"type":"request/header","seq":0,"time":1,"data":{"header":{"config":{"provider":"p","model":"m"}},"reason":"fallback"}}`},
			`SessionFormatUnsupportedMigrationError: session "legacy" contains unsupported request/header reason "fallback" at seq 0`},
		{"request/header data not an object", []string{`{"type":"request/header","seq":0,"time":1,"data":[]}`},
			"SessionFormatError: request/header 0 data must be a JSON object"},
		{"request/header header not an object", []string{`{"type":"request/header","seq":0,"time":1,"data":{"header":null,"reason":"initial"}}`},
			"SessionFormatError: request/header 0 header must be a JSON object"},
		{"bad message prefix", []string{`{"type":"request/header","seq":0,"time":1,"data":{"header":{"config":{"provider":"p","model":"m"},"messagePrefix":"bad"},"reason":"initial"}}`},
			`SessionFormatError: session "legacy" contains malformed request/header messagePrefix at seq 0`},
		{"replacement without identity", []string{start, step,
			`{"type":"tool/result","seq":2,"time":1,"data":{"turn":1,"step":1,"callId":"c","content":[],"isError":false},"sourceEventSeqs":[1],"surfaceOp":{"op":"replace","start":1,"end":1}}`},
			"SessionFormatError: tool/result 2 replacement cites a message without identity"},
		{"replacement start not a number", []string{start, step,
			`{"type":"tool/result","seq":2,"time":1,"data":{"turn":1,"step":1,"callId":"c","content":[],"isError":false},"surfaceOp":{"op":"replace","start":"0","end":1}}`},
			"SessionFormatError: tool/result 2 replacement cites a message without identity"},
		{"null retry id", []string{`{"type":"llm/retry","seq":0,"time":1,"data":{"retryId":null,` + retryData + `}}`},
			"SessionFormatError: llm/retry 0 retryId must be a non-empty string"},
		{"end-seed forgets the open compaction", []string{
			`{"type":"compaction/start","seq":0,"time":1,"data":{"compactionId":"open","turn":1}}`,
			`{"type":"session/end-seed","seq":1,"time":1,"data":{}}`,
			`{"type":"compaction/end","seq":2,"time":1,"data":{"turn":1}}`},
			`SessionFormatError: compaction/end 2 data lacks required member "compactionId"`},
		{"data not an object", []string{`{"type":"feedback/record","seq":0,"time":1,"data":"x"}`},
			"SessionFormatError: feedback/record 0 data must be a JSON object"},
		{"chunk data not an object", []string{`{"type":"assistant/chunk","seq":0,"time":1}`},
			"SessionFormatError: assistant/chunk 0 data must be a JSON object"},
		{"type not a string, data not an object", []string{`{"type":null,"seq":0,"time":1}`},
			"SessionFormatError: null 0 data must be a JSON object"},
		{"unknown ignorable type", []string{`{"type":"external/info","seq":0,"time":1,"data":{},"ignorable":true}`},
			`SessionFormatUnsupportedMigrationError: format v0 contains unknown historical event type "external/info" at seq 0; migration refuses unknown historical events even when ignorable`},
		{"numeric type", []string{`{"type":5,"seq":0,"time":1,"data":{}}`},
			`SessionFormatUnsupportedMigrationError: format v0 contains unknown historical event type 5 at seq 0; migration refuses unknown historical events even when ignorable`},
		{"no type", []string{`{"seq":0,"time":1,"data":{}}`},
			`SessionFormatUnsupportedMigrationError: format v0 contains unknown historical event type undefined at seq 0; migration refuses unknown historical events even when ignorable`},
		{"type an array naming a known type", []string{`{"type":["turn/end"],"seq":0,"time":1,"data":{"turn":1,"reason":{}}}`},
			`SessionFormatError: released payload validator is missing event ["turn/end"]`},
		{"type an array, data members checked", []string{`{"type":["turn/end"],"seq":0,"time":1,"data":{"turn":1}}`},
			`SessionFormatError: turn/end 0 data lacks required member "reason"`},
		{"type an array, opaque members checked", []string{`{"type":[["tool/result"]],"seq":0,"time":1,"data":{"turn":1,"step":1,"message":{},"meta":[-0]}}`},
			"SessionFormatError: tool/result 0 opaque meta is not lossless JSON"},
		{"type an array naming an inherited property", []string{`{"type":["constructor"],"seq":0,"time":1,"data":{}}`},
			"SessionFormatError: required is not iterable (cannot read property Symbol(Symbol.iterator))"},
		{"inherited property name", []string{`{"type":"constructor","seq":0,"time":1,"data":{}}`},
			"SessionFormatError: required is not iterable (cannot read property Symbol(Symbol.iterator))"},
		{"old descriptor", []string{`{"type":"subagent/descriptor","seq":0,"time":1,"data":{"mode":"one-shot","version":2,"provider":"p"}}`},
			"SessionFormatUnsupportedMigrationError: subagent/descriptor 0 uses unsupported descriptor version 2"},
		{"v1 delivery marker in v0", []string{start, `{"type":"session-log-deepseek/delivery-accepted","seq":1,"time":1,"data":{"sessionId":"legacy","throughSeq":0,"sessionFormatVersion":1}}`},
			`SessionFormatError: session-log-deepseek/delivery-accepted 1 data has unexpected member "sessionFormatVersion"`},
		{"foreign delivery marker", []string{start, `{"type":"session-log-deepseek/delivery-accepted","seq":1,"time":1,"data":{"sessionId":"other","throughSeq":0}}`},
			"SessionFormatError: current-generation delivery marker names the wrong Session"},
		{"-0 in opaque meta", []string{start, step,
			`{"type":"tool/result","seq":2,"time":1,"data":{"turn":1,"step":1,"callId":"c","content":[],"isError":false,"meta":{"exitCode":-0}},"surfaceOp":"append"}`},
			"SessionFormatError: tool/result 2 opaque meta is not lossless JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := migrateV0(t, headerLine("legacy")+"\n"+strings.Join(tc.rows, "\n"))
			if got := r.text(); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestInheritedDeliveryMarker checks that a v0 delivery marker inside the
// inherited prefix may name the parent session, and only there.
func TestInheritedDeliveryMarker(t *testing.T) {
	const marker = `{"type":"session-log-deepseek/delivery-accepted","seq":1,"time":1,"data":{"sessionId":"parent","throughSeq":0}}`
	rows := `{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}` + "\n" + marker + "\n" + `{"type":"session/end-seed","seq":2,"time":1,"data":{}}`
	tests := []struct{ header, want string }{
		{`{"type":"session","version":0,"id":"child","createdAt":1,"parentSession":"parent","seedLength":2,"delegationDepth":0}`, ""},
		{`{"type":"session","version":0,"id":"child","createdAt":1,"parentSession":"parent","seedLength":1,"delegationDepth":0}`,
			"SessionFormatError: current-generation delivery marker names the wrong Session"},
		{`{"type":"session","version":0,"id":"child","createdAt":1,"seedLength":2,"delegationDepth":0}`,
			"SessionFormatError: current-generation delivery marker names the wrong Session"},
	}
	for _, tc := range tests {
		r := migrateV0(t, tc.header+"\n"+rows)
		if got := r.text(); got != tc.want {
			t.Errorf("%s:\n got  %s\nwant %s", tc.header, got, tc.want)
		}
		if tc.want == "" && (r.cut != 2 || !r.header.IsSeeded || len(r.lines) != 3) {
			t.Errorf("%s: cut %d, header %+v, %d events", tc.header, r.cut, r.header, len(r.lines))
		}
	}
}

// TestEdgeHeader covers the edge's header rules and its need of a known cut.
func TestEdgeHeader(t *testing.T) {
	var e Edge
	if e.Name() != "@deepseek-ai/dsh-session-format-v0-to-v1" || e.From() != 0 {
		t.Fatalf("edge %s from %d", e.Name(), e.From())
	}
	h := session.Header{Version: 0, ID: "x", Cwd: session.Str("/w"), IsSeeded: true}
	target, err := e.MigrateHeader(h)
	if err != nil || target.Value().String() != `{"type":"session","version":1,"id":"x","createdAt":0,"cwd":"/w","isSeeded":true,"delegationDepth":0}` {
		t.Errorf("MigrateHeader: %s, %v", target.Value(), err)
	}
	checks := []struct {
		name string
		err  error
		want string
	}{
		{"migrate v1", func() error { _, err := e.MigrateHeader(session.Header{Version: 1}); return err }(), "SessionFormatError: expected format v0 header"},
		{"target v2", e.ValidateTargetHeader(session.Header{Version: 2}), "SessionFormatError: expected format v1 header"},
		{"target relative cwd", e.ValidateTargetHeader(session.Header{Version: 1, Cwd: session.Str("w")}), "SessionFormatError: format v1 header cwd must be absolute"},
		{"stage of v1", func() error {
			_, err := e.NewStage(stage.StageInput{SourceHeader: session.Header{Version: 1}})
			return err
		}(),
			"SessionFormatError: expected format v0 header"},
		{"stage without a cut", func() error {
			_, err := e.NewStage(stage.StageInput{SourceHeader: session.Header{Version: 0}, SourceCut: -1})
			return err
		}(), "SessionFormatError: format v0 inherited event count must be a non-negative safe integer"},
	}
	for _, c := range checks {
		if got := (result{err: c.err}).text(); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// TestCanonicalIdentity checks dsh's README promise on every v0 file of the
// corpus: a canonical v0 log migrates to v1 unchanged in every event, packed
// rows stay packed, only the header version moves.
func TestCanonicalIdentity(t *testing.T) {
	files, err := filepath.Glob("../../testdata/corpus/restored/*/session*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, file := range files {
		if strings.Contains(filepath.Base(file), ".v") {
			continue // a later format
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		r := migrateV0(t, string(data))
		if r.err != nil {
			t.Errorf("%s: refused: %s", file, r.text())
			continue
		}
		if len(r.lines) != len(lines)-1 {
			t.Errorf("%s: %d items for %d rows", file, len(r.lines), len(lines)-1)
			continue
		}
		for i, got := range r.lines {
			if got != lines[i+1] {
				t.Errorf("%s row %d:\n got %s\nwant %s", file, i, got, lines[i+1])
			}
		}
		checked++
	}
	if checked < 10 {
		t.Errorf("checked %d v0 corpus files, want 10", checked)
	}
}
