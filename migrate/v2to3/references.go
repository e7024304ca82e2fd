package v2to3

import (
	"github.com/dshlog/dshlog/codec/v3"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// remap moves the row of the source event at sourceSeq to target seq seq,
// rewriting only the audited same-session references through target (which
// maps an earlier source seq to its target seq): the envelope's
// sourceEventSeqs and surfaceOp endpoints, command/done's sourceEventSeq,
// compaction shadowed ranges and title messageSeqs. Delivery watermarks,
// session-reference captures, workflow seqs and model input stay as they are.
// An owned row is changed in place (jsonv.Value.Set), any other copied.
func remap(row jsonv.Value, owned bool, typ string, sourceSeq, seq int64, target func(int64) int64) (jsonv.Value, error) {
	set := jsonv.Value.With
	if owned {
		set = jsonv.Value.Set
	}
	refs := references{sourceSeq: sourceSeq, target: target}
	data, err := v3.Record(row.Field("data"), typ)
	if err != nil {
		return row, err
	}
	changed := true
	switch typ {
	case "command/done":
		s, ok := data.Get("sourceEventSeq")
		if !ok {
			changed = false
			break
		}
		mapped, err := refs.one(s)
		if err != nil {
			return row, err
		}
		data = data.With("sourceEventSeq", mapped)
	case "compaction/summary", "compaction/prune":
		shadowed, err := refs.span(data.Field("shadowedRange"))
		if err != nil {
			return row, err
		}
		seqs, err := refs.list(data.Field("shadowedSeqs"))
		if err != nil {
			return row, err
		}
		data = data.With("shadowedRange", shadowed).With("shadowedSeqs", seqs)
	case "session/title", "session/title-llm-request":
		seqs, err := refs.list(data.Field("messageSeqs"))
		if err != nil {
			return row, err
		}
		data = data.With("messageSeqs", seqs)
	default:
		changed = false
	}
	out := row
	if n, _ := row.Field("seq").Number(); n != float64(seq) {
		out = set(out, "seq", jsonv.IntValue(seq))
	}
	if changed {
		out = set(out, "data", data)
	}
	// A list or range whose references all map to themselves comes back as
	// it was and is left in place: setting a member to its own value changes
	// nothing.
	if sources, ok := row.Get("sourceEventSeqs"); ok {
		mapped, err := refs.list(sources)
		if err != nil {
			return row, err
		}
		if mapped != sources {
			out = set(out, "sourceEventSeqs", mapped)
		}
	}
	if op, ok := row.Get("surfaceOp"); ok && op.Text() != "append" {
		mapped, err := refs.span(op)
		if err != nil {
			return row, err
		}
		if mapped != op {
			out = set(out, "surfaceOp", mapped)
		}
	}
	return out, nil
}

// references maps the references of the source event at sourceSeq.
type references struct {
	sourceSeq int64
	target    func(int64) int64
}

// one maps one reference, which must name an earlier source event.
func (r references) one(v jsonv.Value) (jsonv.Value, error) {
	source, ok := v.Count()
	if !ok {
		return v, session.FormatErrorf("source event reference must be a non-negative safe integer")
	}
	if source >= r.sourceSeq {
		return v, session.FormatErrorf("reference must name an earlier source event")
	}
	return jsonv.IntValue(r.target(source)), nil
}

// list maps an array of references.
func (r references) list(v jsonv.Value) (jsonv.Value, error) {
	if v.Kind() != jsonv.Array {
		return v, session.FormatErrorf("sequence references must be an array")
	}
	elems := v.Elements()
	var out []jsonv.Value // made at the first reference that changes
	for i, e := range elems {
		mapped, err := r.one(e)
		if err != nil {
			return v, err
		}
		if out == nil && !sameNumber(mapped, e) {
			out = make([]jsonv.Value, len(elems))
			copy(out, elems[:i])
		}
		if out != nil {
			out[i] = mapped
		}
	}
	if out == nil {
		return v, nil
	}
	return jsonv.ArrayValue(out...), nil
}

// sameNumber reports whether a mapped reference is the source's value
// unchanged. one accepts no -0, so equal numbers are written alike.
func sameNumber(mapped, source jsonv.Value) bool {
	a, _ := mapped.Number()
	b, _ := source.Number()
	return a == b
}

// span maps a {start, end} range.
func (r references) span(v jsonv.Value) (jsonv.Value, error) {
	if v.Kind() != jsonv.Object {
		return v, session.FormatErrorf("sequence range must be an object")
	}
	start, err := r.one(v.Field("start"))
	if err != nil {
		return v, err
	}
	end, err := r.one(v.Field("end"))
	if err != nil {
		return v, err
	}
	if sameNumber(start, v.Field("start")) && sameNumber(end, v.Field("end")) {
		return v, nil
	}
	return v.With("start", start).With("end", end), nil
}
