package session

import (
	"slices"
	"testing"

	"github.com/dshlog/dshlog/jsonv"
)

func parse(t *testing.T, text string) jsonv.Value {
	t.Helper()
	v, err := jsonv.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestEncodeSeqRanges holds the writer vectors of format-v0-v2.md §2.4.3 and
// format-v2-v4.md §1.3.
func TestEncodeSeqRanges(t *testing.T) {
	for _, tc := range []struct {
		seqs []int64
		want string
	}{
		{[]int64{0}, `[0]`},
		{[]int64{0, 1}, `[0,1]`},
		{[]int64{0, 1, 2}, `[[0,2]]`},
		{[]int64{4, 5, 1, 2, 3}, `[4,5,1,2,3]`},
		{[]int64{3, 4, 5, 6, 7, 8}, `[[3,8]]`},
		{[]int64{1, 5, 6, 7}, `[1,[5,7]]`},
		{[]int64{2, 3}, `[2,3]`},
		{[]int64{1, 5}, `[1,5]`},
		{[]int64{2, 3, 1}, `[2,3,1]`},
		{[]int64{4}, `[4]`},
		{[]int64{}, `[]`},
		{[]int64{12, 13, 14, 15, 16}, `[[12,16]]`},
		{[]int64{19, 20, 8, 9}, `[19,20,8,9]`},
	} {
		if got := EncodeSeqRanges(tc.seqs).String(); got != tc.want {
			t.Errorf("EncodeSeqRanges(%v) = %s, want %s", tc.seqs, got, tc.want)
		}
	}
}

// TestDecodeSeqRanges holds the decoder vectors of format-v0-v2.md §2.4.3:
// what is accepted and expands to what, and every refusal's exact text.
func TestDecodeSeqRanges(t *testing.T) {
	for _, tc := range []struct {
		list string
		seq  int64
		want []int64
	}{
		{`[[0,2],4]`, 5, []int64{0, 1, 2, 4}},
		{`[1,0]`, 4, []int64{1, 0}}, // scalar-only lists need not be ordered
		{`[]`, 0, []int64{}},
		{`[[0,3]]`, 4, []int64{0, 1, 2, 3}},
	} {
		got, err := DecodeSeqRanges(parse(t, tc.list), tc.seq)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("DecodeSeqRanges(%s, %d) = %v, %v; want %v", tc.list, tc.seq, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		list string
		want string
	}{
		{`"bad"`, "sourceEventSeqs must be an array"},
		{`[-1]`, "sourceEventSeqs member must be a non-negative safe integer"},
		{`[-0]`, "sourceEventSeqs member must be a non-negative safe integer"},
		{`[[0]]`, "sourceEventSeqs range must be a [start, end] pair"},
		{`[[-1,0]]`, "sourceEventSeqs range start must be a non-negative safe integer"},
		{`[[0,-1]]`, "sourceEventSeqs range end must be a non-negative safe integer"},
		{`[[2,1]]`, "sourceEventSeqs range exceeds its event seq"},
		{`[[0,4]]`, "sourceEventSeqs range exceeds its event seq"},
		{`[0,1,2,[0,1]]`, "sourceEventSeqs range exceeds its event seq"},
		{`[4]`, "sourceEventSeqs ranges must contain unique earlier seqs"},
		{`[0,0]`, "sourceEventSeqs ranges must contain unique earlier seqs"},
		{`[[0,1],1]`, "sourceEventSeqs ranges must contain unique earlier seqs"},
		{`[3,[0,2]]`, "sourceEventSeqs ranges must be strictly increasing"},
	} {
		_, err := DecodeSeqRanges(parse(t, tc.list), 4)
		refusal, ok := err.(*Refusal)
		if !ok || refusal.Class != ClassFormat || refusal.Msg != tc.want {
			t.Errorf("DecodeSeqRanges(%s, 4) = %v, want SessionFormatError %q", tc.list, err, tc.want)
		}
	}
}

// TestCheckSeqRangesNeverExpands: a row that claims a range as large as its
// seq allows is checked without expanding it (the seq discipline then
// refuses the row); expanding 2^53 members would exhaust memory.
func TestCheckSeqRangesNeverExpands(t *testing.T) {
	const seq = 1<<53 - 1
	if err := CheckSeqRanges(parse(t, `[[0,9007199254740989],9007199254740990]`), seq); err != nil {
		t.Fatal(err)
	}
	if err := CheckSeqRanges(parse(t, `[[5,9007199254740000],[0,6]]`), seq); err == nil || err.Error() != "sourceEventSeqs ranges must contain unique earlier seqs" {
		t.Fatalf("overlapping ranges: got %v", err)
	}
}
