package rescue

import (
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// move is a compaction/start that a turn boundary crosses, to be moved to
// just before its target (the bracket's compaction/summary, or its
// compaction/end when it has no summary).
type move struct {
	start, target int64 // history seqs
	line          int   // the start's source line
	owner         jsonv.Value
	hasOwner      bool   // the compaction/end records a turn
	crossing      string // the boundary that crossed it, for the report
	crossingSeq   int64
}

// moves are the brackets to mend, in seq order; their spans
// [start, target) never overlap.
type moves []move

// newSeq is the seq the event at history seq old has once every start has
// moved.
func (ms moves) newSeq(old int64) int64 {
	for _, m := range ms {
		switch {
		case old == m.start:
			old = m.target - 1
		case old > m.start && old < m.target:
			old--
		}
	}
	return old
}

// oldSeq is the inverse of newSeq.
func (ms moves) oldSeq(seq int64) int64 {
	for i := len(ms) - 1; i >= 0; i-- {
		m := ms[i]
		switch {
		case seq == m.target-1:
			seq = m.start
		case seq >= m.start && seq < m.target-1:
			seq++
		}
	}
	return seq
}

// within keeps the moves whose start and target both lie before n.
func (ms moves) within(n int64) moves {
	var kept moves
	for _, m := range ms {
		if m.target < n {
			kept = append(kept, m)
		}
	}
	return kept
}

// bracketWatch finds the compaction brackets a turn boundary crosses, one
// event at a time.
type bracketWatch struct {
	open  *move
	id    jsonv.Value
	found moves
	// fixable is false once a boundary crosses the open bracket after its
	// target: moving the start would not mend it.
	fixable bool
}

func (b *bracketWatch) add(seq int64, line int, typ string, data jsonv.Value) {
	switch typ {
	case "compaction/start":
		b.open = &move{start: seq, line: line, target: -1, crossingSeq: -1}
		b.id, b.fixable = data.Field("compactionId"), true
	case "turn/start", "turn/end":
		switch {
		case b.open == nil:
		case b.open.target >= 0:
			b.fixable = false
		case b.open.crossingSeq < 0:
			b.open.crossing, b.open.crossingSeq = typ, seq
		}
	case "compaction/summary":
		if b.open != nil && jsonv.Equal(data.Field("compactionId"), b.id) && b.open.target < 0 {
			b.open.target = seq
		}
	case "compaction/end":
		if b.open == nil || !jsonv.Equal(data.Field("compactionId"), b.id) {
			return
		}
		if b.open.target < 0 {
			b.open.target = seq
		}
		b.open.owner, b.open.hasOwner = data.Get("turn")
		if b.open.crossingSeq >= 0 && b.fixable {
			b.found = append(b.found, *b.open)
		}
		b.open = nil
	case "session/end-seed":
		// A bracket open before a lifecycle marker belongs to a dead
		// lifecycle: dsh lets turns cross it.
		b.open = nil
	}
}

// remapped returns row with its seq set to seq and every seq reference it
// holds renumbered by to, and the names of the references that changed.
func remapped(row jsonv.Value, seq int64, to func(int64) int64) (jsonv.Value, []string) {
	var changed []string
	out := row.With("seq", jsonv.IntValue(seq))
	if v, ok := row.Get("sourceEventSeqs"); ok {
		if nv, diff := remapList(v, to); diff {
			out, changed = out.With("sourceEventSeqs", nv), append(changed, "sourceEventSeqs")
		}
	}
	if op := row.Field("surfaceOp"); op.Kind() == jsonv.Object {
		nop, diff := remapFields(op, to, "startSeq", "endSeq")
		if diff {
			out, changed = out.With("surfaceOp", nop), append(changed, "surfaceOp")
		}
	}
	data, fields := remapData(row.Field("type").Text(), row.Field("data"), to)
	if len(fields) > 0 {
		out, changed = out.With("data", data), append(changed, fields...)
	}
	return out, changed
}

// remapData renumbers the seq references an event's data holds, by type.
func remapData(typ string, data jsonv.Value, to func(int64) int64) (jsonv.Value, []string) {
	if data.Kind() != jsonv.Object {
		return data, nil
	}
	var changed []string
	field := func(key string) {
		if nd, diff := remapFields(data, to, key); diff {
			data, changed = nd, append(changed, key)
		}
	}
	list := func(key string) {
		if v, ok := data.Get(key); ok {
			if nv, diff := remapList(v, to); diff {
				data, changed = data.With(key, nv), append(changed, key)
			}
		}
	}
	switch typ {
	case "developer/message":
		field("headerSeq")
	case "command/done":
		field("sourceEventSeq")
	case "session-log-deepseek/delivery-accepted":
		field("throughSeq")
	case "compaction/summary", "compaction/prune":
		if r := data.Field("shadowedRange"); r.Kind() == jsonv.Object {
			if nr, diff := remapFields(r, to, "start", "end"); diff {
				data, changed = data.With("shadowedRange", nr), append(changed, "shadowedRange")
			}
		}
		list("shadowedSeqs")
	case "session/title", "session/title-llm-request":
		list("messageSeqs")
	case "image/offload":
		targets := data.Field("targets")
		diff := false
		out := make([]jsonv.Value, 0, targets.Len())
		for _, t := range targets.Elements() {
			nt, d := t, false
			if t.Kind() == jsonv.Object {
				nt, d = remapFields(t, to, "seq")
			}
			out, diff = append(out, nt), diff || d
		}
		if diff {
			data, changed = data.With("targets", jsonv.ArrayValue(out...)), append(changed, "targets")
		}
	}
	return data, changed
}

// remapFields renumbers the seq-valued members keys of an object.
func remapFields(obj jsonv.Value, to func(int64) int64, keys ...string) (jsonv.Value, bool) {
	diff := false
	for _, key := range keys {
		n, ok := obj.Field(key).Count()
		if !ok || to(n) == n {
			continue
		}
		obj, diff = obj.With(key, jsonv.IntValue(to(n))), true
	}
	return obj, diff
}

// remapList renumbers a list of seqs; a changed list is written expanded
// (ranges, the [first, last] pairs the writer compresses runs into, too)
// and the encoder compresses it again.
func remapList(list jsonv.Value, to func(int64) int64) (jsonv.Value, bool) {
	if list.Kind() != jsonv.Array {
		return list, false
	}
	diff := false
	var out []jsonv.Value
	for _, member := range list.Elements() {
		if member.Kind() == jsonv.Array {
			for _, s := range session.ExpandSeqRanges(jsonv.ArrayValue(member)) {
				diff = diff || to(s) != s
				out = append(out, jsonv.IntValue(to(s)))
			}
			continue
		}
		n, ok := member.Count()
		if !ok {
			out = append(out, member)
			continue
		}
		if to(n) != n {
			diff = true
		}
		out = append(out, jsonv.IntValue(to(n)))
	}
	if !diff {
		return list, false
	}
	return jsonv.ArrayValue(out...), true
}
