package agentloop

import (
	"bytes"
	"context"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	v2 "github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/session"
)

// readEvents reads a v4 session's events.
func readEvents(t *testing.T, data []byte) []session.Event {
	t.Helper()
	r, err := migrate.NewReader(jsonl.NewReader(bytes.NewReader(data), "session"), migrate.Options{Recovery: v2.Strict})
	if err != nil {
		t.Fatal(err)
	}
	var events []session.Event
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return events
		}
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, ev)
	}
}

// readEventsOrError reads a v4 session to the end and returns the first
// error, or nil.
func readEventsOrError(data []byte) error {
	r, err := migrate.NewReader(jsonl.NewReader(bytes.NewReader(data), "session"), migrate.Options{Recovery: v2.Strict})
	if err != nil {
		return err
	}
	for {
		_, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func foldEvents(t *testing.T, events []session.Event) *fold.Fold {
	t.Helper()
	f := fold.New()
	for _, ev := range events {
		if err := f.Load(ev); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func runBuiltIn(t *testing.T, scenario string) ([]byte, Run) {
	t.Helper()
	sc, _ := FindScenario(scenario)
	scripts, err := sc.Scripts()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	run, err := RunScript(context.Background(), scripts[0], nil, &out)
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), run
}

// TestFourTurnReproducesTheSeed: four-turn has the event types, surface
// ops and sources of the design notes' 41 events (indeed their very rows,
// key order included, but for times and ids), their surface nodes, and
// six requests of 2, 4, 6, 6, 8 and 10 messages settled at 8, 13, 21, 22,
// 30 and 38.
func TestFourTurnReproducesTheSeed(t *testing.T) {
	seedData, err := os.ReadFile("../testdata/seed-vectors/loop-events.v4.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	seed := readEvents(t, seedData)
	data, run := runBuiltIn(t, "four-turn")
	got := readEvents(t, data)
	if len(got) != len(seed) {
		t.Fatalf("%d events, want %d", len(got), len(seed))
	}
	for i := range seed {
		gs, _ := got[i].SourceEventSeqs()
		ws, _ := seed[i].SourceEventSeqs()
		if got[i].Type != seed[i].Type || got[i].SurfaceOp() != seed[i].SurfaceOp() || !slices.Equal(gs, ws) {
			t.Errorf("seq %d: %s %v %v, want %s %v %v", i, got[i].Type, got[i].SurfaceOp(), gs, seed[i].Type, seed[i].SurfaceOp(), ws)
		}
	}
	for i := range seed {
		if g, w := blankRunValues(got[i].Row).String(), blankRunValues(seed[i].Row).String(); g != w {
			t.Errorf("seq %d differs from the seed beyond times and ids:\n got  %s\n want %s", i, g, w)
		}
	}
	f := foldEvents(t, got)
	if want := []int64{4, 5, 8, 10, 13, 20, 22, 29, 30, 37, 38}; !slices.Equal(f.Nodes(), want) {
		t.Errorf("nodes %v, want %v", f.Nodes(), want)
	}
	var counts []int
	for _, r := range run.Requests {
		counts = append(counts, len(r.Messages()))
	}
	if want := []int{2, 4, 6, 6, 8, 10}; !slices.Equal(counts, want) {
		t.Errorf("request sizes %v, want %v", counts, want)
	}
	var settlements []int64
	for _, ev := range got {
		if fold.IsSettlement(ev.Type) {
			settlements = append(settlements, ev.Seq)
		}
	}
	if want := []int64{8, 13, 21, 22, 30, 38}; !slices.Equal(settlements, want) {
		t.Errorf("settlements %v, want %v", settlements, want)
	}
	// R6 carries the interrupted prefix with its half-written call dropped.
	last := run.Requests[5].Messages()[8]
	if want := `{"role":"assistant","content":[{"type":"text","text":"第一点是"}]`; !bytes.HasPrefix(last, []byte(want)) {
		t.Errorf("request 6 message 8 = %s", last)
	}
	if !bytes.Contains(data, []byte(`"tool-call-chunks","time0":1792499042259,"index":1,"dt":[],"id":"c2","name":"echo","args":["{\"te"]}]},"surfaceOp"`)) {
		t.Error("the interrupted stream does not keep the half-written tool call's chunks")
	}
}

// blankRunValues nulls what differs from run to run (times and ids) at
// every depth, keeping key order.
func blankRunValues(v jsonv.Value) jsonv.Value {
	switch v.Kind() {
	case jsonv.Array:
		elems := v.Elements()
		out := make([]jsonv.Value, len(elems))
		for i, e := range elems {
			out[i] = blankRunValues(e)
		}
		return jsonv.ArrayValue(out...)
	case jsonv.Object:
		var members []jsonv.Member
		for _, m := range v.Members() {
			value := blankRunValues(m.Value)
			switch m.Key {
			case "time", "time0", "id":
				if k := m.Value.Kind(); k == jsonv.Number || k == jsonv.String {
					value = jsonv.NullValue()
				}
			}
			members = append(members, jsonv.M(m.Key, value))
		}
		return jsonv.ObjectValue(members...)
	}
	return v
}

// TestCrashRepairsToSeedClosers: the crash log ends with deploy's
// tool/call, and crash repair closes it with the seed's closers.
func TestCrashRepairsToSeedClosers(t *testing.T) {
	data, run := runBuiltIn(t, "crash")
	if !run.Crashed || len(run.Tools.Deployed) != 0 {
		t.Errorf("crashed %v, deployed %v: want a crash before deploy returned", run.Crashed, run.Tools.Deployed)
	}
	events := readEvents(t, data)
	if n := len(events); n != 10 || events[n-1].Type != "tool/call" {
		t.Fatalf("%d events ending with %s, want 10 ending with tool/call", n, events[n-1].Type)
	}
	seedData, err := os.ReadFile("../testdata/seed-vectors/crash-persisted.v4.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range readEvents(t, seedData) {
		if g, w := blankRunValues(events[i].Row).String(), blankRunValues(want.Row).String(); g != w {
			t.Errorf("seq %d differs from the seed beyond times and ids:\n got  %s\n want %s", i, g, w)
		}
	}
	closers := foldEvents(t, events).InterruptedTurnClosers()
	var rows []jsonv.Value
	for _, c := range closers {
		rows = append(rows, c.With("time", jsonv.IntValue(1792499131145)).Row) // the seed's clock
	}
	sessiontest.CheckRowsFile(t, rows, "../testdata/seed-vectors/crash-closers.json")
}

// TestForkSeeds: each fork child starts with the seed the notes give
// (17 and 15 events) and continues with one more turn whose request
// resumes with the parent's messages as its prefix.
func TestForkSeeds(t *testing.T) {
	sc, _ := FindScenario("fork")
	scripts, err := sc.Scripts()
	if err != nil {
		t.Fatal(err)
	}
	wantSeed := []int{17, 15}
	wantTail := [][]string{
		{"session/end-seed"},
		{"session/end-seed", "tool/result", "tool/result", "step/end", "turn/end"},
	}
	for i, s := range scripts {
		var out bytes.Buffer
		run, err := RunScript(context.Background(), s, nil, &out)
		if err != nil {
			t.Fatal(err)
		}
		events := readEvents(t, out.Bytes())
		cut := s.Fork.Boundary + 1
		var tail []string
		for _, ev := range events[cut:wantSeed[i]] {
			tail = append(tail, ev.Type)
		}
		if !slices.Equal(tail, wantTail[i]) {
			t.Errorf("%s: seed tail %v, want %v", s.Session, tail, wantTail[i])
		}
		var reasons []string
		for _, ev := range events[wantSeed[i]:] {
			if ev.Type == "request/header" {
				reasons = append(reasons, ev.Data().Field("reason").Text())
			}
		}
		if !slices.Equal(reasons, []string{"resume"}) {
			t.Errorf("%s: header reasons %v, want [resume]", s.Session, reasons)
		}
		if len(run.Requests) != 1 {
			t.Fatalf("%s: %d requests", s.Session, len(run.Requests))
		}
		parent := foldEvents(t, events[:cut])
		sent := run.Requests[0].Messages()
		for j, m := range parent.Messages() {
			if !bytes.Equal(sent[j], m.Encode()) {
				t.Errorf("%s: message %d is not the parent's", s.Session, j)
			}
		}
	}
}

// TestDeterministic: a script gives the same bytes on every run.
func TestDeterministic(t *testing.T) {
	for _, sc := range Scenarios {
		first, _ := runBuiltIn(t, sc.Name)
		second, _ := runBuiltIn(t, sc.Name)
		if !bytes.Equal(first, second) {
			t.Errorf("%s: two runs differ", sc.Name)
		}
	}
}

// mutatingModel edits the request bytes it is handed.
type mutatingModel struct{ inner Model }

func (m mutatingModel) Stream(ctx context.Context, req Request, emit func(Chunk) error) error {
	body := req.JSON()
	for i := range body {
		body[i] = 'x'
	}
	return m.inner.Stream(ctx, req, emit)
}

// TestRequestsAreFrozen: a model that edits the request it is handed
// changes only its own copy; a request altered after it was built is
// caught by the dispatch check before any model sees it.
func TestRequestsAreFrozen(t *testing.T) {
	sc, _ := FindScenario("four-turn")
	scripts, _ := sc.Scripts()
	var out bytes.Buffer
	run, err := RunScript(context.Background(), scripts[0], mutatingModel{NewScriptedModel(scripts[0])}, &out)
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/four-turn.v4.jsonl"
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckRequests(path, run.Requests); err != nil {
		t.Errorf("a model's edit reached the recorded requests: %v", err)
	}

	l, err := New(scripts[0], NewScriptedModel(scripts[0]), &Tools{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []struct{ typ, data string }{{"turn/start", `{"turn":1}`}, {"step/start", `{"turn":1,"step":1}`}} {
		data, _ := jsonv.Parse([]byte(ev.data))
		if _, err := l.event(ev.typ, data, nil, session.SurfaceOp{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.logHeader(); err != nil {
		t.Fatal(err)
	}
	req := freeze(l.fold.Dispatch(), l.header.ID)
	if err := l.checkDispatch(req); err != nil {
		t.Fatalf("an untouched request fails the dispatch check: %v", err)
	}
	req.body = strings.Replace(req.body, `"model":"mock"`, `"model":"other"`, 1)
	err = l.checkDispatch(req)
	if err == nil || !strings.Contains(err.Error(), `llm request for session "loop-four-turn" diverges from the dispatch-time durable derivation (log-reconstruction desync)`) {
		t.Errorf("checkDispatch of an altered request = %v", err)
	}
}

// TestLoopRefusesWhatDshRefuses: an event dsh's reader or Session would
// refuse is not written, and the loop stops there.
func TestLoopRefusesWhatDshRefuses(t *testing.T) {
	sc, _ := FindScenario("four-turn")
	scripts, _ := sc.Scripts()
	tests := []struct {
		name, typ, data string
		want            string
	}{
		{"a step outside any turn", "step/start", `{"turn":1,"step":1}`, "step/start at seq 0"},
		{"a tool result with an error but no isError", "tool/result",
			`{"turn":1,"step":1,"message":{"role":"tool","source":{"kind":"tool","callId":"c"},"toolCallId":"c","content":[],"isError":false,"id":"m"},"error":{"name":"E","code":"C"}}`,
			"tool/result at seq 0"},
		{"an unknown event type", "made/up", `{}`, `unknown event type "made/up"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			l, err := New(scripts[0], nil, &Tools{}, &out)
			if err != nil {
				t.Fatal(err)
			}
			written := out.Len()
			data, err := jsonv.Parse([]byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			_, err = l.event(tt.typ, data, nil, session.SurfaceOp{})
			if err == nil || !strings.Contains(err.Error(), "dsh would refuse") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("event = %v, want a refusal mentioning %q", err, tt.want)
			}
			if out.Len() != written {
				t.Errorf("a refused event was written: %q", out.Bytes()[written:])
			}
		})
	}
}

// TestCompactionCitesShadowedNodes: the summary's replace cites every node
// of turn 1, and the next request's header starts a series.
func TestCompactionCitesShadowedNodes(t *testing.T) {
	data, run := runBuiltIn(t, "compaction")
	events := readEvents(t, data)
	var replace session.Event
	var reasons []string
	for _, ev := range events {
		if ev.SurfaceOp().Kind == session.OpReplace {
			replace = ev
		}
		if ev.Type == "request/header" {
			reasons = append(reasons, ev.Data().Field("reason").Text())
		}
	}
	sources, _ := replace.SourceEventSeqs()
	if op := replace.SurfaceOp(); op.StartSeq != 5 || op.EndSeq != 13 || !slices.Equal(sources, []int64{5, 8, 10, 13}) {
		t.Errorf("replace %v citing %v, want 5..13 citing [5 8 10 13]", op, sources)
	}
	if !slices.Equal(reasons, []string{"initial", "series"}) {
		t.Errorf("header reasons %v, want [initial series]", reasons)
	}
	var counts []int
	for _, r := range run.Requests {
		counts = append(counts, len(r.Messages()))
	}
	if want := []int{2, 4, 6, 6, 5, 7}; !slices.Equal(counts, want) {
		t.Errorf("request sizes %v, want %v", counts, want)
	}
}

// interruptingModel cancels the run's context after the first piece of
// request `at`, as a user's Ctrl-C does.
type interruptingModel struct {
	inner  Model
	at     int
	cancel context.CancelFunc
}

func (m *interruptingModel) Stream(ctx context.Context, req Request, emit func(Chunk) error) error {
	if req.Index() != m.at {
		return m.inner.Stream(ctx, req, emit)
	}
	first := true
	err := m.inner.Stream(ctx, req, func(c Chunk) error {
		if err := emit(c); err != nil {
			return err
		}
		if first {
			first = false
			m.cancel()
			return context.Canceled
		}
		return nil
	})
	return err
}

// TestInterruptKeepsStreamedText: a cancelled run settles the stream in
// progress as an interrupted message, ends its turn aborted, runs no later
// turn, and the log still rebuilds every request.
func TestInterruptKeepsStreamedText(t *testing.T) {
	sc, _ := FindScenario("four-turn")
	scripts, _ := sc.Scripts()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	run, err := RunScript(ctx, scripts[0], &interruptingModel{inner: NewScriptedModel(scripts[0]), at: 2, cancel: cancel}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if !run.Interrupted || len(run.Requests) != 2 {
		t.Fatalf("interrupted %v after %d requests, want true after 2", run.Interrupted, len(run.Requests))
	}
	events := readEvents(t, out.Bytes())
	last := events[len(events)-1]
	if last.Type != "turn/end" || last.Data().Field("reason").String() != `{"kind":"aborted","reason":{"kind":"user"}}` {
		t.Errorf("last event %s %s", last.Type, last.Row)
	}
	settlement := events[len(events)-3]
	if settlement.Type != "assistant/message" || !settlement.Data().Field("interrupted").IsTrue() ||
		settlement.Data().Field("message").Field("content").String() != `[{"type":"text","text":"d"}]` {
		t.Errorf("settlement %s", settlement.Row)
	}
	path := t.TempDir() + "/session.v4.jsonl"
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckRequests(path, run.Requests); err != nil {
		t.Error(err)
	}
}
