package v1to2

import (
	"errors"
	"testing"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate/stage"
	"github.com/dshlog/dshlog/session"
)

func TestHeader(t *testing.T) {
	h := session.Header{Version: 1, ID: "a", CreatedAt: 1, Cwd: session.Str("/work"), IsSeeded: true, AgentPreset: session.Str("code")}
	got, err := Edge{}.MigrateHeader(h)
	want := h
	want.Version = 2
	if err != nil || got != want {
		t.Errorf("MigrateHeader = %+v, %v; want %+v", got, err, want)
	}
	if err := (Edge{}).ValidateTargetHeader(got); err != nil {
		t.Errorf("ValidateTargetHeader: %v", err)
	}
	for _, tt := range []struct {
		h    session.Header
		want string
	}{
		{session.Header{Version: 0}, "expected format v1 header"},
		{session.Header{Version: 1, Cwd: session.Str("work")}, "format v1 header cwd must be absolute"},
	} {
		if _, err := (Edge{}).MigrateHeader(tt.h); err == nil || err.Error() != tt.want {
			t.Errorf("MigrateHeader(%+v) = %v, want %s", tt.h, err, tt.want)
		}
		if _, err := (Edge{}).NewStage(stage.StageInput{SourceHeader: tt.h}); err == nil || err.Error() != tt.want {
			t.Errorf("NewStage(%+v) = %v, want %s", tt.h, err, tt.want)
		}
	}
	if err := (Edge{}).ValidateTargetHeader(h); err == nil || err.Error() != "expected format v2 header" {
		t.Errorf("ValidateTargetHeader(v1) = %v", err)
	}
}

func TestNewStage(t *testing.T) {
	h := session.Header{Version: 1, ID: "a"}
	if _, err := (Edge{}).NewStage(stage.StageInput{SourceHeader: h, SourceCut: -1}); err == nil ||
		err.Error() != "format v1 inherited event count must be a non-negative safe integer" {
		t.Errorf("unknown cut: %v", err)
	}
	st, err := Edge{}.NewStage(stage.StageInput{SourceHeader: h})
	if err != nil {
		t.Fatal(err)
	}
	if st.HeaderCut() != -1 {
		t.Errorf("HeaderCut = %d, want -1: folding changes the count", st.HeaderCut())
	}
}

// TestRemapKeyOrder checks the envelope dsh's remapReferences builds: the
// other keys keep their order, sourceEventSeqs then surfaceOp go last, and
// a replacement is rebuilt as {op, start, end}.
func TestRemapKeyOrder(t *testing.T) {
	rows, _, err := harness{}.feed(
		ev(`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}`),
		chunk(1, "2", stop),
		ev(`{"surfaceOp":{"end":0,"op":"replace","start":0,"x":1},"type":"user/message","sourceEventSeqs":[0],"seq":2,"ignorable":true,"time":3,"data":{}}`),
		ev(`{"type":"compaction/summary","seq":3,"time":4,"data":{"shadowedSeqs":[2],"x":1,"shadowedRange":{"end":2,"start":2,"y":0}}}`),
		ev(`{"type":"command/done","seq":4,"time":5,"data":{"sourceEventSeq":3,"kind":"success"}}`),
	)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}`,
		`{"type":"assistant/attempt","seq":1,"time":2,"data":{"turn":1,"step":1,"stream":[{"type":"chunk","time":2,"chunk":{"type":"finish","reason":{"kind":"stop"}}}]}}`,
		`{"type":"user/message","seq":2,"ignorable":true,"time":3,"data":{},"sourceEventSeqs":[0],"surfaceOp":{"op":"replace","start":0,"end":0}}`,
		`{"type":"compaction/summary","seq":3,"time":4,"data":{"shadowedSeqs":[2],"x":1,"shadowedRange":{"start":2,"end":2}}}`,
		`{"type":"command/done","seq":4,"time":5,"data":{"sourceEventSeq":3,"kind":"success"}}`,
	}
	for i := range want {
		if i >= len(rows) || rows[i] != want[i] {
			t.Errorf("row %d:\n got  %s\n want %s", i, rows[min(i, len(rows)-1)], want[i])
		}
	}
}

func TestSeqMap(t *testing.T) {
	var m seqMap
	// Source order with a gap (a folded chunk at 2), then a late event
	// emitted after later ones (the goal quirk) and a generated event
	// shifting the rest.
	for _, p := range [][2]int64{{0, 0}, {1, 1}, {4, 2}, {3, 4}, {5, 5}, {6, 7}} {
		m.set(p[0], p[1])
	}
	want := map[int64]int64{0: 0, 1: 1, 3: 4, 4: 2, 5: 5, 6: 7}
	for s := int64(0); s < 9; s++ {
		got, ok := m.get(s)
		if w, has := want[s]; ok != has || got != w {
			t.Errorf("get(%d) = %d, %v; want %d, %v", s, got, ok, w, has)
		}
	}
	if len(m.runs) != 5 {
		t.Errorf("runs = %v, want 5 runs", m.runs)
	}
	var dense seqMap
	for s := int64(0); s < 1000; s++ {
		dense.set(s, s+1)
	}
	if len(dense.runs) != 1 {
		t.Errorf("a dense numbering takes %d runs, want 1", len(dense.runs))
	}
	var joined seqMap
	for _, s := range []int64{0, 2, 1} {
		joined.set(s, s)
	}
	if len(joined.runs) != 1 {
		t.Errorf("filling a gap leaves %v, want one run", joined.runs)
	}
}

func TestJSValues(t *testing.T) {
	for _, tt := range []struct {
		v    jsValue
		want string
	}{
		{jsValue{}, "undefined"},
		{defined(jsonv.NullValue()), "null"},
		{defined(parse(`[1,[null,"a"],{}]`)), "1,,a,[object Object]"},
		{defined(jsonv.NumberValue(1e21)), "1e+21"},
	} {
		if got := jsString(tt.v); got != tt.want {
			t.Errorf("jsString(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
	one, other := defined(parse(`{}`)), defined(parse(`{}`))
	if strictEqual(one, other) || !strictEqual(defined(parse("1.0")), defined(parse("1"))) || !strictEqual(jsValue{}, jsValue{}) ||
		strictEqual(jsValue{}, defined(jsonv.NullValue())) {
		t.Error("strictEqual differs from JavaScript's ===")
	}
	if n, ok := safeInteger(defined(parse("-0"))); !ok || n != 0 {
		t.Error("Number.isSafeInteger admits -0")
	}
}

// TestEmitFailure checks that a downstream refusal stops the stage as it is.
func TestEmitFailure(t *testing.T) {
	s := harness{}.stage()
	stop := errors.New("downstream refusal")
	err := s.Transform(session.Item{Event: session.Event{Row: parse(`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}`)}},
		func(session.Item) error { return stop })
	if !errors.Is(err, stop) {
		t.Errorf("got %v, want the downstream error", err)
	}
}
