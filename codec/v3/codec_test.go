package v3

import (
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/session"
)

func TestDecodeHeader(t *testing.T) {
	tests := []struct{ header, want string }{
		{`{"type":"session","version":3,"id":"x","createdAt":1,"cwd":"/w","isSeeded":false,"delegationDepth":0,"agentPreset":"ptc"}`, ""},
		{`{"version":3,"type":"session","isSeeded":false,"id":"x","createdAt":1,"delegationDepth":0}`, ""},
		{`{"type":"session","version":3.0,"id":"x","createdAt":1,"isSeeded":false,"delegationDepth":0}`, ""},
		{`{"type":"session","version":2,"id":"x","createdAt":1,"isSeeded":false,"delegationDepth":0}`, "SessionFormatError: expected format v3 physical Session header"},
		{`[3]`, "SessionFormatError: expected format v3 physical Session header"},
		{`{"type":"session","version":3,"id":"x","createdAt":-0,"isSeeded":false,"delegationDepth":0}`, "SessionFormatError: format v3 physical header is not lossless JSON"},
		{`{"type":"session","version":3,"id":"x","createdAt":1e400,"isSeeded":false,"delegationDepth":0}`, "SessionFormatError: format v3 physical header is not lossless JSON"},
		{`{"type":"session","version":3,"id":"x","createdAt":1,"isSeeded":false}`, "SessionFormatError: released v2 physical header lacks delegationDepth"},
		{`{"type":"session","version":3,"id":"x","createdAt":1,"isSeeded":false,"delegationDepth":0,"seedLength":1}`, "SessionFormatError: released v2 physical header has unexpected field seedLength"},
		{`{"type":"sessions","version":3,"id":"x","createdAt":1,"isSeeded":false,"delegationDepth":0}`, "SessionFormatError: expected released v2 physical Session header"},
		{`{"type":"session","version":3,"id":"x","createdAt":1,"cwd":"w","isSeeded":false,"delegationDepth":0}`, "SessionFormatError: format v2 header cwd must be absolute"},
		{`{"type":"session","version":3,"id":"x","createdAt":1,"isSeeded":false,"delegationDepth":0,"origin":"fork"}`, `SessionFormatError: released v2 header origin must be "subagent"`},
	}
	for _, tc := range tests {
		h, err := DecodeHeader(sessiontest.Parse(t, tc.header))
		if got := sessiontest.RefusalText(err); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.header, got, tc.want)
		}
		if err == nil && h.Version != 3 {
			t.Errorf("%s: version %d", tc.header, h.Version)
		}
	}
	if got := sessiontest.RefusalText(CheckHeader(session.Header{Version: 4})); got != "SessionFormatError: expected format v3 header" {
		t.Errorf("CheckHeader: %q", got)
	}
	if got := sessiontest.RefusalText(CheckHeader(session.Header{Version: 3, Cwd: session.Str("x")})); got != "SessionFormatError: format v2 header cwd must be absolute" {
		t.Errorf("CheckHeader: %q", got)
	}
}

// TestCheckEvent covers dsh's canonical v3 envelope and its structural and
// canonical payload rules, with the exact texts.
func TestCheckEvent(t *testing.T) {
	const sys = `"data":{"turn":1,"step":1,"message":{"id":"s","role":"system","source":{"kind":"plugin","plugin":"p"},"content":[]}}`
	tests := []struct{ row, want string }{
		{`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}`, ""},
		{`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1},"surfaceOp":"append"}`, "SessionFormatError: format v3 turn/start at seq 0 has unexpected field surfaceOp"},
		{`{"type":"turn/start","seq":0,"data":{}}`, "SessionFormatError: format v3 turn/start at seq 0 lacks required field time"},
		{`{"type":"vendor/x","seq":0,"time":1,"data":7,"surfaceOp":{"any":1},"sourceEventSeqs":"x"}`, ""},
		{`{"type":"tool/code-dispatch","seq":0,"time":1,"data":{},"ignorable":true,"surfaceOp":1}`, ""},
		{`{"type":"constructor","seq":0,"time":1,"data":{},"surfaceOp":1}`, "SessionFormatError: format v3 constructor at seq 0 has unexpected field surfaceOp"},
		{`{"type":"turn/start","seq":-0,"time":1,"data":{}}`, "SessionFormatError: format v3 turn/start at seq 0 seq must be a non-negative safe integer"},
		{`{"type":"turn/start","seq":0,"time":1.5,"data":{}}`, "SessionFormatError: format v3 turn/start at seq 0 time must be a safe integer"},
		{`{"type":"turn/start","seq":0,"time":1,"data":{},"ignorable":1}`, "SessionFormatError: format v3 turn/start at seq 0 ignorable must be true when present"},
		{`{"type":"user/message","seq":3,"time":1,"data":{}}`, "SessionFormatError: format v3 user/message at seq 3 requires a surfaceOp marker"},
		{`{"type":"user/message","seq":3,"time":1,"data":{},"surfaceOp":"prepend"}`, "SessionFormatError: format v3 user/message at seq 3 surfaceOp must be an object"},
		{`{"type":"user/message","seq":3,"time":1,"data":{},"surfaceOp":{"op":"replace","start":1,"end":1}}`, "SessionFormatError: format v3 user/message at seq 3 requires exact replace fields op/startSeq/endSeq"},
		{`{"type":"user/message","seq":3,"time":1,"data":{},"surfaceOp":{"op":"replace","startSeq":1,"endSeq":-1}}`, "SessionFormatError: format v3 user/message at seq 3 surfaceOp endSeq must be a non-negative safe integer"},
		{`{"type":"user/message","seq":3,"time":1,"data":{},"surfaceOp":{"op":"replace","startSeq":1,"endSeq":3},"sourceEventSeqs":[1]}`, "SessionFormatError: format v3 user/message at seq 3 replacement endpoints must reference earlier events"},
		{`{"type":"user/message","seq":3,"time":1,"data":{},"surfaceOp":"append","sourceEventSeqs":[]}`, "SessionFormatError: format v3 user/message at seq 3 sourceEventSeqs must be a non-empty array"},
		{`{"type":"user/message","seq":3,"time":1,"data":{},"surfaceOp":"append","sourceEventSeqs":[1,1]}`, "SessionFormatError: format v3 user/message at seq 3 sourceEventSeqs must be unique earlier seqs"},
		{`{"type":"user/message","seq":5,"time":1,"data":{},"surfaceOp":"append","sourceEventSeqs":[[1,3],4]}`, ""},
		{`{"type":"user/message","seq":3,"time":1,"data":{},"surfaceOp":"append","sourceEventSeqs":["1"]}`, "SessionFormatError: format v3 user/message at seq 3 sourceEventSeqs member must be a non-negative safe integer"},
		{`{"type":"assistant/message","seq":3,"time":1,"data":{},"surfaceOp":"append","sourceEventSeqs":[1]}`, "SessionFormatError: format v3 assistant/message at seq 3 embeds its stream and cannot carry sourceEventSeqs"},
		{`{"type":"request/header","seq":0,"time":1,"data":{"header":{"config":{},"system":""}}}`, "SessionFormatUnsupportedMigrationError: format v3 request/header rejects retired header.system"},
		{`{"type":"request/header","seq":0,"time":1,"data":{"header":1}}`, "SessionFormatError: request header must be an object"},
		{`{"type":"request/header","seq":0,"time":1,"data":{"header":{"tools":[]}}}`, "SessionFormatError: format v3 request/header at seq 0 empty optional header fields must be omitted"},
		{`{"type":"request/header","seq":0,"time":1,"data":{"header":{"adapterDefaults":{}}}}`, "SessionFormatError: format v3 request/header at seq 0 empty optional header fields must be omitted"},
		{`{"type":"tool/result","seq":2,"time":1,"data":{"error":{},"message":{"content":[{"type":"tool-result","isError":false}]}},"surfaceOp":"append"}`, "SessionFormatError: format v3 tool/result at seq 2 carries error metadata for a non-error tool result"},
		{`{"type":"tool/result","seq":2,"time":1,"data":{"error":{},"message":{"content":[{"type":"tool-result","isError":true}]}},"surfaceOp":"append"}`, ""},
		{`{"type":"system/message","seq":2,"time":1,` + sys + `,"surfaceOp":"append"}`, ""},
		{`{"type":"system/message","seq":2,"time":1,"data":{"turn":0,"step":1,"message":{}},"surfaceOp":"append"}`, "SessionFormatError: turn must be positive"},
		{`{"type":"system/message","seq":2,"time":1,"data":{"turn":1,"step":1},"surfaceOp":"append"}`, "SessionFormatError: system/message data lacks required field message"},
		{`{"type":"system/message","seq":2,"time":1,"data":{"turn":1,"step":1,"message":{"id":"s","role":"user","source":{},"content":[]}},"surfaceOp":"append"}`, "SessionFormatError: system message requires an id and system role"},
		{`{"type":"system/message","seq":2,"time":1,"data":{"turn":1,"step":1,"message":{"id":"s","role":"system","source":{"kind":"system-prompt"},"content":[]}},"surfaceOp":"append"}`, "SessionFormatError: system message requires plugin source"},
		{`{"type":"system/message","seq":2,"time":1,"data":{"turn":1,"step":1,"message":{"id":"s","role":"system","source":{"kind":"plugin","plugin":"p"},"content":[{"type":"text","text":1}]}},"surfaceOp":"append"}`, "SessionFormatError: user/message 0 content[0] text must be a string"},
		{`[1]`, "SessionFormatError: format v3 event must be an object"},
	}
	for _, tc := range tests {
		if got := sessiontest.RefusalText(CheckEvent(sessiontest.Parse(t, tc.row), nil)); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.row, got, tc.want)
		}
	}
	known := func(typ string) bool { return typ == "vendor/x" }
	if got := sessiontest.RefusalText(CheckEvent(sessiontest.Parse(t, `{"type":"vendor/x","seq":0,"time":1,"data":{},"surfaceOp":"append"}`), known)); got != "SessionFormatError: format v3 vendor/x at seq 0 has unexpected field surfaceOp" {
		t.Errorf("installed type: %q", got)
	}
}

func TestAdmitRow(t *testing.T) {
	tests := []struct{ row, want string }{
		{`{"type":"tool/code-dispatch-start","seq":4}`, `SessionFormatUnsupportedMigrationError: format v3 contains unknown event type "tool/code-dispatch-start" at seq 4`},
		{`{"type":"tool/code-dispatch"}`, `SessionFormatUnsupportedMigrationError: format v3 contains unknown event type "tool/code-dispatch" at seq undefined`},
		{`{"type":"tool/code-dispatch","seq":{"a":1}}`, `SessionFormatUnsupportedMigrationError: format v3 contains unknown event type "tool/code-dispatch" at seq [object Object]`},
		{`{"type":"tool/code-dispatch","ignorable":true}`, ""},
		{`{"type":"request/header"}`, "SessionFormatError: request/header data must be an object"},
		{`{"type":"system/message","data":[]}`, "SessionFormatError: system/message data must be an object"},
		{`"text"`, ""},
		{`{"type":7}`, ""},
	}
	for _, tc := range tests {
		if got := sessiontest.RefusalText(AdmitRow(sessiontest.Parse(t, tc.row))); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.row, got, tc.want)
		}
	}
}

// decodeRows runs rows through a Decoder and returns the accepted seqs and
// the first refusal (from Decode or Finish).
func decodeRows(t *testing.T, seeded bool, recovery v2.Recovery, rows ...string) (string, string) {
	t.Helper()
	d := NewDecoder(session.Header{Version: 3, IsSeeded: seeded}, recovery)
	var accepted []string
	for _, r := range rows {
		ev, ok, err := d.Decode(sessiontest.Parse(t, r))
		if err != nil {
			return strings.Join(accepted, ","), sessiontest.RefusalText(err)
		}
		if ok {
			accepted = append(accepted, itoa(ev.Seq))
		}
	}
	cut, err := d.Finish()
	if err != nil {
		return strings.Join(accepted, ","), sessiontest.RefusalText(err)
	}
	return strings.Join(accepted, ",") + " cut " + itoa(cut), ""
}

// TestDecoderRecovery covers the v3 recovery policy: hard admission, the
// canonical check that strict refuses and recoverable withholds (refusing
// at a later turn/end), and the cut from accepted markers only.
func TestDecoderRecovery(t *testing.T) {
	const (
		ok0     = `{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}`
		bad1    = `{"type":"request/header","seq":1,"time":1,"data":{"header":{"tools":[]}}}`
		ok2     = `{"type":"step/start","seq":2,"time":1,"data":{"turn":1,"step":1}}`
		end2    = `{"type":"turn/end","seq":2,"time":1,"data":{"turn":1,"reason":{"kind":"completed"}}}`
		marker1 = `{"type":"session/end-seed","seq":1,"time":1,"data":{"inherited":true}}`
		marker3 = `{"type":"session/end-seed","seq":3,"time":1,"data":{"inherited":true}}`
		badSys  = `{"type":"system/message","seq":2,"time":1,"data":{}}`
		retired = `{"type":"tool/code-dispatch","seq":2,"time":1,"data":{}}`
	)
	const empty = "SessionFormatError: format v3 request/header at seq 1 empty optional header fields must be omitted"
	tests := []struct {
		name     string
		seeded   bool
		recovery v2.Recovery
		rows     []string
		accepted string
		want     string
	}{
		{"strict refuses", false, v2.Strict, []string{ok0, bad1, ok2}, "0", empty},
		{"recoverable withholds the tail", false, v2.Recoverable, []string{ok0, bad1, ok2}, "0 cut 0", ""},
		{"a later turn/end refuses", false, v2.Recoverable, []string{ok0, bad1, end2}, "0", empty},
		{"structural rows refuse in recoverable mode", false, v2.Recoverable, []string{ok0, bad1, badSys}, "0", "SessionFormatError: system/message data lacks required field turn"},
		{"retired PTC names refuse in recoverable mode", false, v2.Recoverable, []string{ok0, bad1, retired}, "0", `SessionFormatUnsupportedMigrationError: format v3 contains unknown event type "tool/code-dispatch" at seq 2`},
		{"accepted marker sets the cut", true, v2.Recoverable, []string{ok0, marker1, `{"type":"request/header","seq":2,"time":1,"data":{"header":{"tools":[]}}}`, marker3}, "0,1 cut 1", ""},
		{"withheld marker does not count", true, v2.Recoverable, []string{ok0, bad1, `{"type":"session/end-seed","seq":2,"time":1,"data":{"inherited":true}}`}, "0",
			"SessionFormatError: format v3 seeded Session lacks an accepted inherited end-seed marker"},
		{"unseeded accepted marker", false, v2.Recoverable, []string{ok0, marker1, `{"type":"request/header","seq":2,"time":1,"data":{"header":{"tools":[]}}}`}, "0,1",
			"SessionFormatError: format v3 unseeded Session contains an inherited end-seed marker"},
		{"framing issue first", false, v2.Recoverable, []string{ok0, `{"type":"x","seq":5,"time":1,"data":{}}`, bad1}, "0 cut 0", ""},
		{"the framing's own issue is thrown by the framing", false, v2.Recoverable, []string{ok0, bad1, `{"type":"x","seq":5,"time":1,"data":{}}`, end2}, "0",
			"SessionFormatError: released v2 row 2 has seq gap (expected 2, got 5)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			accepted, got := decodeRows(t, tc.seeded, tc.recovery, tc.rows...)
			if accepted != tc.accepted || got != tc.want {
				t.Errorf("got %q %q\nwant %q %q", accepted, got, tc.accepted, tc.want)
			}
		})
	}
	d := NewDecoder(session.Header{Version: 3}, v2.Recoverable)
	for _, r := range []string{ok0, bad1, ok2} {
		if _, _, err := d.Decode(sessiontest.Parse(t, r)); err != nil {
			t.Fatal(err)
		}
	}
	if got := sessiontest.RefusalText(d.Issue()); got != empty {
		t.Errorf("Issue %q", got)
	}
}
