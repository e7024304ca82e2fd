package rescue

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dshlog/dshlog/migrate"

	"github.com/dshlog/dshlog/internal/gen"
)

// BenchmarkRescueDamagedTail rescues a generated 8 MB log whose last row
// but one is damaged (a scan, a verify of the source, the candidate
// written, closed and verified), beside a plain verify of the same file
// for the ratio.
func BenchmarkRescueDamagedTail(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "session.v4.jsonl")
	size, err := gen.WriteFile(loopEvents, path, 8<<20)
	if err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	end := len(data) - 2
	for data[end] != '\n' {
		end--
	}
	prev := end - 1
	for data[prev] != '\n' {
		prev--
	}
	copy(data[prev+1:], "{{")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("rescue", func(b *testing.B) {
		b.SetBytes(size)
		for range b.N {
			_, out, err := Rescue(path, dir, Options{Now: func() int64 { return 0 }})
			if err != nil || out == "" {
				b.Fatal(err)
			}
			os.Remove(out)
		}
	})
	b.Run("verify", func(b *testing.B) {
		b.SetBytes(size)
		for range b.N {
			if problems, err := errorsOf(path, migrate.Options{}); err != nil || len(problems) == 0 {
				b.Fatal(err)
			}
		}
	})
}
