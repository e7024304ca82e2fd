package verify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/vocab"
)

// chainOf verifies the session file at path and returns its chain.
func chainOf(t *testing.T, path string) Chain {
	t.Helper()
	src, err := migrate.Open(path, nil, migrate.OpenOptions{})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer src.Close()
	chain, err := Check(src.Reader, nil)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	return chain
}

// TestChainCauses runs request 2 against request 1 (messages a, content
// generation 0, header h) with what happened between them, and checks
// how the chain records request 2.
func TestChainCauses(t *testing.T) {
	a, b, c := jsonv.StringValue("a"), jsonv.StringValue("b"), jsonv.StringValue("c")
	header := func(config, tools string) jsonv.Value {
		v, err := jsonv.Parse([]byte(`{"config":` + config + `,"tools":` + tools + `}`))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	h := header(`{"provider":"mock","model":"mock"}`, `[{"name":"echo"}]`)
	otherModel := header(`{"provider":"mock","model":"other"}`, `[{"name":"echo"}]`)
	otherTools := header(`{"provider":"mock","model":"mock"}`, `[{"name":"echo"},{"name":"bash"}]`)
	rewritten := []jsonv.Value{c, b}
	tests := []struct {
		name     string
		messages []jsonv.Value
		gen      int
		header   jsonv.Value
		since    since
		want     *Break // nil: request 2 extends request 1
	}{
		{"appended", []jsonv.Value{a, b}, 0, h, nothingSince, nil},
		{"retried", []jsonv.Value{a}, 0, h, nothingSince, nil},
		{"rewritten, messages still extend", []jsonv.Value{a, b}, 1, h, since{series: 7, header: 7, seed: -1, compaction: true}, nil},
		{"compaction under a series header", rewritten, 1, h, since{series: 7, header: 7, seed: -1, compaction: true},
			&Break{Cause: CauseCompaction, ExplainedBy: MarkerSeries, MarkerSeq: 7, Diff: &MessageDiff{Index: 0, Expected: `"a"`, Actual: `"c"`}}},
		{"system prompt under a series header", rewritten, 1, h, since{series: 7, header: 7, seed: -1, systemRewrite: true, compaction: true},
			&Break{Cause: CauseSystemPrompt, ExplainedBy: MarkerSeries, MarkerSeq: 7, Diff: &MessageDiff{Index: 0, Expected: `"a"`, Actual: `"c"`}}},
		{"tools changed", []jsonv.Value{a, b}, 0, otherTools, since{series: -1, header: 6, seed: -1},
			&Break{Cause: CauseTools, MessagesExtend: true, ExplainedBy: MarkerHeader, MarkerSeq: 6}},
		{"model changed", []jsonv.Value{a, b}, 0, otherModel, since{series: -1, header: 6, seed: -1},
			&Break{Cause: CauseConfig, MessagesExtend: true, ExplainedBy: MarkerHeader, MarkerSeq: 6}},
		{"rewrite before a resume", rewritten, 1, h, since{series: -1, header: -1, seed: 8, seedGen: 1, compaction: true},
			&Break{Cause: CauseResume, ExplainedBy: MarkerEndSeed, MarkerSeq: 8, Diff: &MessageDiff{Index: 0, Expected: `"a"`, Actual: `"c"`}}},
		{"header changed at a resume", []jsonv.Value{a, b}, 0, otherModel, since{series: -1, header: 9, seed: 8},
			&Break{Cause: CauseResume, MessagesExtend: true, ExplainedBy: MarkerEndSeed, MarkerSeq: 8}},
		{"tools changed at a fork boundary", []jsonv.Value{a, b}, 0, otherTools, since{series: -1, header: 9, seed: 8, seedInherited: true},
			&Break{Cause: CauseFork, MessagesExtend: true, ExplainedBy: MarkerFork, MarkerSeq: 8}},
		{"rewrite after a resume", rewritten, 1, h, since{series: -1, header: -1, seed: 8, seedGen: 0, compaction: true},
			&Break{Cause: CauseUnexplained, MarkerSeq: -1, Diff: &MessageDiff{Index: 0, Expected: `"a"`, Actual: `"c"`}}},
		{"shorter", []jsonv.Value{}, 1, h, since{series: -1, header: -1, seed: -1, compaction: true},
			&Break{Cause: CauseUnexplained, MarkerSeq: -1, Diff: &MessageDiff{Index: 0, Expected: `"a"`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := newJudge(nil, true, vocab.Default())
			j.prev = &request{index: 1, seq: 5, count: 1, messages: []jsonv.Value{a}, header: h, hasHeader: true}
			j.chain.Requests = 1
			j.since = tt.since
			j.settlement(request{index: 2, seq: 9, count: len(tt.messages), messages: tt.messages, contentGeneration: tt.gen,
				header: tt.header, hasHeader: true}, true)
			want := Chain{Requests: 2, Extending: 1}
			if tt.want != nil {
				b := *tt.want
				b.Request, b.Seq, b.PreviousSeq = 2, 9, 5
				want = Chain{Requests: 2, Breaks: []Break{b}}
			}
			if got := j.chain; !equalChains(got, want) {
				t.Errorf("chain %s, want %s", jsonOf(got), jsonOf(want))
			}
		})
	}
}

// TestChainCorpus checks the chain of logs whose requests the fold
// goldens (dsh's own Session) list, and the break each one has.
func TestChainCorpus(t *testing.T) {
	diff := &MessageDiff{Index: 1,
		Expected: `…e":"text","text":"Establish a durable compaction premise before continui…`,
		Actual:   `…e":"text","text":"This is an automatically generated checkpoint condensi…`}
	tests := []struct {
		file string
		want Chain
	}{
		{"seed-vectors/loop-events.v4.jsonl", Chain{Complete: true, Requests: 6, Extending: 5}},
		{"corpus/restored/compaction-recovery/session.v4.jsonl", Chain{Complete: true, Requests: 3, Extending: 1, Breaks: []Break{
			{Request: 3, Seq: 25, PreviousSeq: 18, Cause: CauseCompaction, ExplainedBy: MarkerSeries, MarkerSeq: 24, Diff: diff}}}},
		{"corpus/golden/edge2/v2-system-prompt-change/session.v2.jsonl", Chain{Complete: true, Requests: 3, Extending: 1, Breaks: []Break{
			{Request: 3, Seq: 26, PreviousSeq: 19, Cause: CauseSystemPrompt, ExplainedBy: MarkerSeries, MarkerSeq: 25, Diff: &MessageDiff{Index: 0,
				Expected: `…:"v2-to-v3-system-f574772af061bac078c80262aff6e9e950861935a930af07599db3…`,
				Actual:   `…:"v2-to-v3-system-e98d33b6b58abac4d327bf0d3d10e5d050367d191dbc1d89772cf8…`}}}}},
		{"corpus/bad-logs/header-series-different/session.v4.jsonl", Chain{Complete: true, Requests: 6, Extending: 4, Breaks: []Break{
			{Request: 6, Seq: 39, PreviousSeq: 30, Cause: CauseConfig, MessagesExtend: true, ExplainedBy: MarkerHeader, MarkerSeq: 38}}}},
		{"corpus/bad-logs/compaction-no-series-header/session.v4.jsonl", Chain{Complete: true, Requests: 3, Extending: 1, Breaks: []Break{
			{Request: 3, Seq: 24, PreviousSeq: 18, Cause: CauseUnexplained, MarkerSeq: -1, Diff: diff}}}},
		{"corpus/bad-logs/seq-gap/session.v4.jsonl", Chain{Requests: 2, Extending: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			if got := chainOf(t, filepath.Join("../testdata", tt.file)); !equalChains(got, tt.want) {
				t.Errorf("chain %s, want %s", jsonOf(got), jsonOf(tt.want))
			}
		})
	}
}

// TestChainResume turns two log-only rows of the seed vector between
// requests 5 and 6 into a resume: a session/end-seed and a resume header
// that adds a tool. Request 6 then breaks the chain at the resume.
func TestChainResume(t *testing.T) {
	text, err := os.ReadFile("../testdata/seed-vectors/loop-events.v4.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(text), "\n")
	lines[33+1] = `{"type":"session/end-seed","seq":33,"time":1792499042260,"data":{}}` + "\n"
	lines[35+1] = `{"type":"request/header","seq":35,"time":1792499042261,"data":{"header":{"config":{"provider":"mock","model":"mock"},"tools":[{"name":"echo","description":"echo back","parameters":{"type":"object","properties":{"text":{"type":"string"}}}},{"name":"bash"}]},"reason":"resume"}}` + "\n"
	path := filepath.Join(t.TempDir(), "session.v4.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	findings := check(t, path)
	for _, f := range findings {
		t.Errorf("finding [%s] %s", f.Code, f.Message)
	}
	want := Chain{Complete: true, Requests: 6, Extending: 4, Breaks: []Break{
		{Request: 6, Seq: 38, PreviousSeq: 30, Cause: CauseResume, MessagesExtend: true, ExplainedBy: MarkerEndSeed, MarkerSeq: 33}}}
	if got := chainOf(t, path); !equalChains(got, want) {
		t.Errorf("chain %s, want %s", jsonOf(got), jsonOf(want))
	}
}

// TestChainFoldGolden compares the chain of every fold-golden input with
// the requests dsh's Session rebuilt from it: as many requests, and a
// break exactly where a request does not extend the previous one's
// messages or its header differs.
func TestChainFoldGolden(t *testing.T) {
	goldens, err := filepath.Glob("../testdata/corpus/fold-golden/*/*.fold.json")
	if err != nil || len(goldens) < 50 {
		t.Fatalf("fold goldens: %d, %v", len(goldens), err)
	}
	for _, golden := range goldens {
		var want struct {
			Input    string `json:"input"`
			Requests []struct {
				SettlementSeq   int64           `json:"settlementSeq"`
				ExtendsPrevious *bool           `json:"extendsPrevious"`
				Header          json.RawMessage `json:"header"`
			} `json:"requests"`
		}
		text, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(text, &want); err != nil {
			t.Fatal(err)
		}
		t.Run(want.Input, func(t *testing.T) {
			got := chainOf(t, filepath.Join("../testdata", want.Input))
			var breaks []int64
			for i, r := range want.Requests {
				if i > 0 && (!*r.ExtendsPrevious || string(r.Header) != string(want.Requests[i-1].Header)) {
					breaks = append(breaks, r.SettlementSeq)
				}
			}
			var gotBreaks []int64
			for _, b := range got.Breaks {
				gotBreaks = append(gotBreaks, b.Seq)
			}
			if !got.Complete || got.Requests != len(want.Requests) || !slices.Equal(gotBreaks, breaks) ||
				got.Extending != len(want.Requests)-1-len(breaks) {
				t.Errorf("chain %s; dsh rebuilds %d requests, breaks at %v", jsonOf(got), len(want.Requests), breaks)
			}
		})
	}
}

func equalChains(a, b Chain) bool { return jsonOf(a) == jsonOf(b) }

func jsonOf(c Chain) string {
	b, _ := json.Marshal(c)
	return string(b)
}

// jsonText is JSON.stringify of a value, whether its parsed text is the
// canonical one (returned as it is) or not (encoded).
func TestJSONTextIsEncode(t *testing.T) {
	for _, text := range []string{
		`{"role":"user","content":[{"type":"text","text":"hi"}]}`,
		`{ "role" : "user" }`,
		`{"b":1,"a":2,"1":3}`,
		`["\u0041", 1.0, 1e2, -0]`,
		`{"text":"\ud800 lone"}`,
		`"plain"`, `12`, `null`,
	} {
		v, err := jsonv.Parse([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(jsonText(v)), v.String(); got != want {
			t.Errorf("jsonText(%s) = %s, want %s", text, got, want)
		}
		detached := jsonv.Detach(v)
		if got, want := string(jsonText(detached)), v.String(); got != want {
			t.Errorf("jsonText(Detach(%s)) = %s, want %s", text, got, want)
		}
	}
}

// The chain compares the headers of two requests only when a request/header
// came between them: without one, the header in force is the previous
// request's, which headerDiff finds equal to itself. This checks that
// premise at every settlement of the corpus sessions the fold loads.
func TestHeaderUnchangedWithoutRequestHeader(t *testing.T) {
	files, _ := filepath.Glob("../testdata/corpus/*/*/*.v4.jsonl")
	if len(files) == 0 {
		t.Fatal("no corpus sessions")
	}
	compared := 0
	for _, path := range files {
		src, err := migrate.Open(path, nil, migrate.OpenOptions{})
		if err != nil {
			continue // a refused file has no chain to keep
		}
		f := fold.NewWith(src.Vocabulary())
		var prev *fold.HeaderInForce
		headerSince := false
		for {
			ev, err := src.Next()
			if err != nil {
				break
			}
			if fold.IsSettlement(ev.Type) {
				h, ok := f.Header()
				switch {
				case prev != nil && !headerSince:
					compared++
					if !ok || headerDiff(prev.Header, h.Header) != "" {
						t.Errorf("%s: seq %d: the header changed with no request/header since the previous request", path, ev.Seq)
					}
				}
				if ok {
					prev, headerSince = &h, false
				}
			}
			if err := f.Load(ev); err != nil {
				break
			}
			if ev.Type == "request/header" {
				headerSince = true
			}
		}
		src.Close()
	}
	if compared == 0 {
		t.Fatal("no pair of requests compared")
	}
}
