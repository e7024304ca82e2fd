package agentloop

import (
	"strings"

	"github.com/dshlog/dshlog/jsonv"
)

// reply assembles a model's streamed chunks into what the settlement
// records: the content blocks, the usage, the finish and the stream in
// dsh's stored form (chunk entries, consecutive deltas of one block packed
// into text-chunks, reasoning-chunks and tool-call-chunks entries).
type reply struct {
	time    int64 // every chunk's time: the loop's clock is fixed
	blocks  []*block
	entries []*entry
	usage   *Chunk
	finish  *Finish
}

type block struct {
	kind     ChunkKind
	index    int
	text     strings.Builder // text, reasoning or arguments
	id, name string
	ended    bool
}

// entry is one element of the stored stream: a chunk, or a pack of deltas.
type entry struct {
	chunk  jsonv.Value // a plain chunk, when kind is -1
	kind   ChunkKind
	index  int
	id     string
	name   string
	pieces []string
}

var blockTypes = map[ChunkKind]string{TextDelta: "text", ReasoningDelta: "reasoning", ToolCallDelta: "tool-call"}

var packTypes = map[ChunkKind]string{TextDelta: "text-chunks", ReasoningDelta: "reasoning-chunks", ToolCallDelta: "tool-call-chunks"}

// add takes the next chunk.
func (r *reply) add(c Chunk) {
	switch c.Kind {
	case TextDelta, ReasoningDelta, ToolCallDelta:
		r.delta(c)
	case UsageChunk:
		r.endBlock()
		r.usage = &c
		r.plain(jsonv.ObjectValue(jsonv.M("type", jsonv.StringValue("usage")), jsonv.M("usage", usageValue(c))))
	case FinishChunk:
		r.endBlock()
		f := c.Finish
		r.finish = &f
		r.plain(jsonv.ObjectValue(jsonv.M("type", jsonv.StringValue("finish")), jsonv.M("reason", finishValue(f))))
	}
}

func (r *reply) delta(c Chunk) {
	open := r.open()
	if open == nil || open.index != c.Index || open.kind != c.Kind {
		r.endBlock()
		open = &block{kind: c.Kind, index: c.Index, id: c.ID, name: c.Name}
		r.blocks = append(r.blocks, open)
		r.plain(jsonv.ObjectValue(
			jsonv.M("type", jsonv.StringValue("block-start")),
			jsonv.M("index", jsonv.IntValue(int64(c.Index))),
			jsonv.M("blockType", jsonv.StringValue(blockTypes[c.Kind])),
		))
	}
	open.text.WriteString(c.Text)
	if c.Name != "" && open.name == "" {
		open.name = c.Name
	}
	last := r.lastEntry()
	// dsh packs a piece with the previous pack of the same block, call id
	// and tool name (absent in both, or equal): the piece that names its
	// tool and the ones after it go to separate packs.
	if last != nil && last.chunk.IsNull() && last.kind == c.Kind && last.index == c.Index && last.id == c.ID && last.name == c.Name {
		last.pieces = append(last.pieces, c.Text)
		return
	}
	r.entries = append(r.entries, &entry{kind: c.Kind, index: c.Index, id: c.ID, name: c.Name, pieces: []string{c.Text}})
}

func (r *reply) open() *block {
	if len(r.blocks) == 0 || r.blocks[len(r.blocks)-1].ended {
		return nil
	}
	return r.blocks[len(r.blocks)-1]
}

func (r *reply) lastEntry() *entry {
	if len(r.entries) == 0 {
		return nil
	}
	return r.entries[len(r.entries)-1]
}

func (r *reply) endBlock() {
	open := r.open()
	if open == nil {
		return
	}
	open.ended = true
	r.plain(jsonv.ObjectValue(
		jsonv.M("type", jsonv.StringValue("block-end")),
		jsonv.M("index", jsonv.IntValue(int64(open.index))),
		jsonv.M("block", open.value()),
	))
}

func (r *reply) plain(chunk jsonv.Value) {
	r.entries = append(r.entries, &entry{chunk: chunk})
}

// value is the block as message content.
func (b *block) value() jsonv.Value {
	if b.kind == ToolCallDelta {
		return jsonv.ObjectValue(
			jsonv.M("type", jsonv.StringValue("tool-call")),
			jsonv.M("id", jsonv.StringValue(b.id)),
			jsonv.M("name", jsonv.StringValue(b.name)),
			jsonv.M("arguments", jsonv.StringValue(b.text.String())),
		)
	}
	return jsonv.ObjectValue(jsonv.M("type", jsonv.StringValue(blockTypes[b.kind])), jsonv.M("text", jsonv.StringValue(b.text.String())))
}

// content returns the message content: every finished block, or for an
// interrupted stream its text and reasoning only (an unfinished tool call
// is dropped, and an interrupted message asks for no tool).
func (r *reply) content(interrupted bool) []jsonv.Value {
	var out []jsonv.Value
	for _, b := range r.blocks {
		switch {
		case !interrupted && b.ended:
			out = append(out, b.value())
		case interrupted && b.kind != ToolCallDelta && b.text.Len() > 0:
			out = append(out, b.value())
		}
	}
	return out
}

// toolCalls returns the finished tool-call blocks.
func (r *reply) toolCalls() []*block {
	var calls []*block
	for _, b := range r.blocks {
		if b.kind == ToolCallDelta && b.ended {
			calls = append(calls, b)
		}
	}
	return calls
}

// keptText reports whether an interrupted stream kept text worth a
// message: some non-blank text or reasoning.
func (r *reply) keptText() bool {
	for _, b := range r.blocks {
		if b.kind != ToolCallDelta && strings.TrimSpace(b.text.String()) != "" {
			return true
		}
	}
	return false
}

// stream returns the stored stream.
func (r *reply) stream() jsonv.Value {
	values := make([]jsonv.Value, len(r.entries))
	t := jsonv.IntValue(r.time)
	for i, e := range r.entries {
		if !e.chunk.IsNull() {
			values[i] = jsonv.ObjectValue(jsonv.M("type", jsonv.StringValue("chunk")), jsonv.M("time", t), jsonv.M("chunk", e.chunk))
			continue
		}
		dt := make([]jsonv.Value, len(e.pieces)-1)
		for j := range dt {
			dt[j] = jsonv.IntValue(0)
		}
		pieces := make([]jsonv.Value, len(e.pieces))
		for j, p := range e.pieces {
			pieces[j] = jsonv.StringValue(p)
		}
		members := []jsonv.Member{
			jsonv.M("type", jsonv.StringValue(packTypes[e.kind])),
			jsonv.M("time0", t),
			jsonv.M("index", jsonv.IntValue(int64(e.index))),
			jsonv.M("dt", jsonv.ArrayValue(dt...)),
		}
		if e.kind == ToolCallDelta {
			members = append(members, jsonv.M("id", jsonv.StringValue(e.id)))
			if e.name != "" {
				members = append(members, jsonv.M("name", jsonv.StringValue(e.name)))
			}
			members = append(members, jsonv.M("args", jsonv.ArrayValue(pieces...)))
		} else {
			members = append(members, jsonv.M("texts", jsonv.ArrayValue(pieces...)))
		}
		values[i] = jsonv.ObjectValue(members...)
	}
	return jsonv.ArrayValue(values...)
}

func usageValue(c Chunk) jsonv.Value {
	return jsonv.ObjectValue(jsonv.M("inputTokens", jsonv.IntValue(c.InputTokens)), jsonv.M("outputTokens", jsonv.IntValue(c.OutputTokens)))
}

// finishValue is a finish reason as dsh stores it.
func finishValue(f Finish) jsonv.Value {
	kind := jsonv.M("kind", jsonv.StringValue(f.Kind))
	if f.Kind != "error" && f.Kind != "aborted" {
		return jsonv.ObjectValue(kind)
	}
	return jsonv.ObjectValue(kind, jsonv.M("failure", failureValue(f)))
}

func failureValue(f Finish) jsonv.Value {
	return jsonv.ObjectValue(jsonv.M("message", jsonv.StringValue(f.Message)), jsonv.M("code", jsonv.StringValue(f.Code)))
}
