package v2to3_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/migrate"
)

// TestVectorAThroughTheChain runs V-A of format-v2-v4.md through dsh's
// whole v2→v4 chain and writer: the bytes must be those dsh writes.
func TestVectorAThroughTheChain(t *testing.T) {
	input, err := os.ReadFile("testdata/vector-a.v2.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/vector-a.v4.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	r, err := migrate.NewReader(jsonl.NewReader(bytes.NewReader(input), "vector-a.v2.jsonl"), migrate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := migrate.Encode(&out, r); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("got\n%s\nwant\n%s", out.Bytes(), want)
	}
}
