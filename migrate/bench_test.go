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
	benchmarkFile(b, path, size)
}

// benchmarkFile migrates the session at path, of size bytes, to v4 as
// dshlog migrate -o does, into io.Discard, once per iteration.
func benchmarkFile(b *testing.B, path string, size int64) {
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

// v0Template is the session whose turn the v0 benchmark sessions repeat,
// the template of make bench's two v0 recipes.
const v0Template = "../testdata/corpus/restored/bash-tool-turn/session.jsonl"

// BenchmarkMigrateV0 migrates the two v0 recipes of make bench, made at
// about 16 MB by internal/gen (byte for byte what bench/gen/gen-session.py
// writes), to v4 as dshlog migrate -o does, into io.Discard: rows-heavy
// (every chunk a row or a packed run) and string-heavy (40 KB tool
// outputs).
func BenchmarkMigrateV0(b *testing.B) {
	for _, recipe := range []struct {
		name string
		pad  int
	}{{"rows-heavy", 0}, {"string-heavy", 40000}} {
		b.Run(recipe.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "session.jsonl")
			size, err := gen.WriteV0File(v0Template, path, 16<<20, recipe.pad)
			if err != nil {
				b.Fatal(err)
			}
			benchmarkFile(b, path, size)
		})
	}
}
