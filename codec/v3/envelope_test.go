package v3

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// refCheckEvent is checkEvent as it was before it read the envelope in one
// pass: the oracle the one pass must agree with; admitted says the row has passed
// CheckStructuralRow already, which need not run again.
func refCheckEvent(row jsonv.Value, known func(string) bool, admitted bool) error {
	value, err := Record(row, "format v3 event")
	if err != nil {
		return err
	}
	typeValue, hasType := value.Get("type")
	typ := typeValue.Text()
	seqValue, hasSeq := value.Get("seq")
	subject := func() string {
		return "format v3 " + jsform.String(typeValue, hasType) + " at seq " + jsform.String(seqValue, hasSeq)
	}
	opaque := !isKnown(typ, known)
	optional := []string{"ignorable"}
	if surfaceTypes[typ] || opaque {
		optional = []string{"ignorable", "surfaceOp", "sourceEventSeqs"}
	}
	if err := Fields(value, []string{"type", "seq", "time", "data"}, optional, subject); err != nil {
		return err
	}
	if typeValue.Kind() != jsonv.String {
		return session.FormatErrorf("%s type must be a string", subject())
	}
	seq, ok := seqValue.Count()
	if !ok {
		return session.FormatErrorf("%s seq must be a non-negative safe integer", subject())
	}
	if _, ok := value.Field("time").SafeInt(); !ok {
		return session.FormatErrorf("%s time must be a safe integer", subject())
	}
	if ig, ok := value.Get("ignorable"); ok && !ig.IsTrue() {
		return session.FormatErrorf("%s ignorable must be true when present", subject())
	}
	if surfaceTypes[typ] {
		if err := refCheckSurface(value, typ, seq, subject); err != nil {
			return err
		}
	}
	if !admitted {
		if err := CheckStructuralRow(value); err != nil {
			return err
		}
	}
	return checkCanonicalPayload(value, typ, subject)
}

func refCheckSurface(value jsonv.Value, typ string, seq int64, subject func() string) error {
	op, ok := value.Get("surfaceOp")
	if !ok {
		return session.FormatErrorf("%s requires a surfaceOp marker", subject())
	}
	if op.Text() != "append" {
		if op.Kind() != jsonv.Object {
			return session.FormatErrorf("%s surfaceOp must be an object", subject())
		}
		if op.Len() != 3 || op.Field("op").Text() != "replace" || !op.Has("startSeq") || !op.Has("endSeq") {
			return session.FormatErrorf("%s requires exact replace fields op/startSeq/endSeq", subject())
		}
		for _, key := range []string{"startSeq", "endSeq"} {
			n, ok := op.Field(key).Count()
			if !ok {
				return session.FormatErrorf("%s surfaceOp %s must be a non-negative safe integer", subject(), key)
			}
			if n >= seq {
				return session.FormatErrorf("%s replacement endpoints must reference earlier events", subject())
			}
		}
	}
	sources, ok := value.Get("sourceEventSeqs")
	if !ok {
		return nil
	}
	if typ == "assistant/message" {
		return session.FormatErrorf("%s embeds its stream and cannot carry sourceEventSeqs", subject())
	}
	if sources.Kind() != jsonv.Array || sources.Len() == 0 {
		return session.FormatErrorf("%s sourceEventSeqs must be a non-empty array", subject())
	}
	return uniqueEarlierSeqs(sources, seq, subject)
}

// envelopeRows are rows in the corners of the envelope check: members
// missing, repeated, unexpected before and after the surface members, on
// surface, log-only, opaque and known-by-callback types.
var envelopeRows = []string{
	`{}`, `{"type":"user/message"}`, `{"seq":0,"time":0,"data":{}}`, `{"type":1,"seq":0,"time":0,"data":{}}`,
	`{"type":"user/message","seq":0,"time":0,"data":{}}`,
	`{"type":"user/message","seq":0,"time":0,"data":{},"surfaceOp":"append","sourceEventSeqs":[]}`,
	`{"type":"turn/start","seq":0,"time":0,"data":{},"surfaceOp":"append","x":1}`,
	`{"type":"turn/start","seq":0,"time":0,"data":{},"x":1,"sourceEventSeqs":[1]}`,
	`{"type":"turn/start","seq":0,"time":0,"sourceEventSeqs":[1],"data":{},"surfaceOp":"append"}`,
	`{"type":"vendor/x","seq":0,"time":0,"data":{},"surfaceOp":"append","y":2}`,
	`{"type":"vendor/x","seq":0,"time":0,"data":{},"ignorable":false}`,
	`{"type":"tool/code-dispatch","seq":0,"time":0,"data":{},"surfaceOp":"append"}`,
	`{"type":"session/title","seq":0,"time":0,"data":{},"surfaceOp":"append"}`,
	`{"x":1,"type":"user/message","type":"turn/start","seq":-0,"time":1.5,"data":{}}`,
	`{"type":"user/message","seq":3,"time":0,"data":{"role":"user","content":[],"source":{"kind":"user"},"id":"m"},"surfaceOp":{"op":"replace","startSeq":1,"endSeq":2},"sourceEventSeqs":[1,1]}`,
	`{"type":"user/message","seq":3,"time":0,"data":{},"surfaceOp":{"op":"replace","startSeq":1}}`,
	`{"type":"assistant/message","seq":3,"time":0,"data":{},"surfaceOp":"append","sourceEventSeqs":[1]}`,
	`{"type":"user/message","seq":1,"time":0,"data":{},"surfaceOp":"append","sourceEventSeqs":[[0,5]]}`,
	`{"0":1,"type":"user/message","seq":1,"time":0,"data":{}}`,
	`[]`, `"row"`,
}

func agreeOnEnvelope(t *testing.T, row []byte) {
	t.Helper()
	v, err := jsonv.Parse(row)
	if err != nil {
		return
	}
	for _, known := range []func(string) bool{nil, IsReleasedEventType, func(typ string) bool { return strings.HasPrefix(typ, "vendor/") }} {
		for _, admitted := range []bool{false, true} {
			fresh, _ := jsonv.Parse(row)
			got, want := checkEvent(v, known, admitted), refCheckEvent(fresh, known, admitted)
			if refusal(got) != refusal(want) {
				t.Errorf("row %s (admitted %v):\n got %v\nwant %v", row, admitted, got, want)
			}
		}
	}
}

func refusal(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestCheckEventAgreesWithReference requires checkEvent to refuse every row
// of every JSON-lines file under testdata, and the rows above, as the
// reference does.
func TestCheckEventAgreesWithReference(t *testing.T) {
	rows := 0
	filepath.WalkDir("../../testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(d.Name(), ".jsonl") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			agreeOnEnvelope(t, line)
			rows++
		}
		return nil
	})
	if rows < 10000 {
		t.Fatalf("only %d rows under testdata", rows)
	}
	for _, row := range envelopeRows {
		agreeOnEnvelope(t, []byte(row))
	}
}

// FuzzCheckEventAgreesWithReference: any row is refused as the reference
// refuses it.
func FuzzCheckEventAgreesWithReference(f *testing.F) {
	for _, row := range envelopeRows {
		f.Add([]byte(row))
	}
	f.Fuzz(func(t *testing.T, row []byte) { agreeOnEnvelope(t, row) })
}
