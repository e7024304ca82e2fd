package v3to4

import (
	"bytes"
	"errors"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// readV4 reads a v4 file as dsh's native reader does (admission, framing,
// restore) and writes it back.
func readV4(data []byte) ([]byte, error) {
	headerLine, body, _ := bytes.Cut(data, []byte("\n"))
	body = bytes.TrimSuffix(body, []byte("\n"))
	hv, err := jsonv.Parse(headerLine)
	if err != nil {
		return nil, err
	}
	h, err := v4.DecodeHeader(hv)
	if err != nil {
		return nil, err
	}
	dec := v4.NewDecoder(h, v2.Strict)
	restorer := v4.NewRestorer(h, vocab.Zdsh.Vocabulary())
	var out []byte
	if len(body) > 0 {
		for _, line := range bytes.Split(body, []byte("\n")) {
			row, err := jsonv.Parse(line)
			if err != nil {
				return nil, err
			}
			ev, _, err := dec.Decode(row)
			if err != nil {
				return nil, err
			}
			restorer.Add(ev)
			out = v4.AppendEvent(out, ev)
		}
	}
	cut, err := dec.Finish()
	if err == nil {
		err = restorer.Finish(cut)
	}
	if err != nil {
		return nil, err
	}
	file, err := v4.AppendHeader(nil, h, cut)
	return append(file, out...), err
}

// FuzzV3ToV4 migrates arbitrary v3 files: the edge must never panic, must
// refuse only with dsh's refusals, and whatever it writes must be a v4 file
// dsh's native reader accepts and reads back to the same bytes.
func FuzzV3ToV4(f *testing.F) {
	sessiontest.Seed(f, sessiontest.Glob(f,
		"../../testdata/corpus/restored/*/session*.v3.jsonl",
		"../../testdata/corpus/golden/edge*/*/session.v3.jsonl",
		"testdata/*/*.v3.jsonl",
	))
	children := []ChildFact{{ChildID: "c", ChildCreatedAt: 2, DescriptorCount: 1,
		Descriptor: mustParse(`{"version":3,"provider":"spawn","mode":"continuable","label":"l"}`)}}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := pipeline(data, children, v2.Recoverable)
		if err != nil {
			var r *session.Refusal
			if !errors.As(err, &r) {
				t.Fatalf("error is not a dsh refusal: %v", err)
			}
			return
		}
		again, err := readV4(out)
		if err != nil {
			t.Fatalf("the migrated file is refused: %v\n%s", err, out)
		}
		if !bytes.Equal(again, out) {
			t.Fatalf("the migrated file does not read back to itself")
		}
	})
}
