package gen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/migrate"
)

// v0Template is the template of the bench's two v0 recipes.
const v0Template = "../../testdata/corpus/restored/bash-tool-turn/session.jsonl"

func loadV0(t testing.TB) *V0Template {
	t.Helper()
	f, err := os.Open(v0Template)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tmpl, err := LoadV0(f)
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

// TestV0IsTheBenchGenerator: the sessions V0Template writes are byte for
// byte those of bench/gen/gen-session.py on the same template. The figures
// are that script's output (python3 gen-session.py TEMPLATE OUT MB [--pad
// N], with MB×2^20 the size here); at the bench's full sizes (120, and 60
// with --pad 40000) the Go output was checked against the input sha256s of
// bench/gen/README.md's table.
func TestV0IsTheBenchGenerator(t *testing.T) {
	tmpl := loadV0(t)
	for _, tc := range []struct {
		size  int64
		pad   int
		bytes int64
		sum   string
	}{
		{1 << 18, 0, 262512, "fa491efa8d2f9d4af8de486fee6c0b0af1c13e7c38efbed036cac37e1df8f707"},
		{1 << 20, 0, 1049535, "61afdb3ed025e1398b329d8cd779be95d51d2dde85eca22be4adedb1ab1c2fc7"},
		{1 << 20, 40000, 1075440, "dcf154a6600f34d00bc669e3cd27c5d1493449ba385fb35b6a48e96a88ae9d14"},
	} {
		var out bytes.Buffer
		n, err := tmpl.Write(&out, tc.size, tc.pad)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(out.Bytes())
		if n != tc.bytes || int64(out.Len()) != tc.bytes || hex.EncodeToString(sum[:]) != tc.sum {
			t.Errorf("size %d pad %d: %d bytes (counted %d), sha256 %x; want %d bytes, sha256 %s", tc.size, tc.pad, out.Len(), n, sum, tc.bytes, tc.sum)
		}
	}
}

func TestLoadV0RefusesTurnlessTemplate(t *testing.T) {
	in := "{\"type\":\"session\",\"version\":0,\"createdAt\":1}\n{\"type\":\"x\",\"seq\":0,\"time\":1,\"data\":{}}\n"
	if _, err := LoadV0(strings.NewReader(in)); err == nil {
		t.Error("a template without a turn was accepted")
	}
}

// TestV0RecipesMigrate: both v0 recipes, at a small size, migrate to v4
// without a refusal, and the v4 file migrate writes is current: read again,
// it encodes to the same bytes.
func TestV0RecipesMigrate(t *testing.T) {
	tmpl := loadV0(t)
	for _, pad := range []int{0, 40000} {
		path := filepath.Join(t.TempDir(), "session.jsonl")
		var in bytes.Buffer
		if _, err := tmpl.Write(&in, 1<<19, pad); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, in.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		migrated := encodeFile(t, path)
		current := filepath.Join(t.TempDir(), "session.v4.jsonl")
		if err := os.WriteFile(current, migrated, 0o644); err != nil {
			t.Fatal(err)
		}
		if again := encodeFile(t, current); !bytes.Equal(again, migrated) {
			t.Errorf("pad %d: the migrated file encodes differently when read again", pad)
		}
	}
}

// encodeFile returns what migrate -o writes for the session at path.
func encodeFile(t *testing.T, path string) []byte {
	t.Helper()
	src, err := migrate.Open(path, nil, migrate.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var out bytes.Buffer
	if _, err := migrate.Encode(&out, src.Reader); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out.Bytes()
}
