package fold

import (
	"bytes"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// headerState is the request-header fold (foldRequestHeader,
// request-header.ts): the canonical form of the last request/header.
type headerState struct {
	present bool
	seq     int64
	reason  string
	series  bool // the header carried startsSeries:true
	header  jsonv.Value
}

func (h *headerState) apply(ev session.Event) {
	data := ev.Data()
	h.present = true
	h.seq = ev.Seq
	h.reason = data.Field("reason").Text()
	h.series = data.Field("startsSeries").IsTrue()
	h.header = CanonicalHeader(data.Field("header"))
}

// HeaderInForce describes the request header in force after the folded
// events: the latest request/header snapshot.
type HeaderInForce struct {
	Seq          int64
	Reason       string // initial, resume, change or series
	StartsSeries bool
	// Header is the canonical EpochHeader: config, adapterDefaults?,
	// system?, tools?.
	Header jsonv.Value
}

// Header returns the header in force and whether any request/header has
// been folded.
func (f *Fold) Header() (HeaderInForce, bool) {
	h := f.header
	return HeaderInForce{Seq: h.seq, Reason: h.reason, StartsSeries: h.series, Header: h.header}, h.present
}

// CanonicalHeader returns dsh's canonical form of an EpochHeader
// (canonicalHeader, request-header.ts): config, then adapterDefaults only
// when it sets a flag, system only when non-empty, tools only when
// non-empty; every kept value verbatim.
func CanonicalHeader(header jsonv.Value) jsonv.Value {
	var members []jsonv.Member
	if config, ok := header.Get("config"); ok {
		members = append(members, jsonv.M("config", config))
	}
	defaults := header.Field("adapterDefaults")
	if defaults.Field("reasoningEffort").IsTrue() || defaults.Field("maxTokens").IsTrue() {
		members = append(members, jsonv.M("adapterDefaults", defaults))
	}
	if system := header.Field("system"); jsLength(system) > 0 {
		members = append(members, jsonv.M("system", system))
	}
	if tools := header.Field("tools"); jsLength(tools) > 0 {
		members = append(members, jsonv.M("tools", tools))
	}
	return jsonv.ObjectValue(members...)
}

// jsLength is JavaScript's v.length for a string (in UTF-16 units, only
// compared with zero here) or an array, and 0 for anything else.
func jsLength(v jsonv.Value) int {
	switch v.Kind() {
	case jsonv.String:
		return len(v.Text())
	case jsonv.Array:
		return v.Len()
	}
	return 0
}

// toolHistory is dsh's ToolHistoryProjection (tool-history.ts@f0cc89ab):
// the tools of the current declaration series and the developer messages
// that added tools since.
type toolHistory struct {
	started   bool
	declared  map[string]jsonv.Value // tools declared in the series, by name
	active    jsonv.Value            // tools of the latest header
	available map[string]bool        // names available after the recorded updates
	tools     jsonv.Value            // the series baseline
	updates   []jsonv.Value          // {messageId, additions} per developer message
}

func (t *toolHistory) apply(ev session.Event, headerTools map[int64]jsonv.Value) {
	switch ev.Type {
	case typeHeader:
		t.applyHeader(ev, headerTools[ev.Seq])
	case typeDeveloper:
		t.applyDeveloper(ev, headerTools)
	}
}

// applyHeader starts a new baseline on the first header, a series header or
// a redeclaration of a tool under a different definition.
func (t *toolHistory) applyHeader(ev session.Event, tools jsonv.Value) {
	if tools.Kind() != jsonv.Array {
		tools = jsonv.ArrayValue()
	}
	redeclared := false
	for _, tool := range tools.Elements() {
		before, ok := t.declared[toolKey(tool.Field("name"))]
		if ok && !bytes.Equal(before.Encode(), tool.Encode()) {
			redeclared = true
			break
		}
	}
	data := ev.Data()
	if !t.started || data.Field("reason").Text() == "series" || truthy(data.Field("startsSeries")) || redeclared {
		t.started = true
		t.declared = make(map[string]jsonv.Value, tools.Len())
		t.available = make(map[string]bool, tools.Len())
		for _, tool := range tools.Elements() {
			key := toolKey(tool.Field("name"))
			t.declared[key] = tool
			t.available[key] = true
		}
		t.tools = tools
		t.updates = nil
	}
	t.active = tools
}

// applyDeveloper records a developer message's additions, resolved against
// the header its headerSeq names, and its removals. The surface fold has
// already checked that each addition names exactly one tool there, so
// dsh's "tool history: missing definition" cannot happen here.
func (t *toolHistory) applyDeveloper(ev session.Event, headerTools map[int64]jsonv.Value) {
	data := ev.Data()
	message := data.Field("message")
	var definitions jsonv.Value
	if seq, ok := data.Field("headerSeq").Count(); ok {
		definitions = headerTools[seq]
	}
	blocks := message.Field("content").Elements()
	var additions []jsonv.Value
	for _, block := range blocks {
		if block.Field("type").Text() != "tool-addition" {
			continue
		}
		additions = append(additions, toolsNamed(definitions, block.Field("toolName"))...)
	}
	if t.declared == nil {
		t.declared = map[string]jsonv.Value{}
		t.available = map[string]bool{}
	}
	for _, tool := range additions {
		t.declared[toolKey(tool.Field("name"))] = tool
	}
	for _, block := range blocks {
		key := toolKey(block.Field("toolName"))
		switch block.Field("type").Text() {
		case "tool-addition":
			t.available[key] = true
		case "tool-removal":
			delete(t.available, key)
		}
	}
	t.updates = append(t.updates, jsonv.ObjectValue(
		jsonv.M("messageId", message.Field("id")),
		jsonv.M("additions", jsonv.ArrayValue(additions...)),
	))
}

// snapshot returns the tool history a request carries: {tools, updates}.
// When the active tools disagree with the names the updates account for
// (logs written before tool updates were emitted) it is the active tools
// with no updates.
func (t *toolHistory) snapshot() jsonv.Value {
	active := t.active
	if active.Kind() != jsonv.Array {
		active = jsonv.ArrayValue()
	}
	consistent := active.Len() == len(t.available)
	for _, tool := range active.Elements() {
		if !t.available[toolKey(tool.Field("name"))] {
			consistent = false
		}
	}
	if !consistent {
		return toolHistoryValue(active, nil)
	}
	tools := t.tools
	if tools.Kind() != jsonv.Array {
		tools = jsonv.ArrayValue()
	}
	return toolHistoryValue(tools, t.updates)
}

// ToolHistory returns the tool history a request built now would carry:
// {tools, updates}, each update {messageId, additions}.
func (f *Fold) ToolHistory() jsonv.Value { return f.toolHistory.snapshot() }

func toolHistoryValue(tools jsonv.Value, updates []jsonv.Value) jsonv.Value {
	return jsonv.ObjectValue(
		jsonv.M("tools", tools),
		jsonv.M("updates", jsonv.ArrayValue(updates...)),
	)
}

// toolKey is the map key of a tool name: its JSON text, so that names of
// different JSON types stay apart as they do in a JavaScript Map.
func toolKey(name jsonv.Value) string { return name.String() }
