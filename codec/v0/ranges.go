package v0

import (
	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// DecodeSeqRanges expands the physical sourceEventSeqs list of the v0/v1
// event at seq with dsh's v0/v1 range decoder: the list can hold at most seq
// entries and must be strictly increasing when it uses a range. Unlike the
// v2 decoder it does not check that members are earlier than seq or unique;
// payload validation does that later where it applies.
func DecodeSeqRanges(v jsonv.Value, seq int64) ([]int64, error) {
	if err := checkSeqRanges(v, seq); err != nil {
		return nil, err
	}
	return expandSeqRanges(v), nil
}

// checkSeqRanges applies every rule of DecodeSeqRanges without expanding
// the list, so that a row whose seq is out of place costs nothing however
// large its ranges claim to be.
func checkSeqRanges(v jsonv.Value, seq int64) error {
	if v.Kind() != jsonv.Array {
		return session.ErrSeqsNotArray
	}
	var length, last int64 = 0, -1
	usedRange, increasing := false, true
	for _, entry := range v.Elements() {
		if entry.Kind() == jsonv.Number {
			if length >= seq {
				return errSeqsExceedSeq
			}
			n, err := jsform.Count(entry, "sourceEventSeqs member")
			if err != nil {
				return err
			}
			increasing = increasing && n > last
			length, last = length+1, n
			continue
		}
		if entry.Kind() != jsonv.Array || entry.Len() != 2 {
			return session.ErrSeqsBadPair
		}
		start, err := jsform.Count(entry.Index(0), "sourceEventSeqs range start")
		if err != nil {
			return err
		}
		end, err := jsform.Count(entry.Index(1), "sourceEventSeqs range end")
		if err != nil {
			return err
		}
		if end < start || end-start+1 > seq-length {
			return session.ErrSeqsExceed
		}
		increasing = increasing && start > last
		length, last = length+end-start+1, end
		usedRange = true
	}
	if usedRange && !increasing {
		return session.ErrSeqsNotIncreasing
	}
	return nil
}

// expandSeqRanges expands a list that checkSeqRanges accepted. The result
// is sized by the list's own length, never by the event's seq: a short list
// late in a long session must cost what it holds.
func expandSeqRanges(v jsonv.Value) []int64 {
	out := make([]int64, 0, expandedLen(v))
	for _, entry := range v.Elements() {
		if entry.Kind() == jsonv.Number {
			n, _ := entry.Count()
			out = append(out, n)
			continue
		}
		start, _ := entry.Index(0).Count()
		end, _ := entry.Index(1).Count()
		for s := start; s <= end; s++ {
			out = append(out, s)
		}
	}
	return out
}

// expandedLen is the length of a checked list once expanded.
func expandedLen(v jsonv.Value) int64 {
	var n int64
	for _, entry := range v.Elements() {
		if entry.Kind() == jsonv.Number {
			n++
			continue
		}
		start, _ := entry.Index(0).Count()
		end, _ := entry.Index(1).Count()
		n += end - start + 1
	}
	return n
}

var errSeqsExceedSeq = session.FormatErrorf("sourceEventSeqs exceeds its event seq")
