package v1to2_test

import (
	"bytes"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/internal/sessiontest"
)

// FuzzV1to2 feeds arbitrary v0/v1 files through the codec and the chain to
// v2. It must never panic and must refuse only with dsh's typed refusals;
// what it migrates must be a v2 file the v2 codec reads back with the same
// cut; and feeding the packed chunk rows as single chunk events must give
// the same file, as dsh's accumulator and its packed-row merge agree (a
// packed tool call named "" is the one known exception, §9.3 of the note).
func FuzzV1to2(f *testing.F) {
	sessiontest.Seed(f, sessiontest.Glob(f,
		"../../testdata/corpus/restored/*/session.jsonl",
		"../../testdata/corpus/restored/*/session.[0-9].jsonl",
		"../../testdata/corpus/golden/edge2/v[01]-*/session*.jsonl",
		"testdata/vectors/*/session.jsonl",
		"testdata/vectors/*/session.v1.jsonl",
	))
	f.Fuzz(func(t *testing.T, data []byte) {
		packed, err := migrateToV2(data, v2.Recoverable, false)
		if err != nil {
			if !sessiontest.Typed(err) && err != errNotV0V1 {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		expanded, err := migrateToV2(data, v2.Recoverable, true)
		if err == nil && !bytes.Equal(packed, expanded) && !bytes.Contains(data, []byte(`"name":""`)) {
			t.Fatalf("packed rows and their expansion migrate differently:\n%s\n---\n%s", packed, expanded)
		}
	})
}
