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

// add appends r, merging it into the last record when dsh's
// appendStreamRecord would: same run type and block index, a safe time gap,
// and for tool calls the same id and name.
func (s *stream) add(r *record) {
	if len(*s) == 0 {
		*s = append(*s, r)
		return
	}
	prev := (*s)[len(*s)-1]
	gap := r.time0 - prev.last
	if r.kind == "chunk" || prev.kind != r.kind || prev.index != r.index || !isSafe(gap) ||
		(r.kind == "tool-call-chunks" && (!strictEqual(defined(prev.id), defined(r.id)) || !strictEqual(prev.name, r.name))) {
		*s = append(*s, r)
		return
	}
	prev.dt = append(append(prev.dt, gap), r.dt...)
	prev.members = append(prev.members, r.members...)
	prev.last = r.last
}

// addChunk folds one assistant/chunk event's chunk into the stream with
// the checks and the compaction of dsh-llm's AssistantStreamAccumulator.push.
func (s *stream) addChunk(time, chunk jsValue) error {
	t, ok := safeInteger(time)
	if !ok {
		return jsError("Assistant stream time must be a safe integer, got " + jsString(time))
	}
	if !chunk.present || !v2.IsLossless(chunk.v) {
		return jsError("Assistant stream chunk must be losslessly JSON-serializable")
	}
	if chunk.v.IsNull() {
		return readOfNull("type")
	}
	c := chunk.v
	raw := &record{kind: "chunk", time0: t, chunk: c, last: t}
	kind := member(c, "type")
	switch typ := kind.v.Text(); {
	case kind.v.Kind() != jsonv.String:
	case typ == "text-delta" || typ == "reasoning-delta":
		index, err := chunkIndex(c, typ)
		if err != nil {
			return err
		}
		text := member(c, "text")
		if text.v.Kind() != jsonv.String {
			return jsError(typ + " text must be a string")
		}
		run := "text-chunks"
		if typ == "reasoning-delta" {
			run = "reasoning-chunks"
		}
		s.add(&record{kind: run, time0: t, index: index, members: []jsonv.Value{text.v}, last: t})
		return nil
	case typ == "tool-call-delta":
		index, err := chunkIndex(c, typ)
		if err != nil {
			return err
		}
		id, name, args := member(c, "id"), member(c, "name"), member(c, "argumentsDelta")
		if id.v.Kind() != jsonv.String {
			return jsError("tool-call-delta id must be a string")
		}
		if name.present && name.v.Kind() != jsonv.String {
			return jsError("tool-call-delta name must be a string")
		}
		if args.v.Kind() != jsonv.String {
			return jsError("tool-call-delta argumentsDelta must be a string")
		}
		if id.v.Text() == "" || (name.present && name.v.Text() == "") {
			s.add(raw)
			return nil
		}
		s.add(&record{kind: "tool-call-chunks", time0: t, index: index, id: id.v, name: name, members: []jsonv.Value{args.v}, last: t})
		return nil
	case typ == "block-start" || typ == "block-end" || typ == "usage" || typ == "finish":
		s.add(raw)
		return nil
	}
	return jsError("unreachable variant in AssistantStreamAccumulator.push: " + c.String())
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
	r := &record{kind: v.Field("type").Text(), last: last}
	r.time0, _ = v.Field("time0").SafeInt()
	r.index, _ = v.Field("index").Count()
	for _, gap := range v.Field("dt").Elements() {
		n, _ := gap.SafeInt()
		r.dt = append(r.dt, n)
	}
	if r.kind == "tool-call-chunks" {
		r.id = v.Field("id")
		r.name = member(v, "name")
		r.members = slices.Clone(v.Field("args").Elements())
	} else {
		r.members = slices.Clone(v.Field("texts").Elements())
	}
	return r
}
