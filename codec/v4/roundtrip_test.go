package v4

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/internal/sessiontest"
)

// TestRestoredV4RoundTrip reads every restored v4 file (recoverably, as the
// fuzz target does) and writes it back: the bytes must be the file's own.
func TestRestoredV4RoundTrip(t *testing.T) {
	files := sessiontest.Glob(t,
		"../../testdata/corpus/restored/*/*.v4.jsonl",
		"../../testdata/corpus/golden/edge/v4-unknown-ignorable-type/session.v4.jsonl",
	)
	if len(files) < 22 {
		t.Fatalf("found %d v4 files, want at least 22", len(files))
	}
	for _, path := range files {
		t.Run(strings.TrimPrefix(path, "../../testdata/corpus/"), func(t *testing.T) {
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// Written back as dsh's writer would.
			got, err := decodeEncode(want, v2.Recoverable)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("re-encoded bytes differ from the input (%d vs %d bytes)", len(got), len(want))
			}
		})
	}
}
