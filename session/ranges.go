package session

import (
	"cmp"
	"slices"

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
// after CheckSeqRanges accepted it.
func DecodeSeqRanges(v jsonv.Value, seq int64) ([]int64, error) {
	if err := CheckSeqRanges(v, seq); err != nil {
		return nil, err
	}
	return ExpandSeqRanges(v), nil
}

// CheckSeqRanges checks a physical sourceEventSeqs list of the event at seq
// as dsh's v2 codec does (shared by v3 and v4): members are counts or
// [start, end] pairs, all earlier than seq and unique, strictly increasing
// when a range was used. It works on the members as intervals and never
// expands them, so a row claiming an enormous range costs nothing.
func CheckSeqRanges(v jsonv.Value, seq int64) error {
	if v.Kind() != jsonv.Array {
		return ErrSeqsNotArray
	}
	spans := make([]seqSpan, 0, v.Len())
	var length int64
	usedRange := false
	for _, member := range v.Elements() {
		if member.Kind() != jsonv.Array {
			n, ok := member.Count()
			if !ok {
				return errMemberNotCount
			}
			spans = append(spans, seqSpan{n, n})
			length++
			continue
		}
		if member.Len() != 2 {
			return ErrSeqsBadPair
		}
		start, ok := member.Index(0).Count()
		if !ok {
			return errStartNotCount
		}
		end, ok := member.Index(1).Count()
		if !ok {
			return errEndNotCount
		}
		if end < start || end >= seq || end-start+1 > seq-length {
			return ErrSeqsExceed
		}
		spans = append(spans, seqSpan{start, end})
		length += end - start + 1
		usedRange = true
	}
	increasing := true
	for i, span := range spans {
		if span.end >= seq {
			return ErrSeqsNotUnique
		}
		increasing = increasing && (i == 0 || span.start > spans[i-1].end)
	}
	if increasing {
		return nil
	}
	if overlapping(spans) {
		return ErrSeqsNotUnique
	}
	if usedRange {
		return ErrSeqsNotIncreasing
	}
	return nil
}

// seqSpan is one member of a sourceEventSeqs list: a range, or a single seq
// with start == end.
type seqSpan struct{ start, end int64 }

// overlapping reports whether any two spans share a seq.
func overlapping(spans []seqSpan) bool {
	sorted := slices.Clone(spans)
	slices.SortFunc(sorted, func(a, b seqSpan) int { return cmp.Compare(a.start, b.start) })
	for i := 1; i < len(sorted); i++ {
		if sorted[i].start <= sorted[i-1].end {
			return true
		}
	}
	return false
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
