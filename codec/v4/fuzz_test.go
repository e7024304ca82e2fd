package v4

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

// decodeEncode reads a v4 session from data as dsh's JSONL backend does (a
// torn last line is dropped, an unparsable row stops the read) and writes
// it back with the v4 encoder.
func decodeEncode(data []byte, recovery v2.Recovery) ([]byte, error) {
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
	var body []byte
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
			body = AppendEvent(body, ev)
		}
	}
	cut, err := dec.Finish()
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
	var files []string
	for _, pattern := range []string{
		"../../testdata/corpus/restored/*/*.v4.jsonl",
		"../../testdata/corpus/golden/edge/v4-*/*.jsonl",
		"../../testdata/corpus/bad-logs/*/*.v4.jsonl",
		"../../testdata/seed-vectors/*.v4.jsonl",
	} {
		matches, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		files = append(files, matches...)
	}
	if len(files) < 40 {
		f.Fatalf("found %d seed files, want at least 40", len(files))
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		// Short prefixes too: small inputs let the fuzzer reach the rows.
		lines := bytes.SplitAfter(data, []byte("\n"))
		f.Add(bytes.Join(lines[:min(len(lines), 4)], nil))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, recovery := range []v2.Recovery{v2.Strict, v2.Recoverable} {
			out, err := decodeEncode(data, recovery)
			if err != nil {
				checkErrorType(t, err)
				continue
			}
			again, err := decodeEncode(out, recovery)
			if err != nil {
				t.Fatalf("%v: own output does not decode: %v\n%s", recovery, err, out)
			}
			if !bytes.Equal(again, out) {
				t.Fatalf("%v: encoding is not stable:\n%s\nthen\n%s", recovery, out, again)
			}
		}
	})
}

// checkErrorType fails unless err is one of the errors the layers under the
// v4 codec are documented to return.
func checkErrorType(t *testing.T, err error) {
	t.Helper()
	if err == io.EOF {
		return // an empty file
	}
	var refusal *session.Refusal
	var syntax *jsonv.SyntaxError
	var located *jsonl.Error
	if !errors.As(err, &refusal) && !errors.As(err, &syntax) && !errors.As(err, &located) {
		t.Fatalf("untyped error %T: %v", err, err)
	}
}
