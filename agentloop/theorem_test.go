package agentloop

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// runScenario runs every script of a built-in scenario and writes each log
// to a file in dir; it returns the paths and runs.
func runScenario(t *testing.T, name, dir string) ([]string, []Run) {
	t.Helper()
	sc, ok := FindScenario(name)
	if !ok {
		t.Fatalf("no scenario %s", name)
	}
	scripts, err := sc.Scripts()
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	var runs []Run
	for _, s := range scripts {
		var out bytes.Buffer
		run, err := RunScript(context.Background(), s, nil, &out)
		if err != nil {
			t.Fatalf("%s: %v", s.Session, err)
		}
		path := filepath.Join(dir, s.Session+".v4.jsonl")
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		paths, runs = append(paths, path), append(runs, run)
	}
	return paths, runs
}

// TestTheorem: for every scenario, each request the model received equals
// byte for byte the request fold rebuilds from log[0..settlement) of the
// file read back from disk, and each extends the previous one unless the
// log explains why.
func TestTheorem(t *testing.T) {
	want := map[string][]int{
		"loop-four-turn":  {1, 2, 3, 4, 5, 6},
		"loop-compaction": {1, 2, 3, 4, 5, 6},
		"loop-crash":      {1},
		"loop-fork-a":     {3}, // the parent's two requests are inherited
		"loop-fork-b":     {2},
	}
	for _, sc := range Scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			paths, runs := runScenario(t, sc.Name, t.TempDir())
			for i, run := range runs {
				var got []int
				for _, r := range run.Requests {
					got = append(got, r.Index())
				}
				if !equalInts(got, want[run.Header.ID]) {
					t.Errorf("%s: requests %v, want %v", run.Header.ID, got, want[run.Header.ID])
				}
				if err := CheckRequests(paths[i], run.Requests); err != nil {
					t.Errorf("%s: %v", run.Header.ID, err)
				}
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestTheoremCatchesTamperedRequest: a request altered after it was built
// no longer matches the log, and the mismatch names the request, the
// message and both versions.
func TestTheoremCatchesTamperedRequest(t *testing.T) {
	paths, runs := runScenario(t, "four-turn", t.TempDir())
	requests := runs[0].Requests
	tampered := requests[3]
	tampered.body = strings.Replace(tampered.body, `"text":"again"`, `"text":"AGAIN"`, 1)
	if tampered.body == requests[3].body {
		t.Fatal("the tampering changed nothing")
	}
	requests[3] = tampered
	err := CheckRequests(paths[0], requests)
	var m *Mismatch
	if !errors.As(err, &m) {
		t.Fatalf("CheckRequests = %v, want a *Mismatch", err)
	}
	if m.Index != 4 || m.Settlement != 22 || m.Part != "message 5" ||
		!strings.Contains(m.Sent, "AGAIN") || !strings.Contains(m.Rebuilt, `"again"`) {
		t.Errorf("mismatch %+v", m)
	}
	if !strings.Contains(err.Error(), "request 4 (settled at seq 22): message 5 differs") {
		t.Errorf("message %q", err)
	}
}

// TestTheoremCatchesEditedLog: a log edited after the run no longer
// rebuilds the requests the model received.
func TestTheoremCatchesEditedLog(t *testing.T) {
	tests := []struct{ name, old, new, want string }{
		{"the tool output", `"echo: one"`, `"echo: two"`, "request 2 (settled at seq 13): message 3 differs"},
		{"the header's model", `"config":{"provider":"mock","model":"mock"}`, `"config":{"provider":"mock","model":"other"}`, "request 1 (settled at seq 8): model differs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			paths, runs := runScenario(t, "four-turn", t.TempDir())
			data, err := os.ReadFile(paths[0])
			if err != nil {
				t.Fatal(err)
			}
			edited := bytes.Replace(data, []byte(tt.old), []byte(tt.new), 1)
			if bytes.Equal(edited, data) {
				t.Fatal("the edit changed nothing")
			}
			if err := os.WriteFile(paths[0], edited, 0o644); err != nil {
				t.Fatal(err)
			}
			err = CheckRequests(paths[0], runs[0].Requests)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("CheckRequests = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestTheoremCatchesMissingSettlement: a request the log never settled
// (the log was cut after it) is reported.
func TestTheoremCatchesMissingSettlement(t *testing.T) {
	paths, runs := runScenario(t, "four-turn", t.TempDir())
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if err := os.WriteFile(paths[0], bytes.Join(lines[:39], nil), 0o644); err != nil { // header + seq 0..37
		t.Fatal(err)
	}
	err = CheckRequests(paths[0], runs[0].Requests)
	if err == nil || !strings.Contains(err.Error(), "request 6: the log has 5 settlements; none settles this request") {
		t.Errorf("CheckRequests = %v", err)
	}
}

// TestTheoremCatchesUnexplainedBreak: a request that does not extend the
// previous one without a series header is reported by the series rule.
func TestTheoremCatchesUnexplainedBreak(t *testing.T) {
	paths, runs := runScenario(t, "compaction", t.TempDir())
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	// Drop the series header (seq 34) and renumber what follows: the
	// compaction's rewrite is then unexplained.
	lines := bytes.SplitAfter(data, []byte("\n"))
	var out [][]byte
	for i, line := range lines {
		switch {
		case i == 35:
			continue
		case i > 35 && len(line) > 0:
			line = renumber(t, line, int64(i-2))
		}
		out = append(out, line)
	}
	if err := os.WriteFile(paths[0], bytes.Join(out, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	var kept []Request
	for _, r := range runs[0].Requests {
		if r.Index() < 5 {
			kept = append(kept, r)
		}
	}
	err = CheckRequests(paths[0], kept)
	if err == nil || !strings.Contains(err.Error(), "request-not-extending") {
		t.Errorf("CheckRequests = %v, want a request-not-extending finding", err)
	}
}

var seqField = regexp.MustCompile(`^\{"type":"[^"]*","seq":(\d+),`)

// renumber sets the seq of a row line.
func renumber(t *testing.T, line []byte, seq int64) []byte {
	t.Helper()
	m := seqField.FindSubmatchIndex(line)
	if m == nil {
		t.Fatalf("no seq in %s", line)
	}
	return append(append(append([]byte(nil), line[:m[2]]...), strconv.FormatInt(seq, 10)...), line[m[3]:]...)
}
