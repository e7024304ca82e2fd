package cli

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/agentloop"
	"github.com/dshlog/dshlog/snapshot"
)

// TestLoopSnapshots: each scenario's log, in dsh's normalized snapshot
// form, and its dshlog fold --surface output equal the regression
// snapshots under testdata/snapshots/<scenario>/ (rewritten only with
// -update).
func TestLoopSnapshots(t *testing.T) {
	for _, sc := range agentloop.Scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			dir := t.TempDir()
			output := filepath.Join(dir, "session.v4.jsonl")
			if code, _, stderr := runDshlog(t, "loop", "--scenario", sc.Name, "-o", output); code != ExitOK {
				t.Fatalf("dshlog loop exited %d: %s", code, stderr)
			}
			scripts, err := sc.Scripts()
			if err != nil {
				t.Fatal(err)
			}
			for k := range scripts {
				path := sessionPath(output, k)
				f, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				var normalized bytes.Buffer
				err = snapshot.Normalize(&normalized, f, path, snapshot.NormalizeOptions{})
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
				code, surface, stderr := runDshlog(t, "fold", "--surface", path)
				if code != ExitOK {
					t.Fatalf("dshlog fold exited %d: %s", code, stderr)
				}
				snapshots := filepath.Join("..", "testdata", "snapshots", sc.Name)
				compareSnapshot(t, filepath.Join(snapshots, filepath.Base(path)), normalized.Bytes())
				compareSnapshot(t, filepath.Join(snapshots, sessionPath("surface.txt", k)),
					[]byte(strings.ReplaceAll(surface, dir+string(filepath.Separator), "")))
			}
		})
	}
}

// compareSnapshot compares got with the file at path, or writes it there
// under -update.
func compareSnapshot(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cli -run TestLoopSnapshots -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (rerun with -update to accept):\n%s", path, diffLines(string(want), string(got)))
	}
}

// runDshlog runs the command in-process and returns its exit code, stdout
// and stderr.
func runDshlog(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Run(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestLoopVerifyFails: --verify exits 1 when the log read back from disk
// no longer rebuilds a request the model received, naming the request, the
// first differing message and both versions.
func TestLoopVerifyFails(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     []string
	}{
		{"an edited tool result", `"echo: one"`, `"echo: two"`, []string{
			"request 2 (settled at seq 13): message 3 differs",
			`  sent:    {"role":"tool",`,
			`"text":"echo: one"`,
			`  rebuilt: {"role":"tool",`,
			`"text":"echo: two"`,
		}},
		{"an edited user message", `"data":{"content":[{"type":"text","text":"again"}]`, `"data":{"content":[{"type":"text","text":"AGAIN"}]`, []string{
			"request 3 (settled at seq 21): message 5 differs",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			output := filepath.Join(t.TempDir(), "four-turn.v4.jsonl")
			opts := loopOptions{scenario: "four-turn", output: output, verify: true, keyEnv: "DSHLOG_API_KEY",
				beforeVerify: func(path string) error {
					data, err := os.ReadFile(path)
					if err != nil {
						return err
					}
					edited := bytes.Replace(data, []byte(tt.old), []byte(tt.new), 1)
					if bytes.Equal(edited, data) {
						t.Fatal("the edit changed nothing")
					}
					return os.WriteFile(path, edited, 0o644)
				}}
			var stdout, stderr bytes.Buffer
			err := runLoop(t.Context(), opts, &streams{in: strings.NewReader(""), out: &stdout, err: &stderr})
			if ExitCode(err) != ExitProblems {
				t.Fatalf("runLoop = %v (exit %d), want exit 1", err, ExitCode(err))
			}
			for _, want := range tt.want {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("output lacks %q:\n%s", want, stdout.String())
				}
			}
			if strings.Contains(stdout.String(), "verified") {
				t.Errorf("output says verified:\n%s", stdout.String())
			}
		})
	}
}

// TestLoopEndpoint: --endpoint and --model send the requests to an
// OpenAI-compatible server (here one in the test process) with the key
// from the environment, and the log names the model.
func TestLoopEndpoint(t *testing.T) {
	var auth []string
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = append(auth, r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "text/event-stream")
		for _, event := range []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"deploy","arguments":"{\"env\":"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"prod\"}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			`{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5}}`,
			`[DONE]`,
		} {
			fmt.Fprintf(w, "data: %s\n\n", event)
		}
	}))
	defer server.Close()
	t.Setenv("TEST_LOOP_KEY", "secret")
	output := filepath.Join(t.TempDir(), "crash.v4.jsonl")
	code, stdout, stderr := runDshlog(t, "loop", "--scenario", "crash", "--endpoint", server.URL, "--model", "served-model",
		"--api-key-env", "TEST_LOOP_KEY", "-o", output, "--verify")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "loop-crash: 1 request verified") || len(auth) != 1 || auth[0] != "Bearer secret" {
		t.Errorf("stdout %q, authorization %q", stdout, auth)
	}
	data, err := os.ReadFile(output)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"config":{"provider":"openai-compatible","model":"served-model"}`, `"callId":"c1","name":"deploy","arguments":"{\"env\":\"prod\"}"`} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the log lacks %s", want)
		}
	}
}

// TestSessionPath: session K of a scenario goes beside FILE with ".K"
// before its extension.
func TestSessionPath(t *testing.T) {
	tests := []struct {
		path string
		k    int
		want string
	}{
		{"fork.v4.jsonl", 0, "fork.v4.jsonl"},
		{"fork.v4.jsonl", 1, "fork.1.v4.jsonl"},
		{"dir/fork.jsonl", 2, "dir/fork.2.jsonl"},
		{"fork.log", 1, "fork.1.log"},
		{"fork", 1, "fork.1"},
	}
	for _, tt := range tests {
		if got := sessionPath(tt.path, tt.k); got != tt.want {
			t.Errorf("sessionPath(%q, %d) = %q, want %q", tt.path, tt.k, got, tt.want)
		}
	}
}

// TestLoopRequestsMatchFoldRequest: for every scenario, each request the
// model received is, byte for byte, what dshlog fold --request K prints
// for the written file (which indents it as JSON.stringify(v, null, 2)).
func TestLoopRequestsMatchFoldRequest(t *testing.T) {
	for _, sc := range agentloop.Scenarios {
		scripts, err := sc.Scripts()
		if err != nil {
			t.Fatal(err)
		}
		for _, script := range scripts {
			var log bytes.Buffer
			run, err := agentloop.RunScript(t.Context(), script, nil, &log)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "session.v4.jsonl")
			if err := os.WriteFile(path, log.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, req := range run.Requests {
				code, stdout, stderr := runDshlog(t, "fold", "--request", fmt.Sprint(req.Index()), path)
				if code != ExitOK {
					t.Fatalf("%s request %d: exit %d: %s", script.Session, req.Index(), code, stderr)
				}
				var want bytes.Buffer
				if err := writeIndented(&want, req.JSON()); err != nil {
					t.Fatal(err)
				}
				if stdout != want.String() {
					t.Errorf("%s request %d: fold --request prints\n%s\nthe model received\n%s", script.Session, req.Index(), stdout, want.String())
				}
			}
		}
	}
}
