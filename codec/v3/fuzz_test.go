package v3

import (
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// decodeAll reads a v3 session from data (a torn last line is dropped, an
// unparsable row stops the read), restores it, and returns the accepted
// rows re-encoded with the header line first.
func decodeAll(data []byte, recovery v2.Recovery) ([]byte, error) {
	var out []byte
	var restorer *Restorer
	cut, err := sessiontest.ReadSession(data,
		func(hv jsonv.Value) (sessiontest.Decoder, error) {
			h, err := DecodeHeader(hv)
			if err != nil {
				return nil, err
			}
			restorer = NewRestorer(h)
			out = append(hv.Append(nil), '\n')
			return NewDecoder(h, recovery), nil
		},
		func(ev session.Event) error {
			restorer.Add(ev)
			out = append(v2.EncodeEvent(out, ev), '\n')
			return nil
		})
	if err != nil {
		return nil, err
	}
	_ = restorer.Finish(cut) // a refusal is a valid outcome; it must not panic
	return out, nil
}

// FuzzV3Decode feeds arbitrary files through the v3 codec and the artifact
// restore: they must refuse with typed errors, never panic, and what the
// decoder accepted must decode again unchanged.
func FuzzV3Decode(f *testing.F) {
	files := sessiontest.Glob(f,
		"../../testdata/corpus/restored/*/*.v3.jsonl",
		"../../testdata/corpus/golden/edge/*/*.v3.jsonl",
		"../../testdata/corpus/golden/edge2/v3-*/*.v3.jsonl",
	)
	if len(files) < 30 {
		f.Fatalf("found %d seed files", len(files))
	}
	sessiontest.Seed(f, files)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, recovery := range []v2.Recovery{v2.Strict, v2.Recoverable} {
			sessiontest.CheckStable(t, recovery.String(), data,
				func(data []byte) ([]byte, error) { return decodeAll(data, recovery) },
				func(out []byte) ([]byte, error) { return decodeAll(out, v2.Strict) })
		}
	})
}
