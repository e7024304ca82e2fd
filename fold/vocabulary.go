package fold

// knownEventTypes is the event vocabulary of the dsh Session build this fold
// follows (KNOWN_SESSION_EVENT_TYPES, known-event-types.ts@103e8703): an
// ignorable event outside it is opaque to the surface fold.
var knownEventTypes = map[string]bool{
	"agent-preset/selected": true, "agent/inbox/spliced": true, "approval/asked": true,
	"approval/decided": true, "approval/policy": true, "assistant/attempt": true,
	"assistant/message": true, "command/done": true, "command/run": true,
	"compaction/end": true, "compaction/prune": true, "compaction/start": true,
	"compaction/summary": true, "deliverables/presented": true, "developer/message": true,
	"feedback/message-delete": true, "feedback/message-put": true, "feedback/record": true,
	"goal/change": true, "hook/invoked": true, "hook/result": true,
	"image/offload": true, "llm/retry": true, "llm/retry-started": true,
	"model/selection": true, "permission/preset": true, "plan/mode": true,
	"request/context": true, "request/header": true, "sandbox/mode": true,
	"schedule/change": true, "session-log-deepseek/delivery-accepted": true, "session/end-seed": true,
	"session/title": true, "session/title-llm-request": true, "step/end": true,
	"step/start": true, "subagent/catalog": true, "subagent/descriptor": true,
	"subagent/model-selection-policy": true, "system/message": true, "team/member": true,
	"team/message/delivered": true, "team/message/queued": true, "team/task": true,
	"todo/write": true, "tool-workflow/agent-end": true, "tool-workflow/agent-start": true,
	"tool-workflow/run-end": true, "tool-workflow/run-start": true, "tool/call": true,
	"tool/ptc-dispatch": true, "tool/ptc-dispatch-start": true, "tool/result": true,
	"turn/end": true, "turn/start": true, "user/message": true,
	"web/deepseek-search-llm-request": true, "workspace/changes": true,
}

// The event types the fold gives meaning to.
const (
	typeSystem       = "system/message"
	typeDeveloper    = "developer/message"
	typeUser         = "user/message"
	typeAssistant    = "assistant/message"
	typeAttempt      = "assistant/attempt"
	typeToolResult   = "tool/result"
	typeToolCall     = "tool/call"
	typeHeader       = "request/header"
	typeTurnStart    = "turn/start"
	typeTurnEnd      = "turn/end"
	typeStepStart    = "step/start"
	typeStepEnd      = "step/end"
	typeEndSeed      = "session/end-seed"
	typeImageOffload = "image/offload"
)

// IsKnownType reports whether dsh's Session build knows the event type.
func IsKnownType(typ string) bool { return knownEventTypes[typ] }

// IsSurfaceEligible reports whether events of the type may join the surface:
// the five message-producing types.
func IsSurfaceEligible(typ string) bool {
	switch typ {
	case typeSystem, typeDeveloper, typeUser, typeAssistant, typeToolResult:
		return true
	}
	return false
}

// IsSettlement reports whether an event of the type settles a model request
// (assistant/message or assistant/attempt): request k is the k-th settlement.
func IsSettlement(typ string) bool { return typ == typeAssistant || typ == typeAttempt }
