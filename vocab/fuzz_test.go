package vocab

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dshlog/dshlog/jsonv"
)

// FuzzParse feeds declaration files of every kind to Parse and checks a
// payload against each schema it yields: no input may panic, and every
// declared name is a valid type name.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join(builds, "*/docs/persistence-changes/2026-09-2*.schema.json"))
	seeds = append(seeds, filepath.Join(builds, "fork-hebilicious/packages/core/session/src/known-event-types.ts"),
		"../testdata/fork-logs-more/changanhua-cordis-tool-round/domain.ts")
	for _, path := range seeds {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data, []byte(`{"harness":"x","tools":["a"]}`))
		}
	}
	f.Add([]byte("agent/harness\n# c\n"), []byte(`{}`))
	f.Add([]byte(`{"roots":[{"kind":"event","event":"a/b","schema":{"root":0,"nodes":[{"kind":"object","properties":[{"name":"data","type":0}]}]}}]}`), []byte(`{"data":{"data":{}}}`))
	f.Fuzz(func(t *testing.T, file, payload []byte) {
		d, err := Parse(file)
		if err != nil {
			return
		}
		value, perr := jsonv.Parse(payload)
		for _, typ := range d.Types {
			if checkName(typ.Name) != nil {
				t.Fatalf("declared an invalid name %q", typ.Name)
			}
			if typ.Schema != nil && perr == nil {
				_ = typ.Schema.Check(value, "data")
			}
		}
	})
}
