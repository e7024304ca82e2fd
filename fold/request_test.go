package fold_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/fold"
)

// TestRequestAt rebuilds single requests by streaming, reading nothing past
// the settlement, and refuses a request the log does not have.
func TestRequestAt(t *testing.T) {
	_, events := readV4(t, loopLog)
	tests := []struct {
		k          int
		settlement int64
		messages   int
	}{{1, 8, 2}, {3, 21, 6}, {4, 22, 6}, {6, 38, 10}}
	for _, tt := range tests {
		src := &sliceEvents{events: events}
		r, err := fold.RequestAt(src, tt.k)
		if err != nil {
			t.Fatal(err)
		}
		if r.Index != tt.k || r.SettlementSeq != tt.settlement || len(r.Messages) != tt.messages {
			t.Errorf("request %d = #%d @%d with %d messages, want @%d with %d", tt.k, r.Index, r.SettlementSeq, len(r.Messages), tt.settlement, tt.messages)
		}
		if src.next != int(tt.settlement)+1 {
			t.Errorf("request %d read %d events, want %d (through its settlement)", tt.k, src.next, tt.settlement+1)
		}
	}
	_, err := fold.RequestAt(&sliceEvents{events: events}, 7)
	if !errors.Is(err, fold.ErrNoSuchRequest) || !strings.Contains(err.Error(), "request 7 of 6") {
		t.Errorf("request 7: %v, want ErrNoSuchRequest naming 6 requests", err)
	}
}

// TestRequestValue checks the request as the loop hands it to the model
// client: config fields, messages, toolHistory, tools, sessionId.
func TestRequestValue(t *testing.T) {
	_, events := readV4(t, crashLog)
	r, err := fold.RequestAt(&sliceEvents{events: events}, 1)
	if err != nil {
		t.Fatal(err)
	}
	v := r.Value("seed-crash")
	if got, want := strings.Join(v.Keys(), ","), "provider,model,messages,toolHistory,tools,sessionId"; got != want {
		t.Errorf("keys = %s, want %s", got, want)
	}
	if v.Field("messages").Len() != 2 || v.Field("tools").Len() != 2 || v.Field("sessionId").Text() != "seed-crash" {
		t.Errorf("request = %s", v)
	}
	if got := v.Field("toolHistory").String(); got != `{"tools":`+v.Field("tools").String()+`,"updates":[]}` {
		t.Errorf("toolHistory = %s", got)
	}
}

// TestRequestNeedsTheNextSettlement: a request is built only from the events
// before its settlement, so only the next event can be asked about.
func TestRequestNeedsTheNextSettlement(t *testing.T) {
	_, events := readV4(t, loopLog)
	f := foldAll(t, events[:8])
	if _, err := f.Request(events[7]); err == nil {
		t.Error("a folded event was accepted as the settlement")
	}
	if _, err := f.Request(events[9]); err == nil {
		t.Error("a future event was accepted as the settlement")
	}
	if _, err := f.Request(events[8]); err != nil {
		t.Errorf("the next settlement: %v", err)
	}
	h, ok := f.Header()
	if !ok || h.Seq != 6 || h.Reason != "initial" || h.StartsSeries {
		t.Errorf("header in force = %+v (%v), want @6 initial", h, ok)
	}
}
