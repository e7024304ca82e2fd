package v0

import (
	"bytes"

	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// ChunkRunType is the run type of a packed Assistant chunk row (dsh's
// 'released-assistant-chunks'), the only compact run of formats v0 to v2.
const ChunkRunType = "released-assistant-chunks"

// ChunkRun is one packed Assistant chunk row of a v0 or v1 session, kept
// compact (dsh's ReleasedAssistantChunkRun): the v0→v1 edge forwards it as it
// is and the v1→v2 edge embeds its Stream directly, without ever expanding it
// into assistant/chunk events.
type ChunkRun struct {
	first, count      int64
	turn, step        int64
	lastSeq, lastTime int64
	stream            jsonv.Value
}

// RunType returns ChunkRunType.
func (r *ChunkRun) RunType() string { return ChunkRunType }

// FirstSeq returns the seq of the first member (the row's seq0).
func (r *ChunkRun) FirstSeq() int64 { return r.first }

// EventCount returns the number of member chunks.
func (r *ChunkRun) EventCount() int64 { return r.count }

// Turn returns the turn every member chunk carries.
func (r *ChunkRun) Turn() int64 { return r.turn }

// Step returns the step every member chunk carries.
func (r *ChunkRun) Step() int64 { return r.step }

// LastSeq returns the seq of the last member.
func (r *ChunkRun) LastSeq() int64 { return r.lastSeq }

// LastTime returns the time of the last member.
func (r *ChunkRun) LastTime() int64 { return r.lastTime }

// Stream returns the row as a v2 embedded stream record, key order as dsh
// builds it: {type, time0, index, dt, texts} for text and reasoning,
// {type, time0, index, dt, id, name?, args} for tool calls.
func (r *ChunkRun) Stream() jsonv.Value { return r.stream }

// Expand returns the member assistant/chunk events, as dsh's
// expandAssistantChunkRun writes them.
func (r *ChunkRun) Expand() ([]session.Event, error) {
	tag := r.stream.Field("type").Text()
	gaps := r.stream.Field("dt").Elements()
	payload := "texts"
	if tag == toolCallChunks {
		payload = "args"
	}
	members := r.stream.Field(payload).Elements()
	index := r.stream.Field("index")
	name, hasName := r.stream.Get("name")
	time, _ := r.stream.Field("time0").SafeInt()
	events := make([]session.Event, len(members))
	for k, member := range members {
		if k > 0 {
			gap, _ := gaps[k-1].SafeInt()
			time += gap
		}
		var chunk jsonv.Value
		switch tag {
		case textChunks, reasoningChunks:
			delta := "text-delta"
			if tag == reasoningChunks {
				delta = "reasoning-delta"
			}
			chunk = jsonv.ObjectValue(
				jsonv.M("type", jsonv.StringValue(delta)),
				jsonv.M("index", index),
				jsonv.M("text", member),
			)
		default:
			fields := []jsonv.Member{
				jsonv.M("type", jsonv.StringValue("tool-call-delta")),
				jsonv.M("index", index),
				jsonv.M("id", r.stream.Field("id")),
			}
			if hasName {
				fields = append(fields, jsonv.M("name", name))
			}
			chunk = jsonv.ObjectValue(append(fields, jsonv.M("argumentsDelta", member))...)
		}
		seq := r.first + int64(k)
		events[k] = session.Event{
			Type: "assistant/chunk",
			Seq:  seq,
			Time: time,
			Row: jsonv.ObjectValue(
				jsonv.M("type", jsonv.StringValue("assistant/chunk")),
				jsonv.M("seq", jsonv.IntValue(seq)),
				jsonv.M("time", jsonv.IntValue(time)),
				jsonv.M("data", jsonv.ObjectValue(
					jsonv.M("turn", jsonv.IntValue(r.turn)),
					jsonv.M("step", jsonv.IntValue(r.step)),
					jsonv.M("chunk", chunk),
				)),
			),
		}
	}
	return events, nil
}

// The packed row tags.
const (
	textChunks      = "text-chunks"
	reasoningChunks = "reasoning-chunks"
	toolCallChunks  = "tool-call-chunks"
)

// PackedWidth returns how many chunk events a packed row stands for (the
// length of its data.texts, or data.args for tool-call chunks), and false
// for a row that is not a packed row: what the seqs of a normalized
// snapshot, which has none, count a packed row as (rule R4).
func PackedWidth(row jsonv.Value) (int64, bool) {
	switch row.Field("type").Text() {
	case textChunks, reasoningChunks:
		return int64(row.Field("data").Field("texts").Len()), true
	case toolCallChunks:
		return int64(row.Field("data").Field("args").Len()), true
	}
	return 0, false
}

// decodePackedRun decodes a packed row (its type already known to be one of
// the three tags) with dsh's decodePackedRun checks, in dsh's order.
func decodePackedRun(row jsonv.Value, tag string, rowIndex int64) (*ChunkRun, error) {
	// The label only words a refusal: decode with an empty one, whose
	// concatenations allocate nothing, and again with the row's to word it.
	run, err := decodeLabelledRun(row, tag, "")
	if err != nil {
		_, err = decodeLabelledRun(row, tag, "released "+tag+" row "+itoa(rowIndex))
		return nil, err
	}
	return run, nil
}

// decodeLabelledRun is decodePackedRun with the row's label.
func decodeLabelledRun(row jsonv.Value, tag, label string) (*ChunkRun, error) {
	if err := v2.ReleasedMembers(row, label, []string{"type", "seq0", "time0", "data"}, nil); err != nil {
		return nil, err
	}
	seq0, err := jsform.Count(row.Field("seq0"), label+" seq0")
	if err != nil {
		return nil, err
	}
	time0, err := jsform.SafeInteger(row.Field("time0"), label+" time0")
	if err != nil {
		return nil, err
	}
	data := row.Field("data")
	if _, err := v2.ReleasedRecord(data, label+" data"); err != nil {
		return nil, err
	}
	isTool := tag == toolCallChunks
	payloadKey := "texts"
	required, optional := []string{"turn", "step", "index", "dt", "texts"}, []string(nil)
	if isTool {
		payloadKey = "args"
		required, optional = []string{"turn", "step", "index", "id", "dt", "args"}, []string{"name"}
	}
	if err := v2.ReleasedMembers(data, label+" data", required, optional); err != nil {
		return nil, err
	}
	payload := data.Field(payloadKey)
	members, allStrings := stringArray(payload)
	if !allStrings || members == 0 {
		return nil, session.FormatErrorf("%s payload must be a non-empty string array", label)
	}
	gaps := data.Field("dt")
	if gaps.Kind() != jsonv.Array || gaps.Len() != members-1 {
		return nil, session.FormatErrorf("%s dt length must match its payload", label)
	}
	lastTime := time0
	for _, g := range gaps.Elements() {
		gap, err := jsform.SafeInteger(g, label+" dt member")
		if err != nil {
			return nil, err
		}
		if lastTime, err = jsform.SafeInteger(jsonv.IntValue(lastTime+gap), label+" member time"); err != nil {
			return nil, err
		}
	}
	turn, err := jsform.Count(data.Field("turn"), label+" turn")
	if err != nil {
		return nil, err
	}
	step, err := jsform.Count(data.Field("step"), label+" step")
	if err != nil {
		return nil, err
	}
	index, err := jsform.Count(data.Field("index"), label+" index")
	if err != nil {
		return nil, err
	}
	name, hasName := data.Get("name")
	if isTool {
		if id, ok := data.Field("id").Str(); !ok || id == "" || (hasName && name.Kind() != jsonv.String) {
			return nil, session.FormatErrorf("%s id and optional name must be strings", label)
		}
	}
	lastSeq, err := jsform.Count(jsonv.IntValue(seq0+int64(members)-1), label+" final seq")
	if err != nil {
		return nil, err
	}
	stream := []jsonv.Member{
		jsonv.M("type", jsonv.StringValue(tag)),
		jsonv.M("time0", jsonv.IntValue(time0)),
		jsonv.M("index", jsonv.IntValue(index)),
		jsonv.M("dt", gaps),
	}
	if isTool {
		stream = append(stream, jsonv.M("id", data.Field("id")))
		if hasName {
			stream = append(stream, jsonv.M("name", name))
		}
	}
	stream = append(stream, jsonv.M(payloadKey, payload))
	return &ChunkRun{
		first:    seq0,
		count:    int64(members),
		turn:     turn,
		step:     step,
		lastSeq:  lastSeq,
		lastTime: lastTime,
		stream:   jsonv.ObjectValue(stream...),
	}, nil
}

// stringArray returns the length of array v and whether every element is
// a string (false for any other kind of v). A packed row's payload is most
// of its text and is carried on as it is: its canonical text is read
// without decoding (and copying) its strings; other text is decoded.
func stringArray(v jsonv.Value) (int, bool) {
	if v.Kind() != jsonv.Array {
		return 0, false
	}
	if raw := v.Raw(); raw != nil {
		return canonicalStringArray(raw)
	}
	elems := v.Elements()
	for _, e := range elems {
		if e.Kind() != jsonv.String {
			return len(elems), false
		}
	}
	return len(elems), true
}

// canonicalStringArray is stringArray for the canonical text of an array
// (as jsonv writes it: no white space, a string's quotes only escaped): it
// stops at the first element that does not start with a quote.
func canonicalStringArray(raw []byte) (int, bool) {
	if raw[1] == ']' {
		return 0, true
	}
	n := 0
	for i := 1; ; i++ { // i is at an element's first byte
		if raw[i] != '"' {
			return n, false
		}
		i++
		for { // to the closing quote: one not escaped by an odd run of backslashes
			i += bytes.IndexByte(raw[i:], '"')
			escapes := 0
			for raw[i-1-escapes] == '\\' {
				escapes++
			}
			if escapes%2 == 0 {
				break
			}
			i++
		}
		n++
		if raw[i+1] == ']' {
			return n, true
		}
		i++ // at the comma
	}
}
