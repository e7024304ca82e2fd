package rescue

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dshlog/dshlog/migrate"
)

// FuzzRescue feeds arbitrary files to Rescue: it never panics, leaves its
// input as it was, and any result it returns passes verify.
func FuzzRescue(f *testing.F) {
	for _, path := range []string{loopEvents, compactionRecovery,
		"../testdata/rescue/two-writers/session.v4.jsonl", "../testdata/rescue/damaged-row/session.v4.jsonl",
		"../testdata/rescue/compaction-crossed-turn-start/session.v4.jsonl"} {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"type":"session","version":4,"id":"x","createdAt":0,"isSeeded":false}` + "\n" + `{"seq":0}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "session.v4.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		res, out, err := Rescue(path, dir, Options{Now: func() int64 { return 0 }})
		if now, _ := os.ReadFile(path); string(now) != string(data) {
			t.Fatal("the input changed")
		}
		if err != nil || res.Healthy {
			return
		}
		if problems, err := errorsOf(out, migrate.Options{}); err != nil || len(problems) > 0 {
			t.Fatalf("the result does not verify: %v %+v", err, problems)
		}
	})
}
