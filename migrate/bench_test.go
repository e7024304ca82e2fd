package migrate_test

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/dshlog/dshlog/internal/gen"
	"github.com/dshlog/dshlog/migrate"
)

// benchTemplate is the session whose turn the benchmark session repeats,
// the v3 recipe make bench uses.
const benchTemplate = "../testdata/corpus/restored/fs-write/session.v3.jsonl"

// BenchmarkMigrate migrates a generated ~16 MB v3 session to v4, as
// dshlog migrate -o does, into io.Discard.
func BenchmarkMigrate(b *testing.B) {
	path := filepath.Join(b.TempDir(), "session.v3.jsonl")
	size, err := gen.WriteFile(benchTemplate, path, 16<<20)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		s, err := migrate.Open(path, nil, migrate.OpenOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := migrate.Encode(io.Discard, s.Reader); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
