package v1to2

import "sort"

// seqMap maps the seqs of emitted source events to their target seqs. It
// stores runs of consecutive source seqs that went to consecutive target
// seqs, so it grows with the number of breaks in the numbering (each folded
// chunk attempt, each generated event) rather than with the log.
type seqMap struct {
	runs []seqRun // ordered by source seq, never overlapping
}

type seqRun struct{ source, target, n int64 }

// set records that source seq s became target seq t. Each source seq is
// set at most once; sets come almost always in increasing source order.
func (m *seqMap) set(s, t int64) {
	i := sort.Search(len(m.runs), func(i int) bool { return m.runs[i].source > s })
	if i > 0 {
		prev := &m.runs[i-1]
		if prev.source+prev.n == s && prev.target+prev.n == t {
			prev.n++
			m.join(i - 1)
			return
		}
	}
	m.runs = append(m.runs, seqRun{})
	copy(m.runs[i+1:], m.runs[i:])
	m.runs[i] = seqRun{s, t, 1}
	m.join(i)
}

// join merges run i with its successor when they continue each other.
func (m *seqMap) join(i int) {
	if i+1 >= len(m.runs) {
		return
	}
	r, next := &m.runs[i], m.runs[i+1]
	if r.source+r.n == next.source && r.target+r.n == next.target {
		r.n += next.n
		m.runs = append(m.runs[:i+1], m.runs[i+2:]...)
	}
}

// get returns the target seq of source seq s.
func (m *seqMap) get(s int64) (int64, bool) {
	i := sort.Search(len(m.runs), func(i int) bool { return m.runs[i].source > s })
	if i == 0 {
		return 0, false
	}
	r := m.runs[i-1]
	if s >= r.source+r.n {
		return 0, false
	}
	return r.target + s - r.source, true
}
