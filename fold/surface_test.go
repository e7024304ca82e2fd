package fold_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/session"
)

// guardBase is a small open turn: a system prompt (2), a user message with
// two images (3), a header declaring tools (4), an assistant call (5), its
// tool/call (6) and result (7). Every guard case appends one event at 8.
var guardBase = []string{
	`{"type":"turn/start","seq":0,"time":100,"data":{"turn":1}}`,
	`{"type":"step/start","seq":1,"time":100,"data":{"turn":1,"step":1}}`,
	`{"type":"system/message","seq":2,"time":101,"data":{"turn":1,"step":1,"message":{"role":"system","content":[{"type":"text","text":"be brief"}],"source":{"kind":"system-prompt"},"id":"sys"}},"surfaceOp":"append"}`,
	`{"type":"user/message","seq":3,"time":102,"data":{"content":[{"type":"text","text":"look"},{"type":"image","attachment":"a"},{"type":"image","attachment":"b","offloaded":true}],"source":{"kind":"user"},"role":"user","id":"u1"},"surfaceOp":"append"}`,
	`{"type":"request/header","seq":4,"time":103,"data":{"header":{"config":{"provider":"p","model":"m"},"tools":[{"name":"bash","description":"run","parameters":{}},{"name":"lazy","description":"later","parameters":{},"deferLoading":false},{"name":"half","parameters":{}},{"name":"twice","description":"a","parameters":{}},{"name":"twice","description":"b","parameters":{}}]},"reason":"initial"}}`,
	`{"type":"assistant/message","seq":5,"time":104,"data":{"turn":1,"step":1,"message":{"role":"assistant","content":[{"type":"tool-call","id":"c1","name":"bash","arguments":"{}"}],"source":{"kind":"model","provider":"p","model":"m"},"id":"a1"},"stream":[]},"surfaceOp":"append"}`,
	`{"type":"tool/call","seq":6,"time":105,"data":{"turn":1,"step":1,"callId":"c1","name":"bash","arguments":"{}"}}`,
	`{"type":"tool/result","seq":7,"time":106,"data":{"turn":1,"step":1,"message":{"role":"tool","source":{"kind":"tool","callId":"c1"},"toolCallId":"c1","content":[{"type":"text","text":"ok"}],"isError":false,"id":"r1"}},"sourceEventSeqs":[6],"surfaceOp":"append"}`,
}

func guardFold(t *testing.T) *fold.Fold {
	t.Helper()
	f := fold.New()
	for _, row := range guardBase {
		if err := f.Apply(event(t, row)); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// Rows appended at 8 by the guard cases.
const (
	user8     = `{"type":"user/message","seq":8,"time":107,"data":{"content":[{"type":"text","text":"s"}],"source":{"kind":"compaction"},"role":"user","id":"u8"}`
	dev8      = `{"type":"developer/message","seq":8,"time":107,"data":{"turn":1,"step":1,"message":{"role":"developer","content":[{"type":"tool-addition","toolName":"%s"}],"source":{"kind":"tool-registry"},"id":"d8"},"headerSeq":4},"surfaceOp":"append"}`
	result8   = `{"type":"tool/result","seq":8,"time":107,"data":{"turn":1,"step":1,"message":{"role":"tool","source":{"kind":"tool","callId":"c1"},"toolCallId":"c1","content":[{"type":"text","text":"shorter"}],"isError":false,"id":"r1"}},"sourceEventSeqs":[7],"surfaceOp":{"op":"replace","startSeq":7,"endSeq":7}}`
	offload8  = `{"type":"image/offload","seq":8,"time":107,"data":`
	replace37 = `,"sourceEventSeqs":[3,5,7],"surfaceOp":{"op":"replace","startSeq":3,"endSeq":7}}`
)

// TestSurfaceGuards checks every refusal of dsh's surface fold, word for
// word, and that a refused event leaves the fold unchanged.
func TestSurfaceGuards(t *testing.T) {
	tests := []struct {
		name string
		row  string
		want string
	}{
		{"seq gap", `{"type":"turn/end","seq":9,"time":1,"data":{}}`, "session event seq 9 is not contiguous; expected 8"},
		{"log-only surfaceOp", `{"type":"step/end","seq":8,"time":1,"data":{},"surfaceOp":"append"}`, `session event "step/end" is not surface-eligible and cannot carry surfaceOp`},
		{"log-only sources", `{"type":"step/end","seq":8,"time":1,"data":{},"sourceEventSeqs":[1]}`, `session event "step/end" is not surface-eligible and cannot carry sourceEventSeqs`},
		{"unknown type with surfaceOp", `{"type":"plugin/x","seq":8,"time":1,"data":{},"surfaceOp":"append"}`, `session event "plugin/x" is not surface-eligible and cannot carry surfaceOp`},
		{"known ignorable is still checked", `{"type":"step/end","seq":8,"time":1,"data":{},"surfaceOp":"append","ignorable":true}`, `session event "step/end" is not surface-eligible and cannot carry surfaceOp`},
		{"no surfaceOp", user8 + `}`, `session event "user/message" is surface-eligible and requires a surfaceOp marker`},
		{"null surfaceOp", user8 + `,"surfaceOp":null}`, `session event "user/message" carries an invalid surfaceOp`},
		{"unknown surfaceOp string", user8 + `,"surfaceOp":"prepend"}`, `session event "user/message" carries an invalid surfaceOp`},
		{"array surfaceOp", user8 + `,"surfaceOp":[]}`, `session event "user/message" carries an invalid surfaceOp`},
		{"replace with an extra key", user8 + `,"surfaceOp":{"op":"replace","startSeq":3,"endSeq":3,"x":1}}`, `session event "user/message" carries an invalid replace surfaceOp`},
		{"replace with -0", user8 + `,"surfaceOp":{"op":"replace","startSeq":-0,"endSeq":3}}`, `session event "user/message" carries an invalid replace surfaceOp`},
		{"replace naming itself", user8 + `,"surfaceOp":{"op":"replace","startSeq":3,"endSeq":8}}`, "surface replace at seq 8: startSeq and endSeq must reference earlier events"},
		{"assistant sources", `{"type":"assistant/message","seq":8,"time":1,"data":{"turn":1,"step":1,"message":{"role":"assistant","content":[],"source":{"kind":"model","provider":"p","model":"m"},"id":"a8"},"stream":[]},"sourceEventSeqs":[3],"surfaceOp":"append"}`, "assistant/message embeds its source stream and cannot carry sourceEventSeqs"},
		{"sources not an array", user8 + `,"sourceEventSeqs":3,"surfaceOp":"append"}`, "sourceEventSeqs on event at seq 8 must be an array when present"},
		{"empty sources", user8 + `,"sourceEventSeqs":[],"surfaceOp":"append"}`, "sourceEventSeqs must not be empty"},
		{"fractional source", user8 + `,"sourceEventSeqs":[1.5],"surfaceOp":"append"}`, `session event "user/message" sourceEventSeqs must densely contain non-negative safe integers`},
		{"duplicate sources", user8 + `,"sourceEventSeqs":[3,3],"surfaceOp":"append"}`, "sourceEventSeqs must not contain duplicates"},
		{"later source", user8 + `,"sourceEventSeqs":[3,9,8],"surfaceOp":"append"}`, "sourceEventSeqs must reference earlier events: 9 >= current seq 8"},
		{"start not a node", user8 + `,"sourceEventSeqs":[4],"surfaceOp":{"op":"replace","startSeq":4,"endSeq":5}}`, "surface replace: start seq 4 not found in surface"},
		{"end not a node", user8 + `,"sourceEventSeqs":[3],"surfaceOp":{"op":"replace","startSeq":3,"endSeq":6}}`, "surface replace: end seq 6 not found in surface"},
		{"start after end", user8 + `,"sourceEventSeqs":[3,5],"surfaceOp":{"op":"replace","startSeq":5,"endSeq":3}}`, "surface replace: start seq 5 (index 2) is after end seq 3 (index 1)"},
		{"coverage", user8 + `,"sourceEventSeqs":[3,7],"surfaceOp":{"op":"replace","startSeq":3,"endSeq":7}}`, "surface replace: sourceEventSeqs must include every shadowed surface node; missing 5"},
		{"tool result over two nodes", `{"type":"tool/result","seq":8,"time":1,"data":{"turn":1,"step":1,"message":{"role":"tool","source":{"kind":"tool","callId":"c1"},"toolCallId":"c1","content":[],"isError":false,"id":"r1"}}` + replace37, "tool/result surface replacement must rewrite exactly one current node"},
		{"tool result over a user message", `{"type":"tool/result","seq":8,"time":1,"data":{"turn":1,"step":1,"message":{"role":"tool","source":{"kind":"tool","callId":"c1"},"toolCallId":"c1","content":[],"isError":false,"id":"r1"}},"sourceEventSeqs":[3],"surfaceOp":{"op":"replace","startSeq":3,"endSeq":3}}`, "tool/result surface replacement must target a current tool/result"},
		{"tool result changing its id", `{"type":"tool/result","seq":8,"time":1,"data":{"turn":1,"step":1,"message":{"role":"tool","source":{"kind":"tool","callId":"c1"},"toolCallId":"c1","content":[],"isError":false,"id":"r2"}},"sourceEventSeqs":[7],"surfaceOp":{"op":"replace","startSeq":7,"endSeq":7}}`, "tool/result surface replacement may change only content"},
		{"node 0 by a user message", user8 + `,"sourceEventSeqs":[2],"surfaceOp":{"op":"replace","startSeq":2,"endSeq":2}}`, "surface replace: node 0 holds the system prompt and may be rewritten only by a system/message over exactly that node"},
		{"node 0 and more by a system message", `{"type":"system/message","seq":8,"time":1,"data":{"turn":1,"step":1,"message":{"role":"system","content":[],"source":{"kind":"system-prompt"},"id":"s8"}},"sourceEventSeqs":[2,3],"surfaceOp":{"op":"replace","startSeq":2,"endSeq":3}}`, "surface replace: node 0 holds the system prompt and may be rewritten only by a system/message over exactly that node"},
		{"developer role mismatch", `{"type":"developer/message","seq":8,"time":1,"data":{"turn":1,"step":1,"message":{"role":"user","content":[],"source":{"kind":"tool-registry"},"id":"d8"}},"surfaceOp":"append"}`, "developer/message at seq 8 developer/message and developer role must occur together"},
		{"developer empty toolName", fmt.Sprintf(dev8, ""), "developer/message at seq 8 tool-addition requires a nonempty toolName"},
		{"developer inline tool", `{"type":"developer/message","seq":8,"time":1,"data":{"turn":1,"step":1,"message":{"role":"developer","content":[{"type":"tool-addition","toolName":"bash","tool":{}}],"source":{"kind":"tool-registry"},"id":"d8"},"headerSeq":4},"surfaceOp":"append"}`, "developer/message at seq 8 tool-addition must omit inline tool definitions"},
		{"developer headerSeq without additions", `{"type":"developer/message","seq":8,"time":1,"data":{"turn":1,"step":1,"message":{"role":"developer","content":[{"type":"tool-removal","toolName":"bash"}],"source":{"kind":"tool-registry"},"id":"d8"},"headerSeq":4},"surfaceOp":"append"}`, "developer/message at seq 8 requires headerSeq exactly when tool additions are present"},
		{"developer headerSeq not a header", `{"type":"developer/message","seq":8,"time":1,"data":{"turn":1,"step":1,"message":{"role":"developer","content":[{"type":"tool-addition","toolName":"bash"}],"source":{"kind":"tool-registry"},"id":"d8"},"headerSeq":3},"surfaceOp":"append"}`, "developer/message headerSeq must reference an earlier request/header"},
		{"developer unknown tool", fmt.Sprintf(dev8, "grep"), `developer/message tool-addition "grep" must name exactly one tool in headerSeq 4`},
		{"developer ambiguous tool", fmt.Sprintf(dev8, "twice"), `developer/message tool-addition "twice" must name exactly one tool in headerSeq 4`},
		{"developer incomplete tool", fmt.Sprintf(dev8, "half"), `developer/message tool-addition "half" requires a complete tool definition in headerSeq 4`},
		{"developer deferLoading false", fmt.Sprintf(dev8, "lazy"), "developer/message referenced tool deferLoading must be true when present"},
		{"offload without targets", offload8 + `{"targets":[]}}`, "image/offload: data must contain a nonempty targets array"},
		{"offload with extra data", offload8 + `{"targets":[{"seq":3,"imageIndexes":[0]}],"x":1}}`, "image/offload: data must contain a nonempty targets array"},
		{"offload target shape", offload8 + `{"targets":[{"seq":3,"imageIndexes":[]}]}}`, "image/offload: each target must contain a seq and nonempty imageIndexes"},
		{"offload duplicate target", offload8 + `{"targets":[{"seq":3,"imageIndexes":[0]},{"seq":3,"imageIndexes":[0]}]}}`, "image/offload: duplicate target seq 3"},
		{"offload not a node", offload8 + `{"targets":[{"seq":4,"imageIndexes":[0]}]}}`, "image/offload: target seq 4 is not a current surface node"},
		{"offload an assistant message", offload8 + `{"targets":[{"seq":5,"imageIndexes":[0]}]}}`, "image/offload: target seq 5 must be user/message or tool/result"},
		{"offload indexes not increasing", offload8 + `{"targets":[{"seq":3,"imageIndexes":[1,0]}]}}`, "image/offload: imageIndexes must be strictly increasing non-negative safe integers"},
		{"offload an offloaded image", offload8 + `{"targets":[{"seq":3,"imageIndexes":[1]}]}}`, "image/offload: image index 1 is already offloaded"},
		{"offload a missing image", offload8 + `{"targets":[{"seq":3,"imageIndexes":[0,2]}]}}`, "image/offload: image index 2 does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := guardFold(t)
			nodes, messages := f.Nodes(), string(encodeArray(f.Messages()))
			assertRefusal(t, f.Apply(event(t, tt.row)), tt.want)
			if f.Next() != 8 || !slices.Equal(f.Nodes(), nodes) || string(encodeArray(f.Messages())) != messages || f.ContentGeneration() != 0 {
				t.Error("a refused event changed the fold")
			}
		})
	}
}

// TestSurfaceAccepts covers the transitions the guards let through.
func TestSurfaceAccepts(t *testing.T) {
	t.Run("unknown ignorable event is opaque", func(t *testing.T) {
		f := guardFold(t)
		apply(t, f, `{"type":"plugin/x","seq":8,"time":1,"data":{},"surfaceOp":"bogus","sourceEventSeqs":"bogus","ignorable":true}`)
		if !slices.Equal(f.Nodes(), []int64{2, 3, 5, 7}) {
			t.Errorf("nodes = %v", f.Nodes())
		}
	})
	t.Run("tool result rewrites only its content", func(t *testing.T) {
		f := guardFold(t)
		apply(t, f, result8)
		if !slices.Equal(f.Nodes(), []int64{2, 3, 5, 8}) || f.ReplaceGeneration() != 1 {
			t.Errorf("nodes = %v, generation %d", f.Nodes(), f.ReplaceGeneration())
		}
		last := f.Messages()[3]
		if last.Field("content").Index(0).Field("text").Text() != "shorter" {
			t.Errorf("rewritten result = %s", last)
		}
	})
	t.Run("compaction range with ranges in sources", func(t *testing.T) {
		f := guardFold(t)
		apply(t, f, user8+`,"sourceEventSeqs":[[3,7]],"surfaceOp":{"op":"replace","startSeq":3,"endSeq":7}}`)
		r := f.Replacements()
		if !slices.Equal(f.Nodes(), []int64{2, 8}) || len(r) != 1 || !slices.Equal(r[0].ShadowedSeqs, []int64{3, 5, 7}) {
			t.Errorf("nodes = %v, replacements %+v", f.Nodes(), r)
		}
	})
	t.Run("a replacement can be replaced", func(t *testing.T) {
		f := guardFold(t)
		apply(t, f, user8+`,"sourceEventSeqs":[3,5],"surfaceOp":{"op":"replace","startSeq":3,"endSeq":5}}`)
		apply(t, f, `{"type":"user/message","seq":9,"time":108,"data":{"content":[],"source":{"kind":"compaction"},"role":"user","id":"u9"},"sourceEventSeqs":[8,7],"surfaceOp":{"op":"replace","startSeq":8,"endSeq":7}}`)
		if !slices.Equal(f.Nodes(), []int64{2, 9}) || f.ReplaceGeneration() != 2 || f.MessageCount() != 2 {
			t.Errorf("nodes = %v, generation %d, %d messages", f.Nodes(), f.ReplaceGeneration(), f.MessageCount())
		}
	})
	t.Run("image offload projects without changing nodes", func(t *testing.T) {
		f := guardFold(t)
		apply(t, f, offload8+`{"targets":[{"seq":3,"imageIndexes":[0]}]}}`)
		if f.ContentGeneration() != 1 || f.ReplaceGeneration() != 0 || !slices.Equal(f.Nodes(), []int64{2, 3, 5, 7}) {
			t.Errorf("generations %d/%d, nodes %v", f.ReplaceGeneration(), f.ContentGeneration(), f.Nodes())
		}
		want := `{"content":[{"type":"text","text":"look"},{"type":"image","attachment":"a","offloaded":true},{"type":"image","attachment":"b","offloaded":true}],"source":{"kind":"user"},"role":"user","id":"u1"}`
		if got := f.Messages()[1].String(); got != want {
			t.Errorf("projected message = %s\nwant %s", got, want)
		}
	})
	t.Run("developer message adds a tool to the history", func(t *testing.T) {
		f := fold.New()
		rows := append([]string{}, guardBase[:4]...)
		rows = append(rows,
			`{"type":"request/header","seq":4,"time":103,"data":{"header":{"config":{"provider":"p","model":"m"},"tools":[{"name":"bash","description":"run","parameters":{}}]},"reason":"initial"}}`,
			`{"type":"request/header","seq":5,"time":104,"data":{"header":{"config":{"provider":"p","model":"m"},"tools":[{"name":"bash","description":"run","parameters":{}},{"name":"grep","description":"find","parameters":{}}]},"reason":"change"}}`,
			`{"type":"developer/message","seq":6,"time":105,"data":{"turn":1,"step":1,"message":{"role":"developer","content":[{"type":"tool-addition","toolName":"grep"}],"source":{"kind":"tool-registry"},"id":"d6"},"headerSeq":5},"surfaceOp":"append"}`,
		)
		for _, row := range rows {
			apply(t, f, row)
		}
		history := f.ToolHistory()
		want := `{"tools":[{"name":"bash","description":"run","parameters":{}}],"updates":[{"messageId":"d6","additions":[{"name":"grep","description":"find","parameters":{}}]}]}`
		if got := history.String(); got != want {
			t.Errorf("tool history = %s\nwant %s", got, want)
		}
		// A developer message with content is a message of the model's view.
		if roles := roles(f.Messages()); !slices.Equal(roles, []string{"system", "user", "developer"}) {
			t.Errorf("roles = %v", roles)
		}
	})
	t.Run("duplicate tool names fall back to the active tools", func(t *testing.T) {
		f := guardFold(t)
		apply(t, f, fmt.Sprintf(dev8, "bash"))
		history := f.ToolHistory()
		if history.Field("updates").Len() != 0 || history.Field("tools").Len() != 5 {
			t.Errorf("tool history = %s", history)
		}
	})
}

func apply(t *testing.T, f *fold.Fold, row string) {
	t.Helper()
	if err := f.Apply(event(t, row)); err != nil {
		t.Fatal(err)
	}
}

// TestCloserCauses checks the wording, ids and order of crash and fork
// closers on one open step with a started and an unstarted call.
func TestCloserCauses(t *testing.T) {
	f := guardFold(t)
	apply(t, f, `{"type":"assistant/message","seq":8,"time":200,"data":{"turn":1,"step":1,"message":{"role":"assistant","content":[{"type":"tool-call","id":"c2","name":"bash","arguments":"{}"},{"type":"tool-call","id":"c3","name":"bash","arguments":"{}"}],"source":{"kind":"model","provider":"p","model":"m"},"id":"a8"},"stream":[]},"surfaceOp":"append"}`)
	apply(t, f, `{"type":"tool/call","seq":9,"time":201,"data":{"turn":1,"step":1,"callId":"c3","name":"bash","arguments":"{}"}}`)
	tests := []struct {
		cause      fold.Cause
		closers    []session.Event
		firstSeq   int64
		c2, c3, id string
	}{
		{fold.Interrupted, f.InterruptedTurnClosers(), 10,
			"The tool call was interrupted before the Harness recorded it as started. Retry it if it is still needed.",
			"The tool call was interrupted after it was recorded, but no result was durably recorded. Its outcome is unknown. Decide whether to retry from the tool semantics: retry only if the operation is read-only or idempotent; if it may have side effects, first verify external state or ask the user. Do not retry blindly.",
			"interrupted-tool-result-c2-10"},
		{fold.Forked, f.ForkTail()[1:], 11,
			"The history inherited by this branch has no record of this tool call starting. The parent session may have executed it after the fork point. Decide whether to retry from the tool semantics: retry only if the operation is read-only or idempotent; if it may have side effects, first verify external state or ask the user. Do not retry blindly.",
			"The history inherited by this branch records this tool call starting but does not include its result. The parent session may have completed it after the fork point. Decide whether to retry from the tool semantics: retry only if the operation is read-only or idempotent; if it may have side effects, first verify external state or ask the user. Do not retry blindly.",
			"forked-tool-result-c2-11"},
	}
	for _, tt := range tests {
		t.Run(string(tt.cause), func(t *testing.T) {
			c := tt.closers
			if len(c) != 4 {
				t.Fatalf("%d closers, want 4", len(c))
			}
			text := func(i int) string { return c[i].Data().Field("message").Field("content").Index(0).Field("text").Text() }
			if text(0) != tt.c2 || text(1) != tt.c3 || c[0].Data().Field("message").Field("id").Text() != tt.id {
				t.Errorf("texts or id wrong: %s / %s", c[0].Row, c[1].Row)
			}
			if c[0].Row.Has("sourceEventSeqs") || c[1].Row.Field("sourceEventSeqs").String() != "[9]" {
				t.Errorf("sources: %s / %s", c[0].Row, c[1].Row)
			}
			if c[0].Data().Field("error").String() != `{"name":"ToolNotStartedError","code":"TOOL_NOT_STARTED"}` || c[1].Data().Field("error").String() != `{"name":"ToolOutcomeUnknownError","code":"TOOL_OUTCOME_UNKNOWN"}` {
				t.Errorf("errors: %s / %s", c[0].Row, c[1].Row)
			}
			for i, ev := range c {
				if ev.Seq != tt.firstSeq+int64(i) || ev.Time != 201 {
					t.Errorf("closer %d at seq %d time %d", i, ev.Seq, ev.Time)
				}
			}
			wantEnd := `{"turn":1,"reason":{"kind":"` + string(tt.cause) + `"}}`
			if c[2].Type != "step/end" || c[2].Data().String() != `{"turn":1,"step":1}` || c[3].Type != "turn/end" || c[3].Data().String() != wantEnd {
				t.Errorf("step/turn ends: %s / %s", c[2].Row, c[3].Row)
			}
		})
	}
	t.Run("closed step is never repaired", func(t *testing.T) {
		g := guardFold(t)
		apply(t, g, `{"type":"step/end","seq":8,"time":300,"data":{"turn":1,"step":1}}`)
		c := g.InterruptedTurnClosers()
		if len(c) != 1 || c[0].Row.String() != `{"type":"turn/end","seq":9,"time":300,"data":{"turn":1,"reason":{"kind":"interrupted"}}}` {
			t.Errorf("closers = %v", c)
		}
	})
}
