package v2

// Disposition is the frozen member list of one released event type's data:
// the members it must have, the ones it may have, and the ones kept as opaque
// JSON without looking inside (dsh's ReleasedV0PayloadDisposition).
type Disposition struct {
	Required []string
	Optional []string
	Opaque   []string
	// Inherited is true when the type is not in the inventory but is the name
	// of a property every JavaScript object inherits (constructor, toString,
	// __proto__ …). dsh looks the inventory up as a plain object, so such a
	// name is "found" and the member lists read as undefined.
	Inherited bool
}

func disposition(required, optional, opaque []string) Disposition {
	return Disposition{Required: required, Optional: optional, Opaque: opaque}
}

func names(s ...string) []string { return s }

// v0Inventory is RELEASED_V0_EVENT_DISPOSITIONS, shared by v0 and v1.
var v0Inventory = map[string]Disposition{
	"agent-preset/selected":                  disposition(names("agentPreset"), nil, nil),
	"agent/inbox/spliced":                    disposition(names("target", "start", "inserted"), names("removedCount", "outcome"), nil),
	"approval/asked":                         disposition(names("id", "toolName"), names("callId", "reason"), nil),
	"approval/decided":                       disposition(names("id", "outcome"), nil, nil),
	"approval/policy":                        disposition(names("policy"), names("source"), nil),
	"assistant/chunk":                        disposition(names("turn", "step", "chunk"), nil, nil),
	"assistant/message":                      disposition(names("turn", "step", "message"), names("usage", "interrupted"), nil),
	"command/done":                           disposition(names("commandId", "kind"), names("text", "sourceEventSeq"), nil),
	"command/run":                            disposition(names("commandId", "name", "source"), names("args"), nil),
	"compaction/end":                         disposition(names("compactionId", "turn"), names("sourceCommandId", "error"), nil),
	"compaction/prune":                       disposition(names("shadowedRange", "shadowedSeqs", "shadowedTokenCount"), nil, nil),
	"compaction/start":                       disposition(names("compactionId", "turn"), names("sourceCommandId"), nil),
	"compaction/summary":                     disposition(names("compactionId", "summary", "shadowedRange", "shadowedSeqs", "shadowedTokenCount", "provider", "model"), names("sourceCommandId", "maxTokens", "usage", "rawOutput", "llmStreamCall"), nil),
	"feedback/record":                        disposition(names("text"), nil, nil),
	"goal/change":                            disposition(names("kind", "version", "operation"), names("goal", "roundsStarted", "createdAt", "updatedAt", "cleared", "clearedAt"), nil),
	"hook/invoked":                           disposition(names("turn", "point", "dialect", "handlerId"), names("matcher"), nil),
	"hook/result":                            disposition(names("turn", "point", "handlerId", "decision", "durationMs"), names("exitCode", "stderrSummary"), nil),
	"llm/retry":                              disposition(names("retryId", "turn", "step", "provider", "mode", "policyKey", "retry", "delayMs", "failure"), names("maxRetries"), nil),
	"llm/retry-started":                      disposition(names("retryId", "turn", "step", "retry"), nil, nil),
	"model/selection":                        disposition(names("provider", "model"), names("reasoningEffort"), nil),
	"permission/preset":                      disposition(names("preset"), nil, nil),
	"plan/mode":                              disposition(names("active"), nil, nil),
	"request/context":                        disposition(names("provider", "model"), names("contextWindow"), nil),
	"request/header":                         disposition(names("header", "reason"), names("startsSeries"), nil),
	"sandbox/mode":                           disposition(names("mode"), names("source"), nil),
	"schedule/change":                        disposition(names("version", "operation"), names("schedule", "id", "acceptedAt"), nil),
	"session-log-deepseek/delivery-accepted": disposition(names("sessionId", "throughSeq"), nil, nil),
	"session/end-seed":                       disposition(nil, nil, nil),
	"session/title":                          disposition(names("title", "messageSeqs", "source"), nil, nil),
	"session/title-llm-request":              disposition(names("titleProvider", "messageSeqs", "route", "system", "messages", "maxTokens"), nil, nil),
	"step/end":                               disposition(names("turn", "step"), nil, nil),
	"step/start":                             disposition(names("turn", "step"), nil, nil),
	"subagent/descriptor":                    disposition(names("mode", "version", "provider"), names("label", "agentProvider", "agentModel", "agentReasoningEffort", "persona", "toolFilter"), nil),
	"subagent/model-selection-policy":        disposition(names("allowedModels"), nil, nil),
	"team/member":                            disposition(names("version", "teamId", "member"), nil, nil),
	"team/message/delivered":                 disposition(names("version", "teamId", "messageId", "targetId"), nil, nil),
	"team/message/queued":                    disposition(names("version", "teamId", "message"), nil, nil),
	"team/task":                              disposition(names("version", "teamId", "task"), nil, nil),
	"todo/write":                             disposition(names("todos"), nil, nil),
	"tool-workflow/agent-end":                disposition(names("runId", "seq", "outcome"), nil, nil),
	"tool-workflow/agent-start":              disposition(names("runId", "seq", "label", "childId"), names("phase"), nil),
	"tool-workflow/run-end":                  disposition(names("runId", "stopReason"), nil, nil),
	"tool-workflow/run-start":                disposition(names("runId", "name"), nil, nil),
	"tool/call":                              disposition(names("turn", "step", "callId", "name", "arguments"), nil, nil),
	"tool/code-dispatch":                     disposition(names("rootCallId", "parentCallId", "subCallId", "name", "arguments", "isError", "content"), nil, names("arguments")),
	"tool/code-dispatch-start":               disposition(names("rootCallId", "parentCallId", "subCallId", "name", "arguments"), nil, names("arguments")),
	"tool/result":                            disposition(names("turn", "step", "message"), names("error", "meta"), names("meta")),
	"turn/end":                               disposition(names("turn", "reason"), nil, nil),
	"turn/start":                             disposition(names("turn"), nil, nil),
	"user/message":                           disposition(names("role", "id", "content", "source"), nil, nil),
	"web/deepseek-search-llm-request":        disposition(names("endpoint", "apiVersion", "body"), nil, nil),
}

// v2Inventory is RELEASED_V2_EVENT_DISPOSITIONS: the v0 inventory without
// assistant/chunk, with the v2 shapes of four types and assistant/attempt.
var v2Inventory = func() map[string]Disposition {
	m := make(map[string]Disposition, len(v0Inventory)+1)
	for k, d := range v0Inventory {
		m[k] = d
	}
	delete(m, "assistant/chunk")
	m["assistant/attempt"] = disposition(names("turn", "step", "stream"), nil, nil)
	m["assistant/message"] = disposition(names("turn", "step", "message", "stream"), names("usage", "interrupted"), nil)
	m["session-log-deepseek/delivery-accepted"] = disposition(names("sessionId", "throughSeq"), names("sessionFormatVersion"), nil)
	m["session/end-seed"] = disposition(nil, names("inherited"), nil)
	return m
}()

// inheritedNames are the properties of Object.prototype in Node 20, which a
// lookup in a plain JavaScript object finds for any object.
var inheritedNames = map[string]bool{
	"constructor": true, "__defineGetter__": true, "__defineSetter__": true,
	"hasOwnProperty": true, "__lookupGetter__": true, "__lookupSetter__": true,
	"isPrototypeOf": true, "propertyIsEnumerable": true, "toString": true,
	"valueOf": true, "__proto__": true, "toLocaleString": true,
}

func lookup(inventory map[string]Disposition, eventType string) (Disposition, bool) {
	if d, ok := inventory[eventType]; ok {
		return d, true
	}
	if inheritedNames[eventType] {
		return Disposition{Inherited: true}, true
	}
	return Disposition{}, false
}

// V0Disposition looks eventType up in the frozen released-v0 inventory (also
// v1's) the way dsh does, inherited object properties included.
func V0Disposition(eventType string) (Disposition, bool) { return lookup(v0Inventory, eventType) }

// V2Disposition looks eventType up in the frozen released-v2 inventory the
// way dsh does, inherited object properties included.
func V2Disposition(eventType string) (Disposition, bool) { return lookup(v2Inventory, eventType) }
