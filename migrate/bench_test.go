package migrate_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/dshlog/dshlog/internal/gen"
	"github.com/dshlog/dshlog/migrate"
)

// benchTemplate is the session whose turn the benchmark session repeats,
// the one make bench-migrate uses.
const benchTemplate = "../testdata/corpus/restored/fs-write/session.v3.jsonl"

// BenchmarkMigrate migrates a generated ~16 MB v3 session to v4, as
// dshlog migrate -o does, into io.Discard.
func BenchmarkMigrate(b *testing.B) {
	src, err := os.Open(benchTemplate)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	tmpl, err := gen.Load(src)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "session.v3.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	size, err := tmpl.Write(f, 16<<20)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
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
