package vocab

import (
	"slices"
	"strings"
)

// Build is a dsh build whose vocabulary dshlog has built in.
type Build struct {
	// Name is what --dsh takes, such as "v0.2.1-alpha.2" or "zdsh".
	Name string
	// Aliases are other names --dsh accepts for the build.
	Aliases []string
	// Source names the repository and commit the vocabulary was read from.
	Source string
	// ExternalCatalog is true when the build admits subagent/catalog facts
	// of version 2 (mode "external").
	ExternalCatalog bool
	// Format is the session format the build writes: 4 for the official
	// line and the forks that followed it, 0 for the v0 line.
	Format int
	// V0 is what the build's own reader accepts in a format v0 log beyond
	// what today's official migrator does; nil for a build that reads v0
	// only as history.
	V0 *V0Rules

	added []string // event types beyond the v4 baseline
}

// baseline is the v4 vocabulary every build starts from: the 59 types of
// KNOWN_SESSION_EVENT_TYPES that the official line and zDSH share.
var baseline = []string{
	"agent-preset/selected", "agent/inbox/spliced", "approval/asked", "approval/decided",
	"approval/policy", "assistant/attempt", "assistant/message", "command/done", "command/run",
	"compaction/end", "compaction/prune", "compaction/start", "compaction/summary",
	"deliverables/presented", "developer/message", "feedback/message-delete",
	"feedback/message-put", "feedback/record", "goal/change", "hook/invoked", "hook/result",
	"image/offload", "llm/retry", "llm/retry-started", "model/selection", "permission/preset",
	"plan/mode", "request/context", "request/header", "sandbox/mode", "schedule/change",
	"session-log-deepseek/delivery-accepted", "session/end-seed", "session/title",
	"session/title-llm-request", "step/end", "step/start", "subagent/catalog",
	"subagent/descriptor", "subagent/model-selection-policy", "system/message", "team/member",
	"team/message/delivered", "team/message/queued", "team/task", "todo/write",
	"tool-workflow/agent-end", "tool-workflow/agent-start", "tool-workflow/run-end",
	"tool-workflow/run-start", "tool/call", "tool/ptc-dispatch", "tool/ptc-dispatch-start",
	"tool/result", "turn/end", "turn/start", "user/message", "web/deepseek-search-llm-request",
	"workspace/changes",
}

// surfaceTypes are the baseline's surface types: the message-producing
// types, and image/offload, which changes what the model sees without
// being a message.
var surfaceTypes = map[string]bool{
	"system/message": true, "developer/message": true, "user/message": true,
	"assistant/message": true, "tool/result": true, "image/offload": true,
}

// Official is the current official line, v0.2.1-alpha.2
// (zq0929/deepseek-harness @5593cc2): the baseline plus
// working-directory/change, and version-2 (external) catalog facts.
var Official = &Build{
	Name:            "v0.2.1-alpha.2",
	Aliases:         []string{"official"},
	Source:          "zq0929/deepseek-harness @5593cc2",
	ExternalCatalog: true,
	Format:          4,
	added:           []string{WorkingDirectoryChange},
}

// Zdsh is zDSH @1dd6c6a (zsagi1368/deepseek-harness-zDSH), the build the
// corpus goldens were made with: the baseline plus its own slots/dispatch.
var Zdsh = &Build{
	Name:   "zdsh",
	Source: "zsagi1368/deepseek-harness-zDSH @1dd6c6a",
	Format: 4,
	added:  []string{"slots/dispatch"},
}

// V0Line is the pre-v1 dsh that most forks still track: format v0 is its
// current format, so its own reader (not a migrator) judges its logs, with
// the rules of V0LineRules. Its events are judged, once lifted to released
// v0 and migrated in memory, by the v4 baseline.
var V0Line = &Build{
	Name:    "v0-line",
	Aliases: []string{"v0", "pre-v1"},
	Source:  "toninfo/deepseek-harness @6116156 (SESSION_FORMAT_VERSION = 0)",
	Format:  0,
	V0:      V0LineRules,
}

// Builds are the built-in builds, the default first.
var Builds = []*Build{Official, Zdsh, V0Line}

// WorkingDirectoryChange is the official line's log-only record of a
// change of the session's effective working directory.
const WorkingDirectoryChange = "working-directory/change"

// workingDirectorySchema is working-directory/change's payload, {cwd: string}
// (persistence change 2026-09-13-working-directory).
var workingDirectorySchema = &Schema{
	Nodes: []Node{
		{Kind: KindObject, Properties: []Property{{Name: "cwd", Type: 1}}},
		{Kind: KindPrimitive, Primitive: "string"},
	},
}

// FindBuild returns the built-in build named name (or one of its aliases).
func FindBuild(name string) (*Build, bool) {
	for _, b := range Builds {
		if strings.EqualFold(b.Name, name) {
			return b, true
		}
		for _, alias := range b.Aliases {
			if strings.EqualFold(alias, name) {
				return b, true
			}
		}
	}
	return nil, false
}

// Vocabulary returns the build's own vocabulary.
func (b *Build) Vocabulary() *Vocabulary {
	v := &Vocabulary{build: b, types: make(map[string]*Type, len(baseline)+len(b.added))}
	origin := "built in (" + b.Name + ")"
	for _, name := range baseline {
		v.types[name] = &Type{Name: name, Surface: surfaceTypes[name], Derivable: true, Origin: origin}
	}
	for _, name := range b.added {
		t := &Type{Name: name, Derivable: true, Origin: origin}
		if name == WorkingDirectoryChange {
			t.Schema = workingDirectorySchema
		}
		v.types[name] = t
	}
	return v
}

// Default returns the vocabulary of the default build, the official line.
// The value is shared: a Vocabulary is never changed once built.
func Default() *Vocabulary { return defaultVocabulary }

var defaultVocabulary = Official.Vocabulary()

// knownDeclaration is an event type a dsh build that dshlog knows of
// declares, for the hint when a log holds it.
type knownDeclaration struct {
	build string // how the hint names the build
	flag  string // what would make dshlog accept the type
}

// declaredElsewhere are the types of builds dshlog knows of outside the
// chosen one: the other built-in builds' own types, and those of the forks
// whose declarations are in testdata/dsh-builds.
var declaredElsewhere = map[string]knownDeclaration{
	"agent-acp/session":         heb,
	"agent-codex/thread":        heb,
	"agent/harness":             heb,
	"agent-tool-bridge/exposed": {build: "the fork Hebilicious/deepseek-harness @910ea71", flag: "--vocabulary docs/persistence-changes/2026-09-24-agent-tool-bridge-exposed.schema.json (that build's record)"},
	"subagent/external-start":   fork1394,
	"subagent/external-end":     fork1394,
}

var (
	heb      = knownDeclaration{build: "the fork Hebilicious/deepseek-harness @4934042", flag: "--vocabulary packages/core/session/src/known-event-types.ts (of that fork)"}
	fork1394 = knownDeclaration{build: "the fork 1394225561/deepseek-harness @3d852a1", flag: "--vocabulary packages/core/session/src/known-event-types.ts (of that fork)"}
)

// Hint says which build dshlog knows of declares the event type name, and
// the flag that would accept it; ok is false when no such build is known.
func (v *Vocabulary) Hint(name string) (hint string, ok bool) {
	for _, b := range Builds {
		if b != v.build && slices.Contains(b.added, name) {
			return "event type \"" + name + "\" is declared by dsh " + b.Name + " (" + b.Source + "): pass --dsh " + b.Name, true
		}
	}
	if d, ok := declaredElsewhere[name]; ok {
		return "event type \"" + name + "\" is declared by " + d.build + ": pass " + d.flag, true
	}
	return "", false
}

// Of returns a vocabulary of exactly the given types, with the rules of the
// default build where it has them: for tests and tools that need a small
// vocabulary.
func Of(names ...string) *Vocabulary {
	full := Default()
	v := &Vocabulary{build: full.build, types: make(map[string]*Type, len(names))}
	for _, name := range names {
		t := full.types[name]
		if t == nil {
			t = &Type{Name: name, Derivable: true, Origin: "built in (" + full.build.Name + ")"}
		}
		v.types[name] = t
	}
	return v
}
