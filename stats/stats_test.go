package stats_test

import (
	"path/filepath"
	"testing"

	"github.com/dshlog/dshlog/stats"
	"github.com/dshlog/dshlog/store"
	"github.com/dshlog/dshlog/verify"
)

func collect(t *testing.T, path string) stats.Session {
	t.Helper()
	s, err := stats.Collect(filepath.Join("..", "testdata", path), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSeedLoop: the four-turn seed session, with the counts its README
// states: 4 turns, 6 requests (one failed with RATE_LIMIT and retried), one
// cancelled turn, one echo call, and no cache break: every request extends
// the one before. Four requests log usage (the failed attempt and the
// interrupted message do not).
func TestSeedLoop(t *testing.T) {
	s := collect(t, "seed-vectors/loop-events.v4.jsonl")
	got := [...]int{s.Turns, s.Steps, s.Requests, s.FailedRequests, s.Retries, s.Cancels, s.Compactions, s.CrashesRepaired, s.Extending, len(s.Breaks)}
	want := [...]int{4, 5, 6, 1, 1, 1, 0, 0, 5, 0}
	if got != want {
		t.Errorf("turns, steps, requests, failed, retries, cancels, compactions, crashes, extending, breaks = %v, want %v", got, want)
	}
	if len(s.Tools) != 1 || s.Tools[0] != (stats.Tool{Name: "echo", Calls: 1, Timed: 1, TotalMS: 1, MaxMS: 1}) {
		t.Errorf("tools %+v", s.Tools)
	}
	if len(s.Models) != 1 || s.Models[0].Provider != "mock" || s.Models[0].Requests != 6 {
		t.Errorf("models %+v", s.Models)
	}
	if u := s.Usage; u.InputTokens != 40 || u.OutputTokens != 17 || u.Logged != 4 {
		t.Errorf("usage %+v", u)
	}
	if _, ok := s.Usage.CacheHitShare(); ok {
		t.Error("a cache-hit share from a log that reports no cacheReadTokens")
	}
}

// TestBreakCauses: the compaction scenario breaks once, by compaction,
// explained by the series header; the same log without that header breaks
// unexplained; a header-only change is a config break. Each break puts back
// its request's input tokens.
func TestBreakCauses(t *testing.T) {
	tests := []struct {
		path           string
		request        int
		seq            int64
		cause          verify.Cause
		explainedBy    verify.Marker
		marker         int64
		messagesExtend bool
		putBack        int64
	}{
		{"corpus/restored/compaction-recovery/session.v4.jsonl", 3, 25, verify.CauseCompaction, verify.MarkerSeries, 24, false, 20},
		{"corpus/mainline/compaction-recovery/session.v4.jsonl", 3, 25, verify.CauseCompaction, verify.MarkerSeries, 24, false, 20},
		{"corpus/bad-logs/compaction-no-series-header/session.v4.jsonl", 3, 24, verify.CauseUnexplained, verify.MarkerNone, -1, false, 20},
		{"corpus/bad-logs/header-series-different/session.v4.jsonl", 6, 39, verify.CauseConfig, verify.MarkerHeader, 38, true, 10},
		{"corpus/golden/edge2/v2-system-prompt-change/session.v2.jsonl", 3, 26, verify.CauseSystemPrompt, verify.MarkerSeries, 25, false, 20},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			s := collect(t, tt.path)
			if len(s.Breaks) != 1 {
				t.Fatalf("%d breaks, want 1: %+v", len(s.Breaks), s.Breaks)
			}
			b := s.Breaks[0]
			if b.Request != tt.request || b.Seq != tt.seq || b.Cause != tt.cause || b.ExplainedBy != tt.explainedBy ||
				b.MarkerSeq != tt.marker || b.MessagesExtend != tt.messagesExtend || b.PutBack != tt.putBack || !b.UsageLogged {
				t.Errorf("break %+v", b)
			}
			total := stats.Sum([]stats.Session{s})
			for _, c := range total.Causes {
				want := 0
				if c.Cause == tt.cause {
					want = 1
				}
				if c.Breaks != want || (want == 1 && c.PutBack != tt.putBack) {
					t.Errorf("cause %s: %d breaks, %d put back", c.Cause, c.Breaks, c.PutBack)
				}
			}
		})
	}
}

// TestCacheHitShare: cacheReadTokens are summed and the share is taken
// over the requests that report them.
func TestCacheHitShare(t *testing.T) {
	s := collect(t, "corpus/mainline/hook-cc-posttool-block/session.v4.jsonl")
	share, ok := s.Usage.CacheHitShare()
	if !ok || s.Usage.CacheReadTokens == 0 {
		t.Fatalf("usage %+v", s.Usage)
	}
	want := float64(s.Usage.CacheReadTokens) / float64(s.Usage.CacheLoggedInput)
	if share != want || share <= 0 {
		t.Errorf("share %v, want %v", share, want)
	}
}

// TestEveryCorpusSession: stats reads every session of the test data; a
// session dsh loads whole has a chain that adds up, a refused one says so.
func TestEveryCorpusSession(t *testing.T) {
	var logs []store.Log
	store.Walk(filepath.Join("..", "testdata"), func(d store.Dir) error {
		logs = append(logs, d.Current()...)
		return nil
	}, nil)
	// A newer format, which no build of this line reads, and a file of
	// provider recordings, which holds no session.
	unopened := map[string]bool{"version-5-header": true, "changanhua-ralph-loop": true}
	for _, l := range logs {
		s, err := stats.Collect(l.Path, nil)
		if err != nil {
			if !unopened[filepath.Base(filepath.Dir(l.Path))] {
				t.Errorf("%s: %v", l.Path, err)
			}
			continue
		}
		if s.Complete && s.Requests > 0 && s.Requests != 1+s.Extending+len(s.Breaks) {
			t.Errorf("%s: %d requests, %d extending, %d breaks", l.Path, s.Requests, s.Extending, len(s.Breaks))
		}
		if !s.Complete && s.Problem == "" {
			t.Errorf("%s: incomplete without a problem", l.Path)
		}
		for _, tool := range s.Tools {
			if tool.Errors > tool.Calls || tool.Timed > tool.Calls {
				t.Errorf("%s: tool %+v", l.Path, tool)
			}
		}
	}
}
