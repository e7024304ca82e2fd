package verify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/migrate"
)

// check verifies the session file at path and returns its findings.
func check(t *testing.T, path string) []Finding {
	t.Helper()
	src, err := migrate.Open(path, nil, migrate.OpenOptions{})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer src.Close()
	var findings []Finding
	if _, err := Check(src.Reader, func(f Finding) { findings = append(findings, f) }); err != nil {
		t.Fatalf("check: %v", err)
	}
	return findings
}

// verdict is one column of a bad-logs expect.json: ok, or dsh's error text.
type verdict struct {
	OK    bool   `json:"ok"`
	Error string `json:"error"`
}

// expectation is the part of a bad-logs expect.json the verifier answers.
type expectation struct {
	Codec       verdict  `json:"codec"`
	CodecStrict *verdict `json:"codecStrict"`
	Session     verdict  `json:"session"`
}

// acceptedByDsh are the damages both dsh checks accept (bad-logs README,
// "Both accept"), with the finding a verifier gives each. The last four
// are valid or at most worth a warning or info: they must not fail.
var acceptedByDsh = map[string]struct {
	code     string
	severity Severity
}{
	"two-settlements-without-retry":         {CodeAssistantRepeated, Error},
	"interrupted-flag-on-tool-call-message": {CodeInterruptedContent, Error},
	"replace-splits-tool-pair":              {CodeToolBalance, Error},
	"end-seed-inherited-inside-open-turn":   {CodeInheritedOpenTurn, Error},
	"header-change-identical":               {CodeHeaderChange, Error},
	"header-series-different":               {CodeHeaderSeries, Error},
	"header-initial-after-earlier":          {CodeHeaderInitial, Error},
	"header-resume-without-earlier":         {CodeHeaderResume, Error},
	"header-missing-before-settlement":      {CodeHeaderMissing, Error},
	"compaction-no-series-header":           {CodeNotExtending, Error},
	"unknown-type-ignorable":                {CodeUnknownIgnorable, Info},
	"unknown-ignorable-with-surfaceop":      {CodeUnknownIgnorable, Info},
	"truncated-tail-open-tool-call":         {CodeOpenTail, Warning},
	"empty-assistant-content":               {CodeEmptyAssistant, Warning},
}

// TestBadLogs checks every damaged log of testdata/corpus/bad-logs against
// dsh's verdicts in its expect.json: each refusal is reported with dsh's
// exact text (the Session's, unless the codec stopped reading at a row
// first), the damages dsh accepts get the verifier's own finding, and only
// the four valid ones pass.
func TestBadLogs(t *testing.T) {
	cases, err := filepath.Glob("../testdata/corpus/bad-logs/*/expect.json")
	if err != nil || len(cases) == 0 {
		t.Fatalf("no bad-logs cases: %v", err)
	}
	failing := 0
	for _, expectFile := range cases {
		dir := filepath.Dir(expectFile)
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			var want expectation
			text, err := os.ReadFile(expectFile)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(text, &want); err != nil {
				t.Fatal(err)
			}
			findings := check(t, filepath.Join(dir, "session.v4.jsonl"))
			for _, f := range findings {
				t.Logf("%d:%d [%s %s] %s", f.Line, f.Seq, f.Severity, f.Code, f.Message)
			}
			codecAt := checkCodec(t, want, findings)
			checkSession(t, want, findings, codecAt)
			errors := slices.ContainsFunc(findings, func(f Finding) bool { return f.Severity == Error })
			if errors {
				failing++
			}
			accepted, isAccepted := acceptedByDsh[name]
			switch {
			case isAccepted:
				if !slices.ContainsFunc(findings, func(f Finding) bool { return f.Code == accepted.code && f.Severity == accepted.severity }) {
					t.Errorf("no %s %s finding", accepted.severity, accepted.code)
				}
				if accepted.severity != Error && errors {
					t.Errorf("a valid log has errors")
				}
			case !errors:
				t.Errorf("dsh refuses this log, the verifier found no error")
			}
		})
	}
	if want := len(cases) - 4; failing != want {
		t.Errorf("%d of %d logs fail verification, want %d", failing, len(cases), want)
	}
}

// checkCodec compares the codec findings with the codec column and returns
// the seq of the row the codec stopped reading at, or -1.
func checkCodec(t *testing.T, want expectation, findings []Finding) int64 {
	t.Helper()
	wantCode, wantText := "", ""
	switch {
	case want.Codec.Error != "":
		wantCode, wantText = CodeCodecRefused, want.Codec.Error
	case want.CodecStrict != nil && want.CodecStrict.Error != "":
		wantCode, wantText = CodeCodecDroppedRows, want.CodecStrict.Error
	}
	at := int64(-1)
	var got []Finding
	for _, f := range findings {
		if strings.HasPrefix(f.Code, "codec-") {
			got = append(got, f)
			at = f.Seq
		}
	}
	switch {
	case wantCode == "" && len(got) > 0:
		t.Errorf("dsh's codec accepts the log, got %s: %s", got[0].Code, got[0].Message)
	case wantCode != "" && (len(got) != 1 || got[0].Code != wantCode || got[0].Message != wantText):
		t.Errorf("codec findings %+v, want one %s %q", got, wantCode, wantText)
	case wantCode != "":
		// dsh names a row by its index after the header: the seq it should have.
		if m := rowIndex.FindStringSubmatch(wantText); m != nil && strconv.FormatInt(at, 10) != m[1] {
			t.Errorf("codec finding at seq %d, dsh names row %s", at, m[1])
		}
	}
	return at
}

// rowIndex finds the row a codec refusal names.
var rowIndex = regexp.MustCompile(`\brow (\d+) `)

// checkSession compares the session findings with the session column. dsh
// loads the Session only from what the codec read: when the codec stopped
// at a row, the Session's refusal of that row or a later one is not seen.
func checkSession(t *testing.T, want expectation, findings []Finding, codecAt int64) {
	t.Helper()
	i := slices.IndexFunc(findings, func(f Finding) bool { return f.Code == CodeSessionRefused })
	switch {
	case want.Session.OK && i >= 0:
		t.Errorf("dsh's Session accepts the log, got %q", findings[i].Message)
	case !want.Session.OK && i < 0 && codecAt < 0:
		t.Errorf("no session finding, want %q", want.Session.Error)
	case !want.Session.OK && i >= 0 && findings[i].Message != want.Session.Error:
		t.Errorf("session finding %q, want %q", findings[i].Message, want.Session.Error)
	}
}

// TestCleanCorpus verifies every log dsh wrote or accepts in testdata (the
// fold-golden inputs, the restored corpus in every version, checked as dsh
// migrates it, and the seed vectors): none has an error finding.
func TestCleanCorpus(t *testing.T) {
	files := cleanFiles(t)
	for _, file := range files {
		t.Run(strings.TrimPrefix(file, "../testdata/"), func(t *testing.T) {
			for _, f := range check(t, file) {
				if f.Severity == Error {
					t.Errorf("line %d seq %d: [%s] %s", f.Line, f.Seq, f.Code, f.Message)
				} else {
					t.Logf("line %d seq %d: [%s %s] %s", f.Line, f.Seq, f.Severity, f.Code, f.Message)
				}
			}
		})
	}
}

// cleanFiles lists the logs dsh accepts: the input of every fold-golden
// output, every restored corpus file (v0, v3 and v4) and the seed vectors.
func cleanFiles(t *testing.T) []string {
	t.Helper()
	golden, err := filepath.Glob("../testdata/corpus/fold-golden/*/*.fold.json")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, g := range golden {
		rel, _ := filepath.Rel("../testdata/corpus/fold-golden", strings.TrimSuffix(g, ".fold.json"))
		if strings.HasPrefix(rel, "seed-vectors") {
			continue // the seed vectors are listed below
		}
		files = append(files, filepath.Join("../testdata/corpus/golden", rel))
	}
	for _, pattern := range []string{"../testdata/corpus/restored/*/*.jsonl", "../testdata/seed-vectors/*.v4.jsonl"} {
		matches, err := filepath.Glob(pattern)
		if err != nil || len(matches) == 0 {
			t.Fatalf("no file matches %s", pattern)
		}
		files = append(files, matches...)
	}
	if len(golden) < 50 {
		t.Fatalf("only %d fold-golden outputs", len(golden))
	}
	return files
}

// TestTornTail cuts the final newline off a clean log: dsh drops the torn
// line (the last turn/end), so the verifier warns about it at its line and
// about the turn it leaves open.
func TestTornTail(t *testing.T) {
	text, err := os.ReadFile("../testdata/seed-vectors/loop-events.v4.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "session.v4.jsonl")
	if err := os.WriteFile(path, text[:len(text)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(string(text), "\n")
	want := []Finding{{Code: CodeTornTail, Severity: Warning, Seq: -1, Line: lines,
		Message: "the last line has no final newline (a write cut short); dsh drops it"}, {
		Code: CodeOpenTail, Severity: Warning, Seq: 39, Line: 41,
		Message: "the log ends inside an open turn; dsh's crash repair would append 1 closer (turn/end)"}}
	if got := check(t, path); !slices.Equal(got, want) {
		t.Errorf("findings %+v, want %+v", got, want)
	}
}

// TestDamage damages one row of a clean log and expects the finding the
// damage calls for, at the damaged event, on top of what the clean log has.
func TestDamage(t *testing.T) {
	const systemPrompt = "../testdata/corpus/restored/deepseek-protocol-system-prompt/session.v4.jsonl"
	const loop = "../testdata/seed-vectors/loop-events.v4.jsonl"
	const aborted = `"reason":{"kind":"aborted","reason":{"kind":"user"}}`
	tests := []struct {
		name     string
		file     string
		seq      int64 // the damaged row
		old, new string
		code     string
		at       int64
	}{
		{"system prompt appended on a route that replaces it", systemPrompt,
			11, `"systemPromptUpdate":"in-history"`, `"systemPromptUpdate":"replace"`, CodeSystemAppendRoute, 18},
		{"empty system prompt appended", systemPrompt,
			18, `"content":[{"type":"text","text":"You are a coding agent running inside DeepSeek Harness."}]`, `"content":[]`, CodeSystemAppendEmpty, 18},
		{"crash closer without the resume marker", loop,
			32, aborted, `"reason":{"kind":"interrupted"}`, CodeCrashEndUnresumed, 32},
		{"forked closer outside a fork seed", loop,
			32, aborted, `"reason":{"kind":"forked"}`, CodeForkedEndOutsideSeed, 32},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, err := os.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(string(text), "\n")
			row := tt.seq + 1
			if !strings.Contains(lines[row], tt.old) {
				t.Fatalf("row %d has no %s", tt.seq, tt.old)
			}
			lines[row] = strings.Replace(lines[row], tt.old, tt.new, 1)
			path := filepath.Join(t.TempDir(), "session.v4.jsonl")
			if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
				t.Fatal(err)
			}
			findings := check(t, path)
			if !slices.ContainsFunc(findings, func(f Finding) bool { return f.Code == tt.code && f.Seq == tt.at && f.Line == int(tt.at)+2 }) {
				t.Errorf("no %s finding at seq %d in %+v", tt.code, tt.at, findings)
			}
		})
	}
}
