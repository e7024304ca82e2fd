package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/verify"
	"github.com/dshlog/dshlog/verify/batch"
)

func TestTheorem(t *testing.T) {
	compaction := verify.Break{Request: 3, Seq: 25, PreviousSeq: 18, Cause: verify.CauseCompaction, ExplainedBy: verify.MarkerSeries, MarkerSeq: 24,
		Diff: &verify.MessageDiff{Index: 1, Expected: "a", Actual: "b"}}
	tools := verify.Break{Request: 4, Seq: 30, Cause: verify.CauseTools, MessagesExtend: true, ExplainedBy: verify.MarkerHeader, MarkerSeq: 29}
	fork := verify.Break{Request: 5, Seq: 40, Cause: verify.CauseFork, ExplainedBy: verify.MarkerFork, MarkerSeq: 33}
	unexplained := verify.Break{Request: 2, Seq: 9, Cause: verify.CauseUnexplained, MarkerSeq: -1,
		Diff: &verify.MessageDiff{Index: 4, Expected: `{"role":"user"…`}}
	many := verify.Chain{Requests: 13}
	for range 12 {
		many.Breaks = append(many.Breaks, tools)
	}
	tests := []struct {
		chain verify.Chain
		want  string
	}{
		{verify.Chain{}, "0 requests rebuilt"},
		{verify.Chain{Requests: 1}, "1 request rebuilt"},
		{verify.Chain{Requests: 2, Extending: 1}, "2 requests rebuilt, 1 extends the previous one, no break"},
		{verify.Chain{Requests: 5, Extending: 1, Breaks: []verify.Break{compaction, tools, fork}},
			"5 requests rebuilt, 1 extends the previous one, 3 breaks: request 3 (seq 25) compaction, explained by the series header at seq 24; " +
				"request 4 (seq 30) tools, explained by the header at seq 29 (messages extend); request 5 (seq 40) fork, explained by the fork boundary at seq 33"},
		{verify.Chain{Requests: 2, Breaks: []verify.Break{unexplained}},
			`2 requests rebuilt, 0 extend the previous one, 1 break: request 2 (seq 9) unexplained, message 4 differs (expected: {"role":"user"…; actual: no message)`},
		{many, "13 requests rebuilt, 0 extend the previous one, 12 breaks: " +
			strings.Repeat("request 4 (seq 30) tools, explained by the header at seq 29 (messages extend); ", 10) + "and 2 more"},
	}
	for _, tt := range tests {
		if got := Theorem(tt.chain); got != tt.want {
			t.Errorf("Theorem:\n got %s\nwant %s", got, tt.want)
		}
	}
}

// TestBaseline writes findings as a baseline and reads it back: a finding
// is covered by file, code and seq, whatever its message or line.
func TestBaseline(t *testing.T) {
	entries := []BaselineEntry{
		EntryOf("b/session.v4.jsonl", verify.Finding{Code: verify.CodeTornTail, Seq: -1}),
		EntryOf("a/session.v4.jsonl", verify.Finding{Code: verify.CodeNotExtending, Seq: 24}),
		EntryOf("a/session.v4.jsonl", verify.Finding{Code: verify.CodeNotExtending, Seq: 24}),
	}
	var out bytes.Buffer
	if err := WriteBaseline(&out, entries); err != nil {
		t.Fatal(err)
	}
	want := `{"format":"dshlog-verify-baseline/1","findings":[
{"file":"a/session.v4.jsonl","code":"request-not-extending","seq":24},
{"file":"b/session.v4.jsonl","code":"torn-tail","seq":null}
]}
`
	if out.String() != want {
		t.Fatalf("baseline:\n%s\nwant:\n%s", out.String(), want)
	}
	b, err := ReadBaseline(&out)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file    string
		finding verify.Finding
		covered bool
	}{
		{"a/session.v4.jsonl", verify.Finding{Code: verify.CodeNotExtending, Seq: 24, Line: 99, Message: "reworded"}, true},
		{"a/session.v4.jsonl", verify.Finding{Code: verify.CodeNotExtending, Seq: 25}, false},
		{"a/session.v4.jsonl", verify.Finding{Code: verify.CodeSeriesMarker, Seq: 24}, false},
		{"c/session.v4.jsonl", verify.Finding{Code: verify.CodeNotExtending, Seq: 24}, false},
		{"b/session.v4.jsonl", verify.Finding{Code: verify.CodeTornTail, Seq: -1}, true},
	}
	for _, tt := range tests {
		if got := b.Covers(tt.file, tt.finding); got != tt.covered {
			t.Errorf("%s %+v: covered %v, want %v", tt.file, tt.finding, got, tt.covered)
		}
	}
	for _, bad := range []string{"", "[]", `{"format":"other","findings":[]}`, `{"format":"dshlog-verify-baseline/1","extra":1}`} {
		if _, err := ReadBaseline(strings.NewReader(bad)); err == nil {
			t.Errorf("%q read as a baseline", bad)
		}
	}
}

func TestNewFile(t *testing.T) {
	r := batch.Result{Target: batch.Target{Path: "s/session.v4.jsonl"}, Findings: []verify.Finding{
		{Code: verify.CodeNotExtending, Severity: verify.Error, Seq: 24},
		{Code: verify.CodeOpenTail, Severity: verify.Warning, Seq: 30},
		{Code: verify.CodeUnknownIgnorable, Severity: verify.Info, Seq: 3},
	}}
	var buf bytes.Buffer
	WriteBaseline(&buf, []BaselineEntry{EntryOf("s/session.v4.jsonl", r.Findings[0])})
	baseline, err := ReadBaseline(&buf)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		j       Judgement
		verdict Verdict
		failing int
	}{
		{Judgement{}, Problems, 1},
		{Judgement{Strict: true}, Problems, 2},
		{Judgement{Baseline: baseline}, OK, 0},
		{Judgement{Strict: true, Baseline: baseline}, Problems, 1},
	}
	for _, tt := range tests {
		f := NewFile(r, tt.j)
		if f.Verdict != tt.verdict || f.Failing != tt.failing {
			t.Errorf("%+v: %s with %d failing, want %s with %d", tt.j, f.Verdict, f.Failing, tt.verdict, tt.failing)
		}
	}
	unreadable := NewFile(batch.Result{Target: batch.Target{Path: "-"}, Err: errors.New("boom")}, Judgement{})
	if unreadable.Verdict != Unreadable || unreadable.Name != "<stdin>" {
		t.Errorf("unreadable: %+v", unreadable)
	}
}

func TestGitHubCommands(t *testing.T) {
	var out bytes.Buffer
	g := NewGitHub(&out, false)
	f := File{Name: "dir,with:odd%/session.v4.jsonl", Verdict: Problems, Findings: []verify.Finding{
		{Code: verify.CodeSessionRefused, Severity: verify.Error, Seq: 7, Line: 9, Message: "line one\nline two: 100%"},
		{Code: verify.CodeTornTail, Severity: verify.Warning, Seq: -1, Message: "torn"},
		{Code: verify.CodeUnknownIgnorable, Severity: verify.Info, Seq: 3, Line: 5, Message: "opaque"},
	}}
	if err := g.File(f); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	want := []string{
		"::error file=dir%2Cwith%3Aodd%25/session.v4.jsonl,line=9,title=session-refused::seq 7: line one%0Aline two: 100%25",
		"::warning file=dir%2Cwith%3Aodd%25/session.v4.jsonl,title=torn-tail::torn",
		"::notice file=dir%2Cwith%3Aodd%25/session.v4.jsonl,line=5,title=unknown-ignorable::seq 3: opaque",
		"dir,with:odd%/session.v4.jsonl: problems found (0 errors, 0 warnings, 0 info)",
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, lines[i], w)
		}
	}
}

// TestJUnit writes a report of an ok, a failing and an unreadable file and
// parses it back: well-formed XML whose counts match its cases.
func TestJUnit(t *testing.T) {
	j := NewJUnit(false)
	j.File(File{Name: "ok.jsonl", Verdict: OK, Chain: verify.Chain{Complete: true, Requests: 1}})
	j.File(File{Name: "bad <&>.jsonl", Verdict: Problems, Failing: 2, Findings: []verify.Finding{
		{Code: verify.CodeNotExtending, Severity: verify.Error, Seq: 3, Message: `a "quoted" <message> & more`},
		{Code: verify.CodeToolBalance, Severity: verify.Error, Seq: 5, Message: "second"},
		{Code: verify.CodeOpenTail, Severity: verify.Warning, Seq: 9, Message: "just a warning"},
	}})
	j.File(File{Name: "gone.jsonl", Verdict: Unreadable, Err: errors.New("no such file")})
	var out bytes.Buffer
	if _, err := j.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Suite    struct {
			Tests int `xml:"tests,attr"`
			Cases []struct {
				Name     string `xml:"name,attr"`
				Failures []struct {
					Type    string `xml:"type,attr"`
					Message string `xml:"message,attr"`
				} `xml:"failure"`
				Error *struct {
					Message string `xml:"message,attr"`
				} `xml:"error"`
				SystemOut string `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	dec := xml.NewDecoder(&out)
	dec.Strict = true
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("not well-formed: %v", err)
	}
	if doc.Tests != 3 || doc.Failures != 1 || doc.Errors != 1 || doc.Suite.Tests != 3 || len(doc.Suite.Cases) != 3 {
		t.Fatalf("counts %+v", doc)
	}
	bad := doc.Suite.Cases[1]
	if bad.Name != "bad <&>.jsonl" || len(bad.Failures) != 2 || bad.Failures[0].Type != verify.CodeNotExtending ||
		bad.Failures[0].Message != `a "quoted" <message> & more` || !strings.Contains(bad.SystemOut, "just a warning") {
		t.Errorf("failing case %+v", bad)
	}
	if gone := doc.Suite.Cases[2]; gone.Error == nil || gone.Error.Message != "no such file" {
		t.Errorf("unreadable case %+v", gone)
	}
	if ok := doc.Suite.Cases[0]; ok.SystemOut != "theorem: 1 request rebuilt\n" {
		t.Errorf("ok case %+v", ok)
	}
}
