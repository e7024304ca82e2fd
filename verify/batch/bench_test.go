package batch

import (
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/migrate"
)

// BenchmarkJudgeSmall judges one small session, the per-file cost of a
// store of many.
func BenchmarkJudgeSmall(b *testing.B) {
	target := Target{Path: "../../testdata/corpus/restored/fs-write/session.v4.jsonl", Size: -1}
	opts := Options{Open: migrate.OpenOptions{Options: migrate.Options{Recovery: v2.Recoverable}, AnyZstdFraming: true}}
	for b.Loop() {
		if r := Judge(target, opts); r.Err != nil || len(r.Findings) > 0 {
			b.Fatal(r.Err, r.Findings)
		}
	}
}
