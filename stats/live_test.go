package stats

import (
	"io"
	"reflect"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/migrate"
)

// Live, in one pass, comes to the statistics Collect gives in two, and
// shows each break at the step of the request it breaks, with that
// request's usage.
func TestLiveMatchesCollect(t *testing.T) {
	for _, path := range []string{
		"../testdata/corpus/dsh/compaction-recovery/session.v4.jsonl",
		"../testdata/seed-vectors/loop-events.v4.jsonl",
		"../testdata/corpus/golden/edge2/v0-legacy-compact-ids/session.jsonl",
		"../testdata/corpus/bad-logs/compaction-no-series-header/session.v4.jsonl",
		"../testdata/corpus/bad-logs/seq-gap/session.v4.jsonl",
	} {
		t.Run(path, func(t *testing.T) {
			want, err := Collect(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			src, err := migrate.Open(path, nil, migrate.OpenOptions{Options: migrate.Options{Recovery: v2.Recoverable}, AnyZstdFraming: true})
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			live := NewLive(src.Reader, path)
			requests, breaks := 0, 0
			for {
				step, err := live.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if step.Request > 0 {
					requests++
					if step.Request != requests {
						t.Errorf("seq %d: request %d, want %d", step.Event.Seq, step.Request, requests)
					}
				}
				if b := step.Break; b != nil {
					if b.Seq != step.Event.Seq || !reflect.DeepEqual(*b, want.Breaks[breaks]) {
						t.Errorf("seq %d: break %+v, want %+v", step.Event.Seq, *b, want.Breaks[breaks])
					}
					if b.UsageLogged && b.PutBack != step.Usage.InputTokens-step.Usage.CacheReadTokens {
						t.Errorf("seq %d: put back %d for usage %+v", step.Event.Seq, b.PutBack, step.Usage)
					}
					breaks++
				}
			}
			if got := live.Session(); !reflect.DeepEqual(got, want) {
				t.Errorf("Live:\n%+v\nCollect:\n%+v", got, want)
			}
			if breaks != len(want.Breaks) {
				t.Errorf("%d breaks shown, %d collected", breaks, len(want.Breaks))
			}
		})
	}
}
