package v1to2

import (
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// emitSource emits a surviving source event at the next target seq and
// records its new seq; the v1 session/end-seed at the cut becomes the
// inherited marker.
func (s *edgeStage) emitSource(ev source, emit session.Emit) error {
	if s.header.IsSeeded && ev.seq == s.sourceCut && ev.typ == "session/end-seed" {
		ev = ev.withData(inheritedData())
	}
	if err := s.ensureTargetCut(ev.seq, ev.time, ev.typ, emit); err != nil {
		return err
	}
	s.seqs.set(ev.seq, s.targetSeq)
	out, err := s.remap(ev, s.targetSeq)
	if err != nil {
		return err
	}
	return s.emitAt(out, ev.typ, ev.time, emit)
}

// emitGenerated emits an event the edge made up, on behalf of the source
// event origin (for the position of the cut); it gets no seq mapping.
func (s *edgeStage) emitGenerated(origin int64, typ string, time jsValue, data jsonv.Value, emit session.Emit) error {
	if err := s.ensureTargetCut(origin, time, typ, emit); err != nil {
		return err
	}
	return s.emitAt(event(typ, s.targetSeq, time, data), typ, time, emit)
}

// emitAt emits row, which stands at the next target seq.
func (s *edgeStage) emitAt(row jsonv.Value, typ string, time jsValue, emit session.Emit) error {
	if err := emit(emitted(row, typ, s.targetSeq, time)); err != nil {
		return err
	}
	s.targetSeq++
	return nil
}

// ensureTargetCut places the inherited cut of a seeded session before the
// first target event whose origin is at or past the v1 cut: the v1 marker
// itself when it sits exactly there, else a generated marker with the time
// of the event that crosses the cut.
func (s *edgeStage) ensureTargetCut(origin int64, time jsValue, typ string, emit session.Emit) error {
	if !s.header.IsSeeded || s.targetCut >= 0 || origin < s.sourceCut {
		return nil
	}
	s.targetCut = s.targetSeq
	if origin == s.sourceCut && typ == "session/end-seed" {
		return nil
	}
	if err := emit(emitted(marker(s.targetSeq, time), "session/end-seed", s.targetSeq, time)); err != nil {
		return err
	}
	s.targetSeq++
	return nil
}

// remap gives a source event's row its target seq and rewrites its seq
// references through the map, as dsh's remapReferences builds it: the other
// envelope keys keep their order, seq and data their positions, and
// sourceEventSeqs then surfaceOp move to the end (a replacement rebuilt as
// {op, start, end}). A reference to a folded chunk, or to an event not
// emitted yet, is refused.
func (s *edgeStage) remap(ev source, targetSeq int64) (jsonv.Value, error) {
	var tail [2]jsonv.Member
	n := 0
	sources, hasSources := ev.row.Get("sourceEventSeqs")
	if hasSources && !ev.dropSources {
		mapped, err := s.mapList(sources, ref{ev.typ, ev.seq, " sources"})
		if err != nil {
			return ev.row, err
		}
		tail[n] = jsonv.M("sourceEventSeqs", mapped)
		n++
	}
	op, hasOp := ev.row.Get("surfaceOp")
	opChanged := false
	if hasOp {
		if text, isString := op.Str(); !isString || text != "append" {
			if op.IsNull() {
				return ev.row, readOfNull("start")
			}
			start, err := s.mapOne(member(op, "start"), ref{ev.typ, ev.seq, " surface start"})
			if err != nil {
				return ev.row, err
			}
			end, err := s.mapOne(member(op, "end"), ref{ev.typ, ev.seq, " surface end"})
			if err != nil {
				return ev.row, err
			}
			op, opChanged = jsonv.ObjectValue(
				jsonv.M("op", jsonv.StringValue("replace")),
				jsonv.M("start", jsonv.IntValue(start)),
				jsonv.M("end", jsonv.IntValue(end)),
			), true
		}
		tail[n] = jsonv.M("surfaceOp", op)
		n++
	}
	data, changed, err := s.remapData(ev, ev.data)
	if err != nil {
		return ev.row, err
	}
	changed = changed || ev.dataChanged
	// The usual row needs only its seq changed: its tail already ends it.
	if !changed && !opChanged && !hasSources && seqThenTail(ev.row, hasOp) {
		if ev.owned {
			return ev.row.Set("seq", jsonv.IntValue(targetSeq)), nil
		}
		return ev.row.With("seq", jsonv.IntValue(targetSeq)), nil
	}
	return rebuild(ev.row, targetSeq, data, ev.dataChanged, tail[:n]), nil
}

// rebuild is remap's row in general: row's members but sourceEventSeqs and
// surfaceOp in their order, with seq and data replaced (data added when
// added says the row had none), then the tail.
func rebuild(row jsonv.Value, targetSeq int64, data jsonv.Value, added bool, tail []jsonv.Member) jsonv.Value {
	members := make([]jsonv.Member, 0, len(row.Members())+1)
	hasData := false
	for _, m := range row.Members() {
		switch m.Key {
		case "sourceEventSeqs", "surfaceOp":
			continue
		case "seq":
			m.Value = jsonv.IntValue(targetSeq)
		case "data":
			m.Value, hasData = data, true
		}
		members = append(members, m)
	}
	if !hasData && added {
		members = append(members, jsonv.M("data", data)) // as {...row, data} adds it
	}
	return jsonv.ObjectValue(append(members, tail...)...)
}

// seqThenTail reports whether row has a seq member and, when it has a
// surfaceOp (hasOp), ends with it: remap then only replaces its seq.
func seqThenTail(row jsonv.Value, hasOp bool) bool {
	members := row.Members()
	for i := range members {
		if members[i].Key == "seq" {
			return !hasOp || members[len(members)-1].Key == "surfaceOp"
		}
	}
	return false
}

// ref names a reference of the source event typ at seq in a refusal,
// "<type> <seq><part>", worded only when one is refused.
type ref struct {
	typ  string
	seq  int64
	part string
}

func (r ref) String() string { return r.typ + " " + itoa(r.seq) + r.part }

// remapData rewrites the seq references inside the payloads that carry
// them, and says whether it did. The seqs quoted in a title request's
// prompt text stay as they are.
func (s *edgeStage) remapData(ev source, data jsonv.Value) (jsonv.Value, bool, error) {
	switch ev.typ {
	case "command/done":
		r, ok := data.Get("sourceEventSeq")
		if !ok {
			return data, false, nil
		}
		t, err := s.mapOne(defined(r), ref{ev.typ, ev.seq, " sourceEventSeq"})
		if err != nil {
			return data, false, err
		}
		return data.With("sourceEventSeq", jsonv.IntValue(t)), true, nil
	case "compaction/prune", "compaction/summary":
		shadowed := data.Field("shadowedRange")
		start, err := s.mapOne(member(shadowed, "start"), ref{ev.typ, ev.seq, " shadowedRange start"})
		if err != nil {
			return data, false, err
		}
		end, err := s.mapOne(member(shadowed, "end"), ref{ev.typ, ev.seq, " shadowedRange end"})
		if err != nil {
			return data, false, err
		}
		seqs, err := s.mapList(data.Field("shadowedSeqs"), ref{ev.typ, ev.seq, " shadowedSeqs"})
		if err != nil {
			return data, false, err
		}
		return data.With("shadowedRange", jsonv.ObjectValue(
			jsonv.M("start", jsonv.IntValue(start)),
			jsonv.M("end", jsonv.IntValue(end)),
		)).With("shadowedSeqs", seqs), true, nil
	case "session/title", "session/title-llm-request":
		seqs, err := s.mapList(data.Field("messageSeqs"), ref{ev.typ, ev.seq, " messageSeqs"})
		if err != nil {
			return data, false, err
		}
		return data.With("messageSeqs", seqs), true, nil
	}
	return data, false, nil
}

// mapList maps every seq of a reference list (the codec expanded
// sourceEventSeqs; the payload rules checked the lists inside data).
func (s *edgeStage) mapList(list jsonv.Value, label ref) (jsonv.Value, error) {
	elems := list.Elements()
	out := make([]jsonv.Value, len(elems))
	for i, e := range elems {
		t, err := s.mapOne(defined(e), label)
		if err != nil {
			return list, err
		}
		out[i] = jsonv.IntValue(t)
	}
	return jsonv.ArrayValue(out...), nil
}

// mapOne maps one referenced seq. JavaScript's Map finds a number key only
// for an equal number (-0 finds 0); anything else is missing.
func (s *edgeStage) mapOne(v jsValue, label ref) (int64, error) {
	if n, ok := safeInteger(v); ok && n >= 0 {
		if t, ok := s.seqs.get(n); ok {
			return t, nil
		}
	}
	return 0, session.Unsupportedf("%s targets consumed assistant/chunk %s", label.String(), jsString(v))
}

func itoa(n int64) string { return jsonv.IntValue(n).String() }
