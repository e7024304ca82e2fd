package fold_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// foldGolden is one testdata/corpus/fold-golden/*/*.fold.json: what dsh's
// own Session computed on one log (see that folder's README).
type foldGolden struct {
	Input              string `json:"input"`
	InputSha256        string `json:"inputSha256"`
	SessionID          string `json:"sessionId"`
	EventCount         int    `json:"eventCount"`
	RangeEncodedEvents int    `json:"rangeEncodedEvents"`
	Nodes              struct {
		Nodes             []int64  `json:"nodes"`
		NodeTypes         []string `json:"nodeTypes"`
		ReplaceGeneration int      `json:"replaceGeneration"`
		ContentGeneration int      `json:"contentGeneration"`
		Roles             []string `json:"roles"`
		Replacements      []struct {
			Seq          int64   `json:"seq"`
			Start        int64   `json:"start"`
			End          int64   `json:"end"`
			ShadowedSeqs []int64 `json:"shadowedSeqs"`
		} `json:"replacements"`
		SessionLogLength int64  `json:"sessionLogLength"`
		Error            string `json:"error"`
	} `json:"nodes"`
	Messages struct {
		Count    int             `json:"count"`
		Sha256   string          `json:"sha256"`
		Messages json.RawMessage `json:"messages"`
	} `json:"messages"`
	Requests []struct {
		Index             int             `json:"index"`
		SettlementSeq     int64           `json:"settlementSeq"`
		Type              string          `json:"type"`
		Turn              int64           `json:"turn"`
		Step              int64           `json:"step"`
		MessageCount      int             `json:"messageCount"`
		MessagesSha256    string          `json:"messagesSha256"`
		ReplaceGeneration int             `json:"replaceGeneration"`
		ContentGeneration int             `json:"contentGeneration"`
		Header            json.RawMessage `json:"header"`
		ToolHistory       json.RawMessage `json:"toolHistory"`
		ExtendsPrevious   *bool           `json:"extendsPrevious"`
		Error             string          `json:"error"`
	} `json:"requests"`
	Closers struct {
		Whole []json.RawMessage `json:"whole"`
		Cuts  []struct {
			Cut       int64             `json:"cut"`
			Kind      string            `json:"kind"`
			AfterSeq  int64             `json:"afterSeq"`
			AfterType string            `json:"afterType"`
			Closers   []json.RawMessage `json:"closers"`
			Repaired  viewGolden        `json:"repaired"`
		} `json:"cuts"`
	} `json:"closers"`
	Forks []struct {
		Boundary   int64             `json:"boundary"`
		Kind       string            `json:"kind"`
		EventCount int               `json:"eventCount"`
		Tail       []json.RawMessage `json:"tail"`
		Child      struct {
			viewGolden
			ParentMessageCount  int   `json:"parentMessageCount"`
			ExtendsParent       bool  `json:"extendsParent"`
			InheritedEventCount int64 `json:"inheritedEventCount"`
			SessionLogLength    int   `json:"sessionLogLength"`
		} `json:"child"`
	} `json:"forks"`
}

// viewGolden is the model view of a constructed Session.
type viewGolden struct {
	MessageCount   int      `json:"messageCount"`
	Roles          []string `json:"roles"`
	MessagesSha256 string   `json:"messagesSha256"`
	Error          string   `json:"error"`
}

// TestFoldGolden reproduces every field of every fold golden: a new golden
// file is a new test.
func TestFoldGolden(t *testing.T) {
	paths, err := filepath.Glob("../testdata/corpus/fold-golden/*/*.fold.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fold goldens: %v", err)
	}
	for _, path := range paths {
		name := strings.TrimPrefix(path, "../testdata/corpus/fold-golden/")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var g foldGolden
			if err := json.Unmarshal(raw, &g); err != nil {
				t.Fatal(err)
			}
			input := filepath.Join("../testdata", g.Input)
			h, events := readV4(t, input)
			t.Run("input", func(t *testing.T) { checkInput(t, g, input, h, events) })
			t.Run("nodes", func(t *testing.T) { checkNodes(t, g, events) })
			t.Run("messages", func(t *testing.T) { checkMessages(t, g, events) })
			t.Run("requests", func(t *testing.T) { checkRequests(t, g, events) })
			t.Run("closers", func(t *testing.T) { checkCloserCuts(t, g, events) })
			t.Run("forks", func(t *testing.T) { checkForks(t, g, h, events) })
		})
	}
}

func checkInput(t *testing.T, g foldGolden, input string, h session.Header, events []session.Event) {
	data, err := os.ReadFile(input)
	if err != nil {
		t.Fatal(err)
	}
	if got := sha(data); got != g.InputSha256 {
		t.Errorf("inputSha256 = %s, want %s", got, g.InputSha256)
	}
	if h.ID != g.SessionID {
		t.Errorf("sessionId = %q, want %q", h.ID, g.SessionID)
	}
	if len(events) != g.EventCount {
		t.Errorf("eventCount = %d, want %d", len(events), g.EventCount)
	}
	ranged := 0
	for _, ev := range events {
		for _, member := range ev.Row.Field("sourceEventSeqs").Elements() {
			if member.Kind() == jsonv.Array {
				ranged++
				break
			}
		}
	}
	if ranged != g.RangeEncodedEvents {
		t.Errorf("rangeEncodedEvents = %d, want %d", ranged, g.RangeEncodedEvents)
	}
}

func checkNodes(t *testing.T, g foldGolden, events []session.Event) {
	want := g.Nodes
	if want.Error != "" {
		t.Fatalf("golden records a refusal %q; no corpus log is refused", want.Error)
	}
	f := foldAll(t, events)
	if got := f.Nodes(); !slices.Equal(got, want.Nodes) {
		t.Errorf("nodes = %v, want %v", got, want.Nodes)
	}
	var types []string
	for _, n := range f.Surface() {
		types = append(types, n.Type)
	}
	if !slices.Equal(types, want.NodeTypes) {
		t.Errorf("nodeTypes = %v, want %v", types, want.NodeTypes)
	}
	if f.ReplaceGeneration() != want.ReplaceGeneration || f.ContentGeneration() != want.ContentGeneration {
		t.Errorf("generations = %d/%d, want %d/%d", f.ReplaceGeneration(), f.ContentGeneration(), want.ReplaceGeneration, want.ContentGeneration)
	}
	if got := roles(f.Messages()); !slices.Equal(got, want.Roles) {
		t.Errorf("roles = %v, want %v", got, want.Roles)
	}
	got := f.Replacements()
	if len(got) != len(want.Replacements) {
		t.Fatalf("replacements = %+v, want %+v", got, want.Replacements)
	}
	for i, r := range want.Replacements {
		if got[i].Seq != r.Seq || got[i].StartSeq != r.Start || got[i].EndSeq != r.End || !slices.Equal(got[i].ShadowedSeqs, r.ShadowedSeqs) {
			t.Errorf("replacement %d = %+v, want %+v", i, got[i], r)
		}
		if got[i].ReplaceGeneration != i+1 {
			t.Errorf("replacement %d started generation %d, want %d", i, got[i].ReplaceGeneration, i+1)
		}
	}
	if length := constructedLength(events); length != want.SessionLogLength {
		t.Errorf("sessionLogLength = %d, want %d", length, want.SessionLogLength)
	}
}

// constructedLength is the log length of an unseeded Session constructed
// from events: the constructor appends session/end-seed {} unless the log
// already ends in one.
func constructedLength(events []session.Event) int64 {
	n := int64(len(events))
	if n == 0 || events[n-1].Type != "session/end-seed" {
		n++
	}
	return n
}

func checkMessages(t *testing.T, g foldGolden, events []session.Event) {
	messages := foldAll(t, events).Messages()
	encoded := encodeArray(messages)
	if len(messages) != g.Messages.Count {
		t.Errorf("count = %d, want %d", len(messages), g.Messages.Count)
	}
	if got := sha(encoded); got != g.Messages.Sha256 {
		t.Errorf("sha256 = %s, want %s", got, g.Messages.Sha256)
	}
	assertCompactEqual(t, "messages", encoded, g.Messages.Messages)
}

func checkRequests(t *testing.T, g foldGolden, events []session.Event) {
	f := fold.New()
	var requests []fold.Request
	for _, ev := range events {
		if fold.IsSettlement(ev.Type) {
			r, err := f.Request(ev)
			if err != nil {
				t.Fatalf("request at %d: %v", ev.Seq, err)
			}
			requests = append(requests, r)
		}
		if err := f.Apply(ev); err != nil {
			t.Fatalf("seq %d: %v", ev.Seq, err)
		}
	}
	if len(requests) != len(g.Requests) || f.Settlements() != len(g.Requests) {
		t.Fatalf("%d requests (%d settlements), want %d", len(requests), f.Settlements(), len(g.Requests))
	}
	for i, want := range g.Requests {
		got := requests[i]
		if want.Error != "" {
			t.Fatalf("golden request %d records a refusal %q; none is expected", i+1, want.Error)
		}
		if got.Index != want.Index || got.SettlementSeq != want.SettlementSeq || got.SettlementType != want.Type || got.Turn != want.Turn || got.Step != want.Step {
			t.Errorf("request %d = #%d @%d %s %d/%d, want #%d @%d %s %d/%d", i+1,
				got.Index, got.SettlementSeq, got.SettlementType, got.Turn, got.Step,
				want.Index, want.SettlementSeq, want.Type, want.Turn, want.Step)
		}
		if len(got.Messages) != want.MessageCount {
			t.Errorf("request %d: messageCount = %d, want %d", i+1, len(got.Messages), want.MessageCount)
		}
		if s := sha(encodeArray(got.Messages)); s != want.MessagesSha256 {
			t.Errorf("request %d: messagesSha256 = %s, want %s", i+1, s, want.MessagesSha256)
		}
		if got.ReplaceGeneration != want.ReplaceGeneration || got.ContentGeneration != want.ContentGeneration {
			t.Errorf("request %d: generations = %d/%d, want %d/%d", i+1, got.ReplaceGeneration, got.ContentGeneration, want.ReplaceGeneration, want.ContentGeneration)
		}
		assertCompactEqual(t, "header", got.Header.Encode(), want.Header)
		assertCompactEqual(t, "toolHistory", got.ToolHistory.Encode(), want.ToolHistory)
		var extends *bool
		if i > 0 {
			e := isPrefix(requests[i-1].Messages, got.Messages)
			extends = &e
		}
		if (extends == nil) != (want.ExtendsPrevious == nil) || extends != nil && *extends != *want.ExtendsPrevious {
			t.Errorf("request %d: extendsPrevious = %v, want %v", i+1, fmtBool(extends), fmtBool(want.ExtendsPrevious))
		}
	}
}

func fmtBool(b *bool) string {
	if b == nil {
		return "null"
	}
	if *b {
		return "true"
	}
	return "false"
}

func checkCloserCuts(t *testing.T, g foldGolden, events []session.Event) {
	assertEventsEqual(t, "whole", foldAll(t, events).InterruptedTurnClosers(), g.Closers.Whole)
	cuts := chooseCuts(t, events)
	if len(cuts) != len(g.Closers.Cuts) {
		t.Fatalf("cuts = %+v, want %d", cuts, len(g.Closers.Cuts))
	}
	for i, want := range g.Closers.Cuts {
		got := cuts[i]
		if got.cut != want.Cut || got.kind != want.Kind || got.cut-1 != want.AfterSeq || events[got.cut-1].Type != want.AfterType {
			t.Errorf("cut %d = %d %s, want %d %s after %d %s", i, got.cut, got.kind, want.Cut, want.Kind, want.AfterSeq, want.AfterType)
		}
		prefix := events[:want.Cut]
		closers := foldAll(t, prefix).InterruptedTurnClosers()
		assertEventsEqual(t, "cut closers", closers, want.Closers)
		checkView(t, "repaired", foldAll(t, prefix, closers).Messages(), want.Repaired)
	}
}

// cutChoice is one crash point the golden generator picked.
type cutChoice struct {
	cut  int64
	kind string
}

// chooseCuts applies the golden README's deterministic cut rule: positions
// after which a turn is open; the first, then the last, event of each of
// tool/call, assistant/message with a tool call, step/start, tool/result,
// assistant/attempt; then the first request/header, request/context and
// turn/start; at most five, sorted.
func chooseCuts(t *testing.T, events []session.Event) []cutChoice {
	f := fold.New()
	first, last := map[string]int64{}, map[string]int64{}
	for _, ev := range events {
		if err := f.Apply(ev); err != nil {
			t.Fatal(err)
		}
		if !f.TurnOpen() {
			continue
		}
		kind := ev.Type
		if kind == "assistant/message" {
			if !hasToolCall(ev) {
				continue
			}
			kind = "assistant/message-with-tool-calls"
		}
		if _, seen := first[kind]; !seen {
			first[kind] = ev.Seq + 1
		}
		last[kind] = ev.Seq + 1
	}
	primary := []string{"tool/call", "assistant/message-with-tool-calls", "step/start", "tool/result", "assistant/attempt"}
	var picks []cutChoice
	add := func(from map[string]int64, kinds []string) {
		for _, kind := range kinds {
			cut, ok := from[kind]
			if !ok || len(picks) == 5 || slices.ContainsFunc(picks, func(c cutChoice) bool { return c.cut == cut }) {
				continue
			}
			picks = append(picks, cutChoice{cut, "after-" + kind})
		}
	}
	add(first, primary)
	add(last, primary)
	add(first, []string{"request/header", "request/context", "turn/start"})
	slices.SortFunc(picks, func(a, b cutChoice) int { return int(a.cut - b.cut) })
	return picks
}

func hasToolCall(ev session.Event) bool {
	for _, block := range ev.Data().Field("message").Field("content").Elements() {
		if block.Field("type").Text() == "tool-call" {
			return true
		}
	}
	return false
}

func checkForks(t *testing.T, g foldGolden, h session.Header, events []session.Event) {
	boundaries := chooseBoundaries(events)
	if len(boundaries) != len(g.Forks) {
		t.Fatalf("boundaries = %+v, want %d forks", boundaries, len(g.Forks))
	}
	for i, want := range g.Forks {
		if boundaries[i].cut != want.Boundary || boundaries[i].kind != want.Kind {
			t.Errorf("fork %d at %d (%s), want %d (%s)", i, boundaries[i].cut, boundaries[i].kind, want.Boundary, want.Kind)
		}
		var inherited []session.Event
		tail, err := fold.ForkSeed(h.ID, &sliceEvents{events: events}, want.Boundary, func(ev session.Event) error {
			inherited = append(inherited, ev)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(inherited) + len(tail); n != want.EventCount {
			t.Errorf("fork %d: %d seed events, want %d", i, n, want.EventCount)
		}
		assertEventsEqual(t, "fork tail", tail, want.Tail)
		parent := foldAll(t, inherited).Messages()
		child := foldAll(t, inherited, tail).Messages()
		c := want.Child
		if len(parent) != c.ParentMessageCount {
			t.Errorf("fork %d: parentMessageCount = %d, want %d", i, len(parent), c.ParentMessageCount)
		}
		if isPrefix(parent, child) != c.ExtendsParent {
			t.Errorf("fork %d: extendsParent = %v, want %v", i, !c.ExtendsParent, c.ExtendsParent)
		}
		checkView(t, "child", child, c.viewGolden)
		header := fold.ChildHeader(h, "fork-child", h.CreatedAt)
		if !header.IsSeeded || header.ParentSession == nil || *header.ParentSession != h.ID || !ptrEqual(header.Cwd, h.Cwd) {
			t.Errorf("fork %d: child header %+v", i, header)
		}
		cut := want.Boundary + 1
		if cut != c.InheritedEventCount || tail[0].Seq != cut || !tail[0].Data().Field("inherited").IsTrue() {
			t.Errorf("fork %d: inherited cut %d (marker @%d), want %d", i, cut, tail[0].Seq, c.InheritedEventCount)
		}
		// The seed already holds its tagged marker, so the constructor adds
		// nothing: the child's log is the seed.
		if n := len(inherited) + len(tail); n != c.SessionLogLength {
			t.Errorf("fork %d: sessionLogLength = %d, want %d", i, n, c.SessionLogLength)
		}
	}
}

func ptrEqual(a, b *string) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// chooseBoundaries applies the golden README's fork boundary rule: the
// first turn/end; the first tool/call, else the first assistant/message
// with tool calls, else the first step/start; the last seq; then, while
// fewer than three, the first assistant/message with tool calls and the
// first step/start.
func chooseBoundaries(events []session.Event) []cutChoice {
	firstOf := func(match func(session.Event) bool) (int64, bool) {
		for _, ev := range events {
			if match(ev) {
				return ev.Seq, true
			}
		}
		return 0, false
	}
	ofType := func(typ string) func(session.Event) bool {
		return func(ev session.Event) bool { return ev.Type == typ }
	}
	askingTools := func(ev session.Event) bool { return ev.Type == "assistant/message" && hasToolCall(ev) }
	var picks []cutChoice
	add := func(seq int64, ok bool, kind string) bool {
		if !ok || slices.ContainsFunc(picks, func(c cutChoice) bool { return c.cut == seq }) {
			return false
		}
		picks = append(picks, cutChoice{seq, kind})
		return true
	}
	if seq, ok := firstOf(ofType("turn/end")); ok {
		add(seq, true, "end-of-first-turn")
	}
	inside := []struct {
		match func(session.Event) bool
		kind  string
	}{
		{ofType("tool/call"), "tool/call"},
		{askingTools, "assistant/message-with-tool-calls"},
		{ofType("step/start"), "step/start"},
	}
	for _, c := range inside {
		if seq, ok := firstOf(c.match); ok {
			add(seq, true, "inside-open-step:after-first-"+c.kind)
			break
		}
	}
	add(int64(len(events)-1), len(events) > 0, "last-seq")
	for _, c := range inside[1:] {
		if len(picks) >= 3 {
			break
		}
		seq, ok := firstOf(c.match)
		add(seq, ok, "inside-open-step:after-first-"+c.kind)
	}
	return picks
}

// sliceEvents streams a slice as fold.Events.
type sliceEvents struct {
	events []session.Event
	next   int
}

func (s *sliceEvents) Next() (session.Event, error) {
	if s.next == len(s.events) {
		return session.Event{}, io.EOF
	}
	s.next++
	return s.events[s.next-1], nil
}

func checkView(t *testing.T, what string, messages []jsonv.Value, want viewGolden) {
	t.Helper()
	if want.Error != "" {
		t.Fatalf("%s: golden records a refusal %q; none is expected", what, want.Error)
	}
	if len(messages) != want.MessageCount {
		t.Errorf("%s: messageCount = %d, want %d", what, len(messages), want.MessageCount)
	}
	if got := roles(messages); !slices.Equal(got, want.Roles) {
		t.Errorf("%s: roles = %v, want %v", what, got, want.Roles)
	}
	if got := sha(encodeArray(messages)); got != want.MessagesSha256 {
		t.Errorf("%s: messagesSha256 = %s, want %s", what, got, want.MessagesSha256)
	}
}

// assertCompactEqual checks that got is byte for byte the compact form of a
// golden value (the golden README's byte rule).
func assertCompactEqual(t *testing.T, what string, got []byte, want json.RawMessage) {
	t.Helper()
	var compact bytes.Buffer
	if err := json.Compact(&compact, want); err != nil {
		t.Fatalf("%s: golden: %v", what, err)
	}
	if !bytes.Equal(got, compact.Bytes()) {
		t.Errorf("%s differs:\n got %s\nwant %s", what, got, compact.Bytes())
	}
}

// assertEventsEqual checks synthetic events row by row against golden
// events, byte for byte (key order included).
func assertEventsEqual(t *testing.T, what string, got []session.Event, want []json.RawMessage) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d events, want %d", what, len(got), len(want))
		return
	}
	for i := range want {
		assertCompactEqual(t, what, got[i].Row.Encode(), want[i])
	}
}
