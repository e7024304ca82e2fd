package v3to4

import (
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// The v3 plugin names whose v4 producer kind is another string.
var renamedProducers = map[string]string{
	"compact":                        "compact-checkpoint",
	"tools-code-mode":                "ptc-mode",
	"tools-ptc":                      "ptc-mode",
	"dsh-compaction-basic":           "compact-basic",
	"@deepseek-ai/dsh-system-prompt": "runtime-context",
}

// The first-party v3 plugin names that keep their name as the v4 kind.
var sameNameProducers = map[string]bool{
	"agent-instructions": true, "session-reference": true, "team-message": true, "goal": true,
	"skill-invocation": true, "skill-catalog": true, "coordinator": true, "subagent-report": true,
	"subagent-settled": true, "webhook": true, "agent-message": true, "model-selection": true,
	"plan-mode": true, "time-context": true, "tmux-context": true, "user-approval": true,
	"repeat-tool-reminder": true, "tool-cordis": true, "cordis-host-runner": true, "tool-goal": true,
	"tool-jobs": true, "hooks-codex": true, "hooks-claude-code": true, "schedule": true,
	"dsh-session-title-llm": true,
}

// producerKind is the v4 source kind of a v3 plugin name on a message of
// the given role: the system prompt plugin is "system-prompt" on a system
// message and "runtime-context" elsewhere; unknown plugins are namespaced.
func producerKind(plugin string, role jsonv.Value) string {
	if plugin == "@deepseek-ai/dsh-system-prompt" && role.Kind() == jsonv.String && role.Text() == "system" {
		return "system-prompt"
	}
	if kind, ok := renamedProducers[plugin]; ok {
		return kind
	}
	if sameNameProducers[plugin] {
		return plugin
	}
	return "plugin:" + plugin
}

// rewriteSource converts a v3 message source into its v4 producer-owned
// form (dsh's rewriteV3MessageSource): a plugin wrapper loses its plugin
// member and takes the producer's kind in its kind's position; every other
// kind, and every other member, is kept. seq is the source seq, for
// refusals. It reports whether the source changed.
func rewriteSource(source jsonv.Value, seq int64, role jsonv.Value) (jsonv.Value, bool, error) {
	kindValue, _ := source.Peek("kind")
	kind, ok := kindValue.Str()
	if !ok || kind == "" {
		return source, false, session.FormatErrorf("message source at seq %d requires a nonempty kind", seq)
	}
	if kind != "plugin" {
		return source, false, nil
	}
	pluginValue, _ := source.Peek("plugin")
	plugin, ok := pluginValue.Str()
	if !ok {
		return source, false, session.FormatErrorf("plugin source at seq %d is not canonical: plugin requires a string", seq)
	}
	newKind := jsonv.StringValue(producerKind(plugin, role))
	if source.Len() == 2 {
		return jsonv.ObjectValue(jsonv.M("kind", newKind)), true, nil
	}
	return source.Without("plugin").With("kind", newKind), true, nil
}

// rewriteMessageSource rewrites the source of one message, when it is an
// object.
func rewriteMessageSource(message jsonv.Value, seq int64) (jsonv.Value, bool, error) {
	source := message.Field("source")
	if source.Kind() != jsonv.Object {
		return message, false, nil
	}
	converted, changed, err := rewriteSource(source, seq, message.Field("role"))
	if err != nil || !changed {
		return message, false, err
	}
	return message.With("source", converted), true, nil
}
