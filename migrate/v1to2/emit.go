package v1to2

import (
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate/stage"
	"github.com/dshlog/dshlog/session"
)

// emitSource emits a surviving source event at the next target seq and
// records its new seq; the v1 session/end-seed at the cut becomes the
// inherited marker.
func (s *edgeStage) emitSource(row jsonv.Value, emit stage.Emit) error {
	typ, seq := row.Field("type").Text(), seqOf(row)
	if s.header.IsSeeded && seq == s.sourceCut && typ == "session/end-seed" {
		row = row.With("data", inheritedData())
	}
	if err := s.ensureTargetCut(seq, member(row, "time"), typ, emit); err != nil {
		return err
	}
	s.seqs.set(seq, s.targetSeq)
	return s.emitAt(row, emit)
}

// emitGenerated emits an event the edge made up, on behalf of the source
// event origin (for the position of the cut); it gets no seq mapping.
func (s *edgeStage) emitGenerated(origin int64, row jsonv.Value, emit stage.Emit) error {
	if err := s.ensureTargetCut(origin, member(row, "time"), row.Field("type").Text(), emit); err != nil {
		return err
	}
	return s.emitAt(row, emit)
}

func (s *edgeStage) emitAt(row jsonv.Value, emit stage.Emit) error {
	out, err := s.remap(row, s.targetSeq)
	if err != nil {
		return err
	}
	if err := emit(stage.Item{Event: toEvent(out)}); err != nil {
		return err
	}
	s.targetSeq++
	return nil
}

// ensureTargetCut places the inherited cut of a seeded session before the
// first target event whose origin is at or past the v1 cut: the v1 marker
// itself when it sits exactly there, else a generated marker with the time
// of the event that crosses the cut.
func (s *edgeStage) ensureTargetCut(origin int64, time jsValue, typ string, emit stage.Emit) error {
	if !s.header.IsSeeded || s.targetCut >= 0 || origin < s.sourceCut {
		return nil
	}
	s.targetCut = s.targetSeq
	if origin == s.sourceCut && typ == "session/end-seed" {
		return nil
	}
	if err := emit(stage.Item{Event: toEvent(marker(s.targetSeq, time))}); err != nil {
		return err
	}
	s.targetSeq++
	return nil
}

// remap gives a row its target seq and rewrites its seq references through
// the map, as dsh's remapReferences builds it: the other envelope keys keep
// their order, seq and data their positions, and sourceEventSeqs then
// surfaceOp move to the end (a replacement rebuilt as {op, start, end}).
// A reference to a folded chunk, or to an event not emitted yet, is refused.
func (s *edgeStage) remap(row jsonv.Value, targetSeq int64) (jsonv.Value, error) {
	typ, seq := row.Field("type").Text(), seqOf(row)
	label := typ + " " + itoa(seq)
	var tail []jsonv.Member
	if v, ok := row.Get("sourceEventSeqs"); ok {
		mapped, err := s.mapList(v, label+" sources")
		if err != nil {
			return row, err
		}
		tail = append(tail, jsonv.M("sourceEventSeqs", mapped))
	}
	if op, ok := row.Get("surfaceOp"); ok {
		if text, isString := op.Str(); !isString || text != "append" {
			if op.IsNull() {
				return row, readOfNull("start")
			}
			start, err := s.mapOne(member(op, "start"), label+" surface start")
			if err != nil {
				return row, err
			}
			end, err := s.mapOne(member(op, "end"), label+" surface end")
			if err != nil {
				return row, err
			}
			op = jsonv.ObjectValue(
				jsonv.M("op", jsonv.StringValue("replace")),
				jsonv.M("start", jsonv.IntValue(start)),
				jsonv.M("end", jsonv.IntValue(end)),
			)
		}
		tail = append(tail, jsonv.M("surfaceOp", op))
	}
	data, err := s.remapData(typ, label, row.Field("data"))
	if err != nil {
		return row, err
	}
	members := make([]jsonv.Member, 0, len(row.Members()))
	for _, m := range row.Members() {
		switch m.Key {
		case "sourceEventSeqs", "surfaceOp":
			continue
		case "seq":
			m.Value = jsonv.IntValue(targetSeq)
		case "data":
			m.Value = data
		}
		members = append(members, m)
	}
	return jsonv.ObjectValue(append(members, tail...)...), nil
}

// remapData rewrites the seq references inside the payloads that carry
// them. The seqs quoted in a title request's prompt text stay as they are.
func (s *edgeStage) remapData(typ, label string, data jsonv.Value) (jsonv.Value, error) {
	switch typ {
	case "command/done":
		ref, ok := data.Get("sourceEventSeq")
		if !ok {
			return data, nil
		}
		t, err := s.mapOne(defined(ref), label+" sourceEventSeq")
		if err != nil {
			return data, err
		}
		return data.With("sourceEventSeq", jsonv.IntValue(t)), nil
	case "compaction/prune", "compaction/summary":
		shadowed := data.Field("shadowedRange")
		start, err := s.mapOne(member(shadowed, "start"), label+" shadowedRange start")
		if err != nil {
			return data, err
		}
		end, err := s.mapOne(member(shadowed, "end"), label+" shadowedRange end")
		if err != nil {
			return data, err
		}
		seqs, err := s.mapList(data.Field("shadowedSeqs"), label+" shadowedSeqs")
		if err != nil {
			return data, err
		}
		return data.With("shadowedRange", jsonv.ObjectValue(
			jsonv.M("start", jsonv.IntValue(start)),
			jsonv.M("end", jsonv.IntValue(end)),
		)).With("shadowedSeqs", seqs), nil
	case "session/title", "session/title-llm-request":
		seqs, err := s.mapList(data.Field("messageSeqs"), label+" messageSeqs")
		if err != nil {
			return data, err
		}
		return data.With("messageSeqs", seqs), nil
	}
	return data, nil
}

// mapList maps every seq of a reference list (the codec expanded
// sourceEventSeqs; the payload rules checked the lists inside data).
func (s *edgeStage) mapList(list jsonv.Value, label string) (jsonv.Value, error) {
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
func (s *edgeStage) mapOne(v jsValue, label string) (int64, error) {
	if n, ok := safeInteger(v); ok && n >= 0 {
		if t, ok := s.seqs.get(n); ok {
			return t, nil
		}
	}
	return 0, session.Unsupportedf("%s targets consumed assistant/chunk %s", label, jsString(v))
}

func itoa(n int64) string { return jsonv.IntValue(n).String() }
