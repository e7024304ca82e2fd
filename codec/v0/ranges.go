package v0

import (
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// DecodeSeqRanges expands the physical sourceEventSeqs list of the v0/v1
// event at seq with dsh's v0/v1 range decoder: the list can hold at most seq
// entries and must be strictly increasing when it uses a range. Unlike the
// v2 decoder it does not check that members are earlier than seq or unique;
// payload validation does that later where it applies.
func DecodeSeqRanges(v jsonv.Value, seq int64) ([]int64, error) {
	if v.Kind() != jsonv.Array {
		return nil, session.ErrSeqsNotArray
	}
	out := make([]int64, 0, v.Len())
	usedRange := false
	for _, entry := range v.Elements() {
		if entry.Kind() == jsonv.Number {
			if int64(len(out)) >= seq {
				return nil, errSeqsExceedSeq
			}
			n, err := Count(entry, "sourceEventSeqs member")
			if err != nil {
				return nil, err
			}
			out = append(out, n)
			continue
		}
		if entry.Kind() != jsonv.Array || entry.Len() != 2 {
			return nil, session.ErrSeqsBadPair
		}
		start, err := Count(entry.Index(0), "sourceEventSeqs range start")
		if err != nil {
			return nil, err
		}
		end, err := Count(entry.Index(1), "sourceEventSeqs range end")
		if err != nil {
			return nil, err
		}
		if end < start || end-start+1 > seq-int64(len(out)) {
			return nil, session.ErrSeqsExceed
		}
		for s := start; s <= end; s++ {
			out = append(out, s)
		}
		usedRange = true
	}
	if usedRange {
		for i := 1; i < len(out); i++ {
			if out[i] <= out[i-1] {
				return nil, session.ErrSeqsNotIncreasing
			}
		}
	}
	return out, nil
}

var errSeqsExceedSeq = session.FormatErrorf("sourceEventSeqs exceeds its event seq")
