package report

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzReadBaseline reads arbitrary input as a baseline: never a panic, and
// a baseline that reads writes back to one that reads the same.
func FuzzReadBaseline(f *testing.F) {
	f.Add(`{"format":"dshlog-verify-baseline/1","findings":[{"file":"a","code":"open-tail","seq":3},{"file":"b","code":"torn-tail","seq":null}]}`)
	f.Add(`{"format":"dshlog-verify-baseline/1","findings":[]}`)
	f.Add(`{"format":"dshlog-verify-baseline/1","findings":[{"file":"\u2028","code":"","seq":-5}]}`)
	f.Fuzz(func(t *testing.T, text string) {
		b, err := ReadBaseline(strings.NewReader(text))
		if err != nil {
			return
		}
		var entries []BaselineEntry
		for e := range b.known {
			entries = append(entries, e)
		}
		var out bytes.Buffer
		if err := WriteBaseline(&out, entries); err != nil {
			t.Fatal(err)
		}
		again, err := ReadBaseline(&out)
		if err != nil {
			t.Fatalf("written baseline does not read: %v\n%s", err, out.String())
		}
		for e := range b.known {
			if !again.known[e] {
				t.Errorf("entry %+v lost", e)
			}
		}
	})
}
