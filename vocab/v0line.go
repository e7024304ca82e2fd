package vocab

// V0Rules are the rules by which a build of the v0 line reads its own
// format v0 logs where they differ from today's official v0→v1 migrator,
// which reads v0 as history. Each rule names the file of the v0 line's
// source it was taken from (testdata/dsh-builds/v0-line/RULES.md lists
// them with the lines).
type V0Rules struct {
	// OptionalDelegationDepth: a header may omit delegationDepth, which
	// then reads as 0 (packages/core/session/src/index.ts,
	// validateSessionHeader checks it only when present; the web app's
	// store writes it only when the session has one).
	OptionalDelegationDepth bool
	// DescriptorVersion is the subagent/descriptor payload version the
	// line writes (packages/subagent/subagent/src/descriptor.ts,
	// SUBAGENT_DESCRIPTOR_VERSION = 2): a version-3 payload without the
	// optional agentReasoningEffort.
	DescriptorVersion int64
	// ToolResultArtifact: a tool/result may carry data.artifact, the
	// locator of a spilled output {kind: "full-result", locator, bytes}
	// (packages/core/session/src/types.ts, ToolResultArtifact), which the
	// model never sees.
	ToolResultArtifact bool
	// LoadedTools: a tool-result part may carry loadedTools, the deferred
	// tool schemas a tool search discovered
	// (packages/core/agent-loop/src/tool-calls.ts, appendToolResult;
	// ToolExecutionSuccess.loadedTools in packages/core/tools/src/index.ts);
	// they reach the model through the next request/header's tools.
	LoadedTools bool
	// SeriesAfterCompaction is false when the line's writer never opens a
	// new request series after a compaction (its request/header reasons are
	// initial, resume and change: RequestHeaderReason in types.ts), so the
	// compaction bracket itself explains the break in the request chain.
	SeriesAfterCompaction bool
	// HeadlessSurface: a session's surface may begin before its first
	// step with no system head (packages/core/session/src/surface.ts
	// derives messages from the surface alone; the system prompt is the
	// request header's), as the web app's recordings do.
	HeadlessSurface bool
}

// V0LineRules are the rules of the v0 line as its public forks have them
// (toninfo/deepseek-harness @6116156, SparkElf/deepseek-harness-plus
// @705ae96, KeepLost/harniverse @72b0228, and loadedTools from
// BeiKeJieDeLiuLangMao/deepseek-harness-gestalt @0462bca).
var V0LineRules = &V0Rules{
	OptionalDelegationDepth: true,
	DescriptorVersion:       2,
	ToolResultArtifact:      true,
	LoadedTools:             true,
	SeriesAfterCompaction:   false,
	HeadlessSurface:         true,
}

// releasedV0Types are the event types of released format v0 (dsh's frozen
// RELEASED_V0_EVENT_DISPOSITIONS): what a v0-line build declares of them
// is read by the official migrator's rules, and only a type outside them
// is a fork's own.
var releasedV0Types = map[string]bool{
	"agent-preset/selected": true, "agent/inbox/spliced": true, "approval/asked": true,
	"approval/decided": true, "approval/policy": true, "assistant/chunk": true,
	"assistant/message": true, "command/done": true, "command/run": true, "compaction/end": true,
	"compaction/prune": true, "compaction/start": true, "compaction/summary": true,
	"feedback/record": true, "goal/change": true, "hook/invoked": true, "hook/result": true,
	"llm/retry": true, "llm/retry-started": true, "model/selection": true,
	"permission/preset": true, "plan/mode": true, "request/context": true, "request/header": true,
	"sandbox/mode": true, "schedule/change": true, "session-log-deepseek/delivery-accepted": true,
	"session/end-seed": true, "session/title": true, "session/title-llm-request": true,
	"step/end": true, "step/start": true, "subagent/descriptor": true,
	"subagent/model-selection-policy": true, "team/member": true,
	"team/message/delivered": true, "team/message/queued": true, "team/task": true,
	"todo/write": true, "tool-workflow/agent-end": true, "tool-workflow/agent-start": true,
	"tool-workflow/run-end": true, "tool-workflow/run-start": true, "tool/call": true,
	"tool/code-dispatch": true, "tool/code-dispatch-start": true, "tool/result": true,
	"turn/end": true, "turn/start": true, "user/message": true,
	"web/deepseek-search-llm-request": true,
}

// IsReleasedV0Type reports whether name is an event type of released
// format v0.
func IsReleasedV0Type(name string) bool { return releasedV0Types[name] }

// ForkType reports whether an event type name of a log stored in an older
// format is one a fork declared for itself: a type the vocabulary knows only
// from a declaration file, which the format itself lacks (for v0 and v1, a
// type outside released v0). The fork's build of that format read such an
// event; today's dsh keeps it only as an ignorable event.
func (v *Vocabulary) ForkType(name string, format int) bool {
	t := v.types[name]
	if t == nil || t.Derivable {
		return false
	}
	return format > 1 || !releasedV0Types[name]
}

// DeclaresTypes reports whether the vocabulary knows any type only from a
// declaration file: whether a log of an older format can hold a fork's
// own type (see ForkType) at all.
func (v *Vocabulary) DeclaresTypes() bool {
	for _, t := range v.types {
		if !t.Derivable {
			return true
		}
	}
	return false
}

// AnyLine is the Line of a declaration that does not tell its build's
// format: a plugin's or a list's few types, which add to a build of either
// line.
const AnyLine = -1

// Line is the format a declaration's build writes, told by the types it
// declares: 0 for the v0 line (assistant/chunk, no assistant/attempt), 4
// when it declares assistant/attempt, and AnyLine when it declares neither.
func (d *Declaration) Line() int {
	chunk, attempt := false, false
	for _, t := range d.Types {
		switch t.Name {
		case "assistant/chunk":
			chunk = true
		case "assistant/attempt":
			attempt = true
		}
	}
	switch {
	case chunk && !attempt:
		return 0
	case !chunk && !attempt:
		return AnyLine
	}
	return 4
}
