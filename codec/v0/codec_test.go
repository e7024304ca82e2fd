package v0

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

func TestDecodeHeader(t *testing.T) {
	const base = `"type":"session","id":"x","createdAt":1,"delegationDepth":0`
	tests := []struct {
		version int
		header  string
		want    string // refusal text, or the logical header and cut
	}{
		// dsh's codec.spec.ts vector: seedLength 0 is a seeded session with an empty prefix.
		{1, `{"type":"session","version":1,"id":"codec","createdAt":1,"cwd":"/work","parentSession":"parent","seedLength":0,"origin":"subagent","delegationDepth":1,"agentPreset":"default"}`,
			`{"type":"session","version":1,"id":"codec","createdAt":1,"cwd":"/work","parentSession":"parent","isSeeded":true,"origin":"subagent","delegationDepth":1,"agentPreset":"default"} cut 0`},
		{0, `{` + base + `,"version":0}`, `{"type":"session","version":0,"id":"x","createdAt":1,"isSeeded":false,"delegationDepth":0} cut 0`},
		{0, `{` + base + `,"version":0,"seedLength":7}`, `{"type":"session","version":0,"id":"x","createdAt":1,"isSeeded":true,"delegationDepth":0} cut 7`},
		{0, `{` + base + `,"version":0.0}`, `{"type":"session","version":0,"id":"x","createdAt":1,"isSeeded":false,"delegationDepth":0} cut 0`},
		{0, `{` + base + `,"version":0,"isSeeded":true}`, `SessionFormatError: released v0 physical header has unexpected member "isSeeded"`},
		{0, `{"type":"session","version":0,"id":"x","createdAt":1}`, `SessionFormatError: released v0 physical header lacks required member "delegationDepth"`},
		{0, `{"version":0,"id":"x","createdAt":1,"extra":1}`, `SessionFormatError: released v0 physical header has unexpected member "extra"`},
		{0, `{` + base + `,"version":0,"cwd":-0}`, "SessionFormatError: released v0 physical header is not lossless JSON"},
		{1, `{` + base + `,"version":1,"seedLength":1e400}`, "SessionFormatError: released v1 physical header is not lossless JSON"},
		{0, `[0]`, "SessionFormatError: released v0 physical header must be a JSON object"},
		{0, `{` + base + `,"version":1}`, "SessionFormatError: expected released v0 physical Session header"},
		{1, `{"type":"Session","version":1,"id":"x","createdAt":1,"delegationDepth":0}`, "SessionFormatError: expected released v1 physical Session header"},
		{0, `{"type":"session","version":0,"id":7,"createdAt":1,"delegationDepth":0}`, "SessionFormatError: released v0 header id must be a string"},
		{0, `{"type":"session","version":0,"id":"x","createdAt":"1","delegationDepth":0}`, "SessionFormatError: released v0 header createdAt must be a non-negative safe integer"},
		{0, `{"type":"session","version":0,"id":"x","createdAt":1,"delegationDepth":-1}`, "SessionFormatError: released v0 header delegationDepth must be a non-negative safe integer"},
		{0, `{` + base + `,"version":0,"seedLength":1.5}`, "SessionFormatError: released v0 header seedLength must be a non-negative safe integer"},
		{0, `{` + base + `,"version":0,"parentSession":null}`, "SessionFormatError: released v0 header parentSession must be a string"},
		{0, `{` + base + `,"version":0,"agentPreset":1}`, "SessionFormatError: released v0 header agentPreset must be a string"},
		{0, `{` + base + `,"version":0,"origin":"fork"}`, `SessionFormatError: released v0 header origin must be "subagent"`},
		{0, `{` + base + `,"version":0,"cwd":"work"}`, "SessionFormatError: format v0 header cwd must be absolute"},
		{1, `{` + base + `,"version":1,"cwd":""}`, "SessionFormatError: format v1 header cwd must be absolute"},
	}
	for _, tc := range tests {
		h, cut, err := DecodeHeader(sessiontest.Parse(t, tc.header), tc.version)
		got := sessiontest.RefusalText(err)
		if err == nil {
			got = h.Value().String() + " cut " + itoa(cut)
		}
		if got != tc.want {
			t.Errorf("v%d %s:\n got %s\nwant %s", tc.version, tc.header, got, tc.want)
		}
	}
}

func TestCheckHeader(t *testing.T) {
	tests := []struct {
		h       session.Header
		version int
		want    string
	}{
		{session.Header{Version: 1, Cwd: session.Str("/w")}, 1, ""},
		{session.Header{Version: 2}, 1, "SessionFormatError: expected format v1 header"},
		{session.Header{Version: 0, Cwd: session.Str("C:\\w")}, 0, "SessionFormatError: format v0 header cwd must be absolute"},
	}
	for _, tc := range tests {
		if got := sessiontest.RefusalText(CheckHeader(tc.h, tc.version)); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.h, got, tc.want)
		}
	}
}

// events decodes body rows with a fresh decoder and returns what it
// emitted: each event row, each run expanded, one line each.
func events(t *testing.T, header string, recovery v2.Recovery, rows ...string) ([]string, error) {
	t.Helper()
	d, err := NewDecoder(sessiontest.Parse(t, header), 0, recovery)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	emit := func(item session.Item) error {
		if item.Run == nil {
			out = append(out, item.Event.Row.String())
			return nil
		}
		evs, err := item.Run.Expand()
		for _, ev := range evs {
			out = append(out, ev.Row.String())
		}
		return err
	}
	for _, row := range rows {
		if err := d.Decode(sessiontest.Parse(t, row), emit); err != nil {
			return out, err
		}
	}
	_, err = d.Finish(emit)
	return out, err
}

const header0 = `{"type":"session","version":0,"id":"x","createdAt":1,"cwd":"/work","delegationDepth":0}`

// TestPackedRows runs dsh's codec.spec.ts vectors for packed rows and its
// refusals.
func TestPackedRows(t *testing.T) {
	tests := []struct {
		row  string
		want []string
		err  string
	}{
		{row: `{"type":"text-chunks","seq0":0,"time0":1,"data":{"turn":1,"step":2,"index":3,"dt":[2],"texts":["a","b"]}}`, want: []string{
			`{"type":"assistant/chunk","seq":0,"time":1,"data":{"turn":1,"step":2,"chunk":{"type":"text-delta","index":3,"text":"a"}}}`,
			`{"type":"assistant/chunk","seq":1,"time":3,"data":{"turn":1,"step":2,"chunk":{"type":"text-delta","index":3,"text":"b"}}}`,
		}},
		{row: `{"type":"reasoning-chunks","seq0":0,"time0":4,"data":{"turn":2,"step":3,"index":1,"dt":[1],"texts":["c","d"]}}`, want: []string{
			`{"type":"assistant/chunk","seq":0,"time":4,"data":{"turn":2,"step":3,"chunk":{"type":"reasoning-delta","index":1,"text":"c"}}}`,
			`{"type":"assistant/chunk","seq":1,"time":5,"data":{"turn":2,"step":3,"chunk":{"type":"reasoning-delta","index":1,"text":"d"}}}`,
		}},
		{row: `{"type":"tool-call-chunks","seq0":0,"time0":6,"data":{"turn":3,"step":4,"index":2,"id":"call","name":"read","dt":[1],"args":["{","}"]}}`, want: []string{
			`{"type":"assistant/chunk","seq":0,"time":6,"data":{"turn":3,"step":4,"chunk":{"type":"tool-call-delta","index":2,"id":"call","name":"read","argumentsDelta":"{"}}}`,
			`{"type":"assistant/chunk","seq":1,"time":7,"data":{"turn":3,"step":4,"chunk":{"type":"tool-call-delta","index":2,"id":"call","name":"read","argumentsDelta":"}"}}}`,
		}},
		{row: `{"type":"tool-call-chunks","seq0":0,"time0":8,"data":{"turn":4,"step":5,"index":0,"id":"call","dt":[],"args":["x"]}}`, want: []string{
			`{"type":"assistant/chunk","seq":0,"time":8,"data":{"turn":4,"step":5,"chunk":{"type":"tool-call-delta","index":0,"id":"call","argumentsDelta":"x"}}}`,
		}},
		{row: `{"type":"text-chunks","seq0":0,"time0":9,"data":{"turn":1,"step":1,"index":0,"dt":[-3,1],"texts":["a","b","c"]}}`, want: []string{
			`{"type":"assistant/chunk","seq":0,"time":9,"data":{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"a"}}}`,
			`{"type":"assistant/chunk","seq":1,"time":6,"data":{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"b"}}}`,
			`{"type":"assistant/chunk","seq":2,"time":7,"data":{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"c"}}}`,
		}},
		{row: `{"type":"text-chunks","seq0":0,"time0":1,"data":{"turn":1,"step":2,"index":3,"dt":[],"texts":["a"]},"extra":true}`,
			err: `SessionFormatError: released text-chunks row 0 has unexpected member "extra"`},
		{row: `{"type":"text-chunks","seq0":0,"time0":1}`, err: `SessionFormatError: released text-chunks row 0 lacks required member "data"`},
		{row: `{"type":"text-chunks","seq0":-1,"time0":1,"data":{}}`, err: `SessionFormatError: released text-chunks row 0 seq0 must be a non-negative safe integer`},
		{row: `{"type":"text-chunks","seq0":0,"time0":-0,"data":{}}`, err: `SessionFormatError: released text-chunks row 0 time0 must be a safe integer`},
		{row: `{"type":"text-chunks","seq0":0,"time0":0,"data":[]}`, err: `SessionFormatError: released text-chunks row 0 data must be a JSON object`},
		{row: `{"type":"text-chunks","seq0":0,"time0":1,"data":{"turn":1,"step":2,"index":3,"dt":[],"texts":[]}}`,
			err: "SessionFormatError: released text-chunks row 0 payload must be a non-empty string array"},
		{row: `{"type":"reasoning-chunks","seq0":0,"time0":1,"data":{"turn":1,"step":2,"index":3,"dt":[1],"texts":["a",1]}}`,
			err: "SessionFormatError: released reasoning-chunks row 0 payload must be a non-empty string array"},
		{row: `{"type":"text-chunks","seq0":0,"time0":1,"data":{"turn":1,"step":2,"index":3,"dt":[1,1],"texts":["a","b"]}}`,
			err: "SessionFormatError: released text-chunks row 0 dt length must match its payload"},
		{row: `{"type":"text-chunks","seq0":0,"time0":1,"data":{"turn":1,"step":2,"index":3,"dt":[0.5],"texts":["a","b"]}}`,
			err: "SessionFormatError: released text-chunks row 0 dt member must be a safe integer"},
		{row: `{"type":"text-chunks","seq0":0,"time0":9007199254740991,"data":{"turn":1,"step":2,"index":3,"dt":[1],"texts":["a","b"]}}`,
			err: "SessionFormatError: released text-chunks row 0 member time must be a safe integer"},
		{row: `{"type":"text-chunks","seq0":0,"time0":1,"data":{"turn":"1","step":2,"index":3,"dt":[],"texts":["a"]}}`,
			err: "SessionFormatError: released text-chunks row 0 turn must be a non-negative safe integer"},
		{row: `{"type":"text-chunks","seq0":0,"time0":1,"data":{"turn":1,"step":2,"index":-3,"dt":[],"texts":["a"]}}`,
			err: "SessionFormatError: released text-chunks row 0 index must be a non-negative safe integer"},
		{row: `{"type":"tool-call-chunks","seq0":0,"time0":1,"data":{"turn":1,"step":2,"index":3,"id":1,"dt":[],"args":["a"]}}`,
			err: "SessionFormatError: released tool-call-chunks row 0 id and optional name must be strings"},
		{row: `{"type":"tool-call-chunks","seq0":0,"time0":1,"data":{"turn":1,"step":2,"index":3,"id":"","dt":[],"args":["a"]}}`,
			err: "SessionFormatError: released tool-call-chunks row 0 id and optional name must be strings"},
		{row: `{"type":"tool-call-chunks","seq0":0,"time0":1,"data":{"turn":1,"step":2,"index":3,"id":"c","name":null,"dt":[],"args":["a"]}}`,
			err: "SessionFormatError: released tool-call-chunks row 0 id and optional name must be strings"},
		{row: `{"type":"tool-call-chunks","seq0":0,"time0":1,"data":{"turn":1,"step":2,"index":3,"id":"c","dt":[],"texts":["a"]}}`,
			err: `SessionFormatError: released tool-call-chunks row 0 data has unexpected member "texts"`},
		{row: `{"type":"text-chunks","seq0":9007199254740991,"time0":1,"data":{"turn":1,"step":2,"index":3,"dt":[1],"texts":["a","b"]}}`,
			err: "SessionFormatError: released text-chunks row 0 final seq must be a non-negative safe integer"},
	}
	for _, tc := range tests {
		got, err := events(t, header0, v2.Strict, tc.row)
		if sessiontest.RefusalText(err) != tc.err {
			t.Errorf("%s:\n got %s\nwant %s", tc.row, sessiontest.RefusalText(err), tc.err)
			continue
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n got %s\nwant %s", tc.row, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}

// TestChunkRun checks the compact run a packed row decodes to: the
// coordinates v1→v2 reads and the stream record it embeds.
func TestChunkRun(t *testing.T) {
	tests := []struct{ row, want string }{
		{`{"type":"text-chunks","seq0":4,"time0":104,"data":{"turn":1,"step":1,"index":0,"dt":[1,1],"texts":["he","l","lo"]}}`,
			`first 4 count 3 turn 1 step 1 last 6@106 {"type":"text-chunks","time0":104,"index":0,"dt":[1,1],"texts":["he","l","lo"]}`},
		{`{"type":"tool-call-chunks","seq0":2,"time0":10,"data":{"args":["{"],"name":"","dt":[],"id":"c","index":1,"step":3,"turn":2}}`,
			`first 2 count 1 turn 2 step 3 last 2@10 {"type":"tool-call-chunks","time0":10,"index":1,"dt":[],"id":"c","name":"","args":["{"]}`},
		{`{"type":"reasoning-chunks","seq0":0,"time0":5,"data":{"turn":1,"step":1,"index":0,"dt":[0,-2],"texts":["a","b","c"]}}`,
			`first 0 count 3 turn 1 step 1 last 2@3 {"type":"reasoning-chunks","time0":5,"index":0,"dt":[0,-2],"texts":["a","b","c"]}`},
	}
	for _, tc := range tests {
		run, err := decodePackedRun(sessiontest.Parse(t, tc.row), sessiontest.Parse(t, tc.row).Field("type").Text(), 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.row, err)
		}
		got := "first " + itoa(run.FirstSeq()) + " count " + itoa(run.EventCount()) + " turn " + itoa(run.Turn()) +
			" step " + itoa(run.Step()) + " last " + itoa(run.LastSeq()) + "@" + itoa(run.LastTime()) + " " + run.Stream().String()
		if got != tc.want || run.RunType() != "released-assistant-chunks" {
			t.Errorf("%s:\n got %s\nwant %s", tc.row, got, tc.want)
		}
	}
}

// TestSeqRanges runs the v0/v1 flavour of dsh's sourceEventSeqs decoder.
func TestSeqRanges(t *testing.T) {
	tests := []struct {
		ranges string
		seq    int64
		want   string
	}{
		{`[[0,2]]`, 3, "[0,1,2]"},
		{`[[0,2],4]`, 5, "[0,1,2,4]"},
		{`[4,5,1,2,3]`, 6, "[4,5,1,2,3]"},
		{`[1,1]`, 3, "[1,1]"}, // uniqueness is not the codec's concern
		{`[7]`, 3, "[7]"},     // nor are scalar members past the seq
		{`[]`, 0, "[]"},
		{`"bad"`, 3, "SessionFormatError: sourceEventSeqs must be an array"},
		{`[0,0]`, 1, "SessionFormatError: sourceEventSeqs exceeds its event seq"},
		{`[[0]]`, 3, "SessionFormatError: sourceEventSeqs range must be a [start, end] pair"},
		{`["0"]`, 3, "SessionFormatError: sourceEventSeqs range must be a [start, end] pair"},
		{`[-1]`, 3, "SessionFormatError: sourceEventSeqs member must be a non-negative safe integer"},
		{`[[-0,1]]`, 3, "SessionFormatError: sourceEventSeqs range start must be a non-negative safe integer"},
		{`[[0,"1"]]`, 3, "SessionFormatError: sourceEventSeqs range end must be a non-negative safe integer"},
		{`[[2,1]]`, 3, "SessionFormatError: sourceEventSeqs range exceeds its event seq"},
		{`[[0,3]]`, 1, "SessionFormatError: sourceEventSeqs range exceeds its event seq"},
		{`[[0,1],[1,2]]`, 5, "SessionFormatError: sourceEventSeqs ranges must be strictly increasing"},
		{`[3,[0,1]]`, 5, "SessionFormatError: sourceEventSeqs ranges must be strictly increasing"},
	}
	for _, tc := range tests {
		seqs, err := DecodeSeqRanges(sessiontest.Parse(t, tc.ranges), tc.seq)
		got := sessiontest.RefusalText(err)
		if err == nil {
			got = seqArray(seqs).String()
		}
		if got != tc.want {
			t.Errorf("%s on seq %d: got %s, want %s", tc.ranges, tc.seq, got, tc.want)
		}
	}
}

// TestExpandCostsItsLength pins that expanding a short sourceEventSeqs list
// costs the same bytes however late its event is: sizing the expansion by
// the event's seq made a long v0 session quadratic.
func TestExpandCostsItsLength(t *testing.T) {
	perRow := func(seq int64) uint64 {
		row := sessiontest.Parse(t, `{"type":"assistant/message","seq":`+strconv.FormatInt(seq, 10)+
			`,"time":1,"data":{},"sourceEventSeqs":[[0,2],5]}`)
		emit := func(session.Item) error { return nil }
		const runs = 50
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range runs {
			d := &Decoder{count: seq}
			if err := d.Decode(row, emit); err != nil {
				t.Fatalf("seq %d: %v", seq, err)
			}
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / runs
	}
	early, late := perRow(8), perRow(1<<20)
	if late > early+64 {
		t.Errorf("expanding 4 seqs allocates %d bytes at seq %d but %d at seq 8", late, 1<<20, early)
	}
}

// TestDecodeRows covers row classification, the decoded sourceEventSeqs, the
// seq discipline and the recoverable scan of dsh's codec and legacy specs.
func TestDecodeRows(t *testing.T) {
	const (
		start = `{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}`
		end1  = `{"type":"turn/end","seq":1,"time":2,"data":{"turn":1,"reason":{"kind":"completed"}}}`
		end2  = `{"type":"turn/end","seq":2,"time":3,"data":{"turn":1,"reason":{"kind":"completed"}}}`
		gap   = `{"type":"text-chunks","seq0":7,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":["a"]}}`
	)
	tests := []struct {
		name     string
		header   string
		recovery v2.Recovery
		rows     []string
		want     []string
		err      string
	}{
		{name: "ranges decoded in place", recovery: v2.Strict,
			rows: []string{start, `{"type":"x","seq":1,"time":1,"data":{}}`, `{"type":"x","seq":2,"time":1,"data":{}}`,
				`{"type":"user/message","seq":3,"time":1,"data":{},"sourceEventSeqs":[[0,2]],"surfaceOp":"append"}`},
			want: []string{start, `{"type":"x","seq":1,"time":1,"data":{}}`, `{"type":"x","seq":2,"time":1,"data":{}}`,
				`{"type":"user/message","seq":3,"time":1,"data":{},"sourceEventSeqs":[0,1,2],"surfaceOp":"append"}`}},
		{name: "event rows pass unchecked", recovery: v2.Strict,
			rows: []string{`{"seq":0,"data":null,"extra":[1]}`, `{"type":5,"seq":1.0}`},
			want: []string{`{"seq":0,"data":null,"extra":[1]}`, `{"type":5,"seq":1}`}},
		{name: "sourceEventSeqs needs a counted seq", recovery: v2.Strict,
			rows: []string{`{"type":"x","seq":"0","sourceEventSeqs":[]}`},
			err:  "SessionFormatError: released Session row 0 seq must be a non-negative safe integer"},
		{name: "row must be an object", recovery: v2.Strict, rows: []string{start, `[1]`},
			want: []string{start}, err: "SessionFormatError: released Session row 1 must be a JSON object"},
		{name: "strict gap", recovery: v2.Strict, rows: []string{start, `{"type":"x","seq":"1"}`},
			want: []string{start}, err: "SessionFormatError: released Session row 1 has seq gap (expected 1, got 1)"},
		{name: "strict gap without seq", recovery: v2.Strict, rows: []string{start, `{"type":"x"}`},
			want: []string{start}, err: "SessionFormatError: released Session row 1 has seq gap (expected 1, got undefined)"},
		{name: "recoverable gapped packed tail dropped", rows: []string{start, end1, gap},
			want: []string{start, end1}},
		{name: "recoverable gap fatal at a later turn/end", rows: []string{start, end1, gap, end2},
			want: []string{start, end1}, err: "SessionFormatError: released Session row 2 has seq gap (expected 2, got 7)"},
		{name: "recoverable malformed row fatal at a later turn/end", rows: []string{start, `{"type":"text-chunks"}`, end1},
			want: []string{start}, err: `SessionFormatError: released text-chunks row 1 lacks required member "seq0"`},
		{name: "recoverable gapped turn/end throws at once", rows: []string{start, end2},
			want: []string{start}, err: "SessionFormatError: released Session row 1 has seq gap (expected 1, got 2)"},
		{name: "recoverable keeps only the dense prefix",
			rows: []string{start, `{"type":"turn/start","seq":4,"time":1,"data":{"turn":2}}`, `{"type":"step/start","seq":1,"time":1,"data":{"turn":1,"step":1}}`},
			want: []string{start}},
		{name: "cut past the end", header: `{"type":"session","version":0,"id":"x","createdAt":1,"delegationDepth":0,"seedLength":2}`,
			rows: []string{start}, want: []string{start}, err: "SessionFormatError: Session inheritedEventCount exceeds its event count"},
		{name: "cut at the end", header: `{"type":"session","version":0,"id":"x","createdAt":1,"delegationDepth":0,"seedLength":1}`,
			rows: []string{start}, want: []string{start}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			header := tc.header
			if header == "" {
				header = header0
			}
			got, err := events(t, header, tc.recovery, tc.rows...)
			if sessiontest.RefusalText(err) != tc.err {
				t.Errorf("error: got %s, want %s", sessiontest.RefusalText(err), tc.err)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("events:\n got %s\nwant %s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestDecoderIssue checks that a dropped row is remembered as the issue.
func TestDecoderIssue(t *testing.T) {
	d, err := NewDecoder(sessiontest.Parse(t, header0), 0, v2.Recoverable)
	if err != nil {
		t.Fatal(err)
	}
	if d.HeaderCut() != 0 || d.Header().ID != "x" {
		t.Fatalf("header %+v cut %d", d.Header(), d.HeaderCut())
	}
	if err := d.Decode(sessiontest.Parse(t, `7`), func(session.Item) error { return nil }); err != nil || sessiontest.RefusalText(d.Issue()) != "SessionFormatError: released Session row 0 must be a JSON object" {
		t.Errorf("issue %v, err %v", d.Issue(), err)
	}
}

// decodedStringArray is stringArray by decoding every element.
func decodedStringArray(v jsonv.Value) (int, bool) {
	if v.Kind() != jsonv.Array {
		return 0, false
	}
	for _, e := range v.Elements() {
		if e.Kind() != jsonv.String {
			return v.Len(), false
		}
	}
	return v.Len(), true
}

// checkStringArray compares stringArray with decoding on the value text
// parses to, and on its canonical form when text is not canonical; it
// reports whether the canonical text was read.
func checkStringArray(t *testing.T, text string) bool {
	v, err := jsonv.Parse([]byte(text))
	if err != nil {
		return false
	}
	canonical, _ := jsonv.Parse(v.Encode())
	read := false
	for _, v := range []jsonv.Value{v, canonical} {
		n, ok := stringArray(v)
		wantN, wantOK := decodedStringArray(v)
		if ok != wantOK || (ok && n != wantN) {
			t.Errorf("%s: stringArray = %d %v, decoding gives %d %v", v, n, ok, wantN, wantOK)
		}
		read = read || v.Raw() != nil
	}
	return read
}

// TestStringArray checks a packed payload's check on canonical text
// against decoding it.
func TestStringArray(t *testing.T) {
	for _, text := range []string{
		`[]`, `["a"]`, `["a","b"]`, `[""]`, `["",""]`, `["a",1]`, `[1,"a"]`, `[null]`,
		`["a\"",""]`, `["a\\","b"]`, `["a\\\"b","c"]`, `["\\\\","x"]`, `["\\\\\"",7]`,
		`["\\\\",1]`, `["a\\\\","b",2]`, `["\\\\",["x"]]`, `["\\\\\\\\","y",{}]`, `["\\",1]`,
		`["\u0001","\ud800"]`, `["é","😀"]`, `[["a"],"b"]`, `["a",["b"]]`, `["a",{"b":"c"}]`,
		`["a",true]`, `[ "a" , "b" ]`, `{"a":"b"}`, `"a"`, `["],[",","]`, `["\"]",1]`,
	} {
		if !checkStringArray(t, text) && strings.HasPrefix(text, "[") {
			t.Errorf("%s: no canonical text was read", text)
		}
	}
}

// FuzzStringArray checks stringArray against decoding on arbitrary JSON.
func FuzzStringArray(f *testing.F) {
	for _, seed := range []string{`["a\\\"b","c"]`, `["\\\\",1]`, `[["a"],"b"]`, `[]`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) { checkStringArray(t, text) })
}
