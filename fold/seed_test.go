package fold_test

import (
	"fmt"
	"testing"
)

// TestLoadChecks checks every refusal of dsh's per-event load checks
// (envelope, payload rules, LLM shapes), word for word, at index 8 of the
// guard log, and that a surface refusal takes the seed prefix.
func TestLoadChecks(t *testing.T) {
	const (
		header    = `{"type":"request/header","seq":8,"time":1,"data":{"header":{"config":%s},"reason":"initial"}}`
		assistant = `{"type":"assistant/message","seq":8,"time":1,"data":{"turn":1,"step":1,"message":{"role":"assistant","content":[],"source":%s,"id":"a8"}%s},"surfaceOp":"append"}`
		tool      = `{"type":"tool/result","seq":8,"time":1,"data":{"turn":1,"step":1,"message":{"role":"tool","source":%s,"toolCallId":"c1","content":[],"isError":false,"id":"r8"}},"surfaceOp":"append"}`
	)
	tests := []struct {
		name string
		row  string
		want string
	}{
		{"unknown envelope key", `{"type":"step/end","seq":8,"time":1,"data":{},"extra":1}`, "seed event at index 8 has an invalid event envelope"},
		{"ignorable false", `{"type":"step/end","seq":8,"time":1,"data":{},"ignorable":false}`, "seed event at index 8 has an invalid event envelope"},
		{"fractional time", `{"type":"step/end","seq":8,"time":1.5,"data":{}}`, "seed event at index 8 has an invalid event envelope"},
		{"no data", `{"type":"step/end","seq":8,"time":1}`, "seed event at index 8 has an invalid event envelope"},
		{"seq not its index", `{"type":"step/end","seq":9,"time":1,"data":{}}`, "seed event at index 8 has seq 9 (expected 8); seed must be contiguous from 0"},
		{"header without model", fmt.Sprintf(header, `{"provider":"p"}`), "seed request/header at index 8 lacks provider/model"},
		{"empty reasoningEffort", fmt.Sprintf(header, `{"provider":"p","model":"m","reasoningEffort":""}`), "seed request/header at index 8 has an invalid reasoningEffort"},
		{"adapter default of an absent field", `{"type":"request/header","seq":8,"time":1,"data":{"header":{"config":{"provider":"p","model":"m"},"adapterDefaults":{"maxTokens":true}},"reason":"initial"}}`, "seed request/header at index 8 has invalid adapterDefaults"},
		{"empty adapterDefaults", `{"type":"request/header","seq":8,"time":1,"data":{"header":{"config":{"provider":"p","model":"m"},"adapterDefaults":{}},"reason":"initial"}}`, "seed request/header at index 8 must omit empty adapterDefaults"},
		{"header system", `{"type":"request/header","seq":8,"time":1,"data":{"header":{"config":{"provider":"p","model":"m"},"system":"x"},"reason":"initial"}}`, "seed request/header at index 8 must omit header.system; use system/message"},
		{"empty tools", `{"type":"request/header","seq":8,"time":1,"data":{"header":{"config":{"provider":"p","model":"m"},"tools":[]},"reason":"initial"}}`, "seed request/header at index 8 must omit empty tools"},
		{"header data not an object", `{"type":"request/header","seq":8,"time":1,"data":[]}`, "seed request/header at index 8 data must be an object"},
		{"retired fallback reason", `{"type":"request/header","seq":8,"time":1,"data":{"header":{"config":{"provider":"p","model":"m"}},"reason":"fallback"}}`, "seed request/header at index 8 has an invalid reason"},
		{"startsSeries false", `{"type":"request/header","seq":8,"time":1,"data":{"header":{"config":{"provider":"p","model":"m"}},"reason":"change","startsSeries":false}}`, "seed request/header at index 8 has an invalid startsSeries marker"},
		{"attempt without stream", `{"type":"assistant/attempt","seq":8,"time":1,"data":{"turn":1,"step":1}}`, "seed assistant/attempt at index 8 has invalid settlement fields"},
		{"user message without id", `{"type":"user/message","seq":8,"time":1,"data":{"content":[],"source":{"kind":"user"},"role":"user","id":""},"surfaceOp":"append"}`, "seed user/message at index 8 lacks an identified message"},
		{"user message in assistant role", `{"type":"user/message","seq":8,"time":1,"data":{"content":[],"source":{"kind":"user"},"role":"assistant","id":"u8"},"surfaceOp":"append"}`, `seed user/message at index 8 message must have role "user"`},
		{"source without kind", `{"type":"user/message","seq":8,"time":1,"data":{"content":[],"source":{},"role":"user","id":"u8"},"surfaceOp":"append"}`, "seed user/message at index 8 message has invalid source"},
		{"content not a list", `{"type":"user/message","seq":8,"time":1,"data":{"content":"hi","source":{"kind":"user"},"role":"user","id":"u8"},"surfaceOp":"append"}`, "seed user/message at index 8 message has invalid content"},
		{"tool-change blocks outside developer", `{"type":"user/message","seq":8,"time":1,"data":{"content":[{"type":"tool-removal","toolName":"bash"}],"source":{"kind":"user"},"role":"user","id":"u8"},"surfaceOp":"append"}`, "seed user/message at index 8 tool-change blocks require developer role"},
		{"system prompt from a plugin", `{"type":"system/message","seq":8,"time":1,"data":{"turn":1,"step":1,"message":{"role":"system","content":[],"source":{"kind":"plugin"},"id":"s8"}},"surfaceOp":"append"}`, "seed system/message at index 8 message must have system-prompt source"},
		{"assistant without model", fmt.Sprintf(assistant, `{"kind":"model","provider":"p"}`, `,"stream":[]`), "seed assistant/message at index 8 message must have model source"},
		{"assistant without stream", fmt.Sprintf(assistant, `{"kind":"model","provider":"p","model":"m"}`, ``), "seed assistant/message at index 8 has invalid settlement fields"},
		{"tool result from a user", fmt.Sprintf(tool, `{"kind":"user","callId":"c1"}`), "seed tool/result at index 8 message must have tool source"},
		{"tool result call ids differ", fmt.Sprintf(tool, `{"kind":"tool","callId":"c2"}`), "seed tool/result at index 8 message has mismatched tool call ids"},
		{"tool error on a success", `{"type":"tool/result","seq":8,"time":1,"data":{"turn":1,"step":1,"message":{"role":"tool","source":{"kind":"tool","callId":"c1"},"toolCallId":"c1","content":[],"isError":false,"id":"r8"},"error":{"name":"E","code":"X"}},"surfaceOp":"append"}`, "seed tool/result at index 8 error requires message.isError === true"},
		{"surface refusal takes the seed prefix", `{"type":"step/end","seq":8,"time":1,"data":{},"surfaceOp":"append"}`, `invalid seed event at index 8: session event "step/end" is not surface-eligible and cannot carry surfaceOp`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := guardFold(t)
			assertRefusal(t, f.Load(event(t, tt.row)), tt.want)
			if f.Next() != 8 {
				t.Error("a refused event was folded")
			}
		})
	}
}
