package verify

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/migrate/lift"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// v0LineCorpus is testdata/corpus/fork-logs/v0-line: sessions recorded by
// three forks of the v0 line, each beside its fork's known-event-types.ts.
const v0LineCorpus = "../testdata/corpus/fork-logs/v0-line"

// forkVocabulary is the v0 line with the declarations of the fork whose
// recording file is, as --vocabulary with the fork's known-event-types.ts
// gives it.
func forkVocabulary(t *testing.T, file string) *vocab.Vocabulary {
	t.Helper()
	fork := filepath.Dir(filepath.Dir(file))
	d, err := vocab.Load(filepath.Join(fork, "known-event-types.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Line() != vocab.V0Line.Format {
		t.Fatalf("%s declares format %d, want the v0 line", d.File, d.Line())
	}
	return vocab.V0Line.Vocabulary().With(d)
}

// checkWith verifies file judged by v and returns its findings, its chain
// and what its reader lifted.
func checkWith(t *testing.T, file string, v *vocab.Vocabulary) ([]Finding, Chain, []lift.Change) {
	t.Helper()
	src, err := migrate.Open(file, nil, migrate.OpenOptions{Options: migrate.Options{Vocabulary: v, ListLifted: true}})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer src.Close()
	var findings []Finding
	chain, err := Check(src.Reader, func(f Finding) { findings = append(findings, f) })
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	return findings, chain, src.Lifted()
}

// v0LineRulesUsed are the rules each recording needs beyond the snapshot
// form (the corpus README's table): a recording that no longer needs its
// rule, or needs another, has changed what this test proves.
var v0LineRulesUsed = map[string][]string{
	"toninfo+deepseek-harness/goal-wrapup/session.jsonl":                          {lift.RuleDelegationDepth},
	"toninfo+deepseek-harness/message-feedback-protocol/session.jsonl":            {lift.RuleDelegationDepth},
	"SparkElf+deepseek-harness-plus/advanced/session.1.jsonl":                     {lift.RuleDescriptorVersion},
	"SparkElf+deepseek-harness-plus/subagent-depth-two-rejection/session.2.jsonl": {lift.RuleDescriptorVersion},
	"KeepLost+harniverse/bash-spill/session.jsonl":                                {lift.RuleToolResultArtifact},
}

// seedFixture is the one recording no writer wrote: the web app's test
// seeds it by hand (apps/web/tests/message-feedback-protocol.snapshot.ts
// reads it as SESSION_FIXTURE), so it has no request/header before its
// request, which the v0 line's agent loop always writes
// (packages/core/agent-loop/src/agent.ts, lines 485-488). Its surface
// begins before its first step, which the v0 line reads headless; what is
// left is that writer's guarantee, asserted word for word.
const (
	seedFixture        = "toninfo+deepseek-harness/message-feedback-protocol/session.jsonl"
	seedFixtureFinding = "request 1 (assistant/message) has no request/header before it: its model and tools are unknown"
)

// TestV0LineCorpus judges every recording of the v0-line corpus as its
// fork's build reads it: each reads, lifts by the rules its README names,
// and verifies with no error finding, but for the seed fixture, whose one
// finding is asserted word for word.
func TestV0LineCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(v0LineCorpus, "*", "*", "session*.jsonl"))
	if err != nil || len(files) != 12 {
		t.Fatalf("want the 12 recordings of the v0-line corpus, found %d (%v)", len(files), err)
	}
	for _, file := range files {
		name := filepath.ToSlash(strings.TrimPrefix(file, v0LineCorpus+"/"))
		t.Run(name, func(t *testing.T) {
			findings, _, lifted := checkWith(t, file, forkVocabulary(t, file))
			var rules []string
			for _, c := range lifted {
				if c.Rule != lift.RuleSnapshotTools && !slices.Contains(rules, c.Rule) {
					rules = append(rules, c.Rule)
				}
			}
			if want := v0LineRulesUsed[name]; !slices.Equal(rules, want) {
				t.Errorf("lifted by %v, want %v", rules, want)
			}
			var errors []Finding
			for _, f := range findings {
				if f.Severity == Error {
					errors = append(errors, f)
				}
			}
			if name == seedFixture {
				if len(errors) != 1 || errors[0].Code != CodeHeaderMissing || errors[0].Message != seedFixtureFinding {
					t.Errorf("findings = %+v, want only %s: %s", findings, CodeHeaderMissing, seedFixtureFinding)
				}
				return
			}
			if len(errors) != 0 {
				t.Errorf("error findings: %+v", errors)
			}
		})
	}
}

// TestV0LineBracket is the writer rule of the v0 line: its request/header
// reasons are initial, resume and change (RequestHeaderReason, toninfo
// packages/core/session/src/types.ts line 228; KeepLost line 238), so it
// writes no series header after a compaction and the closed bracket
// explains the break. Judged by today's dsh, whose writer does open a
// series, the same break is unexplained.
func TestV0LineBracket(t *testing.T) {
	file := filepath.Join(v0LineCorpus, "toninfo+deepseek-harness", "compaction-recovery", "session.jsonl")
	findings, chain, _ := checkWith(t, file, forkVocabulary(t, file))
	if len(findings) != 0 {
		t.Errorf("as the v0 line: findings %+v, want none", findings)
	}
	bracketed := 0
	for _, b := range chain.Breaks {
		if b.ExplainedBy == MarkerBracket && b.Cause == CauseCompaction {
			bracketed++
		}
	}
	if bracketed != 1 {
		t.Errorf("as the v0 line: breaks %+v, want one compaction break explained by its bracket", chain.Breaks)
	}

	findings, _, _ = checkWith(t, file, vocab.Default())
	if len(findings) != 1 || findings[0].Code != CodeNotExtending || findings[0].Severity != Error {
		t.Errorf("as today's dsh: findings %+v, want one %s", findings, CodeNotExtending)
	}
}

// TestV0LineForkEvent reads an event of a fork's own type through the
// whole chain: the migrated log holds it as an ignorable event of its own
// type and data, at its place, and verifies clean as the v0 line.
func TestV0LineForkEvent(t *testing.T) {
	recording := filepath.Join(v0LineCorpus, "KeepLost+harniverse", "bash-spill", "session.jsonl")
	data, err := os.ReadFile(recording)
	if err != nil {
		t.Fatal(err)
	}
	const forkRow = `{"type":"fork/bookmark","seq":27,"time":1785730421090,"data":{"label":"after the turn"}}` + "\n"
	file := filepath.Join(t.TempDir(), "session.jsonl")
	if err := os.WriteFile(file, append(data, forkRow...), 0o644); err != nil {
		t.Fatal(err)
	}
	v := forkVocabulary(t, recording).With(&vocab.Declaration{File: "known-event-types.ts", Kind: vocab.FileList,
		Types: []vocab.Type{{Name: "fork/bookmark"}}})

	src, err := migrate.Open(file, nil, migrate.OpenOptions{Options: migrate.Options{Vocabulary: v, ListLifted: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var last session.Event
	for {
		ev, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		last = ev
	}
	if last.Type != "fork/bookmark" || !last.Ignorable() || last.Data().String() != `{"label":"after the turn"}` {
		t.Errorf("last event = %s, want the fork's bookmark, ignorable", last.Row)
	}
	if lifted := src.Lifted(); len(lifted) == 0 || lifted[len(lifted)-1].Rule != lift.RuleForkEvent || lifted[len(lifted)-1].Line != 29 {
		t.Errorf("changes = %+v, want the fork event at line 29 last", lifted)
	}

	findings, _, _ := checkWith(t, file, v)
	if len(findings) != 0 {
		t.Errorf("findings %+v, want none", findings)
	}
}
