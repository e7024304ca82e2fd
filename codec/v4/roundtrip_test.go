package v4

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/jsonv"
)

// reencode reads a v4 file and writes it back as dsh's writer would.
func reencode(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := jsonl.NewReader(f, path)
	line, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	hv, err := jsonv.Parse(line.Text)
	if err != nil {
		t.Fatalf("%s: header: %v", path, err)
	}
	h, err := DecodeHeader(hv)
	if err != nil {
		t.Fatalf("%s: header: %v", path, err)
	}
	dec := NewDecoder(h, v2.Recoverable)
	var body []byte
	for {
		line, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		row, err := jsonv.Parse(line.Text)
		if err != nil {
			t.Fatalf("%s:%d: %v", path, line.Num, err)
		}
		ev, ok, err := dec.Decode(row)
		if err != nil {
			t.Fatalf("%s:%d: %v", path, line.Num, err)
		}
		if ok {
			body = AppendEvent(body, ev)
		}
	}
	cut, err := dec.Finish()
	if err != nil {
		t.Fatal(err)
	}
	out, err := AppendHeader(nil, h, cut)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, body...)
}

func TestRestoredV4RoundTrip(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/corpus/restored/*/*.v4.jsonl")
	edge, _ := filepath.Glob("../../testdata/corpus/golden/edge/v4-unknown-ignorable-type/session.v4.jsonl")
	files = append(files, edge...)
	if len(files) < 22 {
		t.Fatalf("found %d v4 files, want at least 22", len(files))
	}
	for _, path := range files {
		t.Run(strings.TrimPrefix(path, "../../testdata/corpus/"), func(t *testing.T) {
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := reencode(t, path); !bytes.Equal(got, want) {
				t.Errorf("re-encoded bytes differ from the input (%d vs %d bytes)", len(got), len(want))
			}
		})
	}
}
