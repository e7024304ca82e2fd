// Package lift reads a log of an older format (v0 to v3) the way the build
// that wrote it does, ahead of today's official migrator: it lifts each row
// that the build's own reader accepts but the released format refuses into
// its released form, so that the official chain (v0→v1→…→v4) can carry it,
// and puts back, in the migrated v4 events, what the chain could not carry.
//
// Three kinds of log need it. Every v0 log in dsh's normalized snapshot
// form gives a request/header's tools as "{{tools}}" or as tool names, which
// a v4 log in that form may too (the snapshot rules hold in every format).
// The logs of the v0 line, the pre-v1 dsh that most forks still track, whose
// build (vocab.V0Rules) reads a header without delegationDepth,
// subagent/descriptor payload version 2 and a tool/result's data.artifact.
// And the logs of any fork that declares event types of its own
// (--vocabulary): its build read them in the format it wrote, and the
// migrator, which knows only the released types, refuses them.
//
// Every change is counted by rule (Counts), so that a judge can say what it
// accepted, and, for a rescue that reports what it wrote, listed (Changes),
// with the bytes of what was set aside. The Lifter reads one row at a time
// in file order and holds only what it must put back later (the held
// values of lifted rows, each until it is put back), the counts, and the
// list when asked for one.
package lift

import (
	"fmt"
	"strings"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// The rules a Change is made by, stable for programs.
const (
	// RuleDelegationDepth: a header without delegationDepth read as 0.
	RuleDelegationDepth = "header-delegation-depth"
	// RuleDescriptorVersion: a subagent/descriptor of the line's version
	// read as version 3.
	RuleDescriptorVersion = "descriptor-version"
	// RuleToolResultArtifact: a tool/result's data.artifact set aside.
	RuleToolResultArtifact = "tool-result-artifact"
	// RuleLoadedTools: the deferred tool schemas of a tool-result part set
	// aside.
	RuleLoadedTools = "tool-result-loaded-tools"
	// RuleHeadlessPrompt: the system prompt of a session whose surface
	// began before its first step set aside.
	RuleHeadlessPrompt = "headless-system-prompt"
	// RuleForkEvent: an event of a fork's own type kept as an ignorable
	// event.
	RuleForkEvent = "fork-event"
	// RuleSnapshotTools: a request/header's tools in snapshot form carried
	// around the migration.
	RuleSnapshotTools = "snapshot-tools"
)

// Change is one thing the Lifter read differently from today's official
// migrator.
type Change struct {
	// Line is the file line of the row (1 for the header).
	Line int
	// Seq is the row's seq in the file, or -1 for the header.
	Seq int64
	// Rule is one of the Rule constants.
	Rule string
	// What says what was read, and how, in a sentence.
	What string
	// SetAside is the JSON of a member that the current format cannot
	// hold, as written, when the change set one aside.
	SetAside []byte
}

// Lifter lifts the rows of one log of an older format. Its zero value is
// not usable; use New.
type Lifter struct {
	format  int            // the log's stored format
	rules   *vocab.V0Rules // nil: no v0 line's rules
	vocab   *vocab.Vocabulary
	counts  Counts
	list    bool // keep every change, not only the counts
	changes []Change

	// What the chain cannot carry, to be put back into the v4 events in
	// order: the tools of the n-th request/header, and the fork events
	// that feedback/record stand-ins hold the place of.
	// stepSeen says a step/start has been read; headless, that a surface
	// event came before it (vocab.V0Rules.HeadlessSurface).
	stepSeen, headless bool

	headers    int64 // request/header rows lifted so far
	tools      []heldTools
	putHeaders int64 // request/header events put back so far
	forks      []jsonv.Value
}

type heldTools struct {
	ordinal int64 // which request/header, counting from 0
	tools   jsonv.Value
}

// New returns a Lifter for a log stored in format (0 to 3) and read by the
// build whose vocabulary is v. The snapshot form's tools are lifted in a v0
// or v1 log, the v0 line's rules in a v0 log its build reads, and the
// events of a fork's own declared types in a log of any older format. With
// list, the Lifter keeps every change (Changes), which grows with the
// rows it lifts; else only their Counts.
func New(v *vocab.Vocabulary, format int, list bool) *Lifter {
	l := &Lifter{format: format, vocab: v, counts: Counts{}, list: list}
	if format == 0 {
		l.rules = v.Build().V0
	}
	return l
}

// Changes returns what was read differently, in file order, when the
// Lifter keeps them (New's list).
func (l *Lifter) Changes() []Change { return l.changes }

// note records a change.
func (l *Lifter) note(c Change) {
	l.counts[c.Rule]++
	if l.list {
		l.changes = append(l.changes, c)
	}
}

// Counts returns how many changes each rule made.
func (l *Lifter) Counts() Counts { return l.counts }

// Counts are how many changes each rule made.
type Counts map[string]int

// Summary says in a phrase what changes of the given rules there were,
// such as "1 header without delegationDepth, 2 events of the fork's own
// types"; "" when none.
func (counts Counts) Summary(rules ...string) string {
	var parts []string
	for _, rule := range rules {
		switch n := counts[rule]; n {
		case 0:
		case 1:
			parts = append(parts, "1 "+ruleNouns[rule][0])
		default:
			parts = append(parts, fmt.Sprintf("%d %s", n, ruleNouns[rule][1]))
		}
	}
	return strings.Join(parts, ", ")
}

// ruleNouns name what each rule changes, one and many, for Summarize.
var ruleNouns = map[string][2]string{
	RuleDelegationDepth:    {"header without delegationDepth", "headers without delegationDepth"},
	RuleDescriptorVersion:  {"descriptor of the line's version", "descriptors of the line's version"},
	RuleToolResultArtifact: {"tool/result artifact set aside", "tool/result artifacts set aside"},
	RuleLoadedTools:        {"tool result's loaded tools set aside", "tool results' loaded tools set aside"},
	RuleHeadlessPrompt:     {"system prompt of a headless session set aside", "system prompts of a headless session set aside"},
	RuleForkEvent:          {"event of the fork's own types", "events of the fork's own types"},
	RuleSnapshotTools:      {"request/header with snapshot-form tools", "request/headers with snapshot-form tools"},
}

// BuildRules are the rules of a build's own reading, all but the snapshot
// form's, which is no build's but dsh's test harness's.
var BuildRules = []string{RuleDelegationDepth, RuleDescriptorVersion, RuleToolResultArtifact, RuleLoadedTools, RuleHeadlessPrompt, RuleForkEvent}

// Header lifts a v0 physical header.
func (l *Lifter) Header(hv jsonv.Value) jsonv.Value {
	if l.rules == nil || !l.rules.OptionalDelegationDepth || hv.Kind() != jsonv.Object || hv.Has("delegationDepth") {
		return hv
	}
	l.note(Change{Line: 1, Seq: -1, Rule: RuleDelegationDepth,
		What: "header has no delegationDepth; read as 0, as the v0 line's reader does"})
	return withDelegationDepth(hv)
}

// withDelegationDepth adds delegationDepth 0 where dsh's writer puts it:
// after every member but agentPreset.
func withDelegationDepth(hv jsonv.Value) jsonv.Value {
	members := make([]jsonv.Member, 0, hv.Len()+1)
	placed := false
	for _, m := range hv.Members() {
		if m.Key == "agentPreset" && !placed {
			members = append(members, jsonv.M("delegationDepth", jsonv.IntValue(0)))
			placed = true
		}
		members = append(members, m)
	}
	if !placed {
		members = append(members, jsonv.M("delegationDepth", jsonv.IntValue(0)))
	}
	return jsonv.ObjectValue(members...)
}

// Row lifts one body row, read from file line line; changed says whether
// the row returned differs from the one given.
func (l *Lifter) Row(row jsonv.Value, line int) (lifted jsonv.Value, changed bool) {
	if row.Kind() != jsonv.Object {
		return row, false
	}
	typ, ok := row.Field("type").Str()
	if !ok {
		return row, false
	}
	if l.rules != nil && l.rules.HeadlessSurface && !l.stepSeen {
		l.stepSeen = typ == "step/start"
		l.headless = l.headless || headSurfaceTypes[typ]
	}
	if l.format <= 1 {
		switch typ {
		case "request/header":
			row, tools := l.snapshotTools(row, line)
			row, prompt := l.headlessPrompt(row, line)
			return row, tools || prompt
		case "subagent/descriptor":
			return l.descriptor(row, line)
		case "tool/result":
			row, artifact := l.artifact(row, line)
			row, loaded := l.loadedTools(row, line)
			return row, artifact || loaded
		}
	}
	if l.vocab.ForkType(typ, l.format) && !row.Has("surfaceOp") {
		return l.forkEvent(row, typ, line), true
	}
	return row, false
}

// seqOf is a row's seq for a change, -1 when it has none that counts.
func seqOf(row jsonv.Value) int64 {
	seq, ok := row.Field("seq").Count()
	if !ok {
		return -1
	}
	return seq
}

// snapshotTools takes a request/header's tools in snapshot form ("{{tools}}"
// or a list of names) out of the row, to be put back once migrated: the
// released v0 rules want tool schemas, the v4 codec accepts either form.
func (l *Lifter) snapshotTools(row jsonv.Value, line int) (jsonv.Value, bool) {
	ordinal := l.headers
	l.headers++
	data := row.Field("data")
	header := data.Field("header")
	tools, ok := header.Get("tools")
	if !ok || !SnapshotToolsForm(tools) {
		return row, false
	}
	l.tools = append(l.tools, heldTools{ordinal: ordinal, tools: jsonv.Detach(tools)})
	l.note(Change{Line: line, Seq: seqOf(row), Rule: RuleSnapshotTools,
		What: "request/header tools in snapshot form (" + toolsForm(tools) + ") carried through the migration as written"})
	return row.With("data", data.With("header", header.Without("tools"))), true
}

// SnapshotToolsForm reports whether a request/header's tools are in dsh's
// normalized snapshot form: the "{{tools}}" placeholder or a non-empty list
// of tool names.
func SnapshotToolsForm(tools jsonv.Value) bool {
	switch tools.Kind() {
	case jsonv.String:
		return tools.Text() == "{{tools}}"
	case jsonv.Array:
		if tools.Len() == 0 {
			return false
		}
		for _, t := range tools.Elements() {
			if t.Kind() != jsonv.String {
				return false
			}
		}
		return true
	}
	return false
}

func toolsForm(tools jsonv.Value) string {
	if tools.Kind() == jsonv.String {
		return `"{{tools}}"`
	}
	return fmt.Sprintf("%d tool names", tools.Len())
}

// headSurfaceTypes are the v0 types whose events are surface nodes, any of
// which before the first step leaves a session without a system head.
var headSurfaceTypes = map[string]bool{"user/message": true, "assistant/message": true, "tool/result": true}

// headlessPrompt sets aside the system prompt of a request/header in a
// session whose surface began before its first step. The v0 line keeps the
// prompt in the header and puts it before the surface when it sends a
// request; every later format keeps it on the surface as its first node,
// which a surface begun outside any step cannot be given without changing
// its chronology. The session is read headless, its prompt listed here.
func (l *Lifter) headlessPrompt(row jsonv.Value, line int) (jsonv.Value, bool) {
	if !l.headless {
		return row, false
	}
	data := row.Field("data")
	header := data.Field("header")
	prompt, ok := header.Get("system")
	if !ok || prompt.Text() == "" {
		return row, false
	}
	l.note(Change{Line: line, Seq: seqOf(row), Rule: RuleHeadlessPrompt,
		What:     "request/header system prompt set aside: the session's surface began before its first step, so no later format can put the prompt first, where the v0 line sends it; its requests are read without it",
		SetAside: prompt.Append(nil)})
	return row.With("data", data.With("header", header.Without("system"))), true
}

// descriptor reads a subagent/descriptor of the line's own payload version
// as version 3, which it is but for the optional agentReasoningEffort.
func (l *Lifter) descriptor(row jsonv.Value, line int) (jsonv.Value, bool) {
	if l.rules == nil || l.rules.DescriptorVersion == 0 {
		return row, false
	}
	data := row.Field("data")
	version, ok := data.Field("version").Count()
	if !ok || version != l.rules.DescriptorVersion || data.Has("agentReasoningEffort") {
		return row, false
	}
	l.note(Change{Line: line, Seq: seqOf(row), Rule: RuleDescriptorVersion,
		What: fmt.Sprintf("subagent/descriptor payload version %d read as version 3 (the same payload, without the optional agentReasoningEffort)", version)})
	return row.With("data", data.With("version", jsonv.IntValue(3))), true
}

// artifact sets aside a tool/result's data.artifact, the locator of a
// spilled output, which no later format holds and the model never sees. A
// member not of the line's shape is left for the migrator to refuse.
func (l *Lifter) artifact(row jsonv.Value, line int) (jsonv.Value, bool) {
	if l.rules == nil || !l.rules.ToolResultArtifact {
		return row, false
	}
	data := row.Field("data")
	artifact, ok := data.Get("artifact")
	if !ok || !artifactShape(artifact) {
		return row, false
	}
	l.note(Change{Line: line, Seq: seqOf(row), Rule: RuleToolResultArtifact,
		What:     "tool/result data.artifact (a spilled output's locator, never model-visible) set aside: no later format holds it",
		SetAside: artifact.Append(nil)})
	return row.With("data", data.Without("artifact")), true
}

// loadedTools sets aside the loadedTools of a tool/result's tool-result
// parts: the deferred tool schemas a tool search discovered, which reach
// the model through the next request/header's tools, not through the
// result, and which no later format holds in a message. A member that is
// not a list of tool schemas is left for the migrator to refuse.
func (l *Lifter) loadedTools(row jsonv.Value, line int) (jsonv.Value, bool) {
	if l.rules == nil || !l.rules.LoadedTools {
		return row, false
	}
	data := row.Field("data")
	message := data.Field("message")
	content := message.Field("content")
	changed := false
	for i, part := range content.Elements() {
		tools, ok := part.Get("loadedTools")
		if !ok || part.Field("type").Text() != "tool-result" || !toolSchemas(tools) {
			continue
		}
		l.note(Change{Line: line, Seq: seqOf(row), Rule: RuleLoadedTools,
			What:     fmt.Sprintf("tool/result content[%d].loadedTools (%d deferred tool schemas a tool search discovered; they reach the model through the next request/header's tools) set aside: no later format holds them in a message", i, tools.Len()),
			SetAside: tools.Append(nil)})
		content = content.WithIndex(i, part.Without("loadedTools"))
		changed = true
	}
	if !changed {
		return row, false
	}
	return row.With("data", data.With("message", message.With("content", content))), true
}

// toolSchemas reports whether v is a non-empty list of tool schemas, each
// an object with a string name.
func toolSchemas(v jsonv.Value) bool {
	if v.Kind() != jsonv.Array || v.Len() == 0 {
		return false
	}
	for _, tool := range v.Elements() {
		if _, ok := tool.Field("name").Str(); !ok || tool.Kind() != jsonv.Object {
			return false
		}
	}
	return true
}

// artifactShape reports whether v is a ToolResultArtifact of the v0 line:
// exactly {kind: "full-result", locator: string, bytes: a count}.
func artifactShape(v jsonv.Value) bool {
	if v.Kind() != jsonv.Object || v.Len() != 3 {
		return false
	}
	_, locator := v.Field("locator").Str()
	_, bytes := v.Field("bytes").Count()
	return v.Field("kind").Text() == "full-result" && v.Field("kind").Kind() == jsonv.String && locator && bytes
}

// standInPrefix starts the text of the feedback/record that holds a fork
// event's place through the chain; the NUL keeps it from any text a log
// holds.
const standInPrefix = "\x00dshlog fork-event stand-in "

// forkEvent puts a log-only feedback/record in the place of an event of a
// fork's own type, which no migration stage knows, and holds the event to
// put back, ignorable, once migrated.
func (l *Lifter) forkEvent(row jsonv.Value, typ string, line int) jsonv.Value {
	l.forks = append(l.forks, jsonv.Detach(row))
	l.note(Change{Line: line, Seq: seqOf(row), Rule: RuleForkEvent,
		What: fmt.Sprintf("event type %q, the fork's own, kept as an ignorable event (today's dsh skips it)", typ)})
	members := []jsonv.Member{jsonv.M("type", jsonv.StringValue("feedback/record"))}
	for _, key := range []string{"seq", "time"} {
		if v, ok := row.Get(key); ok {
			members = append(members, jsonv.M(key, v))
		}
	}
	text := fmt.Sprintf("%s%d", standInPrefix, len(l.forks)-1)
	members = append(members, jsonv.M("data", jsonv.ObjectValue(jsonv.M("text", jsonv.StringValue(text)))))
	return jsonv.ObjectValue(members...)
}

// PutBack returns a migrated v4 event with what the chain could not carry
// put back; it must see every migrated event, in order.
func (l *Lifter) PutBack(ev session.Event) session.Event {
	switch ev.Type {
	case "request/header":
		ordinal := l.putHeaders
		l.putHeaders++
		if len(l.tools) == 0 || l.tools[0].ordinal != ordinal {
			return ev
		}
		tools := l.tools[0].tools
		l.tools = l.tools[1:]
		data := ev.Data()
		return ev.WithData(data.With("header", data.Field("header").With("tools", tools)))
	case "feedback/record":
		var k int
		text := ev.Data().Field("text").Text()
		if len(text) <= len(standInPrefix) || text[:len(standInPrefix)] != standInPrefix {
			return ev
		}
		if _, err := fmt.Sscan(text[len(standInPrefix):], &k); err != nil || k >= len(l.forks) || l.forks[k].IsNull() {
			return ev
		}
		fork := l.forks[k]
		l.forks[k] = jsonv.Value{} // put back once; the row is not held further
		return ignorable(fork, ev)
	}
	return ev
}

// ignorable is the fork event row as the current format keeps an event of
// a type it does not know: its own type and data, the migrated seq and
// time, and dsh's skip marker.
func ignorable(row jsonv.Value, at session.Event) session.Event {
	members := []jsonv.Member{
		jsonv.M("type", row.Field("type")),
		jsonv.M("seq", jsonv.IntValue(at.Seq)),
		jsonv.M("time", jsonv.IntValue(at.Time)),
	}
	for _, m := range row.Members() {
		switch m.Key {
		case "type", "seq", "time", "ignorable":
			continue
		}
		members = append(members, m)
	}
	members = append(members, jsonv.M("ignorable", jsonv.BoolValue(true)))
	return session.Event{Type: row.Field("type").Text(), Seq: at.Seq, Time: at.Time, Row: jsonv.ObjectValue(members...)}
}
