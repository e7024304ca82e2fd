package v2to3

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/codec/v3"
	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate/stage"
	"github.com/dshlog/dshlog/session"
)

const (
	unseeded = `{"type":"session","version":2,"id":"identity","createdAt":1,"isSeeded":false,"delegationDepth":0}`
	seeded   = `{"type":"session","version":2,"id":"identity","createdAt":1,"parentSession":"parent","isSeeded":true,"delegationDepth":0}`

	turnStart = `{"type":"turn/start","data":{"turn":1}}`
	stepStart = `{"type":"step/start","data":{"turn":1,"step":1}}`
	stepEnd   = `{"type":"step/end","data":{"turn":1,"step":1}}`
	turnEnd   = `{"type":"turn/end","data":{"turn":1,"reason":{"kind":"completed"}}}`
)

func user(id string) string {
	return `{"type":"user/message","data":{"role":"user","id":"` + id + `","source":{"kind":"user"},"content":[{"type":"text","text":"hi"}]},"surfaceOp":"append"}`
}

func request(system string) string {
	return `{"type":"request/header","data":{"header":{"config":{"provider":"mock","model":"mock"},"system":` + system + `},"reason":"initial"}}`
}

// session2 builds a v2 text. Each event is written `{"type":…,` then the
// rest; it gets seq = its position (unless it has its own right after
// type) and time = position + 1, spliced in after type as dsh's writer
// orders them (text splicing keeps literals such as -0 as written).
func session2(header string, events ...string) string {
	var b strings.Builder
	b.WriteString(header + "\n")
	for i, e := range events {
		cut := strings.Index(e, `",`) + 2
		if strings.HasPrefix(e[cut:], `"seq":`) {
			e = e[:cut] + fmt.Sprintf(`"time":%d,`, i+1) + e[cut:]
		} else {
			e = e[:cut] + fmt.Sprintf(`"seq":%d,"time":%d,`, i, i+1) + e[cut:]
		}
		b.WriteString(e + "\n")
	}
	return b.String()
}

// TestRefusals checks every refusal of the edge's admission and stage with
// dsh's exact class and text (before the chain's "<edge> refuses this
// format v2 Session: " prefix).
func TestRefusals(t *testing.T) {
	opening := []string{turnStart, stepStart}
	open := func(events ...string) []string { return append(append([]string(nil), opening...), events...) }
	tests := []struct {
		name   string
		header string
		events []string
		want   string
	}{
		{"unclassified event", unseeded, open(`{"type":"vendor/x","data":{}}`),
			"SessionFormatUnsupportedMigrationError: format v2 to v3 cannot safely transform unclassified event vendor/x"},
		{"unclassified even when ignorable", unseeded, open(`{"type":"vendor/x","data":{},"ignorable":true}`),
			"SessionFormatUnsupportedMigrationError: format v2 to v3 cannot safely transform unclassified event vendor/x"},
		{"v3 PTC name in v2", unseeded, open(`{"type":"tool/ptc-dispatch-start","data":{}}`),
			"SessionFormatUnsupportedMigrationError: format v2 to v3 cannot safely transform unclassified event tool/ptc-dispatch-start"},
		{"system message in v2", unseeded, open(`{"type":"system/message","data":{},"surfaceOp":"append"}`),
			"SessionFormatUnsupportedMigrationError: format v2 to v3 cannot safely transform unclassified event system/message"},
		{"inherited property name", unseeded, open(`{"type":"constructor","data":{}}`),
			"SessionFormatError: Cannot read properties of undefined (reading 'find')"},
		{"log-only surfaceOp", unseeded, []string{`{"type":"turn/start","data":{"turn":1},"surfaceOp":"append"}`},
			"SessionFormatError: turn/start has unexpected field surfaceOp"},
		{"missing surfaceOp", unseeded, open(`{"type":"user/message","data":{"role":"user","id":"u","source":{"kind":"user"},"content":[]}}`),
			"SessionFormatError: user/message requires surfaceOp"},
		{"v3 replace names", unseeded, open(user("a"), `{"type":"user/message","data":{"role":"user","id":"u","source":{"kind":"user"},"content":[]},"surfaceOp":{"op":"replace","startSeq":2,"endSeq":2},"sourceEventSeqs":[2]}`),
			`SessionFormatError: user/message 3 surfaceOp has unexpected member "startSeq"`},
		{"assistant chunk citation", unseeded, open(`{"type":"assistant/message","data":{"turn":1,"step":1,"message":{"id":"a","role":"assistant","content":[],"source":{"kind":"model","provider":"p","model":"m"}},"stream":[]},"surfaceOp":"append","sourceEventSeqs":[1]}`),
			"SessionFormatError: assistant/message 2 retains obsolete chunk references"},
		{"ignorable false", unseeded, []string{`{"type":"turn/start","data":{"turn":1},"ignorable":false}`},
			"SessionFormatError: released v2 row 0 ignorable must be true when present"},
		{"-0 seq", unseeded, []string{`{"type":"turn/start","seq":-0,"data":{"turn":1}}`},
			"SessionFormatError: event seq must be a non-negative safe integer"},
		{"data member", unseeded, open(`{"type":"agent-preset/selected","data":{"agentPreset":"code","extension":true}}`),
			"SessionFormatError: agent-preset/selected data has unexpected field extension"},
		{"data lacks", unseeded, []string{`{"type":"turn/start","data":{}}`},
			"SessionFormatError: turn/start data lacks required field turn"},
		{"data not an object", unseeded, []string{`{"type":"turn/start","data":[1]}`},
			"SessionFormatError: turn/start data must be an object"},
		{"unclassified block", unseeded, open(`{"type":"user/message","data":{"role":"user","id":"u","source":{"kind":"user"},"content":[{"type":"text","text":"a"},{"type":"vendor","x":1}]},"surfaceOp":"append"}`),
			`SessionFormatUnsupportedMigrationError: format v2 user/message at seq 2 data.content[1]: cannot safely transform unclassified message content kind "vendor"`},
		{"block without type", unseeded, open(`{"type":"user/message","data":{"role":"user","id":"u","source":{"kind":"user"},"content":[{"text":"a"}]},"surfaceOp":"append"}`),
			"SessionFormatUnsupportedMigrationError: format v2 user/message at seq 2 data.content[0]: cannot safely transform unclassified message content kind undefined"},
		{"content not an array", unseeded, open(`{"type":"user/message","data":{"role":"user","id":"u","source":{"kind":"user"},"content":"a"},"surfaceOp":"append"}`),
			"SessionFormatError: format v2 user/message at seq 2 data.content: content must be an array"},
		{"block field", unseeded, open(`{"type":"user/message","data":{"role":"user","id":"u","source":{"kind":"user"},"content":[{"type":"text","text":"a","extra":1}]},"surfaceOp":"append"}`),
			`SessionFormatError: format v2 user/message at seq 2 data.content[0]: invalid message content kind "text": SessionFormatError: user/message 0 content[0] has unexpected member "extra"`},
		{"nested tool result content", unseeded, open(`{"type":"tool/result","data":{"turn":1,"step":1,"message":{"id":"t","role":"user","source":{"kind":"tool","callId":"c"},"content":[{"type":"tool-result","toolCallId":"c","content":"x"}]}},"surfaceOp":"append"}`),
			`SessionFormatError: format v2 tool/result at seq 2 data.message.content[0].content: invalid message content kind "tool-result": content must be an array`},
		{"nested unclassified kind", unseeded, open(`{"type":"tool/result","data":{"turn":1,"step":1,"message":{"id":"t","role":"user","source":{"kind":"tool","callId":"c"},"content":[{"type":"tool-result","toolCallId":"c","content":[{"type":"vendor"}]}]}},"surfaceOp":"append"}`),
			`SessionFormatUnsupportedMigrationError: format v2 tool/result at seq 2 data.message.content[0].content[0]: cannot safely transform unclassified message content kind "vendor"`},
		{"file block", unseeded, open(`{"type":"user/message","data":{"role":"user","id":"u","source":{"kind":"user"},"content":[{"type":"file","attachment":{"attachmentId":"","name":"n","bytes":1}}]},"surfaceOp":"append"}`),
			`SessionFormatError: format v2 user/message at seq 2 data.content[0] kind "file": file attachment requires attachmentId and name`},
		{"file bytes", unseeded, open(`{"type":"user/message","data":{"role":"user","id":"u","source":{"kind":"user"},"content":[{"type":"file","attachment":{"attachmentId":"a","name":"n","bytes":-1}}]},"surfaceOp":"append"}`),
			`SessionFormatError: format v2 user/message at seq 2 data.content[0] kind "file" attachment bytes must be a non-negative safe integer`},
		{"stream block kind", unseeded, open(`{"type":"assistant/attempt","data":{"turn":1,"step":1,"stream":[{"type":"chunk","time":1,"chunk":{"type":"block-start","index":0,"blockType":"vendor-thinking"}}]}}`),
			`SessionFormatUnsupportedMigrationError: format v2 assistant/attempt at seq 2 data.stream[0].chunk.blockType: cannot safely transform unclassified message content kind "vendor-thinking"`},
		{"stream not an array", unseeded, open(`{"type":"assistant/attempt","data":{"turn":1,"step":1,"stream":{}}}`),
			"SessionFormatError: format v2 assistant/attempt at seq 2 data.stream: content must be an array"},
		{"attempt step", unseeded, open(`{"type":"assistant/attempt","data":{"turn":1,"step":0,"stream":[]}}`),
			"SessionFormatError: step must be positive"},
		{"payload rule", unseeded, open(`{"type":"request/header","data":{"header":{"config":{"provider":"mock","model":"mock","temperature":-0}},"reason":"initial"}}`),
			"SessionFormatError: request/header 2 header temperature must be a finite number"},
		{"inherited not true", unseeded, []string{`{"type":"session/end-seed","data":{"inherited":false}}`},
			"SessionFormatError: session/end-seed inherited must be true"},
		{"unclassified source", unseeded, open(`{"type":"user/message","data":{"role":"user","id":"u","source":{"kind":"vendor-bot"},"content":[]},"surfaceOp":"append"}`),
			"SessionFormatUnsupportedMigrationError: cannot safely transform unclassified message source"},
		{"inbox source", unseeded, []string{`{"type":"agent/inbox/spliced","data":{"target":"next-turn","start":0,"inserted":[{"role":"user","id":"u","source":{"kind":"vendor-bot"},"content":[]}]}}`},
			"SessionFormatUnsupportedMigrationError: cannot safely transform unclassified message source"},
		{"agent message form", unseeded, open(`{"type":"user/message","data":{"role":"user","id":"u","source":{"kind":"agent-message","form":"notice","senderSessionId":"s"},"content":[]},"surfaceOp":"append"}`),
			"SessionFormatError: agent-message source requires relay form and senderSessionId"},
		{"agent message keys", unseeded, open(`{"type":"user/message","data":{"role":"user","id":"u","source":{"kind":"agent-message","form":"relay"},"content":[]},"surfaceOp":"append"}`),
			"SessionFormatError: agent-message source lacks required field senderSessionId"},
		{"repair id", unseeded, open(`{"type":"tool/result","data":{"turn":1,"step":1,"error":{"name":"ToolNotStartedError","code":"TOOL_NOT_STARTED"},"message":{"id":"arbitrary-repair-id","role":"user","source":{"kind":"tool","callId":"c"},"content":[{"type":"tool-result","toolCallId":"c","isError":true,"content":[]}]}},"surfaceOp":"append"}`),
			"SessionFormatError: TOOL_NOT_STARTED repair requires its canonical historical message id"},
		{"repair id leading zero", unseeded, open(`{"type":"tool/result","data":{"turn":1,"step":1,"error":{"name":"ToolNotStartedError","code":"TOOL_NOT_STARTED"},"message":{"id":"interrupted-tool-result-c-07","role":"user","source":{"kind":"tool","callId":"c"},"content":[{"type":"tool-result","toolCallId":"c","isError":true,"content":[]}]}},"surfaceOp":"append"}`),
			"SessionFormatError: TOOL_NOT_STARTED repair requires its canonical historical message id"},
		{"feedback keys", unseeded, []string{`{"type":"feedback/message-put","data":{"sessionId":"s"}}`},
			"SessionFormatError: feedback/message-put lacks required field item"},
		{"feedback rating", unseeded, []string{`{"type":"feedback/message-put","data":{"sessionId":"s","item":{"messageId":"m","rating":"meh","version":"1","createdAt":1,"updatedAt":1}}}`},
			"SessionFormatError: invalid feedback rating"},
		{"feedback note", unseeded, []string{`{"type":"feedback/message-put","data":{"sessionId":"s","item":{"messageId":"m","rating":"positive","version":"1","createdAt":1,"updatedAt":1,"note":5}}}`},
			"SessionFormatError: feedback note must be a string"},
		{"feedback time", unseeded, []string{`{"type":"feedback/message-put","data":{"sessionId":"s","item":{"messageId":"m","rating":"positive","version":"1","createdAt":-1,"updatedAt":1}}}`},
			"SessionFormatError: feedback createdAt must be a non-negative safe integer"},
		{"feedback delete", unseeded, []string{`{"type":"feedback/message-delete","data":{"sessionId":"s","messageId":7}}`},
			"SessionFormatError: feedback messageId must be a string"},
		{"surface before first step", unseeded, []string{turnStart, user("u")},
			"SessionFormatUnsupportedMigrationError: format v2 surface before first step cannot acquire a system head without changing chronology"},
		{"prompt before first step", unseeded, []string{turnStart, request(`"early"`), stepStart},
			"SessionFormatUnsupportedMigrationError: format v2 changed request prompt outside an open step cannot retain source chronology"},
		{"prompt after step end", unseeded, append(open(stepEnd), request(`"late"`)),
			"SessionFormatUnsupportedMigrationError: format v2 changed request prompt outside an open step cannot retain source chronology"},
		{"step zero head", unseeded, []string{`{"type":"turn/start","data":{"turn":0}}`, `{"type":"step/start","data":{"turn":0,"step":1}}`},
			"SessionFormatError: turn must be positive"},
		{"unseeded marker", unseeded, []string{`{"type":"session/end-seed","data":{"inherited":true}}`},
			"SessionFormatError: format v2 unseeded Session contains an inherited end-seed marker"},
		{"delivery claims v3", unseeded, open(`{"type":"session-log-deepseek/delivery-accepted","data":{"sessionId":"identity","throughSeq":0,"sessionFormatVersion":3}}`),
			"SessionFormatError: format v2 delivery marker claims target format v3"},
		{"foreign delivery unseeded", unseeded, open(`{"type":"session-log-deepseek/delivery-accepted","data":{"sessionId":"foreign","throughSeq":1,"sessionFormatVersion":2}}`),
			"SessionFormatError: current-generation delivery marker names the wrong Session"},
		{"foreign delivery after the cut", seeded, open(`{"type":"session/end-seed","data":{"inherited":true}}`, `{"type":"session-log-deepseek/delivery-accepted","data":{"sessionId":"parent","throughSeq":1,"sessionFormatVersion":2}}`),
			"SessionFormatError: current-generation delivery marker names the wrong Session"},
		{"foreign delivery before the cut", seeded, open(`{"type":"session-log-deepseek/delivery-accepted","data":{"sessionId":"parent","throughSeq":1,"sessionFormatVersion":2}}`, `{"type":"session/end-seed","data":{"inherited":true}}`), ""},
		{"older delivery generation", unseeded, open(`{"type":"session-log-deepseek/delivery-accepted","data":{"sessionId":"foreign","throughSeq":99,"sessionFormatVersion":1}}`), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := migrateV2(t, session2(tc.header, tc.events...), -1).text(); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestHeadless: an edge for the v0 line (Headless) lets a session whose
// surface begins before its first step go without a system head, as the
// line's Session reads it; dsh's own edge refuses it (TestRefusals).
func TestHeadless(t *testing.T) {
	got := migrateWith(t, Edge{Headless: true}, session2(unseeded, turnStart, user("u"), stepStart), -1)
	if got.err != nil {
		t.Fatalf("refused: %v", got.err)
	}
	if text := strings.Join(got.lines, "\n"); strings.Contains(text, "system/message") || !strings.Contains(text, `"type":"user/message"`) {
		t.Errorf("migrated to\n%s\nwant the user message and no system head", text)
	}
	// A first step before any surface still gets its head.
	got = migrateWith(t, Edge{Headless: true}, session2(unseeded, turnStart, stepStart, user("u")), -1)
	if text := strings.Join(got.lines, "\n"); got.err != nil || !strings.Contains(text, "system/message") {
		t.Errorf("migrated to\n%s (%v)\nwant the synthesized system head", text, got.err)
	}
}

// TestGeneratedIDCollision gives a source message the id the edge
// generates for the head, before and after the head is generated.
func TestGeneratedIDCollision(t *testing.T) {
	head := "v2-to-v3-system-" + id("identity", 2, "step/start")
	inbox := `{"type":"agent/inbox/spliced","data":{"target":"next-turn","start":0,"inserted":[{"role":"user","id":"` + head + `","source":{"kind":"user"},"content":[]}]}}`
	before := migrateV2(t, session2(unseeded, inbox, turnStart, stepStart), -1)
	if want := "SessionFormatUnsupportedMigrationError: generated system message id collides with an existing message id"; before.text() != want {
		t.Errorf("earlier source id: got %q", before.text())
	}
	after := migrateV2(t, session2(unseeded, `{"type":"agent/inbox/spliced","data":{"target":"next-turn","start":0,"inserted":[]}}`, turnStart, stepStart, user(head)), -1)
	if want := "SessionFormatUnsupportedMigrationError: source message id collides with a generated system message id"; after.text() != want {
		t.Errorf("later source id: got %q", after.text())
	}
	if got := jsonField(t, after.lines[3], "data", "message", "id"); got != head {
		t.Errorf("head id %s, want %s", got, head)
	}
}

func jsonField(t *testing.T, line string, path ...string) string {
	t.Helper()
	v, err := jsonv.Parse([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range path {
		v = v.Field(p)
	}
	return v.Text()
}

// TestSystemHead follows the protected system head: an empty head after the
// first step/start only, one replacement per changed prompt (absent and ""
// clear it, whitespace does not), anchored at the request's source seq and
// time.
func TestSystemHead(t *testing.T) {
	r := migrateV2(t, session2(unseeded, turnStart, stepStart, user("u"), request(`"first"`), request(`"first"`),
		request(`"changed"`), `{"type":"request/header","data":{"header":{"config":{"provider":"mock","model":"mock"}},"reason":"change"}}`,
		request(`""`), request(`" "`), stepEnd, `{"type":"step/start","data":{"turn":1,"step":2}}`, request(`" "`)), -1)
	if r.err != nil {
		t.Fatal(r.text())
	}
	var got []string
	for _, line := range r.lines[1:] {
		v, _ := jsonv.Parse([]byte(line))
		if v.Field("type").Text() != "system/message" {
			continue
		}
		content := v.Field("data").Field("message").Field("content")
		got = append(got, fmt.Sprintf("%s@%s t%s %s %s %s", v.Field("seq"), v.Field("data").Field("step"), v.Field("time"), v.Field("surfaceOp"), v.Field("sourceEventSeqs"), content))
	}
	want := []string{
		`2@1 t2 "append" null []`,
		`4@1 t4 {"op":"replace","startSeq":2,"endSeq":2} [2] [{"type":"text","text":"first"}]`,
		`7@1 t6 {"op":"replace","startSeq":4,"endSeq":4} [4] [{"type":"text","text":"changed"}]`,
		`9@1 t7 {"op":"replace","startSeq":7,"endSeq":7} [7] []`,
		`12@1 t9 {"op":"replace","startSeq":9,"endSeq":9} [9] [{"type":"text","text":" "}]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("system messages:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, line := range r.lines[1:] {
		if strings.Contains(line, `"system":`) {
			t.Errorf("header.system survived: %s", line)
		}
	}
}

// TestReferencesAndRenames checks what the edge remaps and renames, and
// what it must leave alone.
func TestReferencesAndRenames(t *testing.T) {
	r := migrateV2(t, session2(unseeded,
		turnStart, stepStart,
		`{"type":"user/message","data":{"role":"user","id":"a","source":{"kind":"plugin","plugin":"tools-code-mode","form":"notice","summary":"s"},"content":[{"type":"text","text":"seq=2"}]},"surfaceOp":"append"}`,
		request(`"sys"`),
		user("b"),
		`{"type":"compaction/prune","data":{"shadowedRange":{"start":2,"end":4},"shadowedSeqs":[2,4],"shadowedTokenCount":20}}`,
		`{"type":"user/message","data":{"role":"user","id":"c","source":{"kind":"user"},"content":[]},"surfaceOp":{"op":"replace","start":2,"end":4},"sourceEventSeqs":[2,4]}`,
		`{"type":"command/run","data":{"commandId":"c","name":"x","source":{"kind":"user"}}}`,
		`{"type":"command/done","data":{"commandId":"c","kind":"success","sourceEventSeq":6}}`,
		`{"type":"session/title","data":{"title":"t","messageSeqs":[4,2],"source":{"kind":"fallback"}}}`,
		`{"type":"agent/inbox/spliced","data":{"target":"next-step","start":3,"inserted":[{"role":"user","id":"i","source":{"kind":"plugin","plugin":"tools-code-mode"},"content":[]},{"role":"user","id":"j","source":{"kind":"user"},"content":[]}]}}`,
		`{"type":"agent-preset/selected","data":{"agentPreset":"code"}}`,
		`{"type":"tool-workflow/agent-start","data":{"runId":"r","seq":99,"label":"l","childId":"c"}}`,
		`{"type":"session-log-deepseek/delivery-accepted","data":{"sessionId":"identity","throughSeq":3,"sessionFormatVersion":2}}`,
	), -1)
	if r.err != nil {
		t.Fatal(r.text())
	}
	want := []string{
		`{"type":"user/message","seq":3,"time":3,"data":{"role":"user","id":"a","source":{"kind":"plugin","plugin":"tools-ptc","form":"notice","summary":"s"},"content":[{"type":"text","text":"seq=2"}]},"surfaceOp":"append"}`,
		`{"type":"system/message","seq":4,"time":4,"data":{"turn":1,"step":1,"message":{"id":"v2-to-v3-system-` + id("identity", 3, "request/header") + `","role":"system","source":{"kind":"plugin","plugin":"@deepseek-ai/dsh-system-prompt"},"content":[{"type":"text","text":"sys"}]}},"surfaceOp":{"op":"replace","startSeq":2,"endSeq":2},"sourceEventSeqs":[2]}`,
		`{"type":"request/header","seq":5,"time":4,"data":{"header":{"config":{"provider":"mock","model":"mock"}},"reason":"initial"}}`,
		`{"type":"user/message","seq":6,"time":5,"data":{"role":"user","id":"b","source":{"kind":"user"},"content":[{"type":"text","text":"hi"}]},"surfaceOp":"append"}`,
		`{"type":"compaction/prune","seq":7,"time":6,"data":{"shadowedRange":{"start":3,"end":6},"shadowedSeqs":[3,6],"shadowedTokenCount":20}}`,
		`{"type":"user/message","seq":8,"time":7,"data":{"role":"user","id":"c","source":{"kind":"user"},"content":[]},"surfaceOp":{"op":"replace","startSeq":3,"endSeq":6},"sourceEventSeqs":[3,6]}`,
		`{"type":"command/run","seq":9,"time":8,"data":{"commandId":"c","name":"x","source":{"kind":"user"}}}`,
		`{"type":"command/done","seq":10,"time":9,"data":{"commandId":"c","kind":"success","sourceEventSeq":8}}`,
		`{"type":"session/title","seq":11,"time":10,"data":{"title":"t","messageSeqs":[6,3],"source":{"kind":"fallback"}}}`,
		`{"type":"agent/inbox/spliced","seq":12,"time":11,"data":{"target":"next-step","start":3,"inserted":[{"role":"user","id":"i","source":{"kind":"plugin","plugin":"tools-ptc"},"content":[]},{"role":"user","id":"j","source":{"kind":"user"},"content":[]}]}}`,
		`{"type":"agent-preset/selected","seq":13,"time":12,"data":{"agentPreset":"ptc"}}`,
		`{"type":"tool-workflow/agent-start","seq":14,"time":13,"data":{"runId":"r","seq":99,"label":"l","childId":"c"}}`,
		`{"type":"session-log-deepseek/delivery-accepted","seq":15,"time":14,"data":{"sessionId":"identity","throughSeq":3,"sessionFormatVersion":2}}`,
	}
	got := r.lines[4:]
	if len(got) != len(want) {
		t.Fatalf("got %d lines:\n%s", len(got), strings.Join(got, "\n"))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("\n got %s\nwant %s", got[i], want[i])
		}
	}
}

func id(sessionID string, seq int64, typ string) string {
	identity := jsonv.ArrayValue(jsonv.StringValue("session-format-v2-to-v3"), jsonv.StringValue(sessionID), jsonv.IntValue(seq), jsonv.StringValue(typ))
	return sha(identity.Encode())
}

func TestHeader(t *testing.T) {
	var e Edge
	h, err := e.MigrateHeader(session.Header{Version: 2, ID: "x", AgentPreset: session.Str("code"), Cwd: session.Str("/w")})
	if err != nil || h.Version != 3 || *h.AgentPreset != "ptc" || h.Value().String() != `{"type":"session","version":3,"id":"x","createdAt":0,"cwd":"/w","isSeeded":false,"delegationDepth":0,"agentPreset":"ptc"}` {
		t.Errorf("got %s, %v", h.Value(), err)
	}
	if h, _ := e.MigrateHeader(session.Header{Version: 2, AgentPreset: session.Str("plan")}); *h.AgentPreset != "plan" {
		t.Errorf("other presets stay: %s", *h.AgentPreset)
	}
	tests := []struct {
		h    session.Header
		want string
	}{
		{session.Header{Version: 3}, "SessionFormatError: expected format v2 header"},
		{session.Header{Version: 2, Cwd: session.Str("rel")}, "SessionFormatError: format v2 header cwd must be absolute"},
	}
	for _, tc := range tests {
		_, err := e.MigrateHeader(tc.h)
		if got := (result{err: err}).text(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	if got := (result{err: e.ValidateTargetHeader(session.Header{Version: 4})}).text(); got != "SessionFormatError: expected format v3 header" {
		t.Errorf("target check: %q", got)
	}
	if e.Name() != "@deepseek-ai/dsh-session-format-v2-to-v3" || e.From() != 2 {
		t.Error("identity")
	}
}

// TestFinish checks the stage's own end-of-log rules, which the v2 codec's
// checks would otherwise pre-empt.
func TestFinish(t *testing.T) {
	events := func(text string) []session.Event {
		var out []session.Event
		for i, line := range strings.Split(strings.TrimSpace(text), "\n")[1:] {
			v, _ := jsonv.Parse([]byte(line))
			out = append(out, session.Event{Type: v.Field("type").Text(), Seq: int64(i), Time: int64(i + 1), Row: v})
		}
		return out
	}
	header := session.Header{Version: 2, ID: "identity", IsSeeded: true, ParentSession: session.Str("parent")}
	tests := []struct {
		name      string
		header    session.Header
		sourceCut int64
		text      string
		cut       int64
		want      string
	}{
		{"seeded without marker", header, -1, session2(seeded, turnStart), 0,
			"SessionFormatError: format v2 inherited end-seed marker must be a non-negative safe integer"},
		{"cut disagrees", header, 2, session2(seeded, turnStart, stepStart, request(`"seed"`), `{"type":"session/end-seed","data":{"inherited":true}}`), 0,
			"SessionFormatError: format v2 inherited end-seed marker disagrees with its source cut"},
		{"cut after insertions", header, 4, session2(seeded, turnStart, stepStart, request(`"seed"`),
			`{"type":"session-log-deepseek/delivery-accepted","data":{"sessionId":"parent","throughSeq":1,"sessionFormatVersion":2}}`,
			`{"type":"session/end-seed","data":{"inherited":true}}`), 6, ""},
		{"last marker wins", header, -1, session2(seeded, `{"type":"session/end-seed","data":{"inherited":true}}`, turnStart, stepStart, `{"type":"session/end-seed","data":{"inherited":true}}`), 4, ""},
		{"untagged marker", header, -1, session2(seeded, `{"type":"session/end-seed","data":{}}`), 0,
			"SessionFormatError: format v2 inherited end-seed marker must be a non-negative safe integer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, err := Edge{}.NewStage(stage.StageInput{SourceHeader: tc.header, SourceCut: tc.sourceCut})
			if err != nil {
				t.Fatal(err)
			}
			if st.HeaderCut() != -1 {
				t.Errorf("seeded HeaderCut %d", st.HeaderCut())
			}
			discard := func(session.Item) error { return nil }
			for _, ev := range events(tc.text) {
				if err := st.Transform(session.Item{Event: ev}, discard); err != nil {
					t.Fatal(err)
				}
			}
			cut, err := st.Finish(discard)
			if got := (result{err: err}).text(); got != tc.want || (err == nil && cut != tc.cut) {
				t.Errorf("got %d %q, want %d %q", cut, got, tc.cut, tc.want)
			}
		})
	}
}

// TestDense feeds a stage an event out of order.
func TestDense(t *testing.T) {
	st, _ := Edge{}.NewStage(stage.StageInput{SourceHeader: session.Header{Version: 2}, SourceCut: 0})
	row, _ := jsonv.Parse([]byte(`{"type":"turn/start","seq":1,"time":1,"data":{"turn":1}}`))
	err := st.Transform(session.Item{Event: session.Event{Type: "turn/start", Seq: 1, Row: row}}, nil)
	if got := (result{err: err}).text(); got != "SessionFormatError: format v2 source events must be dense" {
		t.Errorf("got %q", got)
	}
}

// run is a compact run of events, as a v0/v1 codec hands on.
type run []session.Event

func (r run) RunType() string                  { return "test" }
func (r run) FirstSeq() int64                  { return r[0].Seq }
func (r run) EventCount() int64                { return int64(len(r)) }
func (r run) Expand() ([]session.Event, error) { return r, nil }

func TestRunIsExpanded(t *testing.T) {
	var evs run
	for i, line := range []string{turnStart, stepStart, request(`"run"`)} {
		v, _ := jsonv.Parse([]byte(line))
		v = v.With("seq", jsonv.IntValue(int64(i))).With("time", jsonv.IntValue(1))
		evs = append(evs, session.Event{Type: v.Field("type").Text(), Seq: int64(i), Time: 1, Row: v})
	}
	st, _ := Edge{}.NewStage(stage.StageInput{SourceHeader: session.Header{Version: 2}, SourceCut: 0})
	var types []string
	err := st.Transform(session.Item{Run: evs}, func(it session.Item) error {
		types = append(types, it.Event.Type)
		return nil
	})
	if err != nil || strings.Join(types, ",") != "turn/start,step/start,system/message,system/message,request/header" {
		t.Errorf("got %v %v", types, err)
	}
}

// TestSeededChainVector is the v2 half of vector V-I: a seeded v2 log whose
// cut moves past the two system messages inserted before it.
func TestSeededChainVector(t *testing.T) {
	text := session2(`{"type":"session","version":2,"id":"seeded","createdAt":1,"parentSession":"ancestor","isSeeded":true,"delegationDepth":0}`,
		turnStart, stepStart, user("u"),
		`{"type":"request/header","data":{"header":{"config":{"provider":"mock","model":"mock"},"system":"seed prompt"},"reason":"initial"}}`,
		stepEnd, turnEnd, `{"type":"session/end-seed","data":{"inherited":true}}`)
	r := migrateV2(t, text, -1)
	if r.err != nil || r.cut != 8 || len(r.lines) != 10 || !strings.HasPrefix(r.lines[9], `{"type":"session/end-seed","seq":8,"time":7,`) {
		t.Errorf("cut %d, %s\n%s", r.cut, r.text(), strings.Join(r.lines, "\n"))
	}
}

// TestShiftsStaySmall checks the stage keeps one shift per inserted system
// message, not one entry per event.
func TestShiftsStaySmall(t *testing.T) {
	events := []string{turnStart, stepStart}
	for i := 0; i < 500; i++ {
		events = append(events, user(fmt.Sprintf("u%d", i)))
	}
	events = append(events, request(`"p"`), `{"type":"session/title","data":{"title":"t","messageSeqs":[2,501],"source":{"kind":"fallback"}}}`)
	r := migrateV2(t, session2(unseeded, events...), -1)
	if r.err != nil {
		t.Fatal(r.text())
	}
	if last := r.lines[len(r.lines)-1]; !strings.Contains(last, `"messageSeqs":[3,502]`) {
		t.Errorf("title: %s", last)
	}
}

// TestCorpusChildrenRestore runs every v2 file of the corpus through the
// edge and checks the result as dsh's historical catalog does when it reads
// a v2 child session for evidence.
func TestCorpusChildrenRestore(t *testing.T) {
	files := sessiontest.Glob(t,
		"../../testdata/corpus/restored*/*/*.v2.jsonl",
		"../../testdata/corpus/golden/edge2/v2-*/session.v2.jsonl",
	)
	if len(files) < 8 {
		t.Fatalf("found %d v2 files", len(files))
	}
	for _, path := range files {
		t.Run(strings.TrimPrefix(path, "../../testdata/corpus/"), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			r := migrateV2(t, string(data), -1)
			if r.err != nil {
				t.Fatal(r.text())
			}
			hv, _ := jsonv.Parse([]byte(r.lines[0]))
			h, err := v3.DecodeHeader(hv)
			if err != nil {
				t.Fatal(err)
			}
			restorer := v3.NewRestorer(h)
			dec := v3.NewDecoder(h, v2.Strict)
			for _, line := range r.lines[1:] {
				row, _ := jsonv.Parse([]byte(line))
				ev, _, err := dec.Decode(row)
				if err != nil {
					t.Fatalf("re-read as v3: %s", (result{err: err}).text())
				}
				restorer.Add(ev)
			}
			if err := restorer.Finish(r.cut); err != nil {
				t.Errorf("restore: %s", (result{err: err}).text())
			}
		})
	}
}
