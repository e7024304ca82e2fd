package v1to2

import (
	"errors"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v0"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate/stage"
	"github.com/dshlog/dshlog/session"
)

// packed is a released-assistant-chunks run as the v0/v1 codec makes one.
type packed struct {
	first, count, turn, step, lastTime int64
	stream                             string
}

func (p packed) RunType() string     { return v0.ChunkRunType }
func (p packed) FirstSeq() int64     { return p.first }
func (p packed) EventCount() int64   { return max(p.count, 1) }
func (p packed) Turn() int64         { return max(p.turn, 1) }
func (p packed) Step() int64         { return max(p.step, 1) }
func (p packed) LastSeq() int64      { return p.first + p.EventCount() - 1 }
func (p packed) LastTime() int64     { return p.lastTime }
func (p packed) Stream() jsonv.Value { return parse(p.stream) }
func (p packed) Expand() ([]session.Event, error) {
	return nil, errors.New("a packed run is never expanded")
}

// generic is a run of another type, which the stage expands.
type generic struct{ events []string }

func (g generic) RunType() string   { return "test-run" }
func (g generic) FirstSeq() int64   { return 0 }
func (g generic) EventCount() int64 { return int64(len(g.events)) }
func (g generic) Expand() ([]session.Event, error) {
	out := make([]session.Event, len(g.events))
	for i, e := range g.events {
		out[i] = session.Event{Row: parse(e)}
	}
	return out, nil
}

func parse(s string) jsonv.Value {
	v, err := jsonv.Parse([]byte(s))
	if err != nil {
		panic(err)
	}
	return v
}

// harness is a v1→v2 stage fed by hand, as dsh's stageHarness does.
type harness struct {
	seeded  bool
	cut     int64
	id      string
	decoded bool
}

// input is one item for the stage: an event row, or a run.
type input struct {
	row string
	run session.Run
}

func ev(row string) input     { return input{row: row} }
func run(r session.Run) input { return input{run: r} }
func (h harness) stage() *edgeStage {
	header := session.Header{Version: 1, ID: "stage", CreatedAt: 1}
	if h.id != "" {
		header.ID = h.id
	}
	if h.seeded {
		header.ParentSession, header.IsSeeded = session.Str("parent"), true
	}
	return newStage(stage.StageInput{SourceHeader: header, SourceCut: h.cut, Decoded: h.decoded})
}

// feed runs the inputs and Finish, and returns the emitted rows and the cut.
func (h harness) feed(inputs ...input) ([]string, int64, error) {
	s := h.stage()
	var out []string
	emit := func(item session.Item) error {
		if item.Run != nil {
			return errors.New("the stage emitted a run")
		}
		if got, want := item.Event.Seq, int64(len(out)); got != want || item.Event.Type != item.Event.Row.Field("type").Text() {
			return errors.New("emitted event fields disagree with its row: " + item.Event.Row.String())
		}
		out = append(out, item.Event.Row.String())
		return nil
	}
	for _, in := range inputs {
		item := session.Item{Run: in.run}
		if in.run == nil {
			item.Event = session.Event{Row: parse(in.row)}
		}
		if err := s.Transform(item, emit); err != nil {
			return out, 0, err
		}
	}
	cut, err := s.Finish(emit)
	return out, cut, err
}

// chunk is an assistant/chunk row of turn 1, step 1; time is JSON text.
func chunk(seq int, time, c string) input {
	return ev(`{"type":"assistant/chunk","seq":` + itoa(int64(seq)) + `,"time":` + time + `,"data":{"turn":1,"step":1,"chunk":` + c + `}}`)
}

// TestStreamFolding covers how chunks and packed runs become the records of
// one attempt's stream (dsh's migration.spec packed-run vectors, §8.3 m).
func TestStreamFolding(t *testing.T) {
	tests := []struct {
		name   string
		inputs []input
		want   []string
	}{
		{"adjacent packed text runs coalesce", []input{
			run(packed{first: 0, lastTime: 1, stream: `{"type":"text-chunks","time0":1,"index":0,"dt":[],"texts":["a"]}`}),
			run(packed{first: 1, count: 2, lastTime: 4, stream: `{"type":"text-chunks","time0":3,"index":0,"dt":[1],"texts":["b","c"]}`}),
		}, []string{`{"type":"assistant/attempt","seq":0,"time":4,"data":{"turn":1,"step":1,"stream":[{"type":"text-chunks","time0":1,"index":0,"dt":[2,1],"texts":["a","b","c"]}]}}`}},
		{"a tool-call chunk and a packed continuation coalesce", []input{
			chunk(0, "1", `{"type":"tool-call-delta","index":0,"id":"call","name":"read","argumentsDelta":"{"}`),
			run(packed{first: 1, count: 2, lastTime: 3, stream: `{"type":"tool-call-chunks","time0":2,"index":0,"dt":[1],"id":"call","name":"read","args":["}","!"]}`}),
		}, []string{`{"type":"assistant/attempt","seq":0,"time":3,"data":{"turn":1,"step":1,"stream":[{"type":"tool-call-chunks","time0":1,"index":0,"dt":[1,1],"id":"call","name":"read","args":["{","}","!"]}]}}`}},
		{"single deltas compact like packed rows", []input{
			chunk(0, "5", `{"type":"reasoning-delta","index":0,"text":"a"}`),
			chunk(1, "3", `{"type":"reasoning-delta","index":0,"text":"b"}`),
			chunk(2, "3", `{"type":"text-delta","index":0,"text":"c"}`),
			chunk(3, "4", `{"type":"text-delta","index":1,"text":"d"}`),
		}, []string{`{"type":"assistant/attempt","seq":0,"time":4,"data":{"turn":1,"step":1,"stream":[{"type":"reasoning-chunks","time0":5,"index":0,"dt":[-2],"texts":["a","b"]},{"type":"text-chunks","time0":3,"index":0,"dt":[],"texts":["c"]},{"type":"text-chunks","time0":4,"index":1,"dt":[],"texts":["d"]}]}}`}},
		{"incompatible records behind a packed prefix stay apart", []input{
			run(packed{first: 0, lastTime: 1, stream: `{"type":"text-chunks","time0":1,"index":0,"dt":[],"texts":["packed"]}`}),
			chunk(1, "2", `{"type":"text-delta","index":1,"text":"a"}`),
			chunk(2, "3", `{"type":"text-delta","index":1,"text":"b"}`),
			run(packed{first: 3, lastTime: 4, stream: `{"type":"reasoning-chunks","time0":4,"index":0,"dt":[],"texts":["flush"]}`}),
		}, []string{`{"type":"assistant/attempt","seq":0,"time":4,"data":{"turn":1,"step":1,"stream":[{"type":"text-chunks","time0":1,"index":0,"dt":[],"texts":["packed"]},{"type":"text-chunks","time0":2,"index":1,"dt":[1],"texts":["a","b"]},{"type":"reasoning-chunks","time0":4,"index":0,"dt":[],"texts":["flush"]}]}}`}},
		{"a tool call of another id, or without name, starts a record", []input{
			run(packed{first: 0, lastTime: 1, stream: `{"type":"tool-call-chunks","time0":1,"index":0,"dt":[],"id":"call","args":["a"]}`}),
			chunk(1, "2", `{"type":"tool-call-delta","index":0,"id":"other","argumentsDelta":"b"}`),
			chunk(2, "3", `{"type":"tool-call-delta","index":0,"id":"other","name":"x","argumentsDelta":"c"}`),
			chunk(3, "4", `{"type":"tool-call-delta","index":0,"id":"other","name":"x","argumentsDelta":"d"}`),
		}, []string{`{"type":"assistant/attempt","seq":0,"time":4,"data":{"turn":1,"step":1,"stream":[{"type":"tool-call-chunks","time0":1,"index":0,"dt":[],"id":"call","args":["a"]},{"type":"tool-call-chunks","time0":2,"index":0,"dt":[],"id":"other","args":["b"]},{"type":"tool-call-chunks","time0":3,"index":0,"dt":[1],"id":"other","name":"x","args":["c","d"]}]}}`}},
		{"an empty id or name makes a raw chunk", []input{
			chunk(0, "1", `{"type":"tool-call-delta","index":0,"id":"","argumentsDelta":"a"}`),
			chunk(1, "2", `{"type":"tool-call-delta","index":0,"id":"call","name":"","argumentsDelta":"b"}`),
		}, []string{`{"type":"assistant/attempt","seq":0,"time":2,"data":{"turn":1,"step":1,"stream":[{"type":"chunk","time":1,"chunk":{"type":"tool-call-delta","index":0,"id":"","argumentsDelta":"a"}},{"type":"chunk","time":2,"chunk":{"type":"tool-call-delta","index":0,"id":"call","name":"","argumentsDelta":"b"}}]}}`}},
		{"a packed empty name is kept and merges only with itself", []input{
			run(packed{first: 0, lastTime: 1, stream: `{"type":"tool-call-chunks","time0":1,"index":0,"dt":[],"id":"call","name":"","args":["a"]}`}),
			run(packed{first: 1, lastTime: 2, stream: `{"type":"tool-call-chunks","time0":2,"index":0,"dt":[],"id":"call","name":"","args":["b"]}`}),
		}, []string{`{"type":"assistant/attempt","seq":0,"time":2,"data":{"turn":1,"step":1,"stream":[{"type":"tool-call-chunks","time0":1,"index":0,"dt":[1],"id":"call","name":"","args":["a","b"]}]}}`}},
		{"raw chunks keep their bytes and never merge", []input{
			chunk(0, "1", `{"type":"block-start","index":0,"blockType":"text","1":true}`),
			chunk(1, "2", `{"type":"usage","usage":{"inputTokens":1,"outputTokens":2}}`),
			chunk(2, "-0", `{"type":"block-end","index":0,"block":{"type":"text","text":"x"}}`),
		}, []string{`{"type":"assistant/attempt","seq":0,"time":0,"data":{"turn":1,"step":1,"stream":[{"type":"chunk","time":1,"chunk":{"1":true,"type":"block-start","index":0,"blockType":"text"}},{"type":"chunk","time":2,"chunk":{"type":"usage","usage":{"inputTokens":1,"outputTokens":2}}},{"type":"chunk","time":0,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"x"}}}]}}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := harness{}.feed(tt.inputs...)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

const (
	stop    = `{"type":"finish","reason":{"kind":"stop"}}`
	message = `{"id":"assistant-1","role":"assistant","content":[{"type":"text","text":"hello"}],"source":{"kind":"model","provider":"mock","model":"mock"}}`
)

func text(s string) string { return `{"type":"text-delta","index":0,"text":"` + s + `"}` }

// TestAttempts covers how attempts are settled and where their events go,
// with the events around them (§4.3, §4.4, §4.6, §4.10).
func TestAttempts(t *testing.T) {
	feedback := func(seq int) input {
		return ev(`{"type":"feedback/record","seq":` + itoa(int64(seq)) + `,"time":9,"data":{"text":"f"}}`)
	}
	tests := []struct {
		name   string
		h      harness
		inputs []input
		want   []string // type@seq of every emitted event, then the cut
	}{
		{"a finish chunk then a packed row starts a second attempt", harness{}, []input{
			chunk(0, "1", stop),
			run(packed{first: 1, lastTime: 2, stream: `{"type":"text-chunks","time0":2,"index":0,"dt":[],"texts":["next"]}`}),
		}, []string{"assistant/attempt@0", "assistant/attempt@1", "cut 0"}},
		{"a packed row of another step starts a second attempt", harness{}, []input{
			run(packed{first: 0, lastTime: 1, stream: `{"type":"text-chunks","time0":1,"index":0,"dt":[],"texts":["a"]}`}),
			run(packed{first: 1, step: 2, lastTime: 2, stream: `{"type":"text-chunks","time0":2,"index":0,"dt":[],"texts":["b"]}`}),
		}, []string{"assistant/attempt@0", "assistant/attempt@1", "cut 0"}},
		{"a message of another step settles the attempt and gets an empty stream", harness{}, []input{
			chunk(0, "1", text("partial")),
			ev(`{"type":"assistant/message","seq":1,"time":2,"data":{"turn":2,"step":1,"message":` + message + `},"sourceEventSeqs":[0],"surfaceOp":"append"}`),
		}, []string{"assistant/attempt@0", "assistant/message@1 stream []", "cut 0"}},
		{"events after the last chunk follow the attempt it closes", harness{}, []input{
			chunk(0, "1", text("a")), feedback(1), feedback(2),
			ev(`{"type":"step/end","seq":3,"time":9,"data":{"turn":1,"step":1}}`),
		}, []string{"assistant/attempt@0", "feedback/record@1", "feedback/record@2", "step/end@3", "cut 0"}},
		{"events between chunks are released by the next chunk", harness{}, []input{
			chunk(0, "1", text("a")), feedback(1), chunk(2, "3", stop),
		}, []string{"feedback/record@0", "assistant/attempt@1", "cut 0"}},
		{"a legacy goal message overtakes a pending attempt", harness{}, []input{
			chunk(0, "1", text("a")), feedback(1),
			ev(`{"type":"user/message","seq":2,"time":3,"data":{"id":"g","role":"user","content":[],"source":{"kind":"goal","goalId":"goal-1","revision":1,"round":0,"change":{"kind":"goal/change"}}},"surfaceOp":"append"}`),
		}, []string{"goal/change@0", "user/message@1", "assistant/attempt@2", "feedback/record@3", "cut 0"}},
		{"the attempt's origin places the cut", harness{seeded: true, cut: 1}, []input{
			feedback(0), chunk(1, "5", text("a")),
		}, []string{"feedback/record@0", "session/end-seed@1 time 5", "assistant/attempt@2", "cut 1"}},
		{"a cut past every event puts the marker last, at the last time", harness{seeded: true, cut: 1}, []input{
			run(packed{first: 0, lastTime: 7, stream: `{"type":"text-chunks","time0":7,"index":0,"dt":[],"texts":["a"]}`}),
		}, []string{"assistant/attempt@0", "session/end-seed@1 time 7", "cut 1"}},
		{"an empty seeded session is one marker at createdAt", harness{seeded: true}, nil,
			[]string{"session/end-seed@0 time 1", "cut 0"}},
		{"only the end-seed at the cut becomes the marker", harness{seeded: true, cut: 1}, []input{
			ev(`{"type":"session/end-seed","seq":0,"time":2,"data":{}}`),
			ev(`{"type":"session/end-seed","seq":1,"time":3,"data":{}}`),
		}, []string{"session/end-seed@0 data {}", "session/end-seed@1 data {\"inherited\":true}", "cut 1"}},
		{"an inherited foreign delivery marker is kept", harness{seeded: true, cut: 2, id: "child"}, []input{
			ev(`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}`),
			ev(`{"type":"session-log-deepseek/delivery-accepted","seq":1,"time":2,"data":{"sessionId":"parent","throughSeq":0,"sessionFormatVersion":1}}`),
		}, []string{"turn/start@0", "session-log-deepseek/delivery-accepted@1", "session/end-seed@2 time 2", "cut 2"}},
		{"other runs are expanded and go the ordinary way", harness{}, []input{
			run(generic{[]string{`{"type":"feedback/record","seq":0,"time":1,"data":{"text":"retained"}}`}}),
		}, []string{"feedback/record@0", "cut 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, cut, err := tt.h.feed(tt.inputs...)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i, r := range rows {
				v := parse(r)
				s := v.Field("type").Text() + "@" + itoa(int64(i))
				switch {
				case strings.Contains(tt.want[min(i, len(tt.want)-1)], " time "):
					s += " time " + v.Field("time").String()
				case strings.Contains(tt.want[min(i, len(tt.want)-1)], " data "):
					s += " data " + v.Field("data").String()
				case strings.Contains(tt.want[min(i, len(tt.want)-1)], " stream "):
					s += " stream " + v.Field("data").Field("stream").String()
				}
				got = append(got, s)
			}
			got = append(got, "cut "+itoa(cut))
			if strings.Join(got, ", ") != strings.Join(tt.want, ", ") {
				t.Errorf("got  %s\nwant %s", strings.Join(got, ", "), strings.Join(tt.want, ", "))
			}
		})
	}
}

// TestRefusals checks every refusal of the stage with dsh's exact text and
// class: the edge's own refusals, and the JavaScript errors dsh's stage
// raises on a malformed chunk (which the chain prefixes with the edge).
func TestRefusals(t *testing.T) {
	unsupported, js := session.ClassUnsupported, ""
	step := func(seq int, typ string) input {
		return ev(`{"type":"` + typ + `","seq":` + itoa(int64(seq)) + `,"time":1,"data":{"turn":1,"step":1}}`)
	}
	msg := func(seq int, sources string) input {
		return ev(`{"type":"assistant/message","seq":` + itoa(int64(seq)) + `,"time":9,"data":{"turn":1,"step":1,"message":` + message + `}` + sources + `,"surfaceOp":"append"}`)
	}
	tests := []struct {
		name   string
		h      harness
		inputs []input
		class  string
		want   string
	}{
		{"chunk envelope member", harness{}, []input{ev(`{"type":"assistant/chunk","seq":0,"time":1,"data":{},"extra":true}`)},
			unsupported, "assistant/chunk 0 has unexpected member extra"},
		{"chunk envelope lacks data", harness{}, []input{ev(`{"type":"assistant/chunk","seq":0,"time":1}`)},
			unsupported, "assistant/chunk 0 lacks required member data"},
		{"chunk ignorable false", harness{}, []input{ev(`{"type":"assistant/chunk","seq":0,"time":1,"data":{},"ignorable":false}`)},
			unsupported, "assistant/chunk 0 ignorable must be true when present"},
		{"unknown type even when ignorable", harness{}, []input{ev(`{"type":"external/info","seq":0,"time":1,"data":{},"ignorable":true}`)},
			unsupported, `format v1 contains unknown event type "external/info" at seq 0`},
		{"type that is not a string", harness{}, []input{ev(`{"type":5,"seq":0,"time":1,"data":{}}`)},
			unsupported, `format v1 contains unknown event type 5 at seq 0`},
		{"type missing", harness{}, []input{ev(`{"seq":0,"time":1,"data":{}}`)},
			unsupported, `format v1 contains unknown event type undefined at seq 0`},
		{"turn/start inside an open turn", harness{}, []input{
			ev(`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}`),
			ev(`{"type":"turn/start","seq":1,"time":1,"data":{"turn":2}}`),
		}, unsupported, "turn/start 2 does not close the prior turn"},
		{"a splice while a step is open is no interruption", harness{}, []input{
			ev(`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}`), step(1, "step/start"),
			ev(`{"type":"agent/inbox/spliced","seq":2,"time":1,"data":{"target":"next-turn","start":0,"inserted":[{}]}}`),
			ev(`{"type":"turn/start","seq":3,"time":1,"data":{"turn":2}}`),
		}, unsupported, "turn/start 2 does not close the prior turn"},
		{"own delivery marker naming another session", harness{id: "child"}, []input{
			ev(`{"type":"session-log-deepseek/delivery-accepted","seq":0,"time":1,"data":{"sessionId":"other","throughSeq":0,"sessionFormatVersion":1}}`),
		}, unsupported, "current-generation delivery marker names the wrong Session"},
		{"message without citation while chunks pend", harness{}, []input{chunk(0, "1", text("a")), msg(1, "")},
			unsupported, "assistant/message 1 does not cite its complete v1 chunk attempt"},
		{"message citing a part", harness{}, []input{chunk(0, "1", text("a")), chunk(1, "2", stop), msg(2, `,"sourceEventSeqs":[1]`)},
			unsupported, "assistant/message 2 chunk references are not one complete ordered attempt"},
		{"message citing with no attempt", harness{}, []input{msg(0, `,"sourceEventSeqs":[0]`)},
			unsupported, "assistant/message 0 chunk references are not one complete ordered attempt"},
		{"cut between chunks", harness{seeded: true, cut: 1}, []input{chunk(0, "1", text("a")), chunk(1, "2", stop)},
			unsupported, "inherited Session cut 1 splits one Assistant attempt"},
		{"cut between an attempt and its message", harness{seeded: true, cut: 1}, []input{chunk(0, "1", stop), msg(1, `,"sourceEventSeqs":[0]`)},
			unsupported, "inherited Session cut 1 splits one Assistant attempt"},
		{"packed run across the cut", harness{seeded: true, cut: 1}, []input{
			run(packed{first: 0, count: 2, lastTime: 2, stream: `{"type":"text-chunks","time0":1,"index":0,"dt":[1],"texts":["a","b"]}`}),
		}, unsupported, "inherited Session cut 1 splits one Assistant attempt"},
		{"reference to a folded chunk", harness{}, []input{
			chunk(0, "1", stop), ev(`{"type":"user/message","seq":1,"time":2,"data":{},"sourceEventSeqs":[0],"surfaceOp":"append"}`),
		}, unsupported, "user/message 1 sources targets consumed assistant/chunk 0"},
		{"reference from a goal message to an event still held behind an attempt", harness{}, []input{
			chunk(0, "1", text("a")), ev(`{"type":"feedback/record","seq":1,"time":2,"data":{}}`),
			ev(`{"type":"user/message","seq":2,"time":3,"data":{"source":{"kind":"goal","change":{}}},"sourceEventSeqs":[1]}`),
		}, unsupported, "user/message 2 sources targets consumed assistant/chunk 1"},
		{"surface replacement end", harness{}, []input{
			ev(`{"type":"feedback/record","seq":0,"time":1,"data":{}}`),
			ev(`{"type":"user/message","seq":1,"time":2,"data":{},"surfaceOp":{"op":"replace","start":0,"end":"0"}}`),
		}, unsupported, "user/message 1 surface end targets consumed assistant/chunk 0"},
		{"surface operation of another shape", harness{}, []input{ev(`{"type":"user/message","seq":0,"time":2,"data":{},"surfaceOp":"prepend"}`)},
			unsupported, "user/message 0 surface start targets consumed assistant/chunk undefined"},
		{"null surface operation", harness{}, []input{ev(`{"type":"user/message","seq":0,"time":2,"data":{},"surfaceOp":null}`)},
			js, "Cannot read properties of null (reading 'start')"},
		{"shadowed range", harness{}, []input{chunk(0, "1", stop),
			ev(`{"type":"compaction/prune","seq":1,"time":2,"data":{"shadowedRange":{"start":0,"end":0},"shadowedSeqs":[0],"shadowedTokenCount":1}}`),
		}, unsupported, "compaction/prune 1 shadowedRange start targets consumed assistant/chunk 0"},
		{"command source", harness{}, []input{chunk(0, "1", stop),
			ev(`{"type":"command/done","seq":1,"time":2,"data":{"commandId":"c","kind":"success","sourceEventSeq":0}}`),
		}, unsupported, "command/done 1 sourceEventSeq targets consumed assistant/chunk 0"},
		{"null chunk data", harness{}, []input{ev(`{"type":"assistant/chunk","seq":0,"time":1,"data":null}`)},
			js, "Cannot read properties of null (reading 'turn')"},
		{"chunk time not an integer", harness{}, []input{chunk(0, "1.5", text("a"))},
			js, "Assistant stream time must be a safe integer, got 1.5"},
		{"chunk time a string", harness{}, []input{chunk(0, `"soon"`, text("a"))},
			js, "Assistant stream time must be a safe integer, got soon"},
		{"chunk missing", harness{}, []input{ev(`{"type":"assistant/chunk","seq":0,"time":1,"data":{"turn":1,"step":1}}`)},
			js, "Assistant stream chunk must be losslessly JSON-serializable"},
		{"chunk with -0", harness{}, []input{chunk(0, "1", `{"type":"usage","usage":{"inputTokens":-0}}`)},
			js, "Assistant stream chunk must be losslessly JSON-serializable"},
		{"null chunk", harness{}, []input{chunk(0, "1", `null`)},
			js, "Cannot read properties of null (reading 'type')"},
		{"unknown chunk type", harness{}, []input{chunk(0, "1", `{"type":"vendor","x":[1]}`)},
			js, `unreachable variant in AssistantStreamAccumulator.push: {"type":"vendor","x":[1]}`},
		{"chunk that is a string", harness{}, []input{chunk(0, "1", `"text-delta"`)},
			js, `unreachable variant in AssistantStreamAccumulator.push: "text-delta"`},
		{"delta index", harness{}, []input{chunk(0, "1", `{"type":"reasoning-delta","index":-1,"text":"a"}`)},
			js, "reasoning-delta index must be a non-negative safe integer"},
		{"delta text", harness{}, []input{chunk(0, "1", `{"type":"text-delta","index":0,"text":1}`)},
			js, "text-delta text must be a string"},
		{"tool-call id", harness{}, []input{chunk(0, "1", `{"type":"tool-call-delta","index":0,"argumentsDelta":""}`)},
			js, "tool-call-delta id must be a string"},
		{"tool-call name", harness{}, []input{chunk(0, "1", `{"type":"tool-call-delta","index":0,"id":"c","name":null,"argumentsDelta":""}`)},
			js, "tool-call-delta name must be a string"},
		{"tool-call arguments", harness{}, []input{chunk(0, "1", `{"type":"tool-call-delta","index":0.5,"id":"c","argumentsDelta":""}`)},
			js, "tool-call-delta index must be a non-negative safe integer"},
		{"tool-call arguments delta", harness{}, []input{chunk(0, "1", `{"type":"tool-call-delta","index":0,"id":"c"}`)},
			js, "tool-call-delta argumentsDelta must be a string"},
		{"decoded payload", harness{decoded: true}, []input{ev(`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1,"postReleaseMember":true}}`)},
			session.ClassFormat, `turn/start 0 data has unexpected member "postReleaseMember"`},
		{"decoded type named through its string form", harness{decoded: true}, []input{ev(`{"type":["turn/end"],"seq":0,"time":1,"data":{"turn":1,"reason":{}}}`)},
			session.ClassFormat, `released payload validator is missing event ["turn/end"]`},
		{"decoded type named through its string form, members checked", harness{decoded: true}, []input{ev(`{"type":[["turn/end"]],"seq":0,"time":1,"data":{"turn":1}}`)},
			session.ClassFormat, `turn/end 0 data lacks required member "reason"`},
		{"decoded type named through its string form, opaque members checked", harness{decoded: true}, []input{
			ev(`{"type":["tool/result"],"seq":0,"time":1,"data":{"turn":1,"step":1,"message":{},"meta":{"a":-0}}}`),
		}, session.ClassFormat, "tool/result 0 opaque meta is not lossless JSON"},
		{"decoded type whose string form is unknown", harness{decoded: true}, []input{ev(`{"type":[5],"seq":0,"time":1,"data":{}}`)},
			unsupported, `format v1 contains unknown event type [5] at seq 0`},
		{"decoded inherited property name", harness{decoded: true}, []input{ev(`{"type":"constructor","seq":0,"time":1,"data":{}}`)},
			session.ClassFormat, "required is not iterable (cannot read property Symbol(Symbol.iterator))"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := tt.h.feed(tt.inputs...)
			if err == nil {
				t.Fatalf("migrated, want %s", tt.want)
			}
			var r *session.Refusal
			class := ""
			if errors.As(err, &r) {
				class = r.Class
			}
			if class != tt.class || err.Error() != tt.want {
				t.Errorf("got  %q %s\nwant %q %s", class, err, tt.class, tt.want)
			}
		})
	}
}
