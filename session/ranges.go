package session

import (
	"github.com/dshlog/dshlog/jsonv"
)

// The refusals of dsh's v2 sourceEventSeqs range decoder, word for word.
var (
	ErrSeqsNotArray      = FormatErrorf("sourceEventSeqs must be an array")
	ErrSeqsBadPair       = FormatErrorf("sourceEventSeqs range must be a [start, end] pair")
	ErrSeqsExceed        = FormatErrorf("sourceEventSeqs range exceeds its event seq")
	ErrSeqsNotUnique     = FormatErrorf("sourceEventSeqs ranges must contain unique earlier seqs")
	ErrSeqsNotIncreasing = FormatErrorf("sourceEventSeqs ranges must be strictly increasing")
	errMemberNotCount    = FormatErrorf("sourceEventSeqs member must be a non-negative safe integer")
	errStartNotCount     = FormatErrorf("sourceEventSeqs range start must be a non-negative safe integer")
	errEndNotCount       = FormatErrorf("sourceEventSeqs range end must be a non-negative safe integer")
)

// DecodeSeqRanges expands a physical sourceEventSeqs list of the event at seq
// and checks it as dsh's v2 codec does (shared by v3 and v4): members are
// counts or [start, end] pairs, all earlier than seq and unique, strictly
// increasing when a range was used.
func DecodeSeqRanges(v jsonv.Value, seq int64) ([]int64, error) {
	if v.Kind() != jsonv.Array {
		return nil, ErrSeqsNotArray
	}
	out := make([]int64, 0, v.Len())
	usedRange := false
	for _, member := range v.Elements() {
		if member.Kind() != jsonv.Array {
			n, ok := member.Count()
			if !ok {
				return nil, errMemberNotCount
			}
			out = append(out, n)
			continue
		}
		if member.Len() != 2 {
			return nil, ErrSeqsBadPair
		}
		start, ok := member.Index(0).Count()
		if !ok {
			return nil, errStartNotCount
		}
		end, ok := member.Index(1).Count()
		if !ok {
			return nil, errEndNotCount
		}
		if end < start || end >= seq || end-start+1 > seq-int64(len(out)) {
			return nil, ErrSeqsExceed
		}
		usedRange = true
		for s := start; s <= end; s++ {
			out = append(out, s)
		}
	}
	seen := make(map[int64]struct{}, len(out))
	for _, s := range out {
		if _, dup := seen[s]; dup || s >= seq {
			return nil, ErrSeqsNotUnique
		}
		seen[s] = struct{}{}
	}
	if usedRange && !strictlyIncreasing(out) {
		return nil, ErrSeqsNotIncreasing
	}
	return out, nil
}

// ExpandSeqRanges expands ranges without checking them; non-count members
// are skipped.
func ExpandSeqRanges(v jsonv.Value) []int64 {
	var out []int64
	for _, member := range v.Elements() {
		if member.Kind() == jsonv.Array {
			start, ok1 := member.Index(0).Count()
			end, ok2 := member.Index(1).Count()
			for s := start; ok1 && ok2 && s <= end; s++ {
				out = append(out, s)
			}
			continue
		}
		if n, ok := member.Count(); ok {
			out = append(out, n)
		}
	}
	return out
}

// EncodeSeqRanges writes seqs as dsh's writer does: a list that is not
// strictly increasing verbatim, otherwise each maximal run of three or more
// consecutive seqs as [start, end] and shorter runs as plain numbers.
func EncodeSeqRanges(seqs []int64) jsonv.Value {
	elems := make([]jsonv.Value, 0, len(seqs))
	if !strictlyIncreasing(seqs) {
		for _, s := range seqs {
			elems = append(elems, jsonv.IntValue(s))
		}
		return jsonv.ArrayValue(elems...)
	}
	for i := 0; i < len(seqs); {
		j := i + 1
		for j < len(seqs) && seqs[j] == seqs[j-1]+1 {
			j++
		}
		if j-i >= 3 {
			elems = append(elems, jsonv.ArrayValue(jsonv.IntValue(seqs[i]), jsonv.IntValue(seqs[j-1])))
		} else {
			for _, s := range seqs[i:j] {
				elems = append(elems, jsonv.IntValue(s))
			}
		}
		i = j
	}
	return jsonv.ArrayValue(elems...)
}

func strictlyIncreasing(seqs []int64) bool {
	for i := 1; i < len(seqs); i++ {
		if seqs[i] <= seqs[i-1] {
			return false
		}
	}
	return true
}
