package listing_test

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dshlog/dshlog/internal/gen"
	"github.com/dshlog/dshlog/listing"
	"github.com/dshlog/dshlog/store"
)

// TestSummarizeSeedVectors: the four-turn seed log and the crash log, as
// their README states them.
func TestSummarizeSeedVectors(t *testing.T) {
	tests := []struct {
		file                  string
		turns, requests       int
		inputTokens, outputs  int64
		state                 listing.State
		created, lastActivity int64
	}{
		{"loop-events.v4.jsonl", 4, 6, 40, 17, listing.Closed, 1792499042229, 1792499042269},
		{"crash-persisted.v4.jsonl", 1, 1, 0, 0, listing.OpenTail, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("..", "testdata", "seed-vectors", tt.file)
			l, _ := store.ParseName("session.v4.jsonl")
			l.Path = path
			s, err := listing.Summarize(l, nil)
			if err != nil {
				t.Fatal(err)
			}
			if s.Turns != tt.turns || s.Requests != tt.requests || s.State != tt.state {
				t.Errorf("turns %d requests %d state %q, want %d %d %q", s.Turns, s.Requests, s.State, tt.turns, tt.requests, tt.state)
			}
			if tt.inputTokens != 0 && (s.InputTokens != tt.inputTokens || s.OutputTokens != tt.outputs) {
				t.Errorf("tokens %d/%d, want %d/%d", s.InputTokens, s.OutputTokens, tt.inputTokens, tt.outputs)
			}
			if tt.created != 0 && (s.CreatedAt != tt.created || s.LastActivity != tt.lastActivity) {
				t.Errorf("created %d last %d, want %d %d", s.CreatedAt, s.LastActivity, tt.created, tt.lastActivity)
			}
		})
	}
}

// TestStates: each state a listing tells apart, on corpus logs that show it.
func TestStates(t *testing.T) {
	tests := []struct {
		path    string
		state   listing.State
		problem bool
	}{
		{"corpus/restored/compaction-recovery/session.v4.jsonl", listing.Closed, false},
		{"corpus/bad-logs/truncated-tail-open-tool-call/session.v4.jsonl", listing.OpenTail, false},
		{"corpus/golden/edge/torn-last-line/session.v3.jsonl", listing.TornTail, true},
		{"corpus/golden/edge/malformed-json-last-row/session.v3.jsonl", listing.TornTail, true},
		{"corpus/bad-logs/replace-node0-with-user/session.v4.jsonl", listing.Refused, true},
		{"corpus/golden/edge/version-5-header/session.v5.jsonl", listing.Refused, true},
		{"corpus/golden/edge/bom-header/session.v3.jsonl", listing.Refused, true},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			path := filepath.Join("..", "testdata", tt.path)
			l, ok := store.ParseName(filepath.Base(path))
			if !ok {
				t.Fatal("not a log name")
			}
			l.Path = path
			s, err := listing.Summarize(l, nil)
			if err != nil {
				t.Fatal(err)
			}
			if s.State != tt.state || (s.Problem != "") != tt.problem {
				t.Errorf("state %q problem %q, want %q (problem: %v)", s.State, s.Problem, tt.state, tt.problem)
			}
		})
	}
}

// TestListLinksSnapshotChildren: a snapshot folder's session.<K> logs are
// children of its session log, by the header's parentSession, and --tree's
// source (Parents) agrees with Children.
func TestListLinksSnapshotChildren(t *testing.T) {
	list, err := listing.List("../testdata/corpus/restored", nil, func(path string, err error) { t.Errorf("%s: %v", path, err) })
	if err != nil {
		t.Fatal(err)
	}
	var parent *listing.Summary
	for i, s := range list {
		if filepath.Base(filepath.Dir(s.Path)) == "ralph-loop" && filepath.Base(s.Path) == "session.v4.jsonl" {
			parent = &list[i]
		}
		if i > 0 && list[i-1].LastActivity < s.LastActivity {
			t.Errorf("not sorted by last activity at %d", i)
		}
	}
	if parent == nil {
		t.Fatal("ralph-loop not listed")
	}
	want := []string{"00000000-0000-4000-8000-000000000002", "00000000-0000-4000-8000-000000000003"}
	got := append([]string(nil), parent.Children...)
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Errorf("children %v, want %v", parent.Children, want)
	}
	linked := 0
	for _, s := range list {
		linked += len(s.Children)
	}
	if linked != 2 {
		t.Errorf("%d children linked in the restored corpus, want 2 (ids repeat across folders)", linked)
	}
}

// TestListGeneratedStore: a generated store lists every session once, each
// closed and with the id and project the store gives it.
func TestListGeneratedStore(t *testing.T) {
	root := t.TempDir()
	templates, _ := filepath.Glob("../testdata/corpus/restored/*/session.v4.jsonl")
	const n = 120
	if _, err := gen.Store(root, templates, n); err != nil {
		t.Fatal(err)
	}
	list, err := listing.List(root, nil, func(path string, err error) { t.Errorf("%s: %v", path, err) })
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != n {
		t.Fatalf("%d sessions listed, want %d", len(list), n)
	}
	seen := map[string]bool{}
	for _, s := range list {
		if seen[s.ID] {
			t.Errorf("%s listed twice", s.ID)
		}
		seen[s.ID] = true
		if s.State != listing.Closed || s.Turns < 1 || s.Project == "" {
			t.Errorf("%s: state %q turns %d project %q (%s)", s.ID, s.State, s.Turns, s.Project, s.Problem)
		}
	}
}

// BenchmarkList10000 lists a generated store of 10,000 sessions (written
// to a temporary directory first) and reports the store's size, sessions
// listed per second and the peak Go heap while listing.
func BenchmarkList10000(b *testing.B) {
	root := b.TempDir()
	templates, _ := filepath.Glob("../testdata/corpus/restored/*/session.v4.jsonl")
	size, err := gen.Store(root, templates, 10000)
	if err != nil {
		b.Fatal(err)
	}
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var m runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peak.Load() {
					peak.Store(m.HeapInuse)
				}
			}
		}
	}()
	b.ResetTimer()
	for b.Loop() {
		list, err := listing.List(root, nil, func(path string, err error) { b.Errorf("%s: %v", path, err) })
		if err != nil || len(list) != 10000 {
			b.Fatalf("%d sessions, %v", len(list), err)
		}
	}
	close(done)
	b.ReportMetric(float64(size)/1e6, "store-MB")
	b.ReportMetric(float64(10000*b.N)/b.Elapsed().Seconds(), "sessions/s")
	b.ReportMetric(float64(peak.Load())/1e6, "peak-heap-MB")
}

// TestListHistoricalStore: in a store of v0 sessions, a parent whose
// migration reads its children's catalog evidence is summarized by List
// (children found once, from every header) exactly as Summarize does it
// (dsh's own search of the store for that session).
func TestListHistoricalStore(t *testing.T) {
	root := t.TempDir()
	project := filepath.Join(root, "--workspace-demo--")
	copyTo := func(src, id string) string {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "corpus", "restored", "ralph-loop", src))
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(project, id)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "session.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	parent := copyTo("session.jsonl", "00000000-0000-4000-8000-000000000001")
	copyTo("session.1.jsonl", "00000000-0000-4000-8000-000000000002")
	copyTo("session.2.jsonl", "00000000-0000-4000-8000-000000000003")
	list, err := listing.List(root, nil, func(path string, err error) { t.Errorf("%s: %v", path, err) })
	if err != nil {
		t.Fatal(err)
	}
	l, _ := store.ParseName("session.jsonl")
	l.Path = parent
	info, _ := os.Stat(parent)
	l.Size = info.Size()
	want, err := listing.Summarize(l, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want.State != listing.Closed || want.Requests == 0 {
		t.Fatalf("the parent alone: %+v", want)
	}
	for _, got := range list {
		if got.Path != parent {
			continue
		}
		got.Children, want.Children = nil, nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("List gives\n%+v\nSummarize gives\n%+v", got, want)
		}
		return
	}
	t.Error("the parent is not listed")
}

// BenchmarkListHistorical1000 lists a generated store of 1,000 v3 sessions,
// whose migrations read their children's catalog evidence: List finds the
// children from one pass over the headers, so the time grows with the
// store, not with its square (dsh's search scans the store per session).
func BenchmarkListHistorical1000(b *testing.B) {
	root := b.TempDir()
	templates, _ := filepath.Glob("../testdata/corpus/restored/*/session.v3.jsonl")
	if _, err := gen.Store(root, templates, 1000); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		list, err := listing.List(root, nil, func(path string, err error) { b.Errorf("%s: %v", path, err) })
		if err != nil || len(list) != 1000 {
			b.Fatalf("%d sessions, %v", len(list), err)
		}
	}
	b.ReportMetric(float64(1000*b.N)/b.Elapsed().Seconds(), "sessions/s")
}
