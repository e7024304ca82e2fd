package v0to1

import "sort"

// messageIDs maps the seq of each message event to its message id. It is
// kept for the whole session, one entry per message, so it holds no
// pointers: the ids are copied into one byte arena and the index keeps
// where each one lies, which leaves the garbage collector nothing to scan
// in it however long the session grows. Events come in seq order, so the
// index is a sorted list that grows at its end.
type messageIDs struct {
	text  []byte
	seqs  []int64  // ascending
	spans []idSpan // spans[i] is where the id of seqs[i] lies
}

// idSpan is where an id lies in the arena.
type idSpan struct{ start, end int }

func newMessageIDs() *messageIDs { return &messageIDs{} }

// set records id as the message id of seq, replacing any earlier one.
func (m *messageIDs) set(seq int64, id string) {
	start := len(m.text)
	m.text = append(m.text, id...)
	span := idSpan{start, len(m.text)}
	if n := len(m.seqs); n == 0 || m.seqs[n-1] < seq {
		m.seqs = append(m.seqs, seq)
		m.spans = append(m.spans, span)
		return
	}
	i := sort.Search(len(m.seqs), func(i int) bool { return m.seqs[i] >= seq })
	if m.seqs[i] == seq {
		m.spans[i] = span
		return
	}
	m.seqs = append(m.seqs[:i], append([]int64{seq}, m.seqs[i:]...)...)
	m.spans = append(m.spans[:i], append([]idSpan{span}, m.spans[i:]...)...)
}

// get returns the message id of seq, and whether seq was given one.
func (m *messageIDs) get(seq int64) (string, bool) {
	i := sort.Search(len(m.seqs), func(i int) bool { return m.seqs[i] >= seq })
	if i == len(m.seqs) || m.seqs[i] != seq {
		return "", false
	}
	span := m.spans[i]
	return string(m.text[span.start:span.end]), true
}
