package v1to2

import (
	"slices"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
)

// record is one compact record of a v2 embedded assistant stream (dsh-llm's
// AssistantStreamRecord) while its attempt is being folded: a run of text,
// reasoning or tool-call deltas of one block, or one raw chunk.
type record struct {
	kind    string // "text-chunks", "reasoning-chunks", "tool-call-chunks" or "chunk"
	time0   int64  // the first member's time (the raw chunk's time)
	index   int64
	dt      []int64       // gaps between consecutive members
	members []jsonv.Value // texts or args
	id      jsonv.Value   // tool-call-chunks only
	name    jsValue       // tool-call-chunks only, undefined when absent
	chunk   jsonv.Value   // the raw chunk
	last    int64         // the last member's time
	// packed is the stream record of a packed row while the record is
	// exactly that row: dt and members are then read from it only when
	// something merges into the record.
	packed jsonv.Value
}

// value returns the record as dsh writes it: type, time0, index, dt, then
// texts or id, name, args; a raw chunk as type, time, chunk.
func (r *record) value() jsonv.Value {
	if r.kind == "chunk" {
		return jsonv.ObjectValue(
			jsonv.M("type", jsonv.StringValue("chunk")),
			jsonv.M("time", jsonv.IntValue(r.time0)),
			jsonv.M("chunk", r.chunk),
		)
	}
	if r.isPacked() {
		return r.packed // already in this shape, as the codec built it
	}
	dt := make([]jsonv.Value, len(r.dt))
	for i, gap := range r.dt {
		dt[i] = jsonv.IntValue(gap)
	}
	members := []jsonv.Member{
		jsonv.M("type", jsonv.StringValue(r.kind)),
		jsonv.M("time0", jsonv.IntValue(r.time0)),
		jsonv.M("index", jsonv.IntValue(r.index)),
		jsonv.M("dt", jsonv.ArrayValue(dt...)),
	}
	if r.kind != "tool-call-chunks" {
		return jsonv.ObjectValue(append(members, jsonv.M("texts", jsonv.ArrayValue(r.members...)))...)
	}
	members = append(members, jsonv.M("id", r.id))
	if r.name.present {
		members = append(members, jsonv.M("name", r.name.v))
	}
	return jsonv.ObjectValue(append(members, jsonv.M("args", jsonv.ArrayValue(r.members...)))...)
}

func (r *record) isPacked() bool { return r.packed.Kind() == jsonv.Object }

// unpack reads dt and members out of a packed record, which is about to
// change.
func (r *record) unpack() {
	if !r.isPacked() {
		return
	}
	for _, gap := range r.packed.Field("dt").Elements() {
		n, _ := gap.SafeInt()
		r.dt = append(r.dt, n)
	}
	payload := "texts"
	if r.kind == "tool-call-chunks" {
		payload = "args"
	}
	r.members = slices.Clone(r.packed.Field(payload).Elements())
	r.packed = jsonv.Value{}
}

// stream is an attempt's compact stream under construction. dsh builds it
// in two steps (an AssistantStreamAccumulator over single chunks, flushed
// into the group's record list whenever a packed row arrives); both merge
// with the same criteria, so one list that merges on arrival gives the same
// records.
type stream []*record

// values returns the stream as dsh embeds it in data.stream.
func (s stream) values() jsonv.Value {
	out := make([]jsonv.Value, len(s))
	for i, r := range s {
		out[i] = r.value()
	}
	return jsonv.ArrayValue(out...)
}

// mergeTarget returns the last record when a delta run of kind, block index
// and tool identity (id, name) starting at time t continues it, as dsh's
// appendStreamRecord merges: same run type and block index, a safe time
// gap, and for tool calls the same id and name.
func (s stream) mergeTarget(kind string, index, t int64, id jsonv.Value, name jsValue) *record {
	if len(s) == 0 || kind == "chunk" {
		return nil
	}
	prev := s[len(s)-1]
	if prev.kind != kind || prev.index != index || !isSafe(t-prev.last) {
		return nil
	}
	if kind == "tool-call-chunks" && (!strictEqual(defined(prev.id), defined(id)) || !strictEqual(prev.name, name)) {
		return nil
	}
	return prev
}

// add appends r, merging it into the last record when dsh would.
func (s *stream) add(r *record) {
	prev := s.mergeTarget(r.kind, r.index, r.time0, r.id, r.name)
	if prev == nil {
		*s = append(*s, r)
		return
	}
	prev.unpack()
	r.unpack()
	prev.dt = append(append(prev.dt, r.time0-prev.last), r.dt...)
	prev.members = append(prev.members, r.members...)
	prev.last = r.last
}

// addDelta adds one delta member of kind at time t: it extends the last
// record when dsh would merge it, and starts a record otherwise (add of a
// one-member record, without building that record to merge it).
func (s *stream) addDelta(kind string, t, index int64, id jsonv.Value, name jsValue, member jsonv.Value) {
	prev := s.mergeTarget(kind, index, t, id, name)
	if prev == nil {
		*s = append(*s, &record{kind: kind, time0: t, index: index, id: id, name: name, members: []jsonv.Value{member}, last: t})
		return
	}
	prev.unpack()
	prev.dt = append(prev.dt, t-prev.last)
	prev.members = append(prev.members, member)
	prev.last = t
}

// addChunk folds one assistant/chunk event's chunk into the stream with
// the checks and the compaction of dsh-llm's AssistantStreamAccumulator.push,
// and returns the chunk's type.
func (s *stream) addChunk(time, chunk jsValue) (string, error) {
	t, ok := safeInteger(time)
	if !ok {
		return "", jsError("Assistant stream time must be a safe integer, got " + jsString(time))
	}
	if !chunk.present || !v2.IsLossless(chunk.v) {
		return "", jsError("Assistant stream chunk must be losslessly JSON-serializable")
	}
	if chunk.v.IsNull() {
		return "", readOfNull("type")
	}
	c := chunk.v
	kind := member(c, "type")
	typ := kind.v.Text()
	switch {
	case kind.v.Kind() != jsonv.String:
	case typ == "text-delta" || typ == "reasoning-delta":
		index, err := chunkIndex(c, typ)
		if err != nil {
			return typ, err
		}
		text := member(c, "text")
		if text.v.Kind() != jsonv.String {
			return typ, jsError(typ + " text must be a string")
		}
		run := "text-chunks"
		if typ == "reasoning-delta" {
			run = "reasoning-chunks"
		}
		s.addDelta(run, t, index, jsonv.Value{}, jsValue{}, text.v)
		return typ, nil
	case typ == "tool-call-delta":
		index, err := chunkIndex(c, typ)
		if err != nil {
			return typ, err
		}
		id, name, args := member(c, "id"), member(c, "name"), member(c, "argumentsDelta")
		if id.v.Kind() != jsonv.String {
			return typ, jsError("tool-call-delta id must be a string")
		}
		if name.present && name.v.Kind() != jsonv.String {
			return typ, jsError("tool-call-delta name must be a string")
		}
		if args.v.Kind() != jsonv.String {
			return typ, jsError("tool-call-delta argumentsDelta must be a string")
		}
		if id.v.Text() == "" || (name.present && name.v.Text() == "") {
			s.add(rawRecord(t, c))
			return typ, nil
		}
		s.addDelta("tool-call-chunks", t, index, id.v, name, args.v)
		return typ, nil
	case typ == "block-start" || typ == "block-end" || typ == "usage" || typ == "finish":
		s.add(rawRecord(t, c))
		return typ, nil
	}
	return typ, jsError("unreachable variant in AssistantStreamAccumulator.push: " + c.String())
}

// rawRecord is a raw chunk record at time t.
func rawRecord(t int64, chunk jsonv.Value) *record {
	return &record{kind: "chunk", time0: t, chunk: chunk, last: t}
}

// chunkIndex reads a delta chunk's block index, which must be a
// non-negative safe integer.
func chunkIndex(c jsonv.Value, typ string) (int64, error) {
	n, ok := safeInteger(member(c, "index"))
	if !ok || n < 0 {
		return 0, jsError(typ + " index must be a non-negative safe integer")
	}
	return n, nil
}

// runRecord is the record a packed chunk row carries (its codec checked
// it), with the time of its last member.
func runRecord(v jsonv.Value, last int64) *record {
	r := &record{kind: v.Field("type").Text(), last: last, packed: v}
	r.time0, _ = v.Field("time0").SafeInt()
	r.index, _ = v.Field("index").Count()
	if r.kind == "tool-call-chunks" {
		r.id = v.Field("id")
		r.name = member(v, "name")
	}
	return r
}
