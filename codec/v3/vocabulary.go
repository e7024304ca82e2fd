package v3

// releasedEventTypes is RELEASED_V3_EVENT_TYPES: the 58 first-party event
// names the released v3 reader understands, frozen independently of any
// later writer.
var releasedEventTypes = map[string]bool{}

func init() {
	for _, t := range []string{
		"agent-preset/selected", "agent/inbox/spliced", "approval/asked", "approval/decided",
		"approval/policy", "assistant/attempt", "assistant/message", "command/done", "command/run",
		"compaction/end", "compaction/prune", "compaction/start", "compaction/summary",
		"deliverables/presented", "feedback/message-delete", "feedback/message-put", "feedback/record",
		"goal/change", "hook/invoked", "hook/result", "image/offload", "llm/retry", "llm/retry-started",
		"model/selection", "permission/preset", "plan/mode", "request/context", "request/header",
		"sandbox/mode", "schedule/change", "session-log-deepseek/delivery-accepted", "session/end-seed",
		"session/title", "session/title-llm-request", "step/end", "step/start", "subagent/catalog",
		"subagent/descriptor", "subagent/model-selection-policy", "system/message", "team/member",
		"team/message/delivered", "team/message/queued", "team/task", "todo/write",
		"tool-workflow/agent-end", "tool-workflow/agent-start", "tool-workflow/run-end",
		"tool-workflow/run-start", "tool/call", "tool/ptc-dispatch", "tool/ptc-dispatch-start",
		"tool/result", "turn/end", "turn/start", "user/message", "web/deepseek-search-llm-request",
		"workspace/changes",
	} {
		releasedEventTypes[t] = true
	}
}

// IsReleasedEventType reports whether eventType is one of the 58 names of
// dsh's frozen released v3 vocabulary (RELEASED_V3_EVENT_TYPES).
func IsReleasedEventType(eventType string) bool { return releasedEventTypes[eventType] }
