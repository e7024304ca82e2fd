package v3to4

import (
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// remapper rewrites an event's references to earlier source events into
// target seqs (dsh's remapV3References), once an inserted event has moved
// the target coordinates.
type remapper struct {
	seq    int64             // source seq of the event being remapped
	target func(int64) int64 // target seq of an earlier source seq
}

func (r remapper) reference(v jsonv.Value) (jsonv.Value, error) {
	source, ok := v.Count()
	if !ok {
		return v, session.FormatErrorf("V3 source event reference must be a non-negative safe integer")
	}
	if source >= r.seq {
		return v, session.FormatErrorf("V3 reference must name an earlier source event")
	}
	return jsonv.IntValue(r.target(source)), nil
}

func (r remapper) references(v jsonv.Value) (jsonv.Value, error) {
	if v.Kind() != jsonv.Array {
		return v, session.FormatErrorf("V3 event references must be an array")
	}
	out := make([]jsonv.Value, 0, v.Len())
	for _, member := range v.Elements() {
		if member.Kind() == jsonv.Array {
			// A physical [start, end] range the decoder checked and would
			// have expanded.
			for _, s := range session.ExpandSeqRanges(jsonv.ArrayValue(member)) {
				out = append(out, jsonv.IntValue(r.target(s)))
			}
			continue
		}
		target, err := r.reference(member)
		if err != nil {
			return v, err
		}
		out = append(out, target)
	}
	return jsonv.ArrayValue(out...), nil
}

func container(v jsonv.Value) error {
	if v.Kind() != jsonv.Object {
		return session.FormatErrorf("V3 event reference container must be an object")
	}
	return nil
}

// remap moves ev to target seq seq and remaps every first-party local
// reference: the envelope's sourceEventSeqs and replacement endpoints,
// command/done.sourceEventSeq, the compaction shadowed range and seqs, the
// title messageSeqs and the image offload target seqs. Generation-qualified
// captures and every other number stay as they are.
func remap(ev *edit, seq int64, target func(int64) int64) error {
	r := remapper{seq: ev.Seq, target: target}
	data := ev.Data()
	var err error
	switch ev.Type {
	case "command/done":
		data, err = r.commandDone(data)
	case "compaction/summary", "compaction/prune":
		data, err = r.compaction(data)
	case "session/title", "session/title-llm-request":
		data, err = r.title(data)
	case "image/offload":
		data, err = r.imageOffload(data)
	}
	if err != nil {
		return err
	}
	surface, hasSurface := ev.Row.Get("surfaceOp")
	replace := hasSurface && !isString(surface, "append")
	if replace {
		if err := container(surface); err != nil {
			return err
		}
	}
	seqs, hasSeqs := ev.Row.Get("sourceEventSeqs")
	ev.set("seq", jsonv.IntValue(seq))
	ev.set("data", data)
	if hasSeqs {
		remapped, err := r.references(seqs)
		if err != nil {
			return err
		}
		ev.set("sourceEventSeqs", remapped)
	}
	if replace {
		start, err := r.reference(surface.Field("startSeq"))
		if err != nil {
			return err
		}
		end, err := r.reference(surface.Field("endSeq"))
		if err != nil {
			return err
		}
		ev.set("surfaceOp", surface.With("startSeq", start).With("endSeq", end))
	}
	return nil
}

func (r remapper) commandDone(data jsonv.Value) (jsonv.Value, error) {
	if err := container(data); err != nil {
		return data, err
	}
	v, ok := data.Get("sourceEventSeq")
	if !ok {
		return data, nil
	}
	target, err := r.reference(v)
	if err != nil {
		return data, err
	}
	return data.With("sourceEventSeq", target), nil
}

func (r remapper) compaction(data jsonv.Value) (jsonv.Value, error) {
	if err := container(data); err != nil {
		return data, err
	}
	shadowed := data.Field("shadowedRange")
	if err := container(shadowed); err != nil {
		return data, err
	}
	start, err := r.reference(shadowed.Field("start"))
	if err != nil {
		return data, err
	}
	end, err := r.reference(shadowed.Field("end"))
	if err != nil {
		return data, err
	}
	seqs, err := r.references(data.Field("shadowedSeqs"))
	if err != nil {
		return data, err
	}
	return data.With("shadowedRange", shadowed.With("start", start).With("end", end)).With("shadowedSeqs", seqs), nil
}

func (r remapper) title(data jsonv.Value) (jsonv.Value, error) {
	if err := container(data); err != nil {
		return data, err
	}
	seqs, err := r.references(data.Field("messageSeqs"))
	if err != nil {
		return data, err
	}
	return data.With("messageSeqs", seqs), nil
}

func (r remapper) imageOffload(data jsonv.Value) (jsonv.Value, error) {
	if err := container(data); err != nil {
		return data, err
	}
	targets := data.Field("targets")
	if targets.Kind() != jsonv.Array {
		return data, session.FormatErrorf("V3 image offload targets must be an array")
	}
	out := make([]jsonv.Value, 0, targets.Len())
	for _, t := range targets.Elements() {
		if err := container(t); err != nil {
			return data, err
		}
		seq, err := r.reference(t.Field("seq"))
		if err != nil {
			return data, err
		}
		out = append(out, t.With("seq", seq))
	}
	return data.With("targets", jsonv.ArrayValue(out...)), nil
}
