package v2to3

import (
	"bytes"
	"os"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/codec/v3"
	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate/stage"
	"github.com/dshlog/dshlog/session"
)

// migrateBytes reads a v2 session from data and migrates it through the
// edge, returning the v3 file.
func migrateBytes(data []byte) ([]byte, error) {
	var target session.Header
	var st stage.Stage
	var body []byte
	emit := func(item session.Item) error {
		body = append(v2.EncodeEvent(body, item.Event), '\n')
		return nil
	}
	_, err := sessiontest.ReadSession(data,
		func(hv jsonv.Value) (sessiontest.Decoder, error) {
			h, err := v2.DecodeHeader(hv)
			if err != nil {
				return nil, err
			}
			var e Edge
			if target, err = e.MigrateHeader(h); err != nil {
				return nil, err
			}
			st, err = e.NewStage(stage.StageInput{SourceHeader: h, TargetHeader: target, SourceCut: -1, Decoded: true})
			if err != nil {
				return nil, err
			}
			return v2.NewDecoder(h, v2.Recoverable), nil
		},
		func(ev session.Event) error { return st.Transform(session.Item{Event: ev}, emit) })
	if err != nil {
		return nil, err
	}
	if _, err := st.Finish(emit); err != nil {
		return nil, err
	}
	return append(append(target.Value().Append(nil), '\n'), body...), nil
}

// FuzzV2to3 feeds arbitrary v2 files through the edge: it must refuse with
// typed errors, never panic, and everything it emits must be a canonical v3
// file that the v3 codec reads strictly.
func FuzzV2to3(f *testing.F) {
	sessiontest.Seed(f, sessiontest.Glob(f,
		"../../testdata/corpus/restored*/*/*.v2.jsonl",
		"../../testdata/corpus/golden/edge2/v2-*/*.v2.jsonl",
	))
	if data, err := os.ReadFile("testdata/vector-a.v2.jsonl"); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := migrateBytes(data)
		if err != nil {
			if !sessiontest.Typed(err) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		lines := bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n"))
		hv, _ := jsonv.Parse(lines[0])
		h, err := v3.DecodeHeader(hv)
		if err != nil {
			t.Fatalf("v3 header: %v\n%s", err, out)
		}
		dec := v3.NewDecoder(h, v2.Strict)
		for _, line := range lines[1:] {
			row, err := jsonv.Parse(line)
			if err != nil {
				t.Fatalf("%v: %s", err, line)
			}
			if _, _, err := dec.Decode(row); err != nil {
				t.Fatalf("emitted row is not v3: %v\n%s", err, line)
			}
		}
	})
}
