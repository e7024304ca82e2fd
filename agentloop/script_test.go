package agentloop

import (
	"strings"
	"testing"
)

// TestParseScriptRefuses: a script the loop cannot run is refused with
// what is wrong.
func TestParseScriptRefuses(t *testing.T) {
	const base = `"session":"s","provider":"p","model":"m","tools":["echo"]`
	tests := []struct{ name, script, want string }{
		{"not JSON", `{`, "script: unexpected EOF"},
		{"unknown field", `{` + base + `,"turns":[{"user":"u","replies":[{}]}],"extra":1}`, `script: json: unknown field "extra"`},
		{"text after the object", `{` + base + `,"turns":[{"user":"u","replies":[{}]}]} {}`, "script: text after the JSON object"},
		{"no session", `{"provider":"p","model":"m","turns":[{"user":"u","replies":[{}]}]}`, "script: session (the session id) is required"},
		{"no model", `{"session":"s","provider":"p","turns":[{"user":"u","replies":[{}]}]}`, "script: provider and model are required"},
		{"no turns", `{` + base + `}`, "script: no turns"},
		{"unknown tool", `{"session":"s","provider":"p","model":"m","tools":["rm"],"turns":[{"user":"u","replies":[{}]}]}`, `script: unknown tool "rm" (the loop has deploy, echo)`},
		{"no user", `{` + base + `,"turns":[{"replies":[{}]}]}`, "script: turn 1: user (the user's input) is required"},
		{"no replies", `{` + base + `,"turns":[{"user":"u"}]}`, "script: turn 1: no replies"},
		{"error without code", `{` + base + `,"turns":[{"user":"u","replies":[{"error":{"message":"x"}}]}]}`, "script: turn 1: reply 1: error needs a code"},
		{"call without id", `{` + base + `,"turns":[{"user":"u","replies":[{"toolCalls":[{"name":"echo","args":["{}"]}]}]}]}`, "script: turn 1: reply 1: a tool call needs an id"},
		{"call of a tool not offered", `{` + base + `,"turns":[{"user":"u","replies":[{"toolCalls":[{"id":"c","name":"deploy","args":["{}"]}]}]}]}`, `script: turn 1: reply 1: tool call c names "deploy", which the script does not offer`},
		{"compact without summary", `{` + base + `,"turns":[{"user":"u","compact":{"turns":[1]},"replies":[{}]}]}`, "script: turn 1: compact needs turns and a summary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseScript([]byte(tt.script))
			if err == nil || err.Error() != tt.want {
				t.Errorf("ParseScript = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestRunScriptFailures: what a script asks for that the log cannot hold
// stops the run with the reason.
func TestRunScriptFailures(t *testing.T) {
	const base = `"session":"s","createdAt":1,"provider":"p","model":"m","tools":["echo"]`
	tests := []struct{ name, script, want string }{
		{"more requests than replies", `{` + base + `,"turns":[{"user":"u","replies":[{"toolCalls":[{"id":"c","name":"echo","args":["{}"]}]}]}]}`,
			"request 2: scripted model: the script has no reply left for this request"},
		{"compacting a turn that never ran", `{` + base + `,"turns":[{"user":"u","compact":{"turns":[3],"summary":"x"},"replies":[{"text":["a"]}]}]}`,
			"compact: turn 3 has no nodes to replace"},
		{"a fork of an unknown scenario", `{` + base + `,"fork":{"scenario":"nope","boundary":1},"turns":[{"user":"u","replies":[{}]}]}`,
			`fork: no built-in scenario "nope"`},
		{"a fork past the parent's end", `{` + base + `,"fork":{"scenario":"crash","boundary":99},"turns":[{"user":"u","replies":[{}]}]}`,
			`fork boundary 99 does not exist in session "loop-crash" (last seq: 9)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseScript([]byte(tt.script))
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			_, err = RunScript(t.Context(), s, nil, &out)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("RunScript = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
