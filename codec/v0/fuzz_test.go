package v0

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// decodeAll reads a v0 or v1 session from data (a torn last line is
// dropped, an unparsable row stops the read) and returns what the decoder
// accepted written back as rows: events as they are, runs as packed rows.
// It checks on the way that every run agrees with its own expansion.
func decodeAll(t *testing.T, data []byte, recovery v2.Recovery) ([]byte, error) {
	var dec *Decoder
	var out []byte
	emit := func(item session.Item) error {
		if item.Run == nil {
			out = append(item.Event.Row.Append(out), '\n')
			return nil
		}
		run := item.Run.(*ChunkRun)
		checkRun(t, run)
		out = append(packedRow(run).Append(out), '\n')
		return nil
	}
	err := sessiontest.ReadRows(data,
		func(hv jsonv.Value) (err error) {
			version, _ := hv.Field("version").Count()
			if dec, err = NewDecoder(hv, int(version), recovery); err != nil {
				return err
			}
			out = append(hv.Append(nil), '\n')
			return nil
		},
		func(row jsonv.Value) error { return dec.Decode(row, emit) })
	if err != nil {
		return nil, err
	}
	if _, err := dec.Finish(emit); err != nil {
		return nil, err
	}
	return out, nil
}

// checkRun compares a run's coordinates with the events it expands to.
func checkRun(t *testing.T, run *ChunkRun) {
	events, err := run.Expand()
	if err != nil || int64(len(events)) != run.EventCount() || len(events) == 0 {
		t.Fatalf("run of %d expands to %d events (%v)", run.EventCount(), len(events), err)
	}
	for k, ev := range events {
		if ev.Seq != run.FirstSeq()+int64(k) || ev.Type != "assistant/chunk" {
			t.Fatalf("member %d: %s", k, ev.Row)
		}
	}
	last := events[len(events)-1]
	if last.Seq != run.LastSeq() || last.Time != run.LastTime() {
		t.Fatalf("last member %s, run says %d@%d", last.Row, run.LastSeq(), run.LastTime())
	}
}

// packedRow writes a run back as the packed row the old writer wrote.
func packedRow(run *ChunkRun) jsonv.Value {
	s := run.Stream()
	data := []jsonv.Member{
		jsonv.M("turn", jsonv.IntValue(run.Turn())),
		jsonv.M("step", jsonv.IntValue(run.Step())),
		jsonv.M("index", s.Field("index")),
		jsonv.M("dt", s.Field("dt")),
	}
	for _, key := range []string{"id", "name", "texts", "args"} {
		if v, ok := s.Get(key); ok {
			data = append(data, jsonv.M(key, v))
		}
	}
	return jsonv.ObjectValue(
		jsonv.M("type", s.Field("type")),
		jsonv.M("seq0", jsonv.IntValue(run.FirstSeq())),
		jsonv.M("time0", s.Field("time0")),
		jsonv.M("data", jsonv.ObjectValue(data...)),
	)
}

// v0Sessions lists the corpus's v0 and v1 sessions, the fuzz seeds.
func v0Sessions(t testing.TB) []string {
	var files []string
	for _, m := range sessiontest.Glob(t,
		"../../testdata/corpus/restored/*/session.jsonl",
		"../../testdata/corpus/restored/*/session.[12].jsonl",
		"../../testdata/corpus/golden/edge/negzero-v0-meta/session.jsonl",
		"../../testdata/corpus/golden/edge2/v[01]-*/session*.jsonl",
	) {
		if filepath.Ext(m) == ".jsonl" && !strings.HasSuffix(m, ".v4.jsonl") {
			files = append(files, m)
		}
	}
	if len(files) < 25 {
		t.Fatalf("found %d seed files", len(files))
	}
	return files
}

// FuzzV0Decode feeds arbitrary files through the v0/v1 codec: they must be
// refused with dsh's typed errors, never panic, every run must agree with
// its expansion, and what the decoder accepted must decode again to itself.
// Decoding with rows checked ahead (CheckRow, DecodeChecked) must agree
// with decoding in place.
func FuzzV0Decode(f *testing.F) {
	sessiontest.Seed(f, v0Sessions(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, recovery := range []v2.Recovery{v2.Recoverable, v2.Strict} {
			sessiontest.CheckStable(t, recovery.String(), data,
				func(data []byte) ([]byte, error) { return decodeAll(t, data, recovery) },
				func(out []byte) ([]byte, error) { return decodeAll(t, out, v2.Strict) })
			decodeBothWays(t, data, recovery)
		}
	})
}
