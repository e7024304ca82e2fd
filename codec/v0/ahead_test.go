package v0

import (
	"bytes"
	"os"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// decodeBothWays reads a v0 or v1 session from data twice, with Decode and
// with CheckRow then DecodeChecked (each row checked before the decoder
// takes it, as the read-ahead does), and fails unless both emit the same
// items and end with the same refusal and issue. It also fails when an
// event marked PayloadChecked does not pass the payload rules as emitted.
// It returns how many plain events were emitted and how many of them were
// marked.
func decodeBothWays(t *testing.T, data []byte, recovery v2.Recovery) (events, marked int) {
	type result struct {
		out        bytes.Buffer
		err, issue string
	}
	read := func(ahead bool) *result {
		r := &result{}
		var dec *Decoder
		emit := func(item session.Item) error {
			if item.Run != nil {
				r.out.Write(packedRow(item.Run.(*ChunkRun)).Append(nil))
				r.out.WriteString(" run\n")
				return nil
			}
			r.out.Write(item.Event.Row.Append(nil))
			r.out.WriteString(" " + item.Event.Type + " " + itoa(item.Event.Seq) + " " + itoa(item.Event.Time) + "\n")
			if !ahead {
				return nil
			}
			events++
			if item.PayloadChecked {
				marked++
				if err := v2.CheckEventPayload(item.Event, dec.Header().Version); err != nil {
					t.Errorf("event %s marked checked fails the payload rules: %v", item.Event.Row, err)
				}
			}
			return nil
		}
		err := sessiontest.ReadRows(data,
			func(hv jsonv.Value) (err error) {
				version, _ := hv.Field("version").Count()
				dec, err = NewDecoder(hv, int(version), recovery)
				return err
			},
			func(row jsonv.Value) error {
				if ahead {
					return dec.DecodeChecked(row, dec.CheckRow(row), emit)
				}
				return dec.Decode(row, emit)
			})
		if err == nil {
			_, err = dec.Finish(emit)
		}
		r.err = sessiontest.RefusalText(err)
		if dec != nil {
			r.issue = sessiontest.RefusalText(dec.Issue())
		}
		return r
	}
	inPlace, ahead := read(false), read(true)
	if !bytes.Equal(inPlace.out.Bytes(), ahead.out.Bytes()) {
		t.Errorf("checked ahead, the decoder emits\n%s\nin place\n%s", ahead.out.Bytes(), inPlace.out.Bytes())
	}
	if inPlace.err != ahead.err || inPlace.issue != ahead.issue {
		t.Errorf("checked ahead, the decoder ends with %q (issue %q); in place %q (issue %q)", ahead.err, ahead.issue, inPlace.err, inPlace.issue)
	}
	return events, marked
}

// TestCheckRowAgrees checks that decoding with rows checked ahead agrees
// with decoding in place over the corpus's v0 and v1 sessions and a table
// of damaged rows, and that the payload verdict ahead is used: most events
// of the corpus are marked checked, and none that fails the rules.
func TestCheckRowAgrees(t *testing.T) {
	var events, marked int
	for _, data := range seedFiles(t) {
		for _, recovery := range []v2.Recovery{v2.Recoverable, v2.Strict} {
			e, m := decodeBothWays(t, data, recovery)
			events, marked = events+e, marked+m
		}
	}
	if events == 0 || marked < events/2 || marked == events {
		t.Errorf("%d of %d events marked checked: the corpus should mark most, not all", marked, events)
	}
	header := `{"type":"session","version":0,"id":"00000000-0000-4000-8000-000000000001","createdAt":1,"cwd":"/w","delegationDepth":0}` + "\n"
	for _, rows := range []string{
		`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}`,
		`{"type":"turn/start","seq":0,"time":1,"data":{"turn":0.5}}`,
		`{"type":"turn/start","seq":-0,"time":1,"data":{"turn":1}}`,
		`{"type":"turn/start","seq":1,"time":1,"data":{"turn":1}}`,
		`{"type":["turn/start"],"seq":0,"time":1,"data":{"turn":1}}`,
		`{"type":"no/such","seq":0,"time":1,"data":{}}`,
		`{"type":"assistant/chunk","seq":0,"time":1,"data":{}}`,
		`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}` + "\n" +
			`{"type":"session/title","seq":1,"time":1,"data":{"title":"t","messageSeqs":[0],"source":{"kind":"fallback"}},"sourceEventSeqs":[[0,0]]}`,
		`{"type":"session/title","seq":0,"time":1,"data":{"title":"t","messageSeqs":[0],"source":{"kind":"fallback"}}}`,
		`{"type":"text-chunks","seq0":0,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[1],"texts":["a","b"]}}` + "\n" +
			`{"type":"text-chunks","seq0":2,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":[]}}` + "\n" +
			`{"type":"turn/end","seq":3,"time":1,"data":{"turn":1,"reason":{"kind":"completed"}}}`,
		`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}` + "\n" +
			`{"type":"turn/start","seq":"1","time":1,"data":{"turn":1}}` + "\n" +
			`{"type":"turn/end","seq":2,"time":1,"data":{"turn":1,"reason":{"kind":"completed"}}}`,
	} {
		for _, recovery := range []v2.Recovery{v2.Recoverable, v2.Strict} {
			decodeBothWays(t, []byte(header+rows+"\n"), recovery)
		}
	}
}

// seedFiles returns the v0 and v1 sessions FuzzV0Decode is seeded with.
func seedFiles(t testing.TB) [][]byte {
	var files [][]byte
	for _, path := range v0Sessions(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, data)
	}
	return files
}
