package session

import (
	"errors"
	"slices"
	"testing"
)

// fakeRun stands for seqs first..first+n-1, or fails to expand with err.
type fakeRun struct {
	first, n int64
	err      error
}

func (r fakeRun) RunType() string   { return "fake" }
func (r fakeRun) FirstSeq() int64   { return r.first }
func (r fakeRun) EventCount() int64 { return r.n }
func (r fakeRun) Expand() ([]Event, error) {
	if r.err != nil {
		return nil, r.err
	}
	var events []Event
	for seq := r.first; seq < r.first+r.n; seq++ {
		events = append(events, Event{Seq: seq})
	}
	return events, nil
}

func TestItemEachEvent(t *testing.T) {
	expandErr, stop := errors.New("expand"), errors.New("stop")
	for _, tc := range []struct {
		name    string
		item    Item
		stopAt  int64 // f fails at this seq; -1 never
		want    []int64
		wantErr error
	}{
		{"plain event", Item{Event: Event{Seq: 7}}, -1, []int64{7}, nil},
		{"run in seq order", Item{Run: fakeRun{first: 3, n: 3}}, -1, []int64{3, 4, 5}, nil},
		{"run stops at the first failure", Item{Run: fakeRun{first: 3, n: 3}}, 4, []int64{3, 4}, stop},
		{"run that cannot expand", Item{Run: fakeRun{err: expandErr}}, -1, nil, expandErr},
	} {
		var got []int64
		err := tc.item.EachEvent(func(ev Event) error {
			got = append(got, ev.Seq)
			if ev.Seq == tc.stopAt {
				return stop
			}
			return nil
		})
		if !errors.Is(err, tc.wantErr) || !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, %v; want %v, %v", tc.name, got, err, tc.want, tc.wantErr)
		}
	}
}
