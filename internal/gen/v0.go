package gen

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/dshlog/dshlog/jsonv"
)

// V0Template is a restored v0 session with one turn, split for repetition
// exactly as the bench recipes' generator (bench/gen/gen-session.py, kept
// beside dsh's hashes of its output) repeats it, so that a test can make
// the bench's v0 files at any size without Python. Copy k of the turn
// (from 1) has its ids renamed "<id>-t<k>", every data.turn set to k, its
// seqs laid out densely after the previous copy (a packed chunk row counts
// for its members), time = createdAt + seq, and its sourceEventSeqs moved
// with the row. Rows dsh writes once per session (the title, the request
// header and context, the system message and the runtime-context user
// message) are kept in copy 1 only.
type V0Template struct {
	header    []byte // the header line re-encoded, without its newline
	headerLen int64  // what the generator counts for it: its characters and a newline
	createdAt int64
	prelude   [][]byte      // rows before the turn, re-encoded
	turn      []jsonv.Value // the turn's rows
	ids       []string      // message and call ids, in the order first found
	base      int64         // seq of the turn's first row
}

// v0OnceTypes are the event types a later copy leaves out.
var v0OnceTypes = map[string]bool{"session/title": true, "request/header": true, "request/context": true, "system/message": true}

// v0IDKeys introduce the ids a copy renames, searched in this order in each
// row's text.
var v0IDKeys = []string{`"id":"`, `"callId":"`, `"toolCallId":"`}

// LoadV0 reads a v0 template: a header and rows whose turn starts at the
// first agent/inbox/spliced row.
func LoadV0(r io.Reader) (*V0Template, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(lines) < 2 {
		return nil, errors.New("gen: the template has no rows")
	}
	header, err := jsonv.Parse(lines[0])
	if err != nil {
		return nil, fmt.Errorf("gen: header: %w", err)
	}
	createdAt, ok := header.Field("createdAt").SafeInt()
	if !ok {
		return nil, errors.New("gen: the header has no createdAt")
	}
	t := &V0Template{header: header.Append(nil), headerLen: int64(utf8.RuneCount(lines[0])) + 1, createdAt: createdAt}
	start := -1
	for i, line := range lines[1:] {
		row, err := jsonv.Parse(line)
		if err != nil {
			return nil, fmt.Errorf("gen: row %d: %w", i, err)
		}
		if start < 0 && row.Field("type").Text() == "agent/inbox/spliced" {
			start = i
		}
		if start < 0 {
			t.prelude = append(t.prelude, row.Append(nil))
			continue
		}
		t.turn = append(t.turn, row)
	}
	if start < 0 {
		return nil, errors.New("gen: the template has no agent/inbox/spliced row")
	}
	t.base = v0Seq(t.turn[0])
	seen := map[string]bool{}
	for _, row := range t.turn {
		text := row.Append(nil)
		for _, key := range v0IDKeys {
			for rest := text; ; {
				at := bytes.Index(rest, []byte(key))
				if at < 0 {
					break
				}
				rest = rest[at+len(key):]
				end := bytes.IndexByte(rest, '"')
				if end < 0 {
					break
				}
				if id := string(rest[:end]); !seen[id] {
					seen[id] = true
					t.ids = append(t.ids, id)
				}
				rest = rest[end:]
			}
		}
	}
	return t, nil
}

// v0Seq is a row's seq, or a packed chunk row's seq0.
func v0Seq(row jsonv.Value) int64 {
	if seq0, ok := row.Get("seq0"); ok {
		n, _ := seq0.SafeInt()
		return n
	}
	n, _ := row.Field("seq").SafeInt()
	return n
}

// v0Width is the number of events a row stands for.
func v0Width(row jsonv.Value) int64 {
	data := row.Field("data")
	switch row.Field("type").Text() {
	case "text-chunks", "reasoning-chunks":
		return int64(data.Field("texts").Len())
	case "tool-call-chunks":
		return int64(data.Field("args").Len())
	}
	return 1
}

// Write writes the header, the rows before the turn, then copies of the
// turn until at least size bytes are counted, each tool output padded with
// pad bytes of text, and returns the bytes counted (the generator counts
// the header line by its characters).
func (t *V0Template) Write(w io.Writer, size int64, pad int) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.Write(t.header)
	bw.WriteByte('\n')
	written := t.headerLen
	for _, line := range t.prelude {
		bw.Write(line)
		bw.WriteByte('\n')
		written += int64(len(line)) + 1
	}
	seq := t.base
	var buf []byte
	for k := 1; written < size; k++ {
		for _, row := range t.turn {
			if k > 1 && (v0OnceTypes[row.Field("type").Text()] || runtimeContext(row)) {
				continue
			}
			out, err := t.copyRow(row, k, seq, pad)
			if err != nil {
				return written, err
			}
			seq += v0Width(out)
			buf = append(out.Append(buf[:0]), '\n')
			if _, err := bw.Write(buf); err != nil {
				return written, err
			}
			written += int64(len(buf))
		}
	}
	return written, bw.Flush()
}

// runtimeContext reports whether row is the runtime-context user message: a
// user/message whose source is not the user's.
func runtimeContext(row jsonv.Value) bool {
	return row.Field("type").Text() == "user/message" && row.Field("data").Field("source").Field("kind").Text() != "user"
}

// copyRow returns copy k of a turn row placed at seq.
func (t *V0Template) copyRow(row jsonv.Value, k int, seq int64, pad int) (jsonv.Value, error) {
	text := row.Append(nil)
	suffix := "-t" + strconv.Itoa(k)
	for _, id := range t.ids {
		text = bytes.ReplaceAll(text, []byte(`"`+id+`"`), []byte(`"`+id+suffix+`"`))
	}
	out, err := jsonv.Parse(text)
	if err != nil {
		return out, err
	}
	if data := out.Field("data"); data.Has("turn") {
		out = out.With("data", data.With("turn", jsonv.IntValue(int64(k))))
	}
	oldSeq := v0Seq(out)
	seqKey, timeKey := "seq", "time"
	if out.Has("seq0") {
		seqKey, timeKey = "seq0", "time0"
	}
	out = out.With(seqKey, jsonv.IntValue(seq)).With(timeKey, jsonv.IntValue(t.createdAt+seq))
	if sources, ok := out.Get("sourceEventSeqs"); ok {
		out = out.With("sourceEventSeqs", shiftRefs(sources, seq-oldSeq))
	}
	if pad > 0 && out.Field("type").Text() == "tool/result" {
		out = padToolOutput(out, pad)
	}
	return out, nil
}

// shiftRefs moves each seq, or [start, end] range, of a reference list.
func shiftRefs(list jsonv.Value, delta int64) jsonv.Value {
	shift := func(v jsonv.Value) jsonv.Value {
		n, _ := v.Number()
		return jsonv.NumberValue(n + float64(delta))
	}
	elems := list.Elements()
	out := make([]jsonv.Value, len(elems))
	for i, e := range elems {
		if e.Kind() == jsonv.Array {
			out[i] = jsonv.ArrayValue(shift(e.Index(0)), shift(e.Index(1)))
			continue
		}
		out[i] = shift(e)
	}
	return jsonv.ArrayValue(out...)
}

// padToolOutput appends pad bytes of filler to the first text of a
// tool/result message: the first text inside a tool-result block, or a
// text block met before one.
func padToolOutput(row jsonv.Value, pad int) jsonv.Value {
	filler := bytes.Repeat([]byte("lorem ipsum dolor sit amet "), pad/27+1)[:pad]
	data := row.Field("data")
	message := data.Field("message")
	content := message.Field("content")
	for i, block := range content.Elements() {
		switch block.Field("type").Text() {
		case "tool-result":
			inner := block.Field("content")
			for j, part := range inner.Elements() {
				if part.Field("type").Text() == "text" {
					part = part.With("text", jsonv.StringValue(part.Field("text").Text()+string(filler)))
					block = block.With("content", inner.WithIndex(j, part))
					return withBlock(row, data, message, content, i, block)
				}
			}
		case "text":
			block = block.With("text", jsonv.StringValue(block.Field("text").Text()+string(filler)))
			return withBlock(row, data, message, content, i, block)
		}
	}
	return row
}

// withBlock returns row with block i of its message's content replaced.
func withBlock(row, data, message, content jsonv.Value, i int, block jsonv.Value) jsonv.Value {
	message = message.With("content", content.WithIndex(i, block))
	return row.With("data", data.With("message", message))
}

// WriteV0File makes a v0 session of at least size bytes at path from the
// template session file at template, each tool output padded with pad
// bytes, and returns the bytes counted.
func WriteV0File(template, path string, size int64, pad int) (int64, error) {
	return fromTemplate(template, path, func(src io.Reader, dst io.Writer) (int64, error) {
		tmpl, err := LoadV0(src)
		if err != nil {
			return 0, err
		}
		return tmpl.Write(dst, size, pad)
	})
}
