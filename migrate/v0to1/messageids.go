package v0to1

import "sort"

// messageIDs maps the seq of each message event to its message id. It is
// kept for the whole session, one entry per message, so it holds next to
// no pointers: the ids are copied into byte blocks and the index keeps
// where each one lies, in pages of fixed size, which leaves the garbage
// collector nothing to scan in it and nothing to copy as it grows, however
// long the session. Events come in seq order, so the pages hold a sorted
// list that grows at its end; a seq set out of that order and not in the
// list is kept aside in a map.
type messageIDs struct {
	pages  []*idPage // ascending seqs, every page full but the last
	blocks [][]byte  // the ids' bytes; only the last block still grows
	late   map[int64]string
}

// The index's page size, and the size of an id block (a longer id gets a
// block of its own).
const (
	idPageLen   = 1 << 10
	idBlockSize = 64 << 10
)

type idPage struct {
	n     int
	seqs  [idPageLen]int64
	spans [idPageLen]idSpan // spans[i] is where the id of seqs[i] lies
}

// idSpan is where an id lies: its block and its bytes there.
type idSpan struct{ block, start, end int32 }

func newMessageIDs() *messageIDs { return &messageIDs{} }

// set records id as the message id of seq, replacing any earlier one.
func (m *messageIDs) set(seq int64, id string) {
	if _, ok := m.late[seq]; ok {
		m.late[seq] = id
		return
	}
	last := len(m.pages) - 1
	if last < 0 || m.lastSeq() < seq {
		if last < 0 || m.pages[last].n == idPageLen {
			m.pages = append(m.pages, &idPage{})
			last++
		}
		p := m.pages[last]
		p.seqs[p.n], p.spans[p.n] = seq, m.store(id)
		p.n++
		return
	}
	if p, i, ok := m.find(seq); ok {
		p.spans[i] = m.store(id)
		return
	}
	if m.late == nil {
		m.late = map[int64]string{}
	}
	m.late[seq] = id
}

// get returns the message id of seq, and whether seq was given one.
func (m *messageIDs) get(seq int64) (string, bool) {
	if p, i, ok := m.find(seq); ok {
		span := p.spans[i]
		return string(m.blocks[span.block][span.start:span.end]), true
	}
	id, ok := m.late[seq]
	return id, ok
}

func (m *messageIDs) lastSeq() int64 {
	p := m.pages[len(m.pages)-1]
	return p.seqs[p.n-1]
}

// find returns the page and the position of seq in the sorted list.
func (m *messageIDs) find(seq int64) (*idPage, int, bool) {
	k := sort.Search(len(m.pages), func(k int) bool { return m.pages[k].seqs[0] > seq }) - 1
	if k < 0 {
		return nil, 0, false
	}
	p := m.pages[k]
	i := sort.Search(p.n, func(i int) bool { return p.seqs[i] >= seq })
	return p, i, i < p.n && p.seqs[i] == seq
}

// store copies id into the blocks and returns where it lies.
func (m *messageIDs) store(id string) idSpan {
	last := len(m.blocks) - 1
	if last < 0 || len(m.blocks[last])+len(id) > cap(m.blocks[last]) {
		m.blocks = append(m.blocks, make([]byte, 0, max(idBlockSize, len(id))))
		last++
	}
	start := len(m.blocks[last])
	m.blocks[last] = append(m.blocks[last], id...)
	return idSpan{int32(last), int32(start), int32(len(m.blocks[last]))}
}
