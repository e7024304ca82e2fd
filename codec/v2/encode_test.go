package v2

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// encodeEventByCompressing is EncodeEvent without its shortcut: it always
// expands sourceEventSeqs and compresses them again.
func encodeEventByCompressing(dst []byte, ev session.Event) []byte {
	ranges, present := ev.Row.Get("sourceEventSeqs")
	if !present {
		return ev.Row.Append(dst)
	}
	compressed := session.EncodeSeqRanges(session.ExpandSeqRanges(ranges))
	if jsonv.Equal(compressed, ranges) {
		return ev.Row.Append(dst)
	}
	return ev.Row.With("sourceEventSeqs", compressed).Append(dst)
}

// seqRangesCases are sourceEventSeqs values in and around the compressed
// form: runs of two and three, pairs next to counts, short and reversed
// pairs, unsorted and repeated seqs, -0, fractions and other kinds.
var seqRangesCases = []string{
	`[]`, `[0]`, `[5]`, `[1,2]`, `[1,2,3]`, `[1,2,4]`, `[1,2,4,5]`, `[1,2,4,5,6]`,
	`[[1,3]]`, `[[1,2]]`, `[[1,1]]`, `[[3,1]]`, `[[1,3],4]`, `[[1,3],5]`, `[0,[2,4]]`, `[1,[2,4]]`,
	`[[1,3],[4,6]]`, `[[1,3],[5,7]]`, `[[1,3,5]]`, `[[1]]`, `[[]]`, `[[1,"3"]]`, `[3,2]`, `[2,2]`,
	`[19,20,8,9]`, `[-0]`, `[-1]`, `[1.5]`, `["1"]`, `[null]`, `[1e0,2e0]`, `[9007199254740992]`,
	`{}`, `"1"`, `null`, `[[0,99]]`, `[1,2,[4,6],8,9,[11,20]]`,
}

// TestCompressedSeqRangesAgrees requires EncodeEvent's shortcut to write
// what compressing the expansion writes, for the cases above and for random
// lists, and to take the shortcut for every list dsh's writer leaves.
func TestCompressedSeqRangesAgrees(t *testing.T) {
	texts := append([]string(nil), seqRangesCases...)
	rng := rand.New(rand.NewPCG(7, 8))
	pieces := []func(last int) string{
		func(last int) string { return strconv.Itoa(last + 1) },
		func(last int) string { return strconv.Itoa(last + 2) },
		func(last int) string { return strconv.Itoa(last + 1 + rng.IntN(5)) },
		func(last int) string { return strconv.Itoa(rng.IntN(last + 2)) },
		func(last int) string {
			s := last + 1 + rng.IntN(3)
			return "[" + strconv.Itoa(s) + "," + strconv.Itoa(s+rng.IntN(5)) + "]"
		},
		func(last int) string { return "[" + strconv.Itoa(rng.IntN(9)) + "," + strconv.Itoa(rng.IntN(9)) + "]" },
	}
	for range 20000 {
		var members []string
		last := -1
		for range rng.IntN(8) {
			m := pieces[rng.IntN(len(pieces))](last)
			members = append(members, m)
			if v, err := jsonv.Parse([]byte(m)); err == nil {
				if n, ok := v.Count(); ok {
					last = int(n)
				} else if end, ok := v.Index(1).Count(); ok {
					last = int(end)
				}
			}
		}
		texts = append(texts, "["+strings.Join(members, ",")+"]")
	}
	for _, text := range texts {
		ranges, err := jsonv.Parse([]byte(text))
		if err != nil {
			t.Fatalf("bad case %s: %v", text, err)
		}
		ev := session.Event{Row: jsonv.ObjectValue(jsonv.M("seq", jsonv.IntValue(100)), jsonv.M("sourceEventSeqs", ranges))}
		if got, want := string(EncodeEvent(nil, ev)), string(encodeEventByCompressing(nil, ev)); got != want {
			t.Errorf("sourceEventSeqs %s: EncodeEvent wrote %s, want %s", text, got, want)
		}
		seqs := session.ExpandSeqRanges(ranges)
		if compressed := session.EncodeSeqRanges(seqs); strictlyIncreasing(seqs) && !compressedSeqRanges(compressed) {
			t.Errorf("dsh's compressed form %s of %s is not recognized", compressed, text)
		}
	}
}

func strictlyIncreasing(seqs []int64) bool {
	for i := 1; i < len(seqs); i++ {
		if seqs[i] <= seqs[i-1] {
			return false
		}
	}
	return true
}
