package snapshot

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// anyPlaceholder is what a test counts as a placeholder left behind: {{
// then a letter, looser than the pattern Restore fills.
var anyPlaceholder = regexp.MustCompile(`\{\{[A-Za-z][^{}]*\}\}`)

// beyondR1 matches the named placeholders of the v0 line's normalizers.
var beyondR1 = regexp.MustCompile(`\{\{(?:sessionId|messageId|parent|child-[0-9]+|rpcId|messagePrefix|workflow-run)\}\}`)

// TestRestoreV0LineCorpus restores every session file of the v0-line
// corpus (three forks' recordings, in their normalizers' snapshot form) as
// "dshlog snapshot restore" does, with the expectation files beside each:
// none keeps a placeholder, and the files that held named ones had them
// filled.
func TestRestoreV0LineCorpus(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(corpus, "fork-logs", "v0-line", "*", "*", "session*.jsonl"))
	if err != nil || len(paths) != 12 {
		t.Fatalf("v0-line corpus has %d session files, want 12 (%v)", len(paths), err)
	}
	named := 0
	for _, path := range paths {
		t.Run(strings.TrimPrefix(path, filepath.Join(corpus, "fork-logs", "v0-line")+"/"), func(t *testing.T) {
			snapshot, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if beyondR1.Match(snapshot) {
				named++
			}
			opts := RestoreOptions{Values: Defaults(), Child: ChildNumber(path)}
			if opts.Expected, err = LoadExpected(path); err != nil {
				t.Fatal(err)
			}
			opts.Warn = func(w Warning) { t.Errorf("warning: %s", w) }
			restored := restoreBytes(t, snapshot, path, opts)
			if left := anyPlaceholder.FindAll(restored, -1); left != nil {
				t.Errorf("placeholders left: %q", left)
			}
			if rows, lines := bytes.Count(restored, []byte("\n")), bytes.Count(snapshot, []byte("\n")); rows != lines {
				t.Errorf("%d rows restored from %d lines", rows, lines)
			}
		})
	}
	if named != 5 { // bash-spill, session-query-spill, advanced, compaction-recovery, message-feedback-protocol
		t.Errorf("%d files held named placeholders beyond rules R1 and R3, want 5", named)
	}
}

// TestRestoreNamedPlaceholders: each named placeholder's value by where it
// stands, and the failures naming what cannot be filled.
func TestRestoreNamedPlaceholders(t *testing.T) {
	const (
		root   = `{"type":"session","version":0,"id":"{{sessionId}}","createdAt":0,"cwd":"c"}`
		child  = `{"type":"session","version":0,"id":"{{sessionId}}","createdAt":0,"cwd":"c","parentSession":"{{sessionId}}"}`
		inbox  = `{"type":"agent/inbox/spliced","data":{"inserted":[{"content":[],"source":{"kind":"user"},"role":"user","id":"{{messageId}}"}]}}`
		user   = `{"type":"user/message","data":{"role":"user","content":[],"source":{"kind":"user"},"id":"{{messageId}}"}}`
		other  = `{"type":"user/message","data":{"role":"user","content":[{"type":"text","text":"x"}],"source":{"kind":"user"},"id":"{{messageId}}"}}`
		turn   = `{"type":"turn/start","data":{"trigger":{"source":{"rpcId":"{{rpcId}}"}}}}`
		custom = `{"type":"x","data":{"a":"%s"}}`
	)
	tests := []struct {
		name  string
		rows  []string
		child int
		given map[string]string
		want  []string // substrings of the output, in order
		fail  string   // the placeholder and path of an UnfilledError
	}{
		{"own id", []string{root, `{"type":"x","data":{"a":"{{sessionId}}"}}`}, 0, nil,
			[]string{`"id":"00000000-0000-4000-8000-000000000001"`, `"a":"00000000-0000-4000-8000-000000000001"`}, ""},
		{"child K is session K+1; its parent session 1", []string{child}, 3, nil,
			[]string{`"id":"00000000-0000-4000-8000-000000000004","createdAt":0,"cwd":"c","parentSession":"00000000-0000-4000-8000-000000000001"`}, ""},
		{"a child by header alone is session 2", []string{child}, 0, nil,
			[]string{`"id":"00000000-0000-4000-8000-000000000002"`}, ""},
		{"parent and children", []string{root, `{"type":"x","data":{"a":"{{parent}} {{child-1}} {{child-12}}"}}`}, 0, nil,
			[]string{`"a":"00000000-0000-4000-8000-000000000001 00000000-0000-4000-8000-000000000002 00000000-0000-4000-8000-000000000013"`}, ""},
		{"inbox delivery keeps its id", []string{root, inbox, user, user}, 0, nil,
			[]string{`"id":"00000001-0000-4000-9000-000000000001"`, `"id":"00000001-0000-4000-9000-000000000001"`, `"id":"00000001-0000-4000-9000-000000000002"`}, ""},
		{"another message gets a new id", []string{root, inbox, other, user}, 0, nil,
			[]string{`"id":"00000001-0000-4000-9000-000000000001"`, `"id":"00000001-0000-4000-9000-000000000002"`, `"id":"00000001-0000-4000-9000-000000000001"`}, ""},
		{"a message id spelled {{sessionId}}", []string{root, strings.ReplaceAll(other, "messageId", "sessionId")}, 2, nil,
			[]string{`"id":"00000000-0000-4000-8000-000000000003"`, `"id":"00000003-0000-4000-9000-000000000001"`}, ""},
		{"rpc ids by turn", []string{root, turn, `{"type":"x","data":{"rpcId":"{{rpcId}}"}}`, turn}, 0, nil,
			[]string{`a000-000000000001"`, `a000-000000000001"`, `a000-000000000002"`}, ""},
		{"workflow run", []string{root, `{"type":"x","data":{"runId":"{{workflow-run}}"}}`}, 0, nil, []string{`"runId":"workflow-1"`}, ""},
		{"given value", []string{root, `{"type":"x","data":{"a":"{{agent-1}}/{{sessionId}}"}}`}, 0, map[string]string{"agent-1": "A", "sessionId": "S"},
			[]string{`"id":"S"`, `"a":"A/S"`}, ""},
		{"unknown", []string{root, `{"type":"x","data":{"a":[1,{"b":"id {{agent-1}}"}]}}`}, 0, nil, nil, "{{agent-1}} data.a[1].b"},
		{"unknown written with an escaped brace", []string{root, `{"type":"x","data":{"a":"\u007b{agent-1}}"}}`}, 0, nil, nil, "{{agent-1}} data.a"},
		{"unknown in the header", []string{`{"type":"session","version":0,"id":"{{id}}","createdAt":0,"cwd":"c"}`}, 0, nil, nil, "{{id}} id"},
		{"prefix in text", []string{root, strings.Replace(custom, "%s", "{{messagePrefix}}-3", 1)}, 0, nil, nil, "{{messagePrefix}} data.a"},
		{"prefix outside a request header", []string{root, `{"type":"x","data":{"header":{"messagePrefix":["{{messagePrefix}}"]}}}`}, 0, nil, nil, "{{messagePrefix}} data.header.messagePrefix[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snapshot := strings.Join(tt.rows, "\n") + "\n"
			var out bytes.Buffer
			err := Restore(&out, strings.NewReader(snapshot), "s", RestoreOptions{Values: Defaults(), Child: tt.child, Placeholders: tt.given})
			if tt.fail != "" {
				var unfilled *UnfilledError
				if !errors.As(err, &unfilled) || unfilled.Placeholder+" "+unfilled.Path != tt.fail {
					t.Fatalf("err = %v, want an UnfilledError of %s", err, tt.fail)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			rest := out.String()
			for _, want := range tt.want {
				i := strings.Index(rest, want)
				if i < 0 {
					t.Fatalf("no %s in order in\n%s", want, out.String())
				}
				rest = rest[i+len(want):]
			}
			if left := anyPlaceholder.FindString(out.String()); left != "" {
				t.Errorf("%s left in\n%s", left, out.String())
			}
		})
	}
}

// TestRestoreStandInPrompt: a system prompt the expectation files lack gets
// Values.System and a warning with its line.
func TestRestoreStandInPrompt(t *testing.T) {
	system := `{"type":"system/message","data":{"message":{"role":"system","content":[{"type":"text","text":"{{system}}"}]}}}`
	snapshot := strings.Join([]string{`{"type":"session","version":4,"id":"s","createdAt":0,"cwd":"c"}`, system, system}, "\n") + "\n"
	var warnings []string
	opts := RestoreOptions{Values: Defaults(), Expected: &Expected{Prompts: []string{"P1"}}, Warn: func(w Warning) { warnings = append(warnings, w.String()) }}
	opts.System = "Stand-in.\nSecond line."
	out := string(restoreBytes(t, []byte(snapshot), "s.jsonl", opts))
	if !strings.Contains(out, `"text":"P1"`) || !strings.Contains(out, `"text":"Stand-in.\nSecond line."`) {
		t.Errorf("prompts not filled in:\n%s", out)
	}
	want := `s.jsonl:3: system prompt 2 has no expected text (the system-prompt file holds 1); it gets the stand-in prompt "Stand-in.…"`
	if len(warnings) != 1 || warnings[0] != want {
		t.Errorf("warnings = %q, want [%q]", warnings, want)
	}
}

func TestChildNumber(t *testing.T) {
	for path, want := range map[string]int{
		"a/session.jsonl": 0, "a/session.2.jsonl": 2, "session.12.v4.jsonl": 12, "a/child.jsonl": 0, "session.0.jsonl": 0,
	} {
		if got := ChildNumber(path); got != want {
			t.Errorf("ChildNumber(%q) = %d, want %d", path, got, want)
		}
	}
}
