package v1to2

import (
	"testing"

	"github.com/dshlog/dshlog/jsonv"
)

// TestSeqOnlyRemap checks remap's shortcut for a row that needs only its
// seq replaced against the general rebuild, and that the shortcut is taken
// only where the two agree.
func TestSeqOnlyRemap(t *testing.T) {
	rows := []string{
		`{"type":"step/start","seq":5,"time":1,"data":{"turn":1,"step":1}}`,
		`{"type":"user/message","seq":5,"time":1,"data":{},"surfaceOp":"append"}`,
		`{"type":"user/message","seq":5,"time":1,"data":{},"surfaceOp":"append","ignorable":true}`,
		`{"seq":5,"type":"tool/result","ignorable":true,"time":1,"data":{},"surfaceOp":"append"}`,
		`{"type":"turn/start","time":1,"data":{"turn":1}}`,
		`{"type":"turn/start","seq":5,"time":1}`,
		`{"surfaceOp":"append","type":"user/message","seq":5,"time":1,"data":{}}`,
	}
	for _, text := range rows {
		row := parse(text)
		op, hasOp := row.Get("surfaceOp")
		var tail []jsonv.Member
		if hasOp {
			tail = append(tail, jsonv.M("surfaceOp", op))
		}
		want := rebuild(row, 9, row.Field("data"), false, tail).String()
		shortcut := seqThenTail(row, hasOp)
		if got := row.With("seq", jsonv.IntValue(9)).String(); shortcut && got != want {
			t.Errorf("%s: shortcut gives %s, rebuild %s", text, got, want)
		}
		s := harness{}.stage()
		s.seqs.set(5, 9)
		got, err := s.remap(source{row: row, typ: row.Field("type").Text(), seq: 5, data: row.Field("data")}, 9)
		if err != nil || got.String() != want {
			t.Errorf("%s: remap gives %s (%v), rebuild %s", text, got, err, want)
		}
	}
}

// TestPackedRecordValue checks that a packed row's record, kept as the
// row's stream record until something merges into it, is what the record
// built from its parts would be.
func TestPackedRecordValue(t *testing.T) {
	streams := []string{
		`{"type":"text-chunks","time0":3,"index":0,"dt":[1,0],"texts":["b","c","d"]}`,
		`{"type":"reasoning-chunks","time0":3,"index":2,"dt":[],"texts":["b"]}`,
		`{"type":"tool-call-chunks","time0":2,"index":0,"dt":[1],"id":"call","name":"read","args":["}","!"]}`,
		`{"type":"tool-call-chunks","time0":2,"index":1,"dt":[-1],"id":"call","args":["{","}"]}`,
	}
	for _, text := range streams {
		r := runRecord(parse(text), 4)
		packed := r.value().String()
		r.unpack()
		if r.isPacked() {
			t.Fatalf("%s: still packed after unpack", text)
		}
		if built := r.value().String(); packed != built || packed != text {
			t.Errorf("%s: packed %s, built %s", text, packed, built)
		}
	}
}
