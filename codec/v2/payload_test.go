package v2

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// validPayloads holds one valid data object per released-v0 type, the
// fixture of dsh's own validation spec (v0-to-v1/tests/validation.spec.ts).
var validPayloads = map[string]string{
	"agent-preset/selected":                  `{"agentPreset":"default"}`,
	"agent/inbox/spliced":                    `{"target":"next-turn","start":0,"inserted":[` + userMessage + `]}`,
	"approval/asked":                         `{"id":"approval-1","toolName":"bash","callId":"call-1","reason":"needed"}`,
	"approval/decided":                       `{"id":"approval-1","outcome":"allowed-once"}`,
	"approval/policy":                        `{"policy":"ask","source":"delegation"}`,
	"assistant/chunk":                        `{"turn":1,"step":0,"chunk":{"type":"text-delta","index":0,"text":"x"}}`,
	"assistant/message":                      `{"turn":1,"step":0,"message":` + assistantMessage + `,"usage":{"inputTokens":1,"outputTokens":1}}`,
	"command/done":                           `{"commandId":"command-1","kind":"success","sourceEventSeq":0}`,
	"command/run":                            `{"commandId":"command-1","name":"compact","args":" now","source":{"kind":"user"}}`,
	"compaction/end":                         `{"compactionId":"compact-1","turn":null}`,
	"compaction/prune":                       `{"shadowedRange":{"start":0,"end":1},"shadowedSeqs":[0,1],"shadowedTokenCount":2}`,
	"compaction/start":                       `{"compactionId":"compact-1","turn":1}`,
	"compaction/summary":                     `{"compactionId":"compact-1","summary":[{"type":"text","text":"text"}],"shadowedRange":{"start":0,"end":1},"shadowedSeqs":[0,1],"shadowedTokenCount":2,"provider":"mock","model":"mock","rawOutput":[{"type":"text","text":"text"}],"llmStreamCall":true}`,
	"feedback/record":                        `{"text":"feedback"}`,
	"goal/change":                            `{"kind":"goal/change","version":1,"operation":"create","goal":{"id":"goal-1","revision":1,"objective":"ship","phase":"active","maxGoalRounds":3},"roundsStarted":0,"createdAt":1,"updatedAt":1}`,
	"hook/invoked":                           `{"turn":1,"point":"PreToolUse","dialect":"claude-code","handlerId":"hook-1"}`,
	"hook/result":                            `{"turn":1,"point":"PreToolUse","handlerId":"hook-1","decision":"pass","durationMs":1}`,
	"llm/retry":                              `{"retryId":"retry-1","turn":1,"step":0,"provider":"mock","mode":"normal","policyKey":"default","retry":1,"maxRetries":2,"delayMs":10,"failure":{"message":"retry","code":"SERVER"}}`,
	"llm/retry-started":                      `{"retryId":"retry-1","turn":1,"step":0,"retry":1}`,
	"model/selection":                        `{"provider":"mock","model":"mock","reasoningEffort":"high"}`,
	"permission/preset":                      `{"preset":"default"}`,
	"plan/mode":                              `{"active":true}`,
	"request/context":                        `{"provider":"mock","model":"mock","contextWindow":8192}`,
	"request/header":                         `{"header":{"config":{"provider":"mock","model":"mock","reasoningEffort":"high","maxTokens":100},"adapterDefaults":{"reasoningEffort":true,"maxTokens":true},"system":"system","tools":[{"name":"tool","description":"Tool","parameters":{"type":"object"}}]},"reason":"initial"}`,
	"sandbox/mode":                           `{"mode":"workspace-write","source":"delegation"}`,
	"schedule/change":                        `{"version":1,"operation":"create","schedule":{"id":"schedule-1","kind":"after","prompt":"remember","afterSeconds":60,"scheduledAt":"2026-08-31T00:00:00.000Z"}}`,
	"session-log-deepseek/delivery-accepted": `{"sessionId":"validation","throughSeq":0,"sessionFormatVersion":1}`,
	"session/end-seed":                       `{}`,
	"session/title":                          `{"title":"Title","messageSeqs":[0],"source":{"kind":"fallback"}}`,
	"session/title-llm-request":              `{"titleProvider":"title-1","messageSeqs":[0],"route":{"provider":"mock","model":"mock"},"system":"title","messages":[` + userMessage + `],"maxTokens":20}`,
	"step/end":                               `{"turn":1,"step":0}`,
	"step/start":                             `{"turn":1,"step":0}`,
	"subagent/descriptor":                    `{"mode":"continuable","version":3,"provider":"in-process","label":"child","agentProvider":"mock","agentModel":"mock","toolFilter":{"allow":["read"]}}`,
	"subagent/model-selection-policy":        `{"allowedModels":[{"provider":"mock","model":"mock"}]}`,
	"team/member":                            `{"version":1,"teamId":"team-1","member":{"id":"member-1","name":"worker","description":"work","provider":"in-process","context":"fresh","phase":"active"}}`,
	"team/message/delivered":                 `{"version":1,"teamId":"team-1","messageId":"message-1","targetId":"member-1"}`,
	"team/message/queued":                    `{"version":1,"teamId":"team-1","message":{"id":"message-1","senderId":"lead","senderName":"lead","targetId":"member-1","delivery":"quiet","content":[{"type":"text","text":"text"}]}}`,
	"team/task":                              `{"version":1,"teamId":"team-1","task":{"id":"task-1","revision":1,"subject":"subject","description":"description","status":"pending","blockedBy":[],"writeScopes":["/work"]}}`,
	"todo/write":                             `{"todos":[{"content":"work","status":"in_progress"}]}`,
	"tool-workflow/agent-end":                `{"runId":"run-1","seq":1,"outcome":"completed"}`,
	"tool-workflow/agent-start":              `{"runId":"run-1","seq":1,"label":"worker","phase":"build","childId":"child-1"}`,
	"tool-workflow/run-end":                  `{"runId":"run-1","stopReason":"completed"}`,
	"tool-workflow/run-start":                `{"runId":"run-1","name":"workflow"}`,
	"tool/call":                              `{"turn":1,"step":0,"callId":"call-1","name":"read","arguments":"{}"}`,
	"tool/code-dispatch":                     `{"rootCallId":"root","parentCallId":"parent","subCallId":"sub","name":"read","arguments":{"path":"/work"},"isError":false,"content":[{"type":"text","text":"text"}]}`,
	"tool/code-dispatch-start":               `{"rootCallId":"root","parentCallId":"parent","subCallId":"sub","name":"read","arguments":{"path":"/work"}}`,
	"tool/result":                            `{"turn":1,"step":0,"message":` + toolMessage + `,"error":{"name":"Error","code":"FAILED"},"meta":{"seq":999}}`,
	"turn/end":                               `{"turn":1,"reason":{"kind":"completed"}}`,
	"turn/start":                             `{"turn":1}`,
	"user/message":                           userMessage,
	"web/deepseek-search-llm-request":        `{"endpoint":"https://example.test/messages","apiVersion":"2023-06-01","body":{"model":"deepseek-chat","max_tokens":100,"messages":[{"role":"user","content":[{"type":"text","text":"search"}]}],"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":1}]}}`,
}

const (
	userMessage      = `{"id":"user-1","role":"user","content":[{"type":"text","text":"text"}],"source":{"kind":"user"}}`
	assistantMessage = `{"id":"assistant-1","role":"assistant","content":[{"type":"text","text":"text"}],"source":{"kind":"model","provider":"mock","model":"mock"}}`
	toolMessage      = `{"id":"tool-1","role":"user","content":[{"type":"tool-result","toolCallId":"call-1","content":[{"type":"text","text":"text"}],"isError":false}],"source":{"kind":"tool","callId":"call-1"}}`
)

func payloadEvent(t testing.TB, typ string, data jsonv.Value) session.Event {
	t.Helper()
	row := jsonv.ObjectValue(
		jsonv.M("type", jsonv.StringValue(typ)),
		jsonv.M("seq", jsonv.IntValue(3)),
		jsonv.M("time", jsonv.IntValue(4)),
		jsonv.M("data", data))
	return session.Event{Type: typ, Seq: 3, Time: 4, Row: row}
}

func TestValidPayloadForEveryReleasedType(t *testing.T) {
	if len(validPayloads) != len(v0Inventory) || len(v0Inventory) != 51 {
		t.Fatalf("%d fixtures for %d inventory types, want 51", len(validPayloads), len(v0Inventory))
	}
	for typ, data := range validPayloads {
		if _, ok := v0Inventory[typ]; !ok {
			t.Errorf("fixture %s is not in the inventory", typ)
		}
		if err := CheckEventPayload(payloadEvent(t, typ, sessiontest.Parse(t, data)), 1); err != nil {
			t.Errorf("%s: %s", typ, sessiontest.RefusalText(err))
		}
	}
}

func TestUnexpectedMemberOnEveryPayload(t *testing.T) {
	for typ, data := range validPayloads {
		changed := sessiontest.Parse(t, data).With("unexpected", jsonv.BoolValue(true))
		want := "SessionFormatError: " + typ + " 3 data has unexpected member \"unexpected\""
		if got := sessiontest.RefusalText(CheckEventPayload(payloadEvent(t, typ, changed), 1)); got != want {
			t.Errorf("%s: got %q, want %q", typ, got, want)
		}
	}
}

// TestLeafTypeCorruption replaces every non-opaque leaf and container of
// every fixture with a value of another JSON type, as dsh's spec does, and
// requires a SessionFormatError for each.
func TestLeafTypeCorruption(t *testing.T) {
	mutations := 0
	types := make([]string, 0, len(validPayloads))
	for typ := range validPayloads {
		types = append(types, typ)
	}
	sort.Strings(types)
	for _, typ := range types {
		data := sessiontest.Parse(t, validPayloads[typ])
		for _, path := range leafPaths(typ, data, nil) {
			changed := replaceAt(data, path, wrongType(valueAt(data, path)))
			err := CheckEventPayload(payloadEvent(t, typ, changed), 1)
			if !strings.HasPrefix(sessiontest.RefusalText(err), "SessionFormatError: ") {
				t.Errorf("%s.%s: got %q", typ, strings.Join(path, "."), sessiontest.RefusalText(err))
			}
			mutations++
		}
	}
	if mutations <= 250 {
		t.Errorf("only %d mutations", mutations)
	}
}

func leafPaths(typ string, v jsonv.Value, path []string) [][]string {
	if len(path) > 0 {
		last := path[len(path)-1]
		if slices.Contains(v0Inventory[typ].Opaque, path[0]) || last == "replayState" || last == "parameters" {
			return nil
		}
	}
	var out [][]string
	if len(path) > 0 {
		out = append(out, append([]string(nil), path...))
	}
	switch v.Kind() {
	case jsonv.Array:
		for i, e := range v.Elements() {
			out = append(out, leafPaths(typ, e, append(path, strconv.Itoa(i)))...)
		}
	case jsonv.Object:
		for _, m := range v.Members() {
			out = append(out, leafPaths(typ, m.Value, append(path, m.Key))...)
		}
	}
	return out
}

func valueAt(v jsonv.Value, path []string) jsonv.Value {
	for _, p := range path {
		if v.Kind() == jsonv.Array {
			i, _ := strconv.Atoi(p)
			v = v.Index(i)
		} else {
			v = v.Field(p)
		}
	}
	return v
}

func replaceAt(v jsonv.Value, path []string, with jsonv.Value) jsonv.Value {
	if len(path) == 0 {
		return with
	}
	if v.Kind() == jsonv.Array {
		i, _ := strconv.Atoi(path[0])
		return v.WithIndex(i, replaceAt(v.Index(i), path[1:], with))
	}
	return v.With(path[0], replaceAt(v.Field(path[0]), path[1:], with))
}

func wrongType(v jsonv.Value) jsonv.Value {
	switch v.Kind() {
	case jsonv.Null:
		return jsonv.BoolValue(false)
	case jsonv.String:
		return jsonv.IntValue(1)
	case jsonv.Number, jsonv.Bool:
		return jsonv.StringValue("invalid")
	case jsonv.Array:
		return jsonv.ObjectValue()
	}
	return jsonv.ArrayValue()
}

func TestPayloadRefusals(t *testing.T) {
	tests := []struct {
		name    string
		typ     string
		data    string
		version int
		want    string
	}{
		{"unknown type", "vendor/custom", `{}`, 0,
			`SessionFormatUnsupportedMigrationError: format v0 contains unknown historical event type "vendor/custom" at seq 3; migration refuses unknown historical events even when ignorable`},
		{"data not an object", "turn/start", `[]`, 0, "SessionFormatError: turn/start 3 data must be a JSON object"},
		{"missing member", "turn/start", `{}`, 0, `SessionFormatError: turn/start 3 data lacks required member "turn"`},
		{"unexpected before missing", "step/start", `{"x":1}`, 0, `SessionFormatError: step/start 3 data has unexpected member "x"`},
		{"descriptor v2 in v0", "subagent/descriptor", `{"mode":"one-shot","version":2,"provider":"p"}`, 0,
			"SessionFormatUnsupportedMigrationError: subagent/descriptor 3 uses unsupported descriptor version 2"},
		{"descriptor v2 in v1", "subagent/descriptor", `{"mode":"one-shot","version":2,"provider":"p","anything":1}`, 1, ""},
		{"descriptor bad version", "subagent/descriptor", `{"mode":"one-shot","version":-1,"provider":"p"}`, 1,
			"SessionFormatError: subagent/descriptor 3 version must be a non-negative safe integer"},
		{"opaque -0", "tool/result", `{"turn":1,"step":1,"message":` + toolMessage + `,"meta":{"exitCode":-0}}`, 0,
			"SessionFormatError: tool/result 3 opaque meta is not lossless JSON"},
		{"opaque overflow", "tool/code-dispatch-start", `{"rootCallId":"r","parentCallId":"r","subCallId":"s","name":"n","arguments":{"x":1e400}}`, 0,
			"SessionFormatError: tool/code-dispatch-start 3 opaque arguments is not lossless JSON"},
		{"delivery version in v0", "session-log-deepseek/delivery-accepted", `{"sessionId":"s","throughSeq":0,"sessionFormatVersion":0}`, 0,
			`SessionFormatError: session-log-deepseek/delivery-accepted 3 data has unexpected member "sessionFormatVersion"`},
		{"delivery through later", "session-log-deepseek/delivery-accepted", `{"sessionId":"s","throughSeq":3,"sessionFormatVersion":1}`, 1,
			"SessionFormatError: session-log-deepseek/delivery-accepted 3 throughSeq must identify an earlier event"},
		{"delivery other generation", "session-log-deepseek/delivery-accepted", `{"sessionId":"","throughSeq":99,"sessionFormatVersion":2}`, 1, ""},
		{"literal list", "approval/policy", `{"policy":"sometimes"}`, 0, "SessionFormatError: approval/policy 3 policy must be one of ask, never"},
		{"true literal", "request/header", `{"header":{"config":{"provider":"p","model":"m"}},"reason":"initial","startsSeries":false}`, 0,
			"SessionFormatError: request/header 3 startsSeries must be one of true"},
		{"number literal", "team/task", `{"version":2,"teamId":"t","task":{}}`, 0, "SessionFormatError: team/task 3 version must be one of 1"},
		{"temperature -0", "request/header", `{"header":{"config":{"provider":"p","model":"m","temperature":-0}},"reason":"initial"}`, 2,
			"SessionFormatError: request/header 3 header temperature must be a finite number"},
		{"adapter default without config", "request/header", `{"header":{"config":{"provider":"p","model":"m"},"adapterDefaults":{"maxTokens":true}},"reason":"initial"}`, 0,
			"SessionFormatError: request/header 3 header adapter default maxTokens lacks config value"},
		{"tool schema", "request/header", `{"header":{"config":{"provider":"p","model":"m"},"tools":[{"name":"","description":"","parameters":{}}]},"reason":"initial"}`, 0,
			"SessionFormatError: request/header 3 header tools[0] name must be a non-empty string"},
		{"shadowed endpoints", "compaction/prune", `{"shadowedRange":{"start":0,"end":2},"shadowedSeqs":[0,1],"shadowedTokenCount":2}`, 0,
			"SessionFormatError: compaction/prune 3 shadowedRange must match shadowedSeqs endpoints"},
		{"shadowed repeat", "compaction/prune", `{"shadowedRange":{"start":0,"end":0},"shadowedSeqs":[0,0],"shadowedTokenCount":2}`, 0,
			"SessionFormatError: compaction/prune 3 shadowedSeqs repeats seq 0"},
		{"shadowed empty", "compaction/prune", `{"shadowedRange":{"start":0,"end":0},"shadowedSeqs":[],"shadowedTokenCount":2}`, 0,
			"SessionFormatError: compaction/prune 3 shadowedSeqs must be non-empty"},
		{"shadowed member", "compaction/prune", `{"shadowedRange":{"start":0,"end":0},"shadowedSeqs":[0,5],"shadowedTokenCount":2}`, 0,
			"SessionFormatError: compaction/prune 3 shadowedSeqs[1] must identify an earlier event"},
		{"stream call without raw output", "compaction/summary", `{"compactionId":"c","summary":[],"shadowedRange":{"start":0,"end":0},"shadowedSeqs":[0],"shadowedTokenCount":1,"provider":"p","model":"m","llmStreamCall":true}`, 0,
			"SessionFormatError: compaction/summary 3 llmStreamCall requires rawOutput"},
		{"compaction turn absent", "compaction/start", `{"compactionId":"c"}`, 0,
			`SessionFormatError: compaction/start 3 data lacks required member "turn"`},
		{"hook duration", "hook/result", `{"turn":1,"point":"p","handlerId":"h","decision":"d","durationMs":-1}`, 0,
			"SessionFormatError: hook/result 3 durationMs must be non-negative"},
		{"retry exceeds", "llm/retry", `{"retryId":"r","turn":1,"step":1,"provider":"p","mode":"normal","policyKey":"k","retry":3,"maxRetries":2,"delayMs":0,"failure":{"message":"m","code":"c"}}`, 0,
			"SessionFormatError: llm/retry 3 retry exceeds maxRetries"},
		{"retry always", "llm/retry", `{"retryId":"r","turn":1,"step":1,"provider":"p","mode":"always","policyKey":"k","retry":3,"maxRetries":2,"delayMs":0,"failure":{"message":"m","code":"c"}}`, 0,
			"SessionFormatError: llm/retry 3 always mode must omit maxRetries"},
		{"retry delay", "llm/retry", `{"retryId":"r","turn":1,"step":1,"provider":"p","mode":"always","policyKey":"k","retry":3,"delayMs":2147483648,"failure":{"message":"m","code":"c"}}`, 0,
			"SessionFormatError: llm/retry 3 delayMs exceeds the timer range"},
		{"failure status", "llm/retry", `{"retryId":"r","turn":1,"step":1,"provider":"p","mode":"always","policyKey":"k","retry":3,"delayMs":1,"failure":{"message":"m","code":"c","status":600}}`, 0,
			"SessionFormatError: llm/retry 3 failure status must be 100 through 599"},
		{"schedule whitespace", "schedule/change", `{"version":1,"operation":"delete","id":" x\u00a0"}`, 0,
			"SessionFormatError: schedule/change 3 id must not have surrounding whitespace"},
		{"schedule instant", "schedule/change", `{"version":1,"operation":"dispatch","id":"x","acceptedAt":"2026-02-30T00:00:00.000Z"}`, 0,
			"SessionFormatError: schedule/change 3 acceptedAt must be a canonical UTC instant"},
		{"schedule every", "schedule/change", `{"version":1,"operation":"create","schedule":{"id":"x","kind":"every","prompt":"p","everySeconds":60,"scheduledAt":"2026-02-28T00:00:00.000Z"}}`, 0,
			"SessionFormatError: schedule/change 3 schedule everySeconds must be at least 300"},
		{"schedule kind", "schedule/change", `{"version":1,"operation":"create","schedule":{"kind":"never"}}`, 0,
			"SessionFormatError: schedule/change 3 schedule has unknown schedule kind"},
		{"title user source", "session/title", `{"title":"t","messageSeqs":[],"source":{"kind":"user","x":1}}`, 0,
			`SessionFormatError: session/title 3 source has unexpected member "x"`},
		{"descriptor pairing", "subagent/descriptor", `{"mode":"continuable","version":3,"provider":"p","label":"l","agentModel":"m"}`, 0,
			"SessionFormatError: subagent/descriptor 3 agentProvider and agentModel must be paired"},
		{"descriptor filter", "subagent/descriptor", `{"mode":"continuable","version":3,"provider":"p","label":"l","toolFilter":{}}`, 0,
			"SessionFormatError: subagent/descriptor 3 toolFilter requires allow or deny"},
		{"allowed models repeat", "subagent/model-selection-policy", `{"allowedModels":[{"provider":"p","model":"m"},{"provider":"p","model":"m"}]}`, 0,
			"SessionFormatError: subagent/model-selection-policy 3 allowedModels repeats route p\x00m"},
		{"search body", "web/deepseek-search-llm-request", `{"endpoint":"e","apiVersion":"v","body":{"model":"m","max_tokens":1,"messages":[],"tools":[]}}`, 0,
			"SessionFormatError: web/deepseek-search-llm-request 3 body messages must contain one user message"},
		{"assistant source", "assistant/message", `{"turn":1,"step":1,"message":{"id":"a","role":"assistant","content":[],"source":{"kind":"user"}}}`, 0,
			"SessionFormatError: assistant/message 3 message source must be model source"},
		{"tool block", "tool/result", `{"turn":1,"step":1,"message":{"id":"t","role":"user","content":[{"type":"tool-result","toolCallId":"other","content":[]}],"source":{"kind":"tool","callId":"call"}}}`, 0,
			"SessionFormatError: tool/result 3 message must contain exactly one tool-result block"},
		{"plugin sections", "user/message", `{"id":"u","role":"user","content":[],"source":{"kind":"plugin","plugin":"p","form":"notice","summary":"s","sections":[]}}`, 0,
			"SessionFormatError: user/message 3 source sections require snapshot form"},
		{"compact plugin", "user/message", `{"id":"u","role":"user","content":[],"source":{"kind":"plugin","plugin":"compact"}}`, 0,
			"SessionFormatError: user/message 3 source compactionId must be a non-empty string"},
		{"plugin without form", "user/message", `{"id":"u","role":"user","content":[],"source":{"kind":"plugin","plugin":"p","sections":7}}`, 0, ""},
		{"future source", "user/message", `{"id":"u","role":"user","content":[],"source":{"kind":"future","x":1}}`, 0, ""},
		{"empty source kind", "user/message", `{"id":"u","role":"user","content":[],"source":{"kind":""}}`, 0,
			"SessionFormatError: user/message 3 source kind must be a non-empty string"},
		{"future block", "user/message", `{"id":"u","role":"user","content":[{"type":"future","x":1}],"source":{"kind":"user"}}`, 0, ""},
		{"image media", "user/message", `{"id":"u","role":"user","content":[{"type":"image","attachment":{"attachmentId":"a","mediaType":"image/bmp","bytes":1,"width":1,"height":1}}],"source":{"kind":"user"}}`, 0,
			"SessionFormatError: user/message 3 content[0] attachment mediaType must be one of image/png, image/jpeg, image/webp, image/gif"},
		{"reference counts", "user/message", `{"id":"u","role":"user","content":[],"source":{"kind":"session-reference","form":"recall","version":1,"references":[{"sessionId":"s","label":"l","capturedThroughSeq":null,"compacted":false,"originalMessages":1,"retainedMessages":2,"omittedMessages":0,"omittedBytes":0,"truncated":false,"inputIndex":0}]}}`, 0,
			"SessionFormatError: user/message 3 source references[0] message counts are inconsistent"},
		{"reference format version", "user/message", `{"id":"u","role":"user","content":[],"source":{"kind":"session-reference","form":"recall","version":1,"references":[{"sessionId":"s","label":"l","capturedThroughSeq":1,"capturedFormatVersion":2,"compacted":false,"originalMessages":1,"retainedMessages":1,"omittedMessages":0,"omittedBytes":0,"truncated":false,"inputIndex":0}]}}`, 1,
			"SessionFormatError: user/message 3 source references[0] capturedFormatVersion must be between 1 and 1"},
		{"chunk type", "assistant/chunk", `{"turn":1,"step":1,"chunk":{"type":"mystery"}}`, 0,
			`SessionFormatError: assistant/chunk 3 chunk has unknown stream chunk type "mystery"`},
		{"chunk type absent", "assistant/chunk", `{"turn":1,"step":1,"chunk":{}}`, 0,
			"SessionFormatError: assistant/chunk 3 chunk has unknown stream chunk type undefined"},
		{"finish stop extra", "assistant/chunk", `{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop","x":1}}}`, 0,
			`SessionFormatError: assistant/chunk 3 chunk reason has unexpected member "x"`},
		{"turn end abort", "turn/end", `{"turn":1,"reason":{"kind":"aborted","reason":{"kind":"robot"}}}`, 0,
			"SessionFormatError: turn/end 3 reason abort kind must be one of user, parent, disposed, legacy"},
		{"goal legacy content", "user/message", `{"id":"u","role":"user","content":[],"source":{"kind":"goal","goalId":"g","revision":1,"round":0,"change":{"kind":"goal/change","version":1,"operation":"clear","cleared":{"id":"g","revision":1},"clearedAt":5}}}`, 1,
			"SessionFormatError: user/message 3 legacy goal content does not match its change"},
		{"goal legacy ok", "user/message", `{"id":"u","role":"user","content":[{"text":"<goal_state>{\"cleared\":{\"revision\":1,\"id\":\"g\"},\"clearedAt\":5}</goal_state>","type":"text"}],"source":{"kind":"goal","goalId":"g","revision":1,"round":-0,"change":{"kind":"goal/change","version":1,"operation":"clear","cleared":{"revision":1,"id":"g"},"clearedAt":5}}}`, 1, ""},
		{"goal v2 no legacy", "user/message", `{"id":"u","role":"user","content":[],"source":{"kind":"goal","goalId":"g","revision":1,"round":0,"change":{}}}`, 2,
			`SessionFormatError: user/message 3 source has unexpected member "change"`},
		{"inherited name", "constructor", `{}`, 0, "SessionFormatError: required is not iterable (cannot read property Symbol(Symbol.iterator))"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := sessiontest.RefusalText(CheckEventPayload(payloadEvent(t, tc.typ, sessiontest.Parse(t, tc.data)), tc.version))
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestSurfaceMetadata(t *testing.T) {
	tests := []struct {
		row       string
		typ       string
		assistant AssistantSources
		want      string
	}{
		{`{"surfaceOp":"append"}`, "user/message", ForbidAssistant, ""},
		{`{"sourceEventSeqs":[]}`, "assistant/message", AllowEmptyAssistant, ""},
		{`{"sourceEventSeqs":[]}`, "assistant/message", ForbidAssistant, "SessionFormatError: assistant/message 5 retains obsolete chunk references"},
		{`{"sourceEventSeqs":[]}`, "tool/result", ForbidAssistant, "SessionFormatError: tool/result 5 sourceEventSeqs must be non-empty"},
		{`{"sourceEventSeqs":3}`, "tool/result", ForbidAssistant, "SessionFormatError: tool/result 5 sourceEventSeqs must be an array"},
		{`{"sourceEventSeqs":[1,1]}`, "tool/result", ForbidAssistant, "SessionFormatError: tool/result 5 sourceEventSeqs must be unique earlier seqs"},
		{`{"sourceEventSeqs":[5]}`, "tool/result", ForbidAssistant, "SessionFormatError: tool/result 5 sourceEventSeqs must be unique earlier seqs"},
		{`{"sourceEventSeqs":[-0]}`, "tool/result", ForbidAssistant, "SessionFormatError: tool/result 5 sourceEventSeqs member must be a non-negative safe integer"},
		{`{"surfaceOp":"prepend"}`, "user/message", ForbidAssistant, "SessionFormatError: user/message 5 surfaceOp must be a JSON object"},
		{`{"surfaceOp":{"op":"replace","start":1}}`, "user/message", ForbidAssistant, `SessionFormatError: user/message 5 surfaceOp lacks required member "end"`},
		{`{"surfaceOp":{"op":"replace","startSeq":1,"end":1}}`, "user/message", ForbidAssistant, `SessionFormatError: user/message 5 surfaceOp has unexpected member "startSeq"`},
		{`{"surfaceOp":{"op":"shadow","start":1,"end":1}}`, "user/message", ForbidAssistant, "SessionFormatError: user/message 5 surfaceOp must replace"},
		{`{"surfaceOp":{"op":"replace","start":1.5,"end":1}}`, "user/message", ForbidAssistant, "SessionFormatError: user/message 5 surface start must be a non-negative safe integer"},
		{`{"surfaceOp":{"op":"replace","start":1,"end":5}}`, "user/message", ForbidAssistant, "SessionFormatError: user/message 5 has an invalid surface replacement"},
		{`{"surfaceOp":{"op":"replace","start":1,"end":4}}`, "user/message", ForbidAssistant, ""},
	}
	for _, tc := range tests {
		got := sessiontest.RefusalText(CheckSurfaceMetadata(sessiontest.Parse(t, tc.row), 5, tc.typ, tc.assistant))
		if got != tc.want {
			t.Errorf("%s %s: got %q, want %q", tc.typ, tc.row, got, tc.want)
		}
	}
}

func TestDispositionLookup(t *testing.T) {
	if _, ok := V2Disposition("assistant/chunk"); ok {
		t.Error("assistant/chunk is not a v2 type")
	}
	if d, ok := V2Disposition("session/end-seed"); !ok || !slices.Contains(d.Optional, "inherited") {
		t.Error("v2 end-seed admits inherited")
	}
	if d, ok := V0Disposition("__proto__"); !ok || !d.Inherited {
		t.Error("__proto__ is found as an inherited property")
	}
	if len(v2Inventory) != 51 {
		t.Errorf("v2 inventory has %d types, want 51", len(v2Inventory))
	}
}
