package v3to4

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate/stage"
	"github.com/dshlog/dshlog/session"
)

const (
	plainHeader  = `{"type":"session","version":3,"id":"s","createdAt":1,"isSeeded":false,"delegationDepth":0}`
	seededHeader = `{"type":"session","version":3,"id":"s","createdAt":1,"isSeeded":true,"parentSession":"p","delegationDepth":0}`
	wrapped      = "SessionFormatUnsupportedMigrationError: " + Name + " refuses this format v3 Session: "
	unsupported  = "SessionFormatUnsupportedMigrationError: "
)

// restartRows open turn 1 and evidence its interruption, so that the row
// after them (source seq 3) lands one seq later.
var restartRows = []string{
	`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}`,
	`{"type":"agent/inbox/spliced","seq":1,"time":2,"data":{"target":"next-turn","inserted":[{"id":"n","role":"user","source":{"kind":"user"},"content":[]}]}}`,
	`{"type":"turn/start","seq":2,"time":3,"data":{"turn":2}}`,
}

// stageFile runs rows through the stage alone and returns the v4 rows after
// the inserted ones, or the refusal.
func stageFile(t *testing.T, header string, rows ...string) string {
	t.Helper()
	out, refusal := runStage(t, []byte(header+"\n"+strings.Join(rows, "\n")+"\n"), nil)
	if refusal != "" {
		return refusal
	}
	return string(out)
}

func TestReferencesAfterInsertion(t *testing.T) {
	tests := []struct{ name, row, want string }{
		{"envelope", `{"type":"user/message","seq":3,"time":4,"data":{"id":"u","role":"user","source":{"kind":"user"},"content":[]},"surfaceOp":{"op":"replace","startSeq":0,"endSeq":2,"extra":2},"sourceEventSeqs":[[0,2]]}`,
			`{"type":"user/message","seq":4,"time":4,"data":{"id":"u","role":"user","source":{"kind":"user"},"content":[]},"surfaceOp":{"op":"replace","startSeq":0,"endSeq":3,"extra":2},"sourceEventSeqs":[0,1,3]}`},
		{"command", `{"type":"command/done","seq":3,"time":4,"data":{"commandId":"c","kind":"success","sourceEventSeq":2}}`,
			`{"type":"command/done","seq":4,"time":4,"data":{"commandId":"c","kind":"success","sourceEventSeq":3}}`},
		{"command without source", `{"type":"command/done","seq":3,"time":4,"data":{"commandId":"c","kind":"success"}}`,
			`{"type":"command/done","seq":4,"time":4,"data":{"commandId":"c","kind":"success"}}`},
		{"compaction", `{"type":"compaction/prune","seq":3,"time":4,"data":{"shadowedRange":{"end":2,"start":1,"x":9},"shadowedSeqs":[1,2],"shadowedTokenCount":9}}`,
			`{"type":"compaction/prune","seq":4,"time":4,"data":{"shadowedRange":{"end":3,"start":1,"x":9},"shadowedSeqs":[1,3],"shadowedTokenCount":9}}`},
		{"title", `{"type":"session/title","seq":3,"time":4,"data":{"title":"t","source":{"kind":"fallback"},"messageSeqs":[2]}}`,
			`{"type":"session/title","seq":4,"time":4,"data":{"title":"t","source":{"kind":"fallback"},"messageSeqs":[3]}}`},
		{"image offload", `{"type":"image/offload","seq":3,"time":4,"data":{"targets":[{"seq":2,"imageIndexes":[0]}]}}`,
			`{"type":"image/offload","seq":4,"time":4,"data":{"targets":[{"seq":3,"imageIndexes":[0]}]}}`},
		{"captures stay", `{"type":"user/message","seq":3,"time":4,"data":{"id":"u","role":"user","source":{"kind":"session-reference","capturedThroughSeq":2},"content":[{"type":"text","text":"seq=2"}]},"surfaceOp":"append"}`,
			`{"type":"user/message","seq":4,"time":4,"data":{"id":"u","role":"user","source":{"kind":"session-reference","capturedThroughSeq":2},"content":[{"type":"text","text":"seq=2"}]},"surfaceOp":"append"}`},
		{"not a count", `{"type":"session/title","seq":3,"time":4,"data":{"messageSeqs":[-1]}}`,
			wrapped + "V3 source event reference must be a non-negative safe integer"},
		{"not earlier", `{"type":"session/title","seq":3,"time":4,"data":{"messageSeqs":[3]}}`,
			wrapped + "V3 reference must name an earlier source event"},
		{"not a list", `{"type":"compaction/summary","seq":3,"time":4,"data":{"shadowedRange":{"start":0,"end":0},"shadowedSeqs":0}}`,
			wrapped + "V3 event references must be an array"},
		{"no container", `{"type":"compaction/summary","seq":3,"time":4,"data":{}}`,
			wrapped + "V3 event reference container must be an object"},
		{"surfaceOp not object", `{"type":"user/message","seq":3,"time":4,"data":{},"surfaceOp":"prepend"}`,
			wrapped + "V3 event reference container must be an object"},
		{"image targets", `{"type":"image/offload","seq":3,"time":4,"data":{"targets":{}}}`,
			wrapped + "V3 image offload targets must be an array"},
		{"image target", `{"type":"image/offload","seq":3,"time":4,"data":{"targets":[2]}}`,
			wrapped + "V3 event reference container must be an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := stageFile(t, plainHeader, append(restartRows, tt.row)...)
			if lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n"); len(lines) == 6 {
				got = lines[5]
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestReferencesUntouchedWithoutInsertion(t *testing.T) {
	// Without an insertion the event passes unchanged and unchecked.
	row := `{"type":"session/title","seq":0,"time":1,"data":{"messageSeqs":[7,"x"]}}`
	got := stageFile(t, plainHeader, row)
	if want := strings.Replace(plainHeader, `"version":3`, `"version":4`, 1) + "\n" + row + "\n"; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func TestStageRefusals(t *testing.T) {
	tests := []struct {
		name, header string
		rows         []string
		want         string
	}{
		{"dense", plainHeader, []string{`{"type":"feedback/record","seq":1,"time":1,"data":{}}`}, wrapped + "V3 source events must be dense"},
		{"unseeded marker", plainHeader, []string{`{"type":"session/end-seed","seq":0,"time":1,"data":{"inherited":true}}`},
			wrapped + "unseeded format v3 Session contains an inherited end-seed marker"},
		{"seeded without marker", seededHeader, []string{`{"type":"session/end-seed","seq":0,"time":1,"data":{}}`},
			wrapped + "V3 inherited event count must be a non-negative safe integer"},
		{"unknown type", plainHeader, []string{`{"type":"feedback/record","seq":0,"time":1,"data":{}}`, `{"type":"assistant/chunk","seq":1,"time":1,"data":{}}`},
			unsupported + `format v3 contains unknown event type "assistant/chunk" at seq 1`},
		{"nested result", plainHeader, append(restartRows, `{"type":"tool/result","seq":3,"time":1,"data":{"message":{"id":"r","role":"user","source":{"kind":"tool","callId":"c"},"content":[{"type":"tool-result","toolCallId":"c","content":[{"type":"tool-result"}]}]}}}`),
			unsupported + "format v3 tool/result at seq 4 contains a nested tool-result unsupported by this converter"},
		{"source seq is the source's", plainHeader, append(restartRows, `{"type":"user/message","seq":3,"time":1,"data":{"source":{"kind":""}}}`),
			wrapped + "message source at seq 3 requires a nonempty kind"},
		{"content seq is the target's", plainHeader, append(restartRows, `{"type":"user/message","seq":3,"time":1,"data":{"source":{"kind":"user"},"content":null}}`),
			wrapped + "format v3 user/message at seq 4 content must be an array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stageFile(t, tt.header, tt.rows...); got != tt.want+"\n" && got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// run is a compact run of events, as a v0/v1 codec emits them.
type run []session.Event

func (r run) RunType() string                  { return "test" }
func (r run) FirstSeq() int64                  { return r[0].Seq }
func (r run) EventCount() int64                { return int64(len(r)) }
func (r run) Expand() ([]session.Event, error) { return r, nil }

func TestStageContract(t *testing.T) {
	h := session.Header{Version: 3, ID: "s", CreatedAt: 1}
	edge := New([]ChildFact{})
	if edge.Name() != "@deepseek-ai/dsh-session-format-v3-to-v4" || edge.From() != 3 {
		t.Fatalf("edge names %s from %d", edge.Name(), edge.From())
	}
	if _, err := edge.MigrateHeader(session.Header{Version: 2}); err == nil || err.Error() != "expected format v3 header" {
		t.Errorf("MigrateHeader(v2) = %v", err)
	}
	target, err := edge.MigrateHeader(h)
	if err != nil || target.Version != 4 || target.ID != "s" {
		t.Fatalf("MigrateHeader = %+v, %v", target, err)
	}
	if err := edge.ValidateTargetHeader(session.Header{Version: 4, Cwd: session.Str("x")}); err == nil || err.Error() != "format v4 header cwd must be absolute" {
		t.Errorf("ValidateTargetHeader = %v", err)
	}

	st, err := edge.NewStage(stage.StageInput{SourceHeader: h, TargetHeader: target, SourceCut: 0})
	if err != nil {
		t.Fatal(err)
	}
	if st.HeaderCut() != 0 {
		t.Errorf("unseeded HeaderCut = %d", st.HeaderCut())
	}
	var got []string
	emit := func(item session.Item) error {
		got = append(got, fmt.Sprintf("%s@%d", item.Event.Type, item.Event.Seq))
		return nil
	}
	events := run{
		{Type: "feedback/record", Seq: 0, Row: jsonv.ObjectValue(jsonv.M("type", jsonv.StringValue("feedback/record")))},
		{Type: "feedback/record", Seq: 1, Row: jsonv.ObjectValue(jsonv.M("type", jsonv.StringValue("feedback/record")))},
	}
	if err := st.Transform(session.Item{Run: events}, emit); err != nil {
		t.Fatal(err)
	}
	cut, err := st.Finish(emit)
	if err != nil || cut != 0 || strings.Join(got, " ") != "feedback/record@0 feedback/record@1" {
		t.Errorf("run migrated to %v, cut %d, %v", got, cut, err)
	}

	seeded := session.Header{Version: 3, ID: "s", CreatedAt: 1, IsSeeded: true}
	st, _ = edge.NewStage(stage.StageInput{SourceHeader: seeded, SourceCut: 0})
	if st.HeaderCut() != -1 {
		t.Errorf("seeded HeaderCut = %d", st.HeaderCut())
	}
	marker := jsonv.ObjectValue(jsonv.M("type", jsonv.StringValue("session/end-seed")),
		jsonv.M("data", jsonv.ObjectValue(jsonv.M("inherited", jsonv.BoolValue(true)))))
	for seq := int64(0); seq < 2; seq++ {
		if err := st.Transform(session.Item{Event: session.Event{Type: "session/end-seed", Seq: seq, Row: marker}}, emit); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Finish(emit); err == nil || err.Error() != "format v3 inherited cut disagrees with its source marker" {
		t.Errorf("Finish with a disagreeing source cut = %v", err)
	}
}

func TestChildEvidence(t *testing.T) {
	h := session.Header{Version: 3, ID: "s", CreatedAt: 1}
	for _, tt := range []struct {
		child ChildFact
		want  string
	}{
		{ChildFact{ChildID: "c", ChildCreatedAt: -1}, "catalog child creation time must be a non-negative safe integer"},
		{ChildFact{ChildID: "c", ChildCreatedAt: 1 << 53}, "catalog child creation time must be a non-negative safe integer"},
		{ChildFact{ChildID: "c", DescriptorCount: -2}, "child descriptor count must be a non-negative safe integer"},
	} {
		if _, err := New([]ChildFact{tt.child}).NewStage(stage.StageInput{SourceHeader: h}); err == nil || err.Error() != tt.want {
			t.Errorf("NewStage(%+v) = %v, want %q", tt.child, err, tt.want)
		}
	}

	if _, err := NewChildReducer(session.Header{ID: "c", ParentSession: session.Str("p")}); err == nil ||
		err.Error() != "catalog migration requires a subagent child with a direct parent" {
		t.Errorf("NewChildReducer(no origin) = %v", err)
	}
	child := session.Header{ID: "c", CreatedAt: 5, Origin: session.Str("subagent"), ParentSession: session.Str("p"), IsSeeded: true}
	r, err := NewChildReducer(child)
	if err != nil {
		t.Fatal(err)
	}
	descriptor := func(seq int64, mode string) session.Event {
		data := mustParse(`{"version":3,"provider":"spawn","mode":"` + mode + `"}`)
		return session.Event{Type: "subagent/descriptor", Seq: seq, Row: jsonv.ObjectValue(jsonv.M("data", data))}
	}
	r.Add(descriptor(0, "continuable")) // inherited from the parent's prefix
	r.Add(session.Event{Type: "session/end-seed", Seq: 1})
	r.Add(descriptor(2, "one-shot"))
	fact, err := r.Finish(1)
	if err != nil || fact.ChildID != "c" || fact.ChildCreatedAt != 5 || fact.DescriptorCount != 1 || fact.Descriptor.Field("mode").Text() != "one-shot" {
		t.Errorf("Finish = %+v, %v", fact, err)
	}
	r.Add(descriptor(3, "forever"))
	if _, err := r.Finish(3); err == nil || err.Error() != "Session c has an invalid subagent descriptor mode" {
		t.Errorf("Finish with a bad own descriptor = %v", err)
	}
}

func TestCompareUTF16(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"a", "b", -1},
		{"a", "a", 0},
		{"a", "ab", -1},
		{"\U0001F600", "\uE000", -1}, // D83D DE00 < E000, though UTF-8 orders them the other way
		{"\uFFFF", "\U00010000", 1},
		{"\xed\xa0\x80", "\U00010000", -1}, // a lone D800 before the pair D800 DC00
		{"\xed\xb0\x80", "\U0010FFFF", 1},  // a lone DC00 after DBFF DFFF
	}
	for _, tt := range tests {
		if got := compareUTF16(tt.a, tt.b); got != tt.want {
			t.Errorf("compareUTF16(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
