package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// v0LineSeedFixture is the one v0-line log no writer wrote: the web app's
// test seeds it by hand, with no request/header before its request, which
// the line's writer always writes (verify's header-missing, which stays
// after its rescue).
const v0LineSeedFixture = "toninfo+deepseek-harness/message-feedback-protocol/session.jsonl"

// v0LineLogs returns the v0-line recordings, each with its fork's
// known-event-types.ts.
func v0LineLogs(t *testing.T) map[string]string {
	t.Helper()
	logs := map[string]string{}
	for _, file := range globAll(t, "../testdata/corpus/fork-logs/v0-line/*/*/session*.jsonl") {
		fork := filepath.Dir(filepath.Dir(file))
		logs[file] = filepath.Join(fork, "known-event-types.ts")
	}
	if len(logs) != 12 {
		t.Fatalf("found %d v0-line recordings, want 12", len(logs))
	}
	return logs
}

// TestV0LineCorpus: every v0-line recording verifies clean (but for the
// seed fixture's missing header) and folds with its fork's vocabulary, as
// recorded and after snapshot restore, which
// leaves no placeholder; without flags none is unreadable, and each that
// today's dsh refuses is a finding (exit 1) with the hint that names both
// ways out.
func TestV0LineCorpus(t *testing.T) {
	placeholder := regexp.MustCompile(`\{\{[A-Za-z]`)
	for file, vocabulary := range v0LineLogs(t) {
		name := strings.TrimPrefix(file, "../testdata/corpus/fork-logs/v0-line/")
		t.Run(name, func(t *testing.T) {
			restored := filepath.Join(t.TempDir(), filepath.Base(file))
			if code, _, errs := run("snapshot", "restore", file, "-o", restored); code != ExitOK {
				t.Fatalf("snapshot restore: exit %d\n%s", code, errs)
			}
			data, err := os.ReadFile(restored)
			if err != nil {
				t.Fatal(err)
			}
			if m := placeholder.Find(data); m != nil {
				t.Errorf("restored log still holds a placeholder %q", m)
			}
			for _, log := range []string{file, restored} {
				code, out, errs := run("verify", "--vocabulary", vocabulary, log)
				if name == v0LineSeedFixture {
					if code != ExitProblems || !strings.Contains(out, "error: [header-missing] request 1 (assistant/message) has no request/header before it") {
						t.Errorf("verify %s: exit %d, want only header-missing\n%s%s", log, code, out, errs)
					}
					if code, out, errs := run("fold", "--vocabulary", vocabulary, log); code != ExitOK || !strings.Contains(out, "surface: 2 nodes, 2 messages") {
						t.Errorf("fold --vocabulary %s: exit %d\n%s%s", log, code, out, errs)
					}
					continue
				}
				if code != ExitOK || !strings.Contains(out, ": ok (0 errors, 0 warnings, 0 info)\n") {
					t.Errorf("verify --vocabulary %s: exit %d\n%s%s", log, code, out, errs)
				}
				if code, out, errs := run("fold", "--vocabulary", vocabulary, log); code != ExitOK || !strings.Contains(out, "events folded") {
					t.Errorf("fold --vocabulary %s: exit %d\n%s%s", log, code, out, errs)
				}
				code, out, errs = run("verify", log)
				switch {
				case code == ExitInput:
					t.Errorf("verify %s without flags: unreadable\n%s%s", log, out, errs)
				case code == ExitProblems && !strings.Contains(out, ": hint: the v0 line (the pre-v1 dsh most forks still run"):
					t.Errorf("verify %s without flags: refused without the hint\n%s%s", log, out, errs)
				}
			}
		})
	}
}

// TestV0LineRescue: rescue of each restored v0-line recording that today's
// dsh refuses writes a log that verifies clean without flags (the seed
// fixture keeps its one writer's finding), and every request rebuilt from
// it equals, message for message, the one rebuilt from the original read by
// its own line.
func TestV0LineRescue(t *testing.T) {
	rescued := 0
	for file, vocabulary := range v0LineLogs(t) {
		name := strings.TrimPrefix(file, "../testdata/corpus/fork-logs/v0-line/")
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			original := filepath.Join(dir, "session.jsonl")
			if code, _, errs := run("snapshot", "restore", file, "-o", original); code != ExitOK {
				t.Fatalf("snapshot restore: exit %d\n%s", code, errs)
			}
			if code, _, _ := run("verify", original); code == ExitOK {
				return // today's dsh opens it: nothing to rescue
			}
			rescued++
			code, out, errs := run("rescue", original)
			if code != ExitOK {
				t.Fatalf("rescue: exit %d\n%s%s", code, out, errs)
			}
			result := filepath.Join(dir, "session.v4.jsonl")
			code, out, errs = run("verify", result)
			switch {
			case name == v0LineSeedFixture:
				// What the fixture lacks stays: rescue cuts no history to hide it.
				if code != ExitProblems || !strings.Contains(out, "(1 error, 0 warnings, 0 info)") || !strings.Contains(out, "[header-missing]") {
					t.Errorf("verify of the rescued fixture: exit %d, want only header-missing\n%s%s", code, out, errs)
				}
			case code != ExitOK || !strings.Contains(out, ": ok (0 errors, 0 warnings, 0 info)\n"):
				t.Errorf("verify of the rescued log: exit %d\n%s%s", code, out, errs)
			}
			for k := 1; ; k++ {
				request := strconv.Itoa(k)
				codeO, want, errsO := run("fold", "--request", request, "--vocabulary", vocabulary, original)
				codeR, got, errsR := run("fold", "--request", request, result)
				if codeO != codeR {
					t.Fatalf("request %d: exit %d as its line reads it, %d rescued\n%s%s", k, codeO, codeR, errsO, errsR)
				}
				if codeO != ExitOK {
					if k == 1 && !strings.Contains(name, "goal-wrapup") {
						t.Errorf("no request rebuilt: %s", errsO)
					}
					break
				}
				if got != want {
					t.Errorf("request %d differs:\nas its line reads it:\n%s\nrescued:\n%s", k, want, got)
				}
			}
		})
	}
	if rescued < 4 {
		t.Errorf("%d recordings needed a rescue, want at least 4 (artifact, two descriptors, two headers, a compaction)", rescued)
	}
}
