package v3

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// decodeAll reads a v3 session from data (a torn last line is dropped, an
// unparsable row stops the read), restores it, and returns the accepted
// rows re-encoded with the header line first.
func decodeAll(data []byte, recovery v2.Recovery) ([]byte, error) {
	lines := jsonl.NewReader(bytes.NewReader(data), "fuzz")
	line, err := lines.Next()
	if err != nil {
		return nil, err
	}
	hv, err := jsonv.Parse(line.Text)
	if err != nil {
		return nil, err
	}
	h, err := DecodeHeader(hv)
	if err != nil {
		return nil, err
	}
	dec := NewDecoder(h, recovery)
	restorer := NewRestorer(h)
	out := append(hv.Append(nil), '\n')
	for {
		line, err := lines.Next()
		if err == io.EOF || (err == nil && line.Torn) {
			break
		}
		if err != nil {
			return nil, err
		}
		row, err := jsonv.Parse(line.Text)
		if err != nil {
			return nil, err
		}
		ev, ok, err := dec.Decode(row)
		if err != nil {
			return nil, err
		}
		if ok {
			restorer.Add(ev)
			out = append(v2.EncodeEvent(out, ev), '\n')
		}
	}
	cut, err := dec.Finish()
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
	var files []string
	for _, pattern := range []string{
		"../../testdata/corpus/restored/*/*.v3.jsonl",
		"../../testdata/corpus/golden/edge/*/*.v3.jsonl",
		"../../testdata/corpus/golden/edge2/v3-*/*.v3.jsonl",
	} {
		matches, _ := filepath.Glob(pattern)
		files = append(files, matches...)
	}
	if len(files) < 30 {
		f.Fatalf("found %d seed files", len(files))
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, recovery := range []v2.Recovery{v2.Strict, v2.Recoverable} {
			out, err := decodeAll(data, recovery)
			if err != nil {
				checkErrorType(t, err)
				continue
			}
			again, err := decodeAll(out, v2.Strict)
			if err != nil {
				t.Fatalf("%v: accepted rows do not decode again: %v\n%s", recovery, err, out)
			}
			if !bytes.Equal(again, out) {
				t.Fatalf("%v: decoding is not stable:\n%s\nthen\n%s", recovery, out, again)
			}
		}
	})
}

func checkErrorType(t *testing.T, err error) {
	t.Helper()
	if err == io.EOF {
		return
	}
	var refusal *session.Refusal
	var syntax *jsonv.SyntaxError
	var located *jsonl.Error
	if !errors.As(err, &refusal) && !errors.As(err, &syntax) && !errors.As(err, &located) {
		t.Fatalf("untyped error %T: %v", err, err)
	}
}
