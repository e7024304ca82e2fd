package rescue

import (
	"testing"

	"github.com/dshlog/dshlog/jsonv"
)

// TestMovesRenumber: newSeq moves each start to just before its target and
// shifts the events between down by one; oldSeq undoes it.
func TestMovesRenumber(t *testing.T) {
	ms := moves{{start: 2, target: 5}, {start: 7, target: 10}}
	want := map[int64]int64{0: 0, 1: 1, 2: 4, 3: 2, 4: 3, 5: 5, 6: 6, 7: 9, 8: 7, 9: 8, 10: 10, 11: 11}
	for old, seq := range want {
		if got := ms.newSeq(old); got != seq {
			t.Errorf("newSeq(%d) = %d, want %d", old, got, seq)
		}
		if got := ms.oldSeq(seq); got != old {
			t.Errorf("oldSeq(%d) = %d, want %d", seq, got, old)
		}
	}
	if kept := ms.within(10); len(kept) != 1 || kept[0].start != 2 {
		t.Errorf("within(10) = %+v, want the first move only", kept)
	}
}

// TestBracketWatch: which compaction brackets a turn boundary crosses and
// where their starts go.
func TestBracketWatch(t *testing.T) {
	type ev struct{ typ, data string }
	start := ev{"compaction/start", `{"compactionId":"k","turn":null}`}
	summary := ev{"compaction/summary", `{"compactionId":"k"}`}
	end := ev{"compaction/end", `{"compactionId":"k","turn":1}`}
	failed := ev{"compaction/end", `{"compactionId":"k","turn":1,"error":{}}`}
	turnStart := ev{"turn/start", `{"turn":1}`}
	turnEnd := ev{"turn/end", `{"turn":1}`}
	marker := ev{"session/end-seed", `{}`}
	tests := []struct {
		name   string
		events []ev
		target int64 // -1: no move
	}{
		{"turn/start crosses", []ev{start, turnStart, summary, end}, 2},
		{"turn/end crosses", []ev{turnStart, start, turnEnd, turnStart, summary, end}, 4},
		{"no summary: the end is the target", []ev{start, turnStart, failed}, 2},
		{"no crossing", []ev{turnStart, start, summary, end, turnEnd}, -1},
		{"crossed after its summary: a move would not mend it", []ev{start, summary, turnStart, end}, -1},
		{"orphaned by a lifecycle marker: dsh lets it be", []ev{start, turnStart, marker, summary}, -1},
		{"never closed", []ev{start, turnStart, summary}, -1},
	}
	for _, tt := range tests {
		var w bracketWatch
		for seq, e := range tt.events {
			data, err := jsonv.Parse([]byte(e.data))
			if err != nil {
				t.Fatal(err)
			}
			w.add(int64(seq), seq+2, e.typ, data)
		}
		switch {
		case tt.target < 0 && len(w.found) != 0:
			t.Errorf("%s: moves %+v, want none", tt.name, w.found)
		case tt.target >= 0 && (len(w.found) != 1 || w.found[0].target != tt.target || !w.found[0].hasOwner):
			t.Errorf("%s: moves %+v, want one to seq %d", tt.name, w.found, tt.target)
		}
	}
}
