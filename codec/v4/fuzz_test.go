package v4

import (
	"bytes"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// decodeEncode reads a v4 session from data as dsh's JSONL backend does (a
// torn last line is dropped, an unparsable row stops the read) and writes
// it back with the v4 encoder.
func decodeEncode(data []byte, recovery v2.Recovery) ([]byte, error) {
	var h session.Header
	var body []byte
	cut, err := sessiontest.ReadSession(data,
		func(hv jsonv.Value) (_ sessiontest.Decoder, err error) {
			if h, err = DecodeHeader(hv); err != nil {
				return nil, err
			}
			return NewDecoder(h, recovery), nil
		},
		func(ev session.Event) error {
			body = AppendEvent(body, ev)
			return nil
		})
	if err != nil {
		return nil, err
	}
	out, err := AppendHeader(nil, h, cut)
	if err != nil {
		return nil, err
	}
	return append(out, body...), nil
}

// FuzzV4Decode feeds arbitrary files through the v4 codec: it must refuse
// with dsh's typed errors, never panic, and what it writes must read back
// to the same bytes.
func FuzzV4Decode(f *testing.F) {
	files := sessiontest.Glob(f,
		"../../testdata/corpus/restored/*/*.v4.jsonl",
		"../../testdata/corpus/golden/edge/v4-*/*.jsonl",
		"../../testdata/corpus/bad-logs/*/*.v4.jsonl",
		"../../testdata/seed-vectors/*.v4.jsonl",
	)
	if len(files) < 40 {
		f.Fatalf("found %d seed files, want at least 40", len(files))
	}
	for _, data := range sessiontest.Seed(f, files) {
		// Short prefixes too: small inputs let the fuzzer reach the rows.
		lines := bytes.SplitAfter(data, []byte("\n"))
		f.Add(bytes.Join(lines[:min(len(lines), 4)], nil))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, recovery := range []v2.Recovery{v2.Strict, v2.Recoverable} {
			decode := func(data []byte) ([]byte, error) { return decodeEncode(data, recovery) }
			sessiontest.CheckStable(t, recovery.String(), data, decode, decode)
		}
	})
}
