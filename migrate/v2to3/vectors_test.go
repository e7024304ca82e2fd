package v2to3

import (
	"strings"
	"testing"
)

// vectorA is V-A of format-v2-v4.md, from dsh's combined-migration spec.
const vectorA = `{"type":"session","version":2,"id":"combined","createdAt":1,"isSeeded":false,"delegationDepth":0}
{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}
{"type":"step/start","seq":1,"time":2,"data":{"turn":1,"step":1}}
{"type":"user/message","seq":2,"time":3,"data":{"id":"tools-code-mode:message","role":"user","source":{"kind":"plugin","plugin":"tools-code-mode"},"content":[{"type":"text","text":"tool/code-dispatch tools-code-mode"}]},"surfaceOp":"append"}
{"type":"request/header","seq":3,"time":4,"data":{"reason":"initial","header":{"config":{"provider":"mock","model":"mock"},"system":"prompt","tools":[],"adapterDefaults":{}}}}
{"type":"tool/code-dispatch-start","seq":4,"time":5,"data":{"rootCallId":"tools-code-mode:root","parentCallId":"tools-code-mode:root","subCallId":"tools-code-mode:child","name":"run_code","arguments":{}}}
{"type":"tool/code-dispatch-start","seq":5,"time":6,"data":{"rootCallId":"tools-code-mode:root","parentCallId":"tools-code-mode:child","subCallId":"tools-ptc:child","name":"read","arguments":{"path":"tools-code-mode"}}}
{"type":"tool/code-dispatch","seq":6,"time":7,"data":{"rootCallId":"tools-code-mode:root","parentCallId":"tools-code-mode:child","subCallId":"tools-ptc:child","name":"read","arguments":{"path":"tools-code-mode"},"isError":false,"content":[{"type":"text","text":"tool/code-dispatch tools-code-mode"}]}}
{"type":"tool/code-dispatch","seq":7,"time":8,"data":{"rootCallId":"tools-code-mode:root","parentCallId":"tools-code-mode:root","subCallId":"tools-code-mode:child","name":"run_code","arguments":{},"isError":false,"content":[{"type":"text","text":"tool/code-dispatch tools-code-mode"}]}}
{"type":"compaction/prune","seq":8,"time":9,"data":{"shadowedRange":{"start":2,"end":2},"shadowedSeqs":[2],"shadowedTokenCount":17}}
{"type":"user/message","seq":9,"time":10,"data":{"id":"tools-ptc:message","role":"user","source":{"kind":"plugin","plugin":"tools-code-mode"},"content":[{"type":"text","text":"tool/code-dispatch tools-code-mode"}]},"surfaceOp":{"op":"replace","start":2,"end":2},"sourceEventSeqs":[2]}
{"type":"request/header","seq":10,"time":11,"data":{"reason":"change","header":{"config":{"provider":"mock","model":"mock"},"system":"","tools":[],"adapterDefaults":{}}}}
{"type":"step/end","seq":11,"time":12,"data":{"turn":1,"step":1}}
{"type":"turn/end","seq":12,"time":13,"data":{"turn":1,"reason":{"kind":"completed"}}}
`

// vectorAv3 is V-A's v3 intermediate: the derived v4 file of the note with
// the v3 sources that v3→v4 later rewrites.
const vectorAv3 = `{"type":"session","version":3,"id":"combined","createdAt":1,"isSeeded":false,"delegationDepth":0}
{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}
{"type":"step/start","seq":1,"time":2,"data":{"turn":1,"step":1}}
{"type":"system/message","seq":2,"time":2,"data":{"turn":1,"step":1,"message":{"id":"v2-to-v3-system-8c934a9e6ca1cc8e00524e29e2c59a229baa17dc5b4581e806d15b676c618a47","role":"system","source":{"kind":"plugin","plugin":"@deepseek-ai/dsh-system-prompt"},"content":[]}},"surfaceOp":"append"}
{"type":"user/message","seq":3,"time":3,"data":{"id":"tools-code-mode:message","role":"user","source":{"kind":"plugin","plugin":"tools-ptc"},"content":[{"type":"text","text":"tool/code-dispatch tools-code-mode"}]},"surfaceOp":"append"}
{"type":"system/message","seq":4,"time":4,"data":{"turn":1,"step":1,"message":{"id":"v2-to-v3-system-14df68a24ef681dca7b2b778a637740693b43dc7f62cc8b072cad122f7b50616","role":"system","source":{"kind":"plugin","plugin":"@deepseek-ai/dsh-system-prompt"},"content":[{"type":"text","text":"prompt"}]}},"surfaceOp":{"op":"replace","startSeq":2,"endSeq":2},"sourceEventSeqs":[2]}
{"type":"request/header","seq":5,"time":4,"data":{"reason":"initial","header":{"config":{"provider":"mock","model":"mock"}}}}
{"type":"tool/ptc-dispatch-start","seq":6,"time":5,"data":{"rootCallId":"tools-code-mode:root","parentCallId":"tools-code-mode:root","subCallId":"tools-code-mode:child","name":"run_code","arguments":{}}}
{"type":"tool/ptc-dispatch-start","seq":7,"time":6,"data":{"rootCallId":"tools-code-mode:root","parentCallId":"tools-code-mode:child","subCallId":"tools-ptc:child","name":"read","arguments":{"path":"tools-code-mode"}}}
{"type":"tool/ptc-dispatch","seq":8,"time":7,"data":{"rootCallId":"tools-code-mode:root","parentCallId":"tools-code-mode:child","subCallId":"tools-ptc:child","name":"read","arguments":{"path":"tools-code-mode"},"isError":false,"content":[{"type":"text","text":"tool/code-dispatch tools-code-mode"}]}}
{"type":"tool/ptc-dispatch","seq":9,"time":8,"data":{"rootCallId":"tools-code-mode:root","parentCallId":"tools-code-mode:root","subCallId":"tools-code-mode:child","name":"run_code","arguments":{},"isError":false,"content":[{"type":"text","text":"tool/code-dispatch tools-code-mode"}]}}
{"type":"compaction/prune","seq":10,"time":9,"data":{"shadowedRange":{"start":3,"end":3},"shadowedSeqs":[3],"shadowedTokenCount":17}}
{"type":"user/message","seq":11,"time":10,"data":{"id":"tools-ptc:message","role":"user","source":{"kind":"plugin","plugin":"tools-ptc"},"content":[{"type":"text","text":"tool/code-dispatch tools-code-mode"}]},"surfaceOp":{"op":"replace","startSeq":3,"endSeq":3},"sourceEventSeqs":[3]}
{"type":"system/message","seq":12,"time":11,"data":{"turn":1,"step":1,"message":{"id":"v2-to-v3-system-52ea1de13efd9c4b484db5c78497094a950f0255a37bbd0f7463390cab8bdf35","role":"system","source":{"kind":"plugin","plugin":"@deepseek-ai/dsh-system-prompt"},"content":[]}},"surfaceOp":{"op":"replace","startSeq":4,"endSeq":4},"sourceEventSeqs":[4]}
{"type":"request/header","seq":13,"time":11,"data":{"reason":"change","header":{"config":{"provider":"mock","model":"mock"}}}}
{"type":"step/end","seq":14,"time":12,"data":{"turn":1,"step":1}}
{"type":"turn/end","seq":15,"time":13,"data":{"turn":1,"reason":{"kind":"completed"}}}
`

func TestVectorA(t *testing.T) {
	r := migrateV2(t, vectorA, -1)
	if r.err != nil {
		t.Fatal(r.text())
	}
	want := strings.Split(strings.TrimSuffix(vectorAv3, "\n"), "\n")
	if len(r.lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(r.lines), len(want), strings.Join(r.lines, "\n"))
	}
	for i := range want {
		if r.lines[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i, r.lines[i], want[i])
		}
	}
	if r.cut != 0 {
		t.Errorf("cut %d", r.cut)
	}
}
