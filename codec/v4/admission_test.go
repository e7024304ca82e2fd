package v4

import (
	"strings"
	"testing"

	"github.com/dshlog/dshlog/jsonv"
)

// admit returns AdmitRow's refusal text for a row, or "" when admitted.
func admit(t *testing.T, row string) string {
	t.Helper()
	v, err := jsonv.Parse([]byte(row))
	if err != nil {
		t.Fatalf("row %s: %v", row, err)
	}
	if err := AdmitRow(v); err != nil {
		return refusalText(t, err)
	}
	return ""
}

const (
	fe = "SessionFormatError: "
	ue = "SessionFormatUnsupportedMigrationError: "
)

// toolMessage is a first-class v4 tool result message with extra members.
func toolMessage(extra string) string {
	return `{"role":"tool","source":{"kind":"tool","callId":"c"},"toolCallId":"c","content":[{"type":"text","text":"r"}],"id":"r"` + extra + `}`
}

func TestAdmitRow(t *testing.T) {
	tests := []struct{ name, row, want string }{
		{"not an object", `null`, ""},
		{"plain log event", `{"type":"feedback/record","seq":0,"time":1,"data":{"text":"x"}}`, ""},
		{"framing is not admission's job", `{"type":"turn/start"}`, ""},

		// producer-owned sources (assertV4SourceRowAdmission)
		{"user plugin source", `{"type":"user/message","seq":1,"data":{"id":"u","role":"user","source":{"kind":"plugin","plugin":"x"},"content":[]}}`,
			fe + "format v4 message requires a producer-owned source kind"},
		{"assistant plugin source", `{"type":"assistant/message","data":{"message":{"source":{"kind":"plugin"}}}}`,
			fe + "format v4 message requires a producer-owned source kind"},
		{"system plugin source", `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s","role":"system","source":{"kind":"plugin"},"content":[]}}}`,
			fe + "format v4 message requires a producer-owned source kind"},
		{"inbox plugin source", `{"type":"agent/inbox/spliced","data":{"inserted":[1,{"source":{"kind":"plugin"}}]}}`,
			fe + "format v4 message requires a producer-owned source kind"},
		{"title input plugin source", `{"type":"session/title-llm-request","data":{"messages":[{"source":{"kind":"plugin"}}]}}`,
			fe + "format v4 message requires a producer-owned source kind"},
		{"other sources are left to the restore", `{"type":"user/message","data":{"source":{"kind":""},"content":[]}}`, ""},
		{"plugin source outside message slots", `{"type":"team/message/queued","data":{"message":{"source":{"kind":"plugin"}}}}`, ""},

		// retired syntax
		{"retired dispatch", `{"type":"tool/code-dispatch","seq":1,"data":{}}`, ue + "format v4 rejects retired event type tool/code-dispatch"},
		{"retired dispatch start", `{"type":"tool/code-dispatch-start","data":{}}`, ue + "format v4 rejects retired event type tool/code-dispatch-start"},
		{"ignorable retired dispatch", `{"type":"tool/code-dispatch","ignorable":true,"data":{}}`, ""},
		{"header data not object", `{"type":"request/header","data":null}`, fe + "format v4 request/header requires data and header objects"},
		{"header not object", `{"type":"request/header","data":{"header":[]}}`, fe + "format v4 request/header requires data and header objects"},
		{"header system", `{"type":"request/header","data":{"header":{"config":{},"system":""}}}`, fe + "format v4 request/header rejects retired header.system"},
		{"user wrapper", `{"type":"user/message","seq":3,"data":{"id":"u","role":"user","source":{"kind":"user"},"content":[{"type":"tool-result"}]}}`,
			fe + "format v4 user/message at seq 3 content must not contain a released tool-result wrapper"},
		{"wrapper subject without seq", `{"type":"assistant/message","data":{"message":{"content":[{"type":"tool-result"}]}}}`,
			fe + "format v4 assistant/message at seq undefined content must not contain a released tool-result wrapper"},
		{"wrapper subject with odd seq", `{"type":"team/message/queued","seq":[1,[2,null]],"data":{"message":{"content":[{"type":"tool-result"}]}}}`,
			fe + "format v4 team/message/queued at seq 1,2, content must not contain a released tool-result wrapper"},
		{"inbox wrapper", `{"type":"agent/inbox/spliced","seq":-0,"data":{"inserted":[{"content":[{"type":"tool-result"}]}]}}`,
			fe + "format v4 agent/inbox/spliced at seq 0 content must not contain a released tool-result wrapper"},
		{"summary wrapper", `{"type":"compaction/summary","seq":1.5,"data":{"summary":[],"rawOutput":[{"type":"tool-result"}]}}`,
			fe + "format v4 compaction/summary at seq 1.5 content must not contain a released tool-result wrapper"},
		{"dispatch wrapper", `{"type":"tool/ptc-dispatch","seq":"x","data":{"content":[{"type":"tool-result"}]}}`,
			fe + "format v4 tool/ptc-dispatch at seq x content must not contain a released tool-result wrapper"},
		{"stream block-end wrapper", `{"type":"assistant/attempt","seq":4,"data":{"stream":[{"type":"chunk","chunk":{"type":"block-end","block":{"type":"tool-result"}}}]}}`,
			fe + "format v4 assistant/attempt at seq 4 content must not contain a released tool-result wrapper"},
		{"stream block-start wrapper", `{"type":"assistant/message","seq":4,"data":{"message":{"content":[]},"stream":[{"type":"chunk","chunk":{"type":"block-start","blockType":"tool-result"}}]}}`,
			fe + "format v4 assistant/message at seq 4 content must not contain a released tool-result wrapper"},
		{"wrapper in tool arguments is opaque", `{"type":"tool/call","data":{"arguments":{"content":[{"type":"tool-result"}]}}}`, ""},

		// system message fields
		{"system data", `{"type":"system/message","data":1}`, fe + "format v4 system/message data requires an object"},
		{"system turn", `{"type":"system/message","data":{"turn":-1}}`, fe + "system/message turn must be a non-negative safe integer"},
		{"system turn zero", `{"type":"system/message","data":{"turn":0}}`, fe + "format v4 system/message turn must be positive"},
		{"system step", `{"type":"system/message","data":{"turn":1,"step":0}}`, fe + "format v4 system/message step must be positive"},
		{"system message", `{"type":"system/message","data":{"turn":1,"step":1}}`, fe + "format v4 system message requires an object"},
		{"system id", `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":""}}}`, fe + "format v4 system message id requires a string with content"},
		{"system role", `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s","role":"user"}}}`, fe + "format v4 system message requires system role"},
		{"system content", `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s","role":"system","content":{}}}}`, fe + "format v4 system message requires content array"},
		{"system block", `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s","role":"system","content":[1]}}}`, fe + "format v4 system content block requires an object"},
		{"system block type", `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s","role":"system","content":[{"type":""}]}}}`, fe + "format v4 system content type requires a string with content"},
		{"system text", `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s","role":"system","content":[{"type":"reasoning"}]}}}`, fe + "format v4 system content text requires a string"},
		{"system tool-call id", `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s","role":"system","content":[{"type":"tool-call","id":""}]}}}`, fe + "format v4 system tool-call id requires a string with content"},
		{"system tool-call name", `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s","role":"system","content":[{"type":"tool-call","id":"c"}]}}}`, fe + "format v4 system tool-call name requires a string with content"},
		{"system tool-call arguments", `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s","role":"system","content":[{"type":"tool-call","id":"c","name":"n","arguments":{}}]}}}`, fe + "format v4 system tool-call arguments requires a string"},
		{"system wrapper", `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s","role":"system","content":[{"type":"tool-result"}]}}}`, fe + "format v4 system content rejects retired tool-result wrappers"},
		{"system extension block", `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s","role":"system","source":{"kind":"system-prompt"},"content":[{"type":"vendor"}],"x":1}}}`, ""},
		{"system image", `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s","role":"system","content":[{"type":"image"}]}}}`, fe + "format v4 system image attachment requires an object"},
		{"system image id", `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s","role":"system","content":[{"type":"image","attachment":{}}]}}}`, fe + "format v4 system image attachmentId requires a string with content"},
		{"system image media type", `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s","role":"system","content":[{"type":"image","attachment":{"attachmentId":"a","mediaType":"image/bmp"}}]}}}`, fe + "format v4 system image requires a supported mediaType"},
		{"system image bytes", `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s","role":"system","content":[{"type":"image","attachment":{"attachmentId":"a","mediaType":"image/gif","bytes":1.5}}]}}}`, fe + "system image bytes must be a non-negative safe integer"},
		{"system image width", `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s","role":"system","content":[{"type":"image","attachment":{"attachmentId":"a","mediaType":"image/png","bytes":0,"width":0}}]}}}`, fe + "format v4 system image width must be positive"},
		{"system image name", `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s","role":"system","content":[{"type":"image","attachment":{"attachmentId":"a","mediaType":"image/webp","bytes":0,"width":1,"height":1,"name":null}}]}}}`, fe + "format v4 system image name requires a string"},
		{"system image original", `{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s","role":"system","content":[{"type":"image","attachment":{"attachmentId":"a","mediaType":"image/jpeg","bytes":0,"width":1,"height":1,"originalDimensions":{"width":1,"height":0}}}]}}}`, fe + "format v4 system image original height must be positive"},

		// first-class tool results
		{"result data", `{"type":"tool/result","seq":5,"data":[]}`, fe + "format v4 tool/result at seq 5 data must be an object"},
		{"result message", `{"type":"tool/result","seq":5,"data":{}}`, fe + "format v4 tool/result at seq 5 message must be an object"},
		{"released wrapper", `{"type":"tool/result","seq":0,"time":1,"data":{"message":{"role":"user"}}}`, fe + "format v4 tool/result at seq 0 requires a first-class message with a string id"},
		{"result role", `{"type":"tool/result","seq":5,"data":{"message":{"id":"r","role":"user"}}}`, fe + "format v4 tool/result at seq 5 requires a tool-role message"},
		{"result call id", `{"type":"tool/result","seq":5,"data":{"message":{"id":"r","role":"tool","toolCallId":"c","source":{"kind":"tool","callId":"d"}}}}`, fe + "format v4 tool/result at seq 5 requires toolCallId matching its tool source"},
		{"result source kind", `{"type":"tool/result","seq":5,"data":{"message":{"id":"r","role":"tool","toolCallId":"c","source":{"kind":"user","callId":"c"}}}}`, fe + "format v4 tool/result at seq 5 requires a tool source"},
		{"result content", `{"type":"tool/result","seq":5,"data":{"message":{"id":"r","role":"tool","toolCallId":"c","source":{"kind":"tool","callId":"c"}}}}`, fe + "format v4 tool/result at seq 5 requires array content"},
		{"result nested wrapper", `{"type":"tool/result","seq":5,"data":{"message":` + strings.Replace(toolMessage(""), `"text","text":"r"`, `"tool-result"`, 1) + `}}`, fe + "format v4 tool/result at seq 5 content must not contain a released tool-result wrapper"},
		{"result isError", `{"type":"tool/result","seq":5,"data":{"message":` + toolMessage(`,"isError":"yes"`) + `}}`, fe + "format v4 tool/result at seq 5 isError must be boolean when present"},
		{"result error metadata", `{"type":"tool/result","seq":5,"data":{"error":{},"message":` + toolMessage(`,"isError":false`) + `}}`, fe + "format v4 tool/result at seq 5 carries error metadata for a non-error tool result"},
		{"result ok", `{"type":"tool/result","seq":5,"data":{"error":{},"message":` + toolMessage(`,"isError":true`) + `}}`, ""},

		// fork results
		{"fork append", `{"type":"tool/result","seq":7,"surfaceOp":"append","data":{"error":{"name":"ToolNotStartedError","code":"TOOL_NOT_STARTED"},"message":{"role":"tool","source":{"kind":"tool","callId":"c"},"toolCallId":"c","content":[{"type":"text","text":"t"}],"isError":true,"id":"forked-tool-result-c-7"}}}`, ""},
		{"fork replacement", `{"type":"tool/result","seq":9,"surfaceOp":{"op":"replace","startSeq":7,"endSeq":7},"sourceEventSeqs":[7],"data":{"error":{"name":"ToolNotStartedError","code":"TOOL_NOT_STARTED"},"message":{"role":"tool","source":{"kind":"tool","callId":"c"},"toolCallId":"c","content":[{"type":"text","text":"t"}],"isError":true,"id":"forked-tool-result-c-7"}}}`, ""},
		{"fork wrong seq", `{"type":"tool/result","seq":8,"surfaceOp":"append","data":{"error":{"name":"ToolNotStartedError","code":"TOOL_NOT_STARTED"},"message":{"role":"tool","source":{"kind":"tool","callId":"c"},"toolCallId":"c","content":[{"type":"text","text":"t"}],"isError":true,"id":"forked-tool-result-c-7"}}}`, fe + "invalid V4 not-started fork result"},
		{"fork leading zero", `{"type":"tool/result","seq":7,"surfaceOp":"append","data":{"error":{"name":"ToolNotStartedError","code":"TOOL_NOT_STARTED"},"message":{"role":"tool","source":{"kind":"tool","callId":"c"},"toolCallId":"c","content":[{"type":"text","text":"t"}],"isError":true,"id":"forked-tool-result-c-07"}}}`, fe + "invalid V4 not-started fork result"},
		{"fork append cites", `{"type":"tool/result","seq":7,"surfaceOp":"append","sourceEventSeqs":[],"data":{"error":{"name":"ToolNotStartedError","code":"TOOL_NOT_STARTED"},"message":{"role":"tool","source":{"kind":"tool","callId":"c"},"toolCallId":"c","content":[{"type":"text","text":"t"}],"isError":true,"id":"forked-tool-result-c-7"}}}`, fe + "invalid V4 not-started fork result"},
		{"fork replacement cites other", `{"type":"tool/result","seq":9,"surfaceOp":{"op":"replace","startSeq":7,"endSeq":7},"sourceEventSeqs":[[7,7]],"data":{"error":{"name":"ToolNotStartedError","code":"TOOL_NOT_STARTED"},"message":{"role":"tool","source":{"kind":"tool","callId":"c"},"toolCallId":"c","content":[{"type":"text","text":"t"}],"isError":true,"id":"forked-tool-result-c-7"}}}`, fe + "invalid V4 not-started fork result"},
		{"fork error name", `{"type":"tool/result","seq":7,"surfaceOp":"append","data":{"error":{"name":"Error","code":"TOOL_NOT_STARTED"},"message":{"role":"tool","source":{"kind":"tool","callId":"c"},"toolCallId":"c","content":[{"type":"text","text":"t"}],"isError":true,"id":"forked-tool-result-c-7"}}}`, fe + "invalid V4 not-started fork result"},
		{"fork two blocks", `{"type":"tool/result","seq":7,"surfaceOp":"append","data":{"error":{"name":"ToolNotStartedError","code":"TOOL_NOT_STARTED"},"message":{"role":"tool","source":{"kind":"tool","callId":"c"},"toolCallId":"c","content":[{"type":"text","text":"t"},{"type":"text","text":"u"}],"isError":true,"id":"forked-tool-result-c-7"}}}`, fe + "invalid V4 not-started fork result"},

		// developer messages and tool-change blocks
		{"developer data", `{"type":"developer/message","data":1}`, fe + "format v4 developer/message data must be an object"},
		{"developer role", `{"type":"developer/message","data":{"message":{"role":"user"}}}`, fe + "format v4 developer/message requires turn, step, and a developer message"},
		{"developer turn", `{"type":"developer/message","data":{"message":{"role":"developer"}}}`, fe + "developer/message turn must be a non-negative safe integer"},
		{"developer step", `{"type":"developer/message","data":{"turn":1,"step":0,"message":{"role":"developer"}}}`, fe + "developer/message step must be positive"},
		{"developer toolName", `{"type":"developer/message","data":{"turn":1,"step":1,"message":{"role":"developer","content":[{"type":"tool-removal"}]}}}`, fe + "format v4 tool-removal requires a nonempty toolName"},
		{"developer inline tool", `{"type":"developer/message","data":{"turn":1,"step":1,"message":{"role":"developer","content":[{"type":"tool-addition","toolName":"t","tool":{}}]}}}`, fe + "format v4 tool-addition must omit inline tool definitions"},
		{"developer source", `{"type":"developer/message","data":{"turn":1,"step":1,"message":{"id":"d","role":"developer","content":[],"source":{"kind":"plugin"}}}}`, fe + "format v4 developer message requires id, role, content, and a producer-owned source"},
		{"developer headerSeq missing", `{"type":"developer/message","data":{"turn":1,"step":1,"message":{"id":"d","role":"developer","content":[{"type":"tool-addition","toolName":"t"}],"source":{"kind":"tools"}}}}`, fe + "developer/message headerSeq must be a non-negative safe integer"},
		{"developer headerSeq extra", `{"type":"developer/message","data":{"turn":1,"step":1,"headerSeq":3,"message":{"id":"d","role":"developer","content":[],"source":{"kind":"tools"}}}}`, fe + "format v4 developer/message must omit headerSeq without tool additions"},
		{"ignorable developer skipped", `{"type":"developer/message","ignorable":true,"data":1}`, ""},
		{"developer role elsewhere", `{"type":"tool/result","data":{"message":{"role":"developer"}}}`, fe + "format v4 developer/message and developer role must occur together"},
		{"tool change elsewhere", `{"type":"user/message","data":{"content":[{"type":"tool-addition"}]}}`, fe + "format v4 tool-addition requires developer role"},
		{"tool change in summary", `{"type":"compaction/summary","data":{"summary":[{"type":"tool-removal"}]}}`, fe + "format v4 tool-removal requires developer role"},
		{"tool change in stream end", `{"type":"assistant/attempt","data":{"stream":[{"type":"chunk","chunk":{"type":"block-end","block":{"type":"tool-addition"}}}]}}`, fe + "format v4 tool-addition requires developer role"},
		{"tool change in stream start", `{"type":"assistant/attempt","data":{"stream":[{"type":"chunk","chunk":{"type":"block-start","blockType":"tool-removal"}}]}}`, fe + "format v4 tool-change blocks require developer role"},
		{"deferLoading false", `{"type":"request/header","data":{"header":{"tools":[{"name":"t","deferLoading":false}]}}}`, fe + "format v4 tool deferLoading must be true when present"},
		{"deferLoading true", `{"type":"request/header","data":{"header":{"config":{},"tools":[{"name":"t","deferLoading":true}]}}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := admit(t, tt.row); got != tt.want {
				t.Errorf("AdmitRow(%s)\n got %q\nwant %q", tt.row, got, tt.want)
			}
		})
	}
}
