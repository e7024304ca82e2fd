package v0to1

import (
	"strconv"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/session"
)

// TestChunkFastPath checks that normalize's path for assistant/chunk events
// agrees with running every step: the same row or the same refusal, and the
// same message id noted, whatever the chunk's data holds and whatever
// compaction is open.
func TestChunkFastPath(t *testing.T) {
	rows := []string{
		`{"type":"assistant/chunk","seq":4,"time":1,"data":{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"a"}}}`,
		`{"type":"assistant/chunk","seq":4,"time":1,"data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}},"ignorable":true}`,
		`{"type":"assistant/chunk","seq":4,"time":1,"data":null}`,
		`{"type":"assistant/chunk","seq":4,"time":1,"data":[1]}`,
		`{"type":"assistant/chunk","seq":4,"time":1}`,
		`{"type":"assistant/chunk","seq":4,"time":1,"data":{"message":{"id":"m-1"}}}`,
		`{"type":"assistant/chunk","seq":4,"time":1,"data":{"message":{"id":7}}}`,
		`{"type":"assistant/chunk","seq":4,"time":1,"data":{"message":"m"}}`,
		`{"type":"assistant/chunk","seq":4,"time":1,"data":{"id":"own","compactionId":"c"}}`,
		`{"type":"assistant/chunk","seq":4,"time":1,"data":{"retryId":"r","trigger":{},"header":{"messagePrefix":[]}}}`,
	}
	for _, text := range rows {
		for _, compaction := range []string{"", "legacy-compaction:s:1"} {
			row := sessiontest.Parse(t, text)
			ev := session.Event{Type: "assistant/chunk", Seq: 4, Time: 1, Row: row}
			fast, slow := newTestStage(compaction), newTestStage(compaction)
			gotEv, gotErr := fast.normalizeChunk(ev)
			wantEv, wantErr := slow.normalizeSteps(ev, false)
			if sessiontest.RefusalText(gotErr) != sessiontest.RefusalText(wantErr) {
				t.Errorf("%s: refusal %q, steps give %q", text, sessiontest.RefusalText(gotErr), sessiontest.RefusalText(wantErr))
				continue
			}
			if gotEv.Row.String() != wantEv.Row.String() || gotEv.Type != wantEv.Type {
				t.Errorf("%s: row %s, steps give %s", text, gotEv.Row, wantEv.Row)
			}
			gotID, gotOK := fast.messageIDs.get(4)
			wantID, wantOK := slow.messageIDs.get(4)
			if gotID != wantID || gotOK != wantOK || fast.compactionID != slow.compactionID {
				t.Errorf("%s: noted id %q %v, compaction %q; steps give %q %v, %q", text, gotID, gotOK, fast.compactionID, wantID, wantOK, slow.compactionID)
			}
		}
	}
}

func newTestStage(compactionID string) *edgeStage {
	return &edgeStage{
		header:       session.Header{ID: "s"},
		messageIDs:   newMessageIDs(),
		retryIDs:     map[string]string{},
		compactionID: compactionID,
	}
}

// TestMessageIDs checks the message id index with sets in seq order, out
// of order and repeated.
func TestMessageIDs(t *testing.T) {
	m := newMessageIDs()
	want := map[int64]string{}
	for _, s := range []struct {
		seq int64
		id  string
	}{{3, "a"}, {7, "b"}, {9, "c"}, {5, "d"}, {7, "e"}, {1, "f"}, {12, ""}, {9, "g"}} {
		m.set(s.seq, s.id)
		want[s.seq] = s.id
		for seq := int64(0); seq < 14; seq++ {
			id, ok := m.get(seq)
			w, wok := want[seq]
			if id != w || ok != wok {
				t.Fatalf("after set(%d, %q): get(%d) = %q %v, want %q %v", s.seq, s.id, seq, id, ok, w, wok)
			}
		}
	}
}

// TestMessageIDsAcrossPages checks the index over more entries than a page
// holds and more bytes than a block does: sets mostly in seq order, some
// repeated, some out of order, and an id longer than a block.
func TestMessageIDsAcrossPages(t *testing.T) {
	m := newMessageIDs()
	want := map[int64]string{}
	set := func(seq int64, id string) {
		m.set(seq, id)
		want[seq] = id
	}
	long := strings.Repeat("x", idBlockSize+3)
	for seq := int64(10); seq < 5*idPageLen; seq += 2 {
		id := "message-" + strconv.FormatInt(seq, 10) + strings.Repeat("-", int(seq%97))
		if seq == 1000 {
			id = long
		}
		set(seq, id)
		switch seq % 11 {
		case 0:
			set(seq, id+"-again") // repeated
		case 5:
			set(seq-1, "late-"+id) // out of order, not in the list
		case 7:
			set(seq-1500, "renamed") // out of order: replaces or adds
		}
	}
	if len(m.pages) < 2 || len(m.blocks) < 2 || len(m.late) == 0 {
		t.Fatalf("%d pages, %d blocks, %d set aside: the test should cross pages and blocks", len(m.pages), len(m.blocks), len(m.late))
	}
	for seq := int64(-1); seq < 5*idPageLen+2; seq++ {
		id, ok := m.get(seq)
		w, wok := want[seq]
		if id != w || ok != wok {
			t.Fatalf("get(%d) = %.20q %v, want %.20q %v", seq, id, ok, w, wok)
		}
	}
}
