package inspect

import (
	"testing"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// event parses a row into an Event the way a decoder would fill it.
func event(t testing.TB, row string) session.Event {
	t.Helper()
	v, err := jsonv.Parse([]byte(row))
	if err != nil {
		t.Fatalf("bad test row %s: %v", row, err)
	}
	seq, _ := v.Field("seq").SafeInt()
	return session.Event{Type: v.Field("type").Text(), Seq: seq, Row: v}
}

func TestDescribeSummary(t *testing.T) {
	tests := []struct {
		name, row, want string
	}{
		{"user message", `{"type":"user/message","data":{"content":[{"type":"text","text":"hello\n  world"}],"source":{"kind":"user"},"role":"user"}}`,
			`user: "hello world"`},
		{"runtime context source", `{"type":"user/message","data":{"content":[{"type":"text","text":"权限"}],"source":{"kind":"runtime-context"},"role":"user"}}`,
			`user (runtime-context): "权限"`},
		{"assistant text and calls", `{"type":"assistant/message","data":{"turn":1,"step":1,"message":{"role":"assistant","content":[{"type":"reasoning","text":"hmm"},{"type":"text","text":"ok"},{"type":"tool-call","id":"c1","name":"echo"},{"type":"tool-call","id":"c2","name":"read"}],"source":{"kind":"model"}}}}`,
			`assistant: "ok" calls echo(c1), read(c2)`},
		{"interrupted", `{"type":"assistant/message","data":{"message":{"role":"assistant","content":[{"type":"text","text":"第一点是"}],"source":{"kind":"model"}},"interrupted":true}}`,
			`assistant: "第一点是" [interrupted]`},
		{"v4 tool result with error", `{"type":"tool/result","data":{"message":{"role":"tool","source":{"kind":"tool"},"toolCallId":"c1","content":[{"type":"text","text":"gone"}],"isError":true},"error":{"name":"FsError","code":"FS_NOT_FOUND"}},"sourceEventSeqs":[9]}`,
			`tool c1: "gone" [error] error FS_NOT_FOUND (from 9)`},
		{"v3 tool result shape", `{"type":"tool/result","data":{"message":{"role":"user","source":{"kind":"tool"},"content":[{"type":"tool-result","toolCallId":"c1","content":[{"type":"text","text":"one"}]}]}}}`,
			`user (tool) c1: "one"`},
		{"tool call", `{"type":"tool/call","data":{"callId":"c1","name":"echo","arguments":"{\"text\":\"one\"}"}}`,
			`echo(c1) {"text":"one"}`},
		{"failed attempt", `{"type":"assistant/attempt","data":{"stream":[{"type":"chunk","chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":"busy","code":"RATE_LIMIT"}}}}]}}`,
			`failed RATE_LIMIT "busy"`},
		{"attempt without finish", `{"type":"assistant/attempt","data":{"stream":[]}}`,
			`0 stream entries, no finish`},
		{"nested turn end reason", `{"type":"turn/end","data":{"turn":3,"reason":{"kind":"aborted","reason":{"kind":"user"}}}}`,
			`aborted (user)`},
		{"request header", `{"type":"request/header","data":{"header":{"config":{"provider":"mock","model":"m"},"tools":[{},{}]},"reason":"series"}}`,
			`series: mock/m, 2 tools`},
		{"request header of a snapshot", `{"type":"request/header","data":{"header":{"config":{"provider":"mock","model":"m"},"tools":"{{tools}}"},"reason":"initial"}}`,
			`initial: mock/m, tools {{tools}}`},
		{"request context", `{"type":"request/context","data":{"provider":"p","model":"m","contextWindow":128000,"systemPromptUpdate":{}}}`,
			`p/m, context window 128000, system prompt update`},
		{"splice removing", `{"type":"agent/inbox/spliced","data":{"target":"next-turn","start":0,"removedCount":1,"inserted":[]}}`,
			`next-turn: removed 1`},
		{"splice inserting", `{"type":"agent/inbox/spliced","data":{"target":"next-step","start":0,"inserted":[{"role":"user","source":{"kind":"tool-jobs"},"content":[{"type":"text","text":"job done"}]},{"role":"user","content":[]}]}}`,
			`next-step: inserted 2, first user (tool-jobs): "job done"`},
		{"splice of nothing", `{"type":"agent/inbox/spliced","data":{"target":"next-turn","start":0,"inserted":[]}}`,
			`next-turn: inserted none`},
		{"title", `{"type":"session/title","data":{"title":"Fix the build","messageSeqs":[5,8],"source":{"kind":"fallback"}}}`,
			`"Fix the build" (messages 5,8)`},
		{"compaction summary", `{"type":"compaction/summary","data":{"compactionId":"id-1","summary":[{"type":"text","text":"premise"}],"shadowedSeqs":[8,9,10,11]}}`,
			`id-1 shadows 8..11: "premise"`},
		{"generic fields", `{"type":"approval/policy","data":{"policy":"never","source":"delegation","turn":1,"extra":{"kind":"x"},"list":[1,2],"n":1.5,"o":{}}}`,
			`policy=never source=delegation extra=x list=[2] n=1.5 o={…}`},
		{"end seed", `{"type":"session/end-seed","data":{"inherited":true}}`,
			`inherited=true`},
		{"no data", `{"type":"step/start"}`, ``},
		{"ignorable", `{"type":"x/future","data":{"a":"b"},"ignorable":true}`,
			`a=b (ignorable)`},
		{"unsorted sources", `{"type":"user/message","data":{"role":"user","source":{"kind":"compaction"},"content":[]},"sourceEventSeqs":[19,20,8,9]}`,
			`user (compaction): (from 19,20,8,9)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Describe(event(t, tt.row)).Summary; got != tt.want {
				t.Errorf("summary\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestDescribeCutsLongText(t *testing.T) {
	long := `{"type":"user/message","data":{"role":"user","source":{"kind":"user"},"content":[{"type":"text","text":"` +
		"0123456789012345678901234567890123456789overflow" + `"}]}}`
	want := `user: "012345678901234567890123456789012345678…"`
	if got := Describe(event(t, long)).Summary; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestDescribeColumns(t *testing.T) {
	tests := []struct {
		row, surface, turnStep string
	}{
		{`{"type":"user/message","seq":5,"data":{},"surfaceOp":"append"}`, "append", ""},
		{`{"type":"user/message","seq":42,"data":{},"surfaceOp":{"op":"replace","startSeq":5,"endSeq":13}}`, "replace 5..13", ""},
		{`{"type":"user/message","seq":42,"data":{},"surfaceOp":"prepend"}`, "invalid", ""},
		{`{"type":"step/start","seq":3,"data":{"turn":1,"step":2}}`, "", "1/2"},
		{`{"type":"turn/start","seq":1,"data":{"turn":7}}`, "", "7"},
		{`{"type":"step/start","seq":3,"data":{"step":2}}`, "", ""},
	}
	for _, tt := range tests {
		d := Describe(event(t, tt.row))
		if got := SurfaceText(d.Surface); got != tt.surface {
			t.Errorf("%s: surface %q, want %q", tt.row, got, tt.surface)
		}
		if got := d.TurnStep(); got != tt.turnStep {
			t.Errorf("%s: turn/step %q, want %q", tt.row, got, tt.turnStep)
		}
	}
}

func TestSeqList(t *testing.T) {
	tests := []struct {
		seqs []int64
		want string
	}{
		{nil, ""},
		{[]int64{9}, "9"},
		{[]int64{5, 6}, "5,6"},
		{[]int64{5, 8, 9, 10, 13}, "5,8..10,13"},
		{[]int64{12, 13, 14, 15, 16}, "12..16"},
		{[]int64{19, 20, 8, 9}, "19,20,8,9"},
	}
	for _, tt := range tests {
		if got := SeqList(tt.seqs); got != tt.want {
			t.Errorf("SeqList(%v) = %q, want %q", tt.seqs, got, tt.want)
		}
	}
}

// FuzzDescribe: any row a decoder could hand over is described without a
// panic, on one line.
func FuzzDescribe(f *testing.F) {
	f.Add(`{"type":"tool/result","data":{"message":{"content":[{"type":"tool-result","content":"x"}]}},"sourceEventSeqs":[[1,3],5]}`)
	f.Add(`{"type":"assistant/attempt","data":{"stream":[{"chunk":{"type":"finish","reason":{"reason":{"reason":{}}}}}]}}`)
	f.Add(`{"type":"agent/inbox/spliced","data":{"inserted":[null,1]}}`)
	f.Add(`{"type":"request/header","data":7}`)
	f.Fuzz(func(t *testing.T, row string) {
		v, err := jsonv.Parse([]byte(row))
		if err != nil {
			return
		}
		d := Describe(session.Event{Type: v.Field("type").Text(), Row: v})
		for _, r := range d.Summary {
			if r == '\n' {
				t.Fatalf("summary spans lines: %q", d.Summary)
			}
		}
	})
}
