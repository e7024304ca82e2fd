package v2to3

import (
	"os"
	"testing"
)

// BenchmarkMigrate measures the v2 codec and the edge on the largest v2
// file of the corpus.
func BenchmarkMigrate(b *testing.B) {
	data, err := os.ReadFile("../../testdata/corpus/restored/skill-load/session.v2.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := migrateBytes(data); err != nil {
			b.Fatal(err)
		}
	}
}
