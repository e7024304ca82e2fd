package snapshot

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// fuzzSeeds are small snapshots and logs of every kind the verbs read.
func fuzzSeeds(f *testing.F) {
	for _, path := range []string{
		"dsh/provider-cwd/session.v4.jsonl",
		"dsh/bash-tool-turn/session.jsonl",
		"restored/provider-cwd/session.v3.jsonl",
		"mainline/compaction-recovery/session.v4.jsonl",
		"fork-logs/v0-line/SparkElf+deepseek-harness-plus/advanced/session.1.jsonl",
	} {
		data, err := os.ReadFile(filepath.Join(corpus, path))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"type":"session","createdAt":0}` + "\n" + `{"type":"text-chunks","data":{"texts":["a"]},"sourceEventSeqs":[1,2,3,[4,5]]}`))
}

// FuzzRestore feeds arbitrary text to Restore: it may refuse, never panic,
// and what it writes is one JSON row per line, with no placeholder left.
func FuzzRestore(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		if err := Restore(&out, bytes.NewReader(data), "fuzz", RestoreOptions{Values: Defaults(), Replace: scopeReplacements()}); err != nil {
			return
		}
		if out.Len() > 0 && !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
			t.Fatalf("output does not end with a newline")
		}
		if left := placeholderPattern.Find(out.Bytes()); left != nil {
			t.Fatalf("placeholder %s left in the output", left)
		}
	})
}

// FuzzNormalize feeds arbitrary text to Normalize and Check: they may
// refuse, never panic, and a normalized log checks clean against itself.
func FuzzNormalize(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		if err := Normalize(&out, bytes.NewReader(data), "fuzz", NormalizeOptions{IDFormats: Defaults().IDFormats}); err != nil {
			return
		}
		diff, err := Check(bytes.NewReader(data), "log", io.Reader(bytes.NewReader(out.Bytes())), "snapshot", NormalizeOptions{IDFormats: Defaults().IDFormats})
		if err != nil || diff != nil {
			t.Fatalf("a log differs from its own normalized form: %v %+v", err, diff)
		}
	})
}
