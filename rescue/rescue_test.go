package rescue

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/internal/gen"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/session"
)

const compactionRecovery = "../testdata/corpus/restored/compaction-recovery/session.v4.jsonl"

// twoTurnCompaction is compaction-recovery with its turn repeated once
// (internal/gen): two turns, each compacting, every reference shifted; the
// copy logs no second "initial" request/header, as dsh logs none for a
// header that does not change.
func twoTurnCompaction(t *testing.T) []byte {
	t.Helper()
	data := read(t, compactionRecovery)
	tmpl, err := gen.Load(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := tmpl.Write(&out, int64(len(data))+1); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// fieldBug writes what the compaction plugin of the field report wrote: the
// compaction/start of the n-th bracket (counting from 1) logged before the
// event at seq `at`, so ahead of a turn boundary, owned by the turn open
// there (null between turns, the idle path); the events from `at` on move
// one seq later and every seq reference in the log is renumbered to match.
// With nullOwner the start's owner turn is null even inside a turn, which
// dsh refuses before any crossing ("compaction/start does not match the
// open turn").
func fieldBug(t *testing.T, log []byte, n int, at int64, nullOwner bool) []byte {
	t.Helper()
	lines := strings.SplitAfter(strings.TrimSuffix(string(log), "\n"), "\n")
	start := int64(-1)
	for i, line := range lines[1:] {
		if strings.Contains(line, `"type":"compaction/start"`) {
			if n--; n == 0 {
				start = int64(i)
				break
			}
		}
	}
	if start < 0 || at >= start {
		t.Fatalf("no bracket to move before seq %d", at)
	}
	to := func(x int64) int64 {
		switch {
		case x == start:
			return at
		case x >= at && x < start:
			return x + 1
		}
		return x
	}
	rows := make([][]byte, len(lines)-1)
	owner := jsonv.NullValue()
	for i, line := range lines[1:] {
		row, err := jsonv.Parse([]byte(strings.TrimSuffix(line, "\n")))
		if err != nil {
			t.Fatal(err)
		}
		seq := int64(i)
		switch typ := row.Field("type").Text(); {
		case seq < at && typ == "turn/start":
			owner = row.Field("data").Field("turn")
		case seq < at && typ == "turn/end":
			owner = jsonv.NullValue()
		}
		out, _ := remapped(row, to(seq), to)
		if seq == start && nullOwner {
			out = out.With("data", out.Field("data").With("turn", jsonv.NullValue()))
		} else if seq == start {
			out = out.With("data", out.Field("data").With("turn", owner))
		}
		rows[to(seq)] = v4.AppendEvent(nil, session.Event{Row: out})
	}
	return append([]byte(lines[0]), bytes.Join(rows, nil)...)
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func write(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "session.v4.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// rescue runs Rescue on data and returns the result, the rescued bytes and
// the source path; the source must be left as it was.
func rescue(t *testing.T, data []byte) (Result, []byte) {
	t.Helper()
	path := write(t, data)
	res, out, err := Rescue(path, t.TempDir(), Options{Now: func() int64 { return 1_800_000_000_000 }})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(read(t, path), data) {
		t.Fatal("the source changed")
	}
	if res.Healthy {
		t.Fatal("a refused log was judged healthy")
	}
	rescued := read(t, out)
	if problems, err := errorsOf(out, migrate.Options{}); err != nil || len(problems) > 0 {
		t.Fatalf("the rescued log does not verify: %v %v", err, problems)
	}
	if int64(len(rescued)) != res.Bytes {
		t.Errorf("Result.Bytes = %d, file has %d", res.Bytes, len(rescued))
	}
	return res, rescued
}

// surface folds a log and returns its model view as JSON text.
func surface(t *testing.T, data []byte) string {
	t.Helper()
	src, err := migrate.Open(write(t, data), nil, migrate.OpenOptions{Options: migrate.Options{Recovery: v2.Recoverable}})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	f := fold.New()
	for {
		ev, err := src.Next()
		if err != nil {
			break
		}
		if err := f.Load(ev); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	for _, m := range f.Messages() {
		b.Write(m.Encode())
		b.WriteByte('\n')
	}
	return b.String()
}

func diagnosisHas(res Result, text string) bool {
	for _, f := range res.Diagnosis {
		if strings.Contains(f.Message, text) {
			return true
		}
	}
	return false
}

func stepsOf(res Result, kind string) []Step {
	var steps []Step
	for _, s := range res.Steps {
		if s.Kind == kind {
			steps = append(steps, s)
		}
	}
	return steps
}

// TestCrossedCompaction: a compaction/start written too early, before a
// turn boundary, as the field bug wrote it. verify refuses it with dsh's
// message; rescue moves the start back to its summary with the owner turn
// of its compaction/end, renumbers every reference, and the result is the
// original log byte for byte (so it folds to the same surface).
func TestCrossedCompaction(t *testing.T) {
	single := read(t, compactionRecovery)
	double := twoTurnCompaction(t)
	if problems, err := errorsOf(write(t, double), migrate.Options{}); err != nil || len(problems) > 0 {
		t.Fatalf("the two-turn template does not verify: %v %v", err, problems)
	}
	endOfTurn1 := int64(strings.Count(string(single), "\n") - 2) // turn/end of the first copy
	tests := []struct {
		name     string
		original []byte
		bracket  int
		at       int64
		refusal  string
		owner    string // as the field bug wrote it
		null     bool
	}{
		{"turn/end crosses", double, 2, endOfTurn1, "SessionFormatError: turn/end crosses an open compaction", "1", false},
		{"turn/end crosses, owner null", double, 2, endOfTurn1, "SessionFormatError: compaction/start does not match the open turn", "null", true},
		{"turn/start crosses (idle path)", double, 2, endOfTurn1 + 1, "SessionFormatError: turn/start crosses an open compaction", "null", false},
		{"turn/start crosses the first turn", single, 1, 4, "SessionFormatError: turn/start crosses an open compaction", "null", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			broken := fieldBug(t, tt.original, tt.bracket, tt.at, tt.null)
			diagnosis, err := errorsOf(write(t, broken), migrate.Options{})
			if err != nil || len(diagnosis) == 0 || diagnosis[0].Message != tt.refusal {
				t.Fatalf("verify of the broken log: %v %+v, want %q", err, diagnosis, tt.refusal)
			}
			res, rescued := rescue(t, broken)
			if !diagnosisHas(res, tt.refusal) {
				t.Errorf("diagnosis %+v lacks %q", res.Diagnosis, tt.refusal)
			}
			if got, want := surface(t, rescued), surface(t, tt.original); got != want {
				t.Errorf("the rescued log folds to another surface")
			}
			if !bytes.Equal(rescued, tt.original) {
				t.Errorf("the rescued log is not the original")
			}
			moves := stepsOf(res, StepMove)
			if len(moves) != 1 || moves[0].Seq != tt.at || moves[0].Type != "compaction/start" {
				t.Errorf("moves %+v, want one from seq %d", moves, tt.at)
			}
			if owner := stepsOf(res, StepOwner); len(owner) != 1 || !strings.HasPrefix(owner[0].Detail, "owner turn "+tt.owner+" → ") {
				t.Errorf("owner steps %+v", owner)
			}
			if len(stepsOf(res, StepReference)) == 0 || len(stepsOf(res, StepSetAside)) != 0 || len(stepsOf(res, StepCut)) != 0 {
				t.Errorf("steps %+v", res.Steps)
			}
		})
	}
}

// TestRemapCoversEveryReference: renumbering reaches every field of a v4
// row that names a seq.
func TestRemapCoversEveryReference(t *testing.T) {
	plus := func(x int64) int64 { return x + 100 }
	tests := []struct{ row, want, changed string }{
		{`{"type":"tool/result","seq":9,"data":{},"sourceEventSeqs":[[2,4],7],"surfaceOp":{"op":"replace","startSeq":2,"endSeq":4}}`,
			`{"type":"tool/result","seq":9,"data":{},"sourceEventSeqs":[102,103,104,107],"surfaceOp":{"op":"replace","startSeq":102,"endSeq":104}}`, "sourceEventSeqs surfaceOp"},
		{`{"type":"developer/message","seq":9,"data":{"headerSeq":3}}`, `{"type":"developer/message","seq":9,"data":{"headerSeq":103}}`, "headerSeq"},
		{`{"type":"command/done","seq":9,"data":{"sourceEventSeq":3}}`, `{"type":"command/done","seq":9,"data":{"sourceEventSeq":103}}`, "sourceEventSeq"},
		{`{"type":"compaction/prune","seq":9,"data":{"shadowedRange":{"start":1,"end":2},"shadowedSeqs":[1,2]}}`,
			`{"type":"compaction/prune","seq":9,"data":{"shadowedRange":{"start":101,"end":102},"shadowedSeqs":[101,102]}}`, "shadowedRange shadowedSeqs"},
		{`{"type":"compaction/summary","seq":9,"data":{"shadowedRange":{"start":1,"end":2},"shadowedSeqs":[1,2]}}`,
			`{"type":"compaction/summary","seq":9,"data":{"shadowedRange":{"start":101,"end":102},"shadowedSeqs":[101,102]}}`, "shadowedRange shadowedSeqs"},
		{`{"type":"session/title","seq":9,"data":{"messageSeqs":[5]}}`, `{"type":"session/title","seq":9,"data":{"messageSeqs":[105]}}`, "messageSeqs"},
		{`{"type":"session/title-llm-request","seq":9,"data":{"messageSeqs":[5]}}`, `{"type":"session/title-llm-request","seq":9,"data":{"messageSeqs":[105]}}`, "messageSeqs"},
		{`{"type":"image/offload","seq":9,"data":{"targets":[{"seq":5,"imageIndexes":[0]}]}}`, `{"type":"image/offload","seq":9,"data":{"targets":[{"seq":105,"imageIndexes":[0]}]}}`, "targets"},
		{`{"type":"session-log-deepseek/delivery-accepted","seq":9,"data":{"sessionId":"s","throughSeq":5}}`,
			`{"type":"session-log-deepseek/delivery-accepted","seq":9,"data":{"sessionId":"s","throughSeq":105}}`, "throughSeq"},
		{`{"type":"user/message","seq":9,"data":{"headerSeq":3},"surfaceOp":"append"}`, `{"type":"user/message","seq":9,"data":{"headerSeq":3},"surfaceOp":"append"}`, ""},
	}
	for _, tt := range tests {
		row, err := jsonv.Parse([]byte(tt.row))
		if err != nil {
			t.Fatal(err)
		}
		out, changed := remapped(row, 9, plus)
		if got := string(out.Encode()); got != tt.want || strings.Join(changed, " ") != tt.changed {
			t.Errorf("%s:\n got %s %v\nwant %s %s", tt.row, got, changed, tt.want, tt.changed)
		}
	}
}

// TestHealthy: a log verify passes needs no rescue and gets no file.
func TestHealthy(t *testing.T) {
	res, out, err := Rescue(write(t, read(t, compactionRecovery)), t.TempDir(), Options{})
	if err != nil || !res.Healthy || out != "" || len(res.Steps) != 0 {
		t.Errorf("res %+v, file %q, err %v", res, out, err)
	}
}

const loopEvents = "../testdata/seed-vectors/loop-events.v4.jsonl"

// interleave writes what two dsh processes appending to one log with their
// own seq counters leave: writer A's rows (the whole log) and, from seq
// fork on, writer B's rows for the same seqs (A's rows, stamped 5 s later,
// as a second process doing the same work), the two alternating row by
// row. It returns the log and the lines of B's rows.
func interleave(t *testing.T, log []byte, fork, count int) ([]byte, []int) {
	t.Helper()
	lines := strings.SplitAfter(string(log), "\n")
	lines = lines[:len(lines)-1]
	var out []string
	var bLines []int
	out = append(out, lines[:fork+1]...)
	for i := 0; fork+1+i < len(lines); i++ {
		a := lines[fork+1+i]
		out = append(out, a)
		if i < count {
			row, err := jsonv.Parse([]byte(strings.TrimSuffix(a, "\n")))
			if err != nil {
				t.Fatal(err)
			}
			time, _ := row.Field("time").SafeInt()
			out = append(out, string(v4.AppendEvent(nil, session.Event{Row: row.With("time", jsonv.IntValue(time+5000))})))
			bLines = append(bLines, len(out))
		}
	}
	return []byte(strings.Join(out, "")), bLines
}

// TestTwoWriters: rows of a second writer interleaved with the first are
// set aside, each reported with its line, bytes and seq, and the first
// writer's history is kept whole.
func TestTwoWriters(t *testing.T) {
	original := read(t, loopEvents)
	mixed, bLines := interleave(t, original, 20, 6)
	diagnosis, err := errorsOf(write(t, mixed), migrate.Options{})
	if err != nil || len(diagnosis) == 0 {
		t.Fatalf("the interleaved log verifies: %v", err)
	}
	res, rescued := rescue(t, mixed)
	if !bytes.Equal(rescued, original) {
		t.Error("the rescued log is not the first writer's")
	}
	aside := stepsOf(res, StepSetAside)
	if len(aside) != len(bLines) {
		t.Fatalf("set aside %+v, want lines %v", aside, bLines)
	}
	rows := strings.Split(string(mixed), "\n")
	for i, s := range aside {
		if s.Line != bLines[i] || s.Bytes != len(rows[s.Line-1]) || s.Seq != int64(20+i) ||
			s.Detail != fmt.Sprintf("seq %d repeats: another writer's row", 20+i) {
			t.Errorf("set aside %+v, want line %d (%d bytes) seq %d", s, bLines[i], len(rows[bLines[i]-1]), 20+i)
		}
	}
	if len(res.Steps) != len(aside) {
		t.Errorf("steps beyond the set-aside rows: %+v", res.Steps)
	}
}

// TestDamagedRow: a row damaged in the middle ends the history there; the
// rows after it are set aside and the open turn is closed with dsh's crash
// closers. A torn last line is set aside too.
func TestDamagedRow(t *testing.T) {
	original := read(t, loopEvents)
	lines := strings.SplitAfter(string(original), "\n")
	lines = lines[:len(lines)-1]
	const damaged = 12 // the line of seq 10, a tool/result
	lines[damaged-1] = lines[damaged-1][:40] + "\n"
	broken := []byte(strings.Join(lines, ""))
	res, rescued := rescue(t, broken)
	if !bytes.HasPrefix(rescued, []byte(strings.Join(lines[:damaged-1], ""))) {
		t.Error("the rescued log does not keep the rows before the damage")
	}
	aside := stepsOf(res, StepSetAside)
	if len(aside) != len(lines)-damaged+1 || aside[0].Line != damaged || aside[0].Detail != "not valid JSON" || aside[0].Bytes != 40 {
		t.Fatalf("set aside %+v", aside)
	}
	for _, s := range aside[1:] {
		if s.Detail != "after the end of the kept history" {
			t.Errorf("set aside %+v", s)
		}
	}
	var closers []string
	for _, s := range stepsOf(res, StepClose) {
		closers = append(closers, s.Type)
	}
	if got := strings.Join(closers, " "); got != "tool/result step/end turn/end" {
		t.Errorf("closers %s", got)
	}
	if res.Events != 13 {
		t.Errorf("%d events, want 10 kept and 3 closers", res.Events)
	}

	torn := append(append([]byte(nil), original...), `{"type":"turn/start","seq":41`...)
	res, rescued = rescue(t, torn)
	if !bytes.Equal(rescued, original) {
		t.Error("a torn tail: the rescued log is not the log without it")
	}
	if aside := stepsOf(res, StepSetAside); len(aside) != 1 || aside[0].Detail != "torn last line (no final newline)" {
		t.Errorf("set aside %+v", aside)
	}
}

// TestEveryLineDamaged breaks the seed log at every third line in three
// ways (the line dropped, repeated, or cut in half) and requires each
// rescue to leave the source alone and give a log that verifies, keeping
// every event before the damage.
func TestEveryLineDamaged(t *testing.T) {
	original := read(t, loopEvents)
	lines := strings.SplitAfter(string(original), "\n")
	lines = lines[:len(lines)-1]
	for i := 1; i < len(lines); i += 3 {
		damaged := map[string][]string{
			"dropped":  append(append([]string(nil), lines[:i]...), lines[i+1:]...),
			"repeated": append(append(append([]string(nil), lines[:i+1]...), lines[i]), lines[i+1:]...),
			"cut":      append(append(append([]string(nil), lines[:i]...), lines[i][:len(lines[i])/2]+"\n"), lines[i+1:]...),
		}
		for how, broken := range damaged {
			res, rescued := rescue(t, []byte(strings.Join(broken, "")))
			if !bytes.HasPrefix(rescued, []byte(strings.Join(lines[:i], ""))) {
				t.Errorf("line %d %s: the rescued log lost events before the damage", i+1, how)
			}
			if len(stepsOf(res, StepSetAside)) == 0 {
				t.Errorf("line %d %s: no row set aside", i+1, how)
			}
		}
	}
}
