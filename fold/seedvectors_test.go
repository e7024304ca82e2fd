package fold_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// The figures of testdata/seed-vectors/README.md, each a test.

const (
	loopLog  = "../testdata/seed-vectors/loop-events.v4.jsonl"
	crashLog = "../testdata/seed-vectors/crash-persisted.v4.jsonl"
)

func TestSeedLoopSurface(t *testing.T) {
	_, events := readV4(t, loopLog)
	if len(events) != 41 {
		t.Fatalf("%d events, want 41", len(events))
	}
	f := foldAll(t, events)
	if got, want := f.Nodes(), []int64{4, 5, 8, 10, 13, 20, 22, 29, 30, 37, 38}; !slices.Equal(got, want) {
		t.Errorf("nodes = %v, want %v", got, want)
	}
	wantRoles := []string{"system", "user", "assistant", "tool", "assistant", "user", "assistant", "user", "assistant", "user", "assistant"}
	if got := roles(f.Messages()); !slices.Equal(got, wantRoles) {
		t.Errorf("roles = %v, want %v", got, wantRoles)
	}
	if f.ReplaceGeneration() != 0 || f.ContentGeneration() != 0 || len(f.Replacements()) != 0 {
		t.Errorf("generations %d/%d, %d replacements; want none", f.ReplaceGeneration(), f.ContentGeneration(), len(f.Replacements()))
	}
	if closers := f.InterruptedTurnClosers(); len(closers) != 0 {
		t.Errorf("a balanced log needs no closers, got %d", len(closers))
	}
}

func TestSeedLoopRequests(t *testing.T) {
	_, events := readV4(t, loopLog)
	f := fold.New()
	var requests []fold.Request
	for _, ev := range events {
		if fold.IsSettlement(ev.Type) {
			r, err := f.Request(ev)
			if err != nil {
				t.Fatal(err)
			}
			requests = append(requests, r)
		}
		if err := f.Apply(ev); err != nil {
			t.Fatal(err)
		}
	}
	want := []struct {
		messages   int
		settlement int64
		typ        string
	}{
		{2, 8, "assistant/message"},
		{4, 13, "assistant/message"},
		{6, 21, "assistant/attempt"},
		{6, 22, "assistant/message"},
		{8, 30, "assistant/message"},
		{10, 38, "assistant/message"},
	}
	if len(requests) != len(want) {
		t.Fatalf("%d requests, want %d", len(requests), len(want))
	}
	for i, w := range want {
		r := requests[i]
		if r.Index != i+1 || len(r.Messages) != w.messages || r.SettlementSeq != w.settlement || r.SettlementType != w.typ {
			t.Errorf("request %d = #%d %d messages @%d %s, want %d @%d %s", i+1, r.Index, len(r.Messages), r.SettlementSeq, r.SettlementType, w.messages, w.settlement, w.typ)
		}
		if i > 0 && !isPrefix(requests[i-1].Messages, r.Messages) {
			t.Errorf("request %d does not extend request %d", i+1, i)
		}
		if got := r.Header.Field("config").Field("model").Text(); got != "mock" {
			t.Errorf("request %d: header model %q, want the initial header's", i+1, got)
		}
	}
	if !bytes.Equal(encodeArray(requests[2].Messages), encodeArray(requests[3].Messages)) {
		t.Error("request 4 (the retry) differs from request 3")
	}
	last := requests[5].Messages
	interrupted := last[len(last)-2]
	if text := interrupted.Field("content").Index(0).Field("text").Text(); text != "第一点是" || !events[30].Data().Field("interrupted").IsTrue() {
		t.Errorf("request 6 carries %q from the interrupted message at 30, want 第一点是", text)
	}
}

// summary42 is the compaction summary the seed documents append at 42.
func summary42(t *testing.T, options string) session.Event {
	t.Helper()
	row := `{"type":"user/message","seq":42,"time":1792499042300,"data":{"role":"user","content":[{"type":"text","text":"SUMMARY: user said go; echo returned one; assistant said done"}],"source":{"kind":"compaction"},"id":"summary-42"}` + options + `}`
	return event(t, row)
}

// event parses a row into an event.
func event(t testing.TB, row string) session.Event {
	t.Helper()
	v, err := jsonv.Parse([]byte(row))
	if err != nil {
		t.Fatal(err)
	}
	seq, _ := v.Field("seq").Count()
	time, _ := v.Field("time").SafeInt()
	return session.Event{Type: v.Field("type").Text(), Seq: seq, Time: time, Row: v}
}

// seededLoop folds the 41 loop events and the session/end-seed {} marker a
// Session appends when seeded with them (@41).
func seededLoop(t *testing.T) *fold.Fold {
	t.Helper()
	_, events := readV4(t, loopLog)
	f := foldAll(t, events)
	if events[len(events)-1].Type == "session/end-seed" {
		t.Fatal("the loop log already ends in a marker")
	}
	if err := f.Apply(event(t, `{"type":"session/end-seed","seq":41,"time":1792499042299,"data":{}}`)); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestSeedReplace42(t *testing.T) {
	f := seededLoop(t)
	if err := f.Apply(summary42(t, `,"sourceEventSeqs":[5,8,10,13],"surfaceOp":{"op":"replace","startSeq":5,"endSeq":13}`)); err != nil {
		t.Fatal(err)
	}
	if got, want := f.Nodes(), []int64{4, 42, 20, 22, 29, 30, 37, 38}; !slices.Equal(got, want) {
		t.Errorf("nodes = %v, want %v", got, want)
	}
	if f.Next() != 43 || f.ReplaceGeneration() != 1 || f.ContentGeneration() != 1 {
		t.Errorf("log length %d, generations %d/%d; want 43, 1/1", f.Next(), f.ReplaceGeneration(), f.ContentGeneration())
	}
	r := f.Replacements()
	if len(r) != 1 || r[0].Seq != 42 || r[0].StartSeq != 5 || r[0].EndSeq != 13 || !slices.Equal(r[0].ShadowedSeqs, []int64{5, 8, 10, 13}) || r[0].ContentGeneration != 1 {
		t.Errorf("replacements = %+v, want {42 5 13 [5 8 10 13]}", r)
	}
	wantRoles := []string{"system", "user", "user", "assistant", "user", "assistant", "user", "assistant"}
	if got := roles(f.Messages()); !slices.Equal(got, wantRoles) {
		t.Errorf("roles = %v, want %v", got, wantRoles)
	}
}

// TestSeedGuards appends each refused replace of the seed documents to a
// fresh seeded loop: dsh's exact message, and the fold left as it was.
func TestSeedGuards(t *testing.T) {
	const (
		nodeZero = "surface replace: node 0 holds the system prompt and may be rewritten only by a system/message over exactly that node"
		missing  = "surface replace: sourceEventSeqs must include every shadowed surface node; missing "
	)
	tests := []struct {
		name    string
		options string
		want    string
	}{
		{"user message over node 0 citing it", `,"sourceEventSeqs":[4],"surfaceOp":{"op":"replace","startSeq":4,"endSeq":4}`, nodeZero},
		{"user message over 4..13 citing every node", `,"sourceEventSeqs":[4,5,8,10,13],"surfaceOp":{"op":"replace","startSeq":4,"endSeq":13}`, nodeZero},
		{"node 0 not cited: coverage first", `,"sourceEventSeqs":[5],"surfaceOp":{"op":"replace","startSeq":4,"endSeq":4}`, missing + "4"},
		{"20..22 without sourceEventSeqs", `,"surfaceOp":{"op":"replace","startSeq":20,"endSeq":22}`, missing + "20, 22"},
		{"20..22 citing only 21, not a node", `,"sourceEventSeqs":[21],"surfaceOp":{"op":"replace","startSeq":20,"endSeq":22}`, missing + "20, 22"},
		{"explicit empty sources", `,"sourceEventSeqs":[],"surfaceOp":{"op":"replace","startSeq":20,"endSeq":22}`, "sourceEventSeqs must not be empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := seededLoop(t)
			before := f.Nodes()
			err := f.Apply(summary42(t, tt.options))
			assertRefusal(t, err, tt.want)
			if !slices.Equal(f.Nodes(), before) || f.Next() != 42 || f.ReplaceGeneration() != 0 {
				t.Errorf("a refused replace changed the fold: nodes %v, next %d", f.Nodes(), f.Next())
			}
		})
	}
	t.Run("system message over exactly node 0 is accepted", func(t *testing.T) {
		f := seededLoop(t)
		ev := event(t, `{"type":"system/message","seq":42,"time":1,"data":{"turn":4,"step":1,"message":{"role":"system","content":[],"source":{"kind":"system-prompt"},"id":"s42"}},"sourceEventSeqs":[4],"surfaceOp":{"op":"replace","startSeq":4,"endSeq":4}}`)
		if err := f.Apply(ev); err != nil {
			t.Fatal(err)
		}
		if f.Nodes()[0] != 42 || f.MessageCount() != 10 {
			t.Errorf("nodes %v, %d messages; want 42 first and the empty prompt adding none", f.Nodes(), f.MessageCount())
		}
	})
	t.Run("seed path prefix", func(t *testing.T) {
		_, events := readV4(t, loopLog)
		f := foldAll(t, events)
		ev := summary42(t, `,"surfaceOp":{"op":"replace","startSeq":20,"endSeq":22}`).With("seq", jsonv.IntValue(41))
		assertRefusal(t, fold.SeedError(ev.Seq, f.Apply(ev)), "invalid seed event at index 41: "+missing+"20, 22")
	})
}

func assertRefusal(t *testing.T, err error, want string) {
	t.Helper()
	refusal, ok := err.(*session.Refusal)
	if !ok {
		t.Fatalf("error = %v (%T), want the refusal %q", err, err, want)
	}
	if refusal.Msg != want || refusal.Class != "Error" {
		t.Errorf("refusal = %s, want Error: %s", refusal.Text(), want)
	}
}

func TestSeedCrashClosers(t *testing.T) {
	_, events := readV4(t, crashLog)
	f := foldAll(t, events)
	closers := f.InterruptedTurnClosers()
	var rows []jsonv.Value
	for _, c := range closers {
		rows = append(rows, c.Row)
	}
	sessiontest.CheckRowsFile(t, rows, "../testdata/seed-vectors/crash-closers.json")
	repaired := foldAll(t, events, closers)
	if got, want := roles(repaired.Messages()), []string{"system", "user", "assistant", "tool", "tool"}; !slices.Equal(got, want) {
		t.Errorf("view after repair = %v, want %v", got, want)
	}
}

func TestSeedForkA(t *testing.T) {
	h, events := readV4(t, loopLog)
	inherited, tail := fork(t, h, events, 15)
	if n := len(inherited) + len(tail); n != 17 {
		t.Errorf("fork A seed has %d events, want 17", n)
	}
	if len(tail) != 1 || tail[0].Row.String() != `{"type":"session/end-seed","seq":16,"time":1792499042235,"data":{"inherited":true}}` {
		t.Errorf("fork A tail = %v", tail)
	}
	assertChildExtends(t, inherited, tail, 5)
}

func TestSeedForkB(t *testing.T) {
	h, events := readV4(t, crashLog)
	inherited, tail := fork(t, h, events, 9)
	if n := len(inherited) + len(tail); n != 15 {
		t.Errorf("fork B seed has %d events, want 15", n)
	}
	want := []struct {
		seq  int64
		typ  string
		call string
		code string
		from string
	}{
		{10, "session/end-seed", "", "", ""},
		{11, "tool/result", "c1", "TOOL_OUTCOME_UNKNOWN", "[9]"},
		{12, "tool/result", "c2", "TOOL_NOT_STARTED", ""},
		{13, "step/end", "", "", ""},
		{14, "turn/end", "", "", ""},
	}
	if len(tail) != len(want) {
		t.Fatalf("fork B tail has %d events, want %d", len(tail), len(want))
	}
	for i, w := range want {
		ev := tail[i]
		data := ev.Data()
		from := ""
		if v, ok := ev.Row.Get("sourceEventSeqs"); ok {
			from = v.String()
		}
		if ev.Seq != w.seq || ev.Type != w.typ || data.Field("message").Field("toolCallId").Text() != w.call || data.Field("error").Field("code").Text() != w.code || from != w.from {
			t.Errorf("tail %d = %s", i, ev.Row)
		}
		if ev.Type == "tool/result" {
			text := data.Field("message").Field("content").Index(0).Field("text").Text()
			if !strings.HasPrefix(text, "The history inherited by this branch") || !strings.HasPrefix(data.Field("message").Field("id").Text(), "forked-tool-result-") {
				t.Errorf("tail %d lacks the forked wording: %s", i, ev.Row)
			}
		}
	}
	if tail[0].Data().String() != `{"inherited":true}` || tail[3].Data().String() != `{"turn":1,"step":1}` || tail[4].Data().String() != `{"turn":1,"reason":{"kind":"forked"}}` {
		t.Errorf("fork B marker and closers: %v %v %v", tail[0].Row, tail[3].Row, tail[4].Row)
	}
	assertChildExtends(t, inherited, tail, 3)
}

func fork(t *testing.T, h session.Header, events []session.Event, boundary int64) (inherited, tail []session.Event) {
	t.Helper()
	tail, err := fold.ForkSeed(h.ID, &sliceEvents{events: events}, boundary, func(ev session.Event) error {
		inherited = append(inherited, ev)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return inherited, tail
}

// assertChildExtends checks that the child's messages start with the
// parent's, byte for byte, and that the parent has parentCount of them.
func assertChildExtends(t *testing.T, inherited, tail []session.Event, parentCount int) {
	t.Helper()
	parent := foldAll(t, inherited).Messages()
	child := foldAll(t, inherited, tail).Messages()
	if len(parent) != parentCount || !isPrefix(parent, child) {
		t.Errorf("parent has %d messages (want %d); child extends it: %v", len(parent), parentCount, isPrefix(parent, child))
	}
}

// TestForkBoundary: a boundary must name an event of the parent; dsh's
// store refuses any other with INVALID_BOUNDARY.
func TestForkBoundary(t *testing.T) {
	h, events := readV4(t, crashLog)
	tests := []struct {
		boundary int64
		events   []session.Event
		want     string
	}{
		{10, events, `fork boundary 10 does not exist in session "seed-crash" (last seq: 9)`},
		{0, nil, `fork boundary 0 does not exist in session "seed-crash" (last seq: none)`},
		{-1, events, `fork boundary for session "seed-crash" must be a non-negative safe integer, got -1`},
	}
	for _, tt := range tests {
		_, err := fold.ForkSeed(h.ID, &sliceEvents{events: tt.events}, tt.boundary, func(session.Event) error { return nil })
		refused, ok := err.(*fold.ForkError)
		if !ok || refused.Code != fold.CodeInvalidBoundary || refused.Msg != tt.want {
			t.Errorf("boundary %d: %v, want INVALID_BOUNDARY %q", tt.boundary, err, tt.want)
		}
	}
}
