package snapshot

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/dshlog/dshlog/internal/gen"
)

// benchLog makes a recorded session of about 8 MB from the loop seed vector.
func benchLog(b *testing.B) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "bench.v4.jsonl")
	if _, err := gen.WriteFile("../testdata/seed-vectors/loop-events.v4.jsonl", path, 8<<20); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkNormalize normalizes a generated 8 MB session; it reports MB/s.
func BenchmarkNormalize(b *testing.B) {
	path := benchLog(b)
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	info, _ := f.Stat()
	b.SetBytes(info.Size())
	for b.Loop() {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			b.Fatal(err)
		}
		if err := Normalize(io.Discard, f, path, NormalizeOptions{IDFormats: Defaults().IDFormats}); err != nil {
			b.Fatal(err)
		}
	}
}
