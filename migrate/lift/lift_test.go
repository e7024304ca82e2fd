package lift

import (
	"strconv"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// The fork sources the rules are cited from (bare repositories; read with
// git show HEAD:path): toninfo/deepseek-harness @6116156,
// KeepLost/harniverse @72b0228, SparkElf/deepseek-harness-plus @705ae96.
// The three share these files but for the line numbers noted.

// forkType is an event type of the fork's own, as a fork's
// known-event-types.ts would declare it.
const forkType = "fork/bookmark"

// v0Line is the vocabulary of the v0 line with one fork type of its own
// and a released v0 type (team/member) the fork redeclares.
func v0Line() *vocab.Vocabulary {
	return vocab.V0Line.Vocabulary().With(&vocab.Declaration{File: "known-event-types.ts",
		Kind: vocab.FileKnownEventTypes, Types: []vocab.Type{{Name: forkType}, {Name: "team/member"}}})
}

// official is today's dsh with the same fork type declared: it has no v0
// rules, so it lifts the snapshot form only.
func official() *vocab.Vocabulary {
	return vocab.Default().With(&vocab.Declaration{File: "known-event-types.ts",
		Kind: vocab.FileKnownEventTypes, Types: []vocab.Type{{Name: forkType}}})
}

func parse(t *testing.T, text string) jsonv.Value {
	t.Helper()
	v, err := jsonv.Parse([]byte(text))
	if err != nil {
		t.Fatalf("parse %s: %v", text, err)
	}
	return v
}

// TestHeader is the header rule. Source: toninfo
// packages/core/session/src/index.ts validateSessionHeader (line 96) checks
// delegationDepth only when it is present (lines 128-131; KeepLost lines
// 142-145), and Session.create's header (line 885) writes it only when the
// session has one, just before agentPreset (line 886).
func TestHeader(t *testing.T) {
	tests := []struct {
		name  string
		vocab *vocab.Vocabulary
		in    string
		want  string // "" means unchanged
	}{
		{"missing, appended last", v0Line(),
			`{"type":"session","version":0,"id":"s","createdAt":0,"cwd":"/w"}`,
			`{"type":"session","version":0,"id":"s","createdAt":0,"cwd":"/w","delegationDepth":0}`},
		{"missing, placed before agentPreset", v0Line(),
			`{"type":"session","version":0,"id":"s","createdAt":0,"origin":"subagent","agentPreset":"p"}`,
			`{"type":"session","version":0,"id":"s","createdAt":0,"origin":"subagent","delegationDepth":0,"agentPreset":"p"}`},
		{"present, untouched", v0Line(),
			`{"type":"session","version":0,"id":"s","createdAt":0,"delegationDepth":1,"agentPreset":"p"}`, ""},
		{"present as null, left for the migrator to refuse", v0Line(),
			`{"type":"session","version":0,"id":"s","createdAt":0,"delegationDepth":null}`, ""},
		{"missing, official build reads v0 as history", official(),
			`{"type":"session","version":0,"id":"s","createdAt":0}`, ""},
		{"not an object", v0Line(), `[0]`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := New(tt.vocab, 0, true)
			got := l.Header(parse(t, tt.in)).String()
			want := tt.want
			if want == "" {
				want = tt.in
			}
			if got != want {
				t.Errorf("header:\n got %s\nwant %s", got, want)
			}
			changes := l.Changes()
			if tt.want == "" {
				if len(changes) != 0 {
					t.Errorf("changes = %+v, want none", changes)
				}
				return
			}
			if len(changes) != 1 || changes[0].Rule != RuleDelegationDepth || changes[0].Line != 1 || changes[0].Seq != -1 || changes[0].SetAside != nil {
				t.Errorf("changes = %+v, want one %s at line 1, seq -1", changes, RuleDelegationDepth)
			}
		})
	}
}

// rowCase is one body row given to Row, and what must come out.
type rowCase struct {
	name     string
	vocab    *vocab.Vocabulary
	in       string
	want     string // "" means unchanged
	rule     string // the one change's rule when changed
	setAside string // its SetAside, when it sets one aside
}

func runRows(t *testing.T, tests []rowCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := New(tt.vocab, 0, true)
			got, changed := l.Row(parse(t, tt.in), 7)
			want := tt.want
			if want == "" {
				want = tt.in
			}
			if got.String() != want {
				t.Errorf("row:\n got %s\nwant %s", got, want)
			}
			if changed != (tt.want != "") {
				t.Errorf("changed = %v, want %v", changed, tt.want != "")
			}
			changes := l.Changes()
			if tt.want == "" {
				if len(changes) != 0 {
					t.Errorf("changes = %+v, want none", changes)
				}
				return
			}
			if len(changes) != 1 {
				t.Fatalf("changes = %+v, want one", changes)
			}
			c := changes[0]
			if c.Rule != tt.rule || c.Line != 7 || c.Seq != 5 || string(c.SetAside) != tt.setAside {
				t.Errorf("change = %+v (set aside %s), want rule %s at line 7, seq 5, set aside %q", c, c.SetAside, tt.rule, tt.setAside)
			}
		})
	}
}

// TestDescriptorVersion is the descriptor rule. Source:
// packages/subagent/subagent/src/descriptor.ts SUBAGENT_DESCRIPTOR_VERSION
// = 2 (line 47), required verbatim by parseSubagentDescriptor (line 204);
// its known keys (DESCRIPTOR_BASE_KEYS line 125, CONTINUABLE_DESCRIPTOR_KEYS
// line 132) have no agentReasoningEffort, so a version-2 payload that has
// one is not the line's and stays for the migrator to refuse.
func TestDescriptorVersion(t *testing.T) {
	runRows(t, []rowCase{
		{name: "version 2 read as 3", vocab: v0Line(),
			in:   `{"type":"subagent/descriptor","seq":5,"time":0,"data":{"version":2,"mode":"one-shot","provider":"spawn","label":"Start depth two"}}`,
			want: `{"type":"subagent/descriptor","seq":5,"time":0,"data":{"version":3,"mode":"one-shot","provider":"spawn","label":"Start depth two"}}`,
			rule: RuleDescriptorVersion},
		{name: "version 2 with agentReasoningEffort left alone", vocab: v0Line(),
			in: `{"type":"subagent/descriptor","seq":5,"time":0,"data":{"version":2,"mode":"continuable","provider":"spawn","label":"x","agentReasoningEffort":"high"}}`},
		{name: "version 3 untouched", vocab: v0Line(),
			in: `{"type":"subagent/descriptor","seq":5,"time":0,"data":{"version":3,"mode":"one-shot","provider":"spawn"}}`},
		{name: "version 1 left for the migrator to refuse", vocab: v0Line(),
			in: `{"type":"subagent/descriptor","seq":5,"time":0,"data":{"version":1,"mode":"one-shot","provider":"spawn"}}`},
		{name: "version as a string left alone", vocab: v0Line(),
			in: `{"type":"subagent/descriptor","seq":5,"time":0,"data":{"version":"2","mode":"one-shot","provider":"spawn"}}`},
		{name: "version 2 not lifted with the official build", vocab: official(),
			in: `{"type":"subagent/descriptor","seq":5,"time":0,"data":{"version":2,"mode":"one-shot","provider":"spawn"}}`},
	})
}

// TestToolResultArtifact is the artifact rule. Source: KeepLost
// packages/core/session/src/types.ts ToolResultArtifact (line 197: kind
// 'full-result' line 199, locator line 201, bytes line 203), the optional
// member of 'tool/result' data (artifact?: line 309).
func TestToolResultArtifact(t *testing.T) {
	const artifact = `{"kind":"full-result","locator":"local-spill:v1:4c7a9b5fb40a/c6834cd0fb26-bash-result.txt","bytes":2022}`
	row := func(artifact string) string {
		return `{"type":"tool/result","seq":5,"time":9,"data":{"turn":1,"step":1,"message":{"source":{"kind":"tool","callId":"c"},"content":[{"type":"tool-result","toolCallId":"c","content":[{"type":"text","text":"out"}]}],"role":"tool"},"artifact":` + artifact + `},"surfaceOp":"append"}`
	}
	without := `{"type":"tool/result","seq":5,"time":9,"data":{"turn":1,"step":1,"message":{"source":{"kind":"tool","callId":"c"},"content":[{"type":"tool-result","toolCallId":"c","content":[{"type":"text","text":"out"}]}],"role":"tool"}},"surfaceOp":"append"}`
	runRows(t, []rowCase{
		{name: "of the line's shape, set aside with its bytes", vocab: v0Line(),
			in: row(artifact), want: without, rule: RuleToolResultArtifact, setAside: artifact},
		{name: "no artifact", vocab: v0Line(), in: without},
		{name: "other kind", vocab: v0Line(), in: row(`{"kind":"partial","locator":"x","bytes":1}`)},
		{name: "bytes missing", vocab: v0Line(), in: row(`{"kind":"full-result","locator":"x","nbytes":1}`)},
		{name: "bytes negative", vocab: v0Line(), in: row(`{"kind":"full-result","locator":"x","bytes":-1}`)},
		{name: "bytes fractional", vocab: v0Line(), in: row(`{"kind":"full-result","locator":"x","bytes":1.5}`)},
		{name: "locator not a string", vocab: v0Line(), in: row(`{"kind":"full-result","locator":7,"bytes":1}`)},
		{name: "an extra member", vocab: v0Line(), in: row(`{"kind":"full-result","locator":"x","bytes":1,"sha":"y"}`)},
		{name: "not an object", vocab: v0Line(), in: row(`"local-spill:v1:x"`)},
		{name: "official build reads v0 as history", vocab: official(), in: row(artifact)},
	})
}

// TestLoadedTools is the loaded-tools rule. Source: BeiKeJieDeLiuLangMao
// deepseek-harness-gestalt @0462bca packages/core/agent-loop/src/tool-calls.ts
// appendToolResult (line 280: a successful result's loadedTools on its
// tool-result part) and packages/core/tools/src/index.ts
// ToolExecutionSuccess.loadedTools (line 622: "Deferred schemas discovered
// by this result for subsequent requests").
func TestLoadedTools(t *testing.T) {
	const tools = `[{"name":"sdk_deferred_echo","description":"Echo","parameters":{"type":"object"}}]`
	row := func(part string) string {
		return `{"type":"tool/result","seq":5,"time":9,"data":{"turn":1,"step":1,"message":{"source":{"kind":"tool","callId":"c"},"content":[` + part + `],"role":"tool"}},"surfaceOp":"append"}`
	}
	plain := `{"type":"tool-result","toolCallId":"c","content":[{"type":"text","text":"out"}],"isError":false}`
	loaded := `{"type":"tool-result","toolCallId":"c","content":[{"type":"text","text":"out"}],"isError":false,"loadedTools":` + tools + `}`
	runRows(t, []rowCase{
		{name: "set aside with its bytes", vocab: v0Line(),
			in: row(loaded), want: row(plain), rule: RuleLoadedTools, setAside: tools},
		{name: "none", vocab: v0Line(), in: row(plain)},
		{name: "empty list", vocab: v0Line(), in: row(`{"type":"tool-result","toolCallId":"c","content":[],"loadedTools":[]}`)},
		{name: "not schemas", vocab: v0Line(), in: row(`{"type":"tool-result","toolCallId":"c","content":[],"loadedTools":["echo"]}`)},
		{name: "on another part", vocab: v0Line(), in: row(`{"type":"text","text":"x","loadedTools":` + tools + `}`)},
		{name: "official build reads v0 as history", vocab: official(), in: row(loaded)},
	})
}

// TestHeadlessPrompt is the headless-surface rule. Source: toninfo
// packages/core/agent-loop/src/agent.ts (line 337 renders the prompt, line
// 480 puts it in the request header as system): the v0 line keeps the
// prompt in the header, never on the surface, so a session whose surface
// began before its first step (the web app's) has no head to put it in.
func TestHeadlessPrompt(t *testing.T) {
	header := `{"type":"request/header","seq":4,"time":9,"data":{"header":{"config":{"provider":"p","model":"m"},"system":"Be brief."},"reason":"initial"}}`
	without := `{"type":"request/header","seq":4,"time":9,"data":{"header":{"config":{"provider":"p","model":"m"}},"reason":"initial"}}`
	user := `{"type":"user/message","seq":1,"time":2,"data":{"role":"user","content":[],"source":{"kind":"user"},"id":"u"},"surfaceOp":"append"}`
	step := `{"type":"step/start","seq":3,"time":4,"data":{"turn":1,"step":1}}`
	for _, tt := range []struct {
		name  string
		vocab *vocab.Vocabulary
		rows  []string
		want  string
	}{
		{"surface before the first step", v0Line(), []string{user, step, header}, without},
		{"step first: the head takes the prompt", v0Line(), []string{step, user, header}, header},
		{"official build reads v0 as history", official(), []string{user, step, header}, header},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := New(tt.vocab, 0, true)
			var got jsonv.Value
			for i, text := range tt.rows {
				got, _ = l.Row(parse(t, text), i+2)
			}
			if got.String() != tt.want {
				t.Errorf("header row:\n got %s\nwant %s", got, tt.want)
			}
			lifted := tt.want == without
			changes := l.Changes()
			if lifted && (len(changes) != 1 || changes[0].Rule != RuleHeadlessPrompt || string(changes[0].SetAside) != `"Be brief."`) {
				t.Errorf("changes = %+v, want the prompt set aside", changes)
			}
			if !lifted && len(changes) != 0 {
				t.Errorf("changes = %+v, want none", changes)
			}
		})
	}
}

// TestForkEvent is the fork-event rule. Source: toninfo
// packages/core/session/src/known-event-types.ts KNOWN_SESSION_EVENT_TYPES
// (the fork's vocabulary) and types.ts SessionEvent.ignorable (line 426;
// KeepLost line 435): a reader that does not know a type skips it only when
// it carries ignorable: true, which dsh's own writer gives such a record.
func TestForkEvent(t *testing.T) {
	runRows(t, []rowCase{
		{name: "released v0 type a fork redeclares", vocab: v0Line(),
			in: `{"type":"team/member","seq":5,"time":9,"data":{"name":"a"}}`},
		{name: "type no one declared, left for the migrator to refuse", vocab: v0Line(),
			in: `{"type":"fork/undeclared","seq":5,"time":9,"data":{}}`},
		{name: "fork type on the surface, left for the migrator to refuse", vocab: v0Line(),
			in: `{"type":"` + forkType + `","seq":5,"time":9,"data":{},"surfaceOp":"append"}`},
		// A declaration applies to a log of any older format, whatever the
		// build: the fork's build of that format wrote the event.
		{name: "fork type with the official build", vocab: official(),
			in:   `{"type":"` + forkType + `","seq":5,"time":9,"data":{"at":3}}`,
			want: `{"type":"feedback/record","seq":5,"time":9,"data":{"text":"\u0000dshlog fork-event stand-in 0"}}`, rule: RuleForkEvent},
	})

	l := New(v0Line(), 0, true)
	first := `{"type":"` + forkType + `","seq":5,"time":9,"data":{"at":3,"note":"keep"}}`
	second := `{"type":"` + forkType + `","seq":8,"time":12,"data":{"at":4},"ignorable":true}`
	var standIns []jsonv.Value
	for i, text := range []string{first, second} {
		got, changed := l.Row(parse(t, text), 10+i)
		if !changed {
			t.Fatalf("row %d not lifted", i)
		}
		if got.Field("type").Text() != "feedback/record" || !strings.HasPrefix(got.Field("data").Field("text").Text(), standInPrefix) {
			t.Fatalf("stand-in = %s, want a feedback/record holding the place", got)
		}
		if !jsonv.Equal(got.Field("seq"), parse(t, text).Field("seq")) || !jsonv.Equal(got.Field("time"), parse(t, text).Field("time")) {
			t.Errorf("stand-in %s does not keep the row's seq and time", got)
		}
		standIns = append(standIns, got)
	}
	changes := l.Changes()
	if len(changes) != 2 || changes[0].Rule != RuleForkEvent || changes[0].Line != 10 || changes[0].Seq != 5 || changes[1].Seq != 8 {
		t.Errorf("changes = %+v, want two %s at lines 10 and 11", changes, RuleForkEvent)
	}

	// The chain renumbers: the migrated stand-ins come back at other seqs
	// and times, and the events put back take those.
	ordinary := session.Event{Type: "feedback/record", Seq: 20, Time: 30,
		Row: parse(t, `{"type":"feedback/record","seq":20,"time":30,"data":{"text":"a real note"}}`)}
	if got := l.PutBack(ordinary); got.Row.String() != ordinary.Row.String() {
		t.Errorf("ordinary feedback/record put back as %s", got.Row)
	}
	for i, want := range []string{
		`{"type":"` + forkType + `","seq":21,"time":31,"data":{"at":3,"note":"keep"},"ignorable":true}`,
		`{"type":"` + forkType + `","seq":22,"time":32,"data":{"at":4},"ignorable":true}`,
	} {
		migrated := session.Event{Type: "feedback/record", Seq: int64(21 + i), Time: int64(31 + i),
			Row: standIns[i].With("seq", jsonv.IntValue(int64(21+i))).With("time", jsonv.IntValue(int64(31+i)))}
		got := l.PutBack(migrated)
		if got.Row.String() != want || got.Type != forkType || got.Seq != int64(21+i) || got.Time != int64(31+i) || !got.Ignorable() {
			t.Errorf("put back %d = %+v %s, want %s", i, got, got.Row, want)
		}
	}
	beyond := session.Event{Type: "feedback/record", Seq: 23, Time: 33,
		Row: jsonv.ObjectValue(jsonv.M("type", jsonv.StringValue("feedback/record")), jsonv.M("data",
			jsonv.ObjectValue(jsonv.M("text", jsonv.StringValue(standInPrefix+"9")))))}
	if got := l.PutBack(beyond); got.Type != "feedback/record" {
		t.Errorf("a stand-in text naming no held event was put back as %s", got.Row)
	}
}

// TestSnapshotTools is the snapshot-form rule, which holds for every
// build. Source: toninfo packages/test-support/acp-snapshot/src/normalize.ts
// (TOOLS = '{{tools}}' line 12, put in place of a request header's tools at
// line 395), and SparkElf scripts/smoke-python-runtime.py line 1269, which
// keeps each tool's name.
func TestSnapshotTools(t *testing.T) {
	header := func(seq int, tools string) string {
		return `{"type":"request/header","seq":` + itoa(seq) + `,"time":0,"data":{"header":{"config":{"provider":"p","model":"m"},"system":"{{system}}","tools":` + tools + `},"reason":"initial"}}`
	}
	stripped := func(seq int) string {
		return `{"type":"request/header","seq":` + itoa(seq) + `,"time":0,"data":{"header":{"config":{"provider":"p","model":"m"},"system":"{{system}}"},"reason":"initial"}}`
	}
	const schemas = `[{"name":"bash","description":"run","parameters":{"type":"object"}}]`
	const names = `["cordis_define","cordis_inspect_list"]`
	for _, v := range []*vocab.Vocabulary{v0Line(), official()} {
		t.Run(v.Build().Name, func(t *testing.T) {
			runRows(t, []rowCase{
				{name: "placeholder", vocab: v, in: header(5, `"{{tools}}"`), want: stripped(5), rule: RuleSnapshotTools},
				{name: "names", vocab: v, in: header(5, names), want: stripped(5), rule: RuleSnapshotTools},
				{name: "schemas untouched", vocab: v, in: header(5, schemas)},
				{name: "another placeholder untouched", vocab: v, in: header(5, `"{{system}}"`)},
				{name: "empty list untouched", vocab: v, in: header(5, `[]`)},
				{name: "names mixed with a schema untouched", vocab: v, in: header(5, `["bash",{"name":"x"}]`)},
			})
		})
	}

	// Headers 0 and 2 are in snapshot form, header 1 has its schemas: each
	// form goes back on the request/header of its own ordinal.
	l := New(v0Line(), 0, true)
	rows := []string{header(3, `"{{tools}}"`), `{"type":"turn/start","seq":4,"time":0,"data":{"turn":1}}`, header(6, schemas), header(9, names)}
	var lifted []jsonv.Value
	for i, text := range rows {
		got, _ := l.Row(parse(t, text), i+2)
		lifted = append(lifted, got)
	}
	if changes := l.Changes(); len(changes) != 2 || changes[0].Seq != 3 || changes[1].Seq != 9 {
		t.Fatalf("changes = %+v, want the headers at seq 3 and 9", changes)
	}
	for i, want := range []string{`"{{tools}}"`, "", schemas, names} {
		ev := session.Event{Type: lifted[i].Field("type").Text(), Seq: int64(i), Row: lifted[i]}
		got := l.PutBack(ev).Data().Field("header").Field("tools")
		if want == "" {
			want = "null"
		}
		if got.String() != want {
			t.Errorf("event %d: tools put back = %s, want %s", i, got, want)
		}
	}
}

// TestOrdinaryRows are rows none of the rules touch, by either build.
func TestOrdinaryRows(t *testing.T) {
	rows := []string{
		`{"type":"turn/start","seq":5,"time":9,"data":{"turn":1}}`,
		`{"type":"user/message","seq":5,"time":9,"data":{"role":"user","content":[{"type":"text","text":"hi"}],"source":{"kind":"user"},"id":"u"},"surfaceOp":"append"}`,
		`{"type":"tool/result","seq":5,"time":9,"data":{"turn":1,"step":1,"message":{"role":"tool","content":[]}}}`,
		`{"type":"feedback/record","seq":5,"time":9,"data":{"text":"note"}}`,
		`{"seq":5,"time":9}`,
		`[1,2]`,
		`"text"`,
	}
	var tests []rowCase
	for _, v := range []*vocab.Vocabulary{v0Line(), official()} {
		for _, row := range rows {
			tests = append(tests, rowCase{name: v.Build().Name + " " + row, vocab: v, in: row})
		}
	}
	runRows(t, tests)
}

func itoa(n int) string {
	return jsonv.IntValue(int64(n)).String()
}

// TestCountsWithoutList: a Lifter that does not list keeps only how many
// changes each rule made, so a judge's memory does not grow with them.
func TestCountsWithoutList(t *testing.T) {
	l := New(v0Line(), 0, false)
	l.Header(parse(t, `{"type":"session","version":0,"id":"s","createdAt":1}`))
	for i := range 3 {
		l.Row(parse(t, `{"type":"subagent/descriptor","seq":`+strconv.Itoa(i)+`,"time":1,"data":{"mode":"one-shot","version":2,"provider":"p"}}`), i+2)
	}
	if l.Changes() != nil {
		t.Errorf("changes listed: %+v", l.Changes())
	}
	if got, want := l.Counts().Summary(BuildRules...), "1 header without delegationDepth, 3 descriptors of the line's version"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}
