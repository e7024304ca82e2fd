package cli

import (
	"bytes"
	"strings"
	"testing"
)

// run runs dshlog with args and returns the exit code, stdout and stderr.
func run(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := Run(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

const (
	hebilicious       = "../testdata/dsh-builds/fork-hebilicious/"
	hebiliciousTypes  = hebilicious + "packages/core/session/src/known-event-types.ts"
	hebiliciousBridge = hebilicious + "docs/persistence-changes/2026-09-24-agent-tool-bridge-exposed.schema.json"
)

// TestMainlineCorpus: every session the current official dsh recorded
// verifies clean and folds, with no flags.
func TestMainlineCorpus(t *testing.T) {
	for _, file := range globAll(t, "../testdata/corpus/mainline/*/*.v4.jsonl") {
		t.Run(strings.TrimPrefix(file, "../testdata/corpus/mainline/"), func(t *testing.T) {
			if code, out, errs := run("verify", file); code != ExitOK || !strings.Contains(out, ": ok (0 errors, 0 warnings, 0 info)\n") {
				t.Errorf("verify: exit %d\n%s%s", code, out, errs)
			}
			if code, out, errs := run("fold", file); code != ExitOK || !strings.Contains(out, "working directory: ") {
				t.Errorf("fold: exit %d\n%s%s", code, out, errs)
			}
		})
	}
}

// TestForkCorpus: every session of the Hebilicious fork verifies clean and
// folds with the fork's known-event-types.ts (and, for the sessions using
// agent-tool-bridge/exposed, its later record of that type), and without
// them verify names the unknown agent/harness and the fork that declares it.
func TestForkCorpus(t *testing.T) {
	for _, file := range globAll(t, "../testdata/corpus/fork-logs/*/*/*.v4.jsonl") {
		t.Run(strings.TrimPrefix(file, "../testdata/corpus/fork-logs/"), func(t *testing.T) {
			flags := []string{"--vocabulary", hebiliciousTypes}
			if strings.Contains(file, "/acp-bridged-subagent/") { // the sessions using agent-tool-bridge/exposed
				flags = append(flags, "--vocabulary", hebiliciousBridge)
			}
			if code, out, errs := run(append([]string{"verify"}, append(flags, file)...)...); code != ExitOK || !strings.Contains(out, ": ok (0 errors, 0 warnings, 0 info)\n") {
				t.Errorf("verify: exit %d\n%s%s", code, out, errs)
			}
			if code, out, errs := run(append([]string{"fold"}, append(flags, file)...)...); code != ExitOK {
				t.Errorf("fold: exit %d\n%s%s", code, out, errs)
			}
			code, out, _ := run("verify", file)
			if code != ExitProblems || !strings.Contains(out, `error: [unknown-event-type] event type "agent/harness" is unknown to dsh v0.2.1-alpha.2`) ||
				!strings.Contains(out, `: hint: event type "agent/harness" is declared by the fork Hebilicious/deepseek-harness @4934042: pass --vocabulary packages/core/session/src/known-event-types.ts`) {
				t.Errorf("verify without the fork's vocabulary: exit %d\n%s", code, out)
			}
		})
	}
}

// TestBridgeRecordNeeded: the fork's known-event-types.ts predates
// agent-tool-bridge/exposed, so the session using it needs that record too.
func TestBridgeRecordNeeded(t *testing.T) {
	file := "../testdata/corpus/fork-logs/hebilicious/acp-bridged-subagent/session.v4.jsonl"
	code, out, _ := run("verify", "--vocabulary", hebiliciousTypes, file)
	if code != ExitProblems || !strings.Contains(out, `[unknown-event-type] event type "agent-tool-bridge/exposed"`) {
		t.Errorf("exit %d\n%s", code, out)
	}
}

// TestVocabularyBuildsDiffer: the default vocabulary and zDSH's differ by
// exactly slots/dispatch and working-directory/change.
func TestVocabularyBuildsDiffer(t *testing.T) {
	types := func(args ...string) map[string]bool {
		code, out, errs := run(append([]string{"vocabulary"}, args...)...)
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		set := map[string]bool{}
		for _, line := range strings.Split(out, "\n")[2:] {
			if fields := strings.Fields(line); len(fields) > 0 {
				set[fields[0]] = true
			}
		}
		return set
	}
	official, zdsh := types(), types("--dsh", "zdsh")
	var diff []string
	for name := range official {
		if !zdsh[name] {
			diff = append(diff, "+"+name)
		}
	}
	for name := range zdsh {
		if !official[name] {
			diff = append(diff, "-"+name)
		}
	}
	if len(diff) != 2 || !official["working-directory/change"] || !zdsh["slots/dispatch"] || len(official) != 60 {
		t.Errorf("default vs zdsh: %v (%d types)", diff, len(official))
	}
}
