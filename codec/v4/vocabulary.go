package v4

// Vocabulary is a set of event types a reader interprets; a non-ignorable
// event outside it is refused.
type Vocabulary struct {
	types map[string]struct{}
}

// NewVocabulary returns the vocabulary of the given event types.
func NewVocabulary(types ...string) Vocabulary {
	set := make(map[string]struct{}, len(types))
	for _, t := range types {
		set[t] = struct{}{}
	}
	return Vocabulary{types: set}
}

// Has reports whether the vocabulary knows the event type t.
func (v Vocabulary) Has(t string) bool {
	_, ok := v.types[t]
	return ok
}

// KnownEventTypes is dsh's KNOWN_SESSION_EVENT_TYPES, the v4 vocabulary of
// the build that produced the goldens: zDSH's known-event-types.ts at commit
// 1dd6c6a, 60 names. It is LunFengChen's list (59 names, upstream v4 with
// developer/message) plus zDSH's fork-only slots/dispatch; the goldens were
// made with it, so a v4 file holding a required slots/dispatch event is
// accepted here as it was there.
var KnownEventTypes = NewVocabulary(
	"agent-preset/selected",
	"agent/inbox/spliced",
	"approval/asked",
	"approval/decided",
	"approval/policy",
	"assistant/attempt",
	"assistant/message",
	"command/done",
	"command/run",
	"compaction/end",
	"compaction/prune",
	"compaction/start",
	"compaction/summary",
	"deliverables/presented",
	"developer/message",
	"feedback/message-delete",
	"feedback/message-put",
	"feedback/record",
	"goal/change",
	"hook/invoked",
	"hook/result",
	"image/offload",
	"llm/retry",
	"llm/retry-started",
	"model/selection",
	"permission/preset",
	"plan/mode",
	"request/context",
	"request/header",
	"sandbox/mode",
	"schedule/change",
	"session-log-deepseek/delivery-accepted",
	"session/end-seed",
	"session/title",
	"session/title-llm-request",
	"slots/dispatch",
	"step/end",
	"step/start",
	"subagent/catalog",
	"subagent/descriptor",
	"subagent/model-selection-policy",
	"system/message",
	"team/member",
	"team/message/delivered",
	"team/message/queued",
	"team/task",
	"todo/write",
	"tool-workflow/agent-end",
	"tool-workflow/agent-start",
	"tool-workflow/run-end",
	"tool-workflow/run-start",
	"tool/call",
	"tool/ptc-dispatch",
	"tool/ptc-dispatch-start",
	"tool/result",
	"turn/end",
	"turn/start",
	"user/message",
	"web/deepseek-search-llm-request",
	"workspace/changes",
)
