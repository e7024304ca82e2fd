// Package gen makes large session logs for benchmarks: a recorded
// session's turns repeated, each copy with its seqs, times, turn numbers,
// message and tool call ids and seq references shifted, so that the log
// stays one well-formed session of the template's format. Template does so
// for v2-framed sessions (v2, v3, v4); V0Template writes the bench's v0
// recipes exactly as bench/gen/gen-session.py does.
package gen

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dshlog/dshlog/jsonv"
)

// Template is a recorded session split for repetition.
type Template struct {
	// prelude is the header line and the rows before the first turn (or
	// before the inbox splice that carries its prompt); written once.
	prelude []byte
	// lines and rows are the turns, from the first turn to the end.
	lines [][]byte
	rows  []jsonv.Value
	// once marks the rows a later copy leaves out: the protected system
	// message and the session title.
	once  []bool
	turns int64               // turns in one copy
	ids   map[string]struct{} // message and tool call ids, renamed per copy
}

// Load reads a template session: a header and rows in v2 framing (v2, v3
// or v4) holding at least one turn.
func Load(r io.Reader) (*Template, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 {
		lines = lines[:n-1]
	}
	if len(lines) < 2 {
		return nil, errors.New("gen: the template has no rows")
	}
	rows := make([]jsonv.Value, len(lines)-1)
	for i, line := range lines[1:] {
		if rows[i], err = jsonv.Parse(bytes.TrimSuffix(line, []byte("\n"))); err != nil {
			return nil, fmt.Errorf("gen: row %d: %w", i, err)
		}
	}
	start := -1
	for i, row := range rows {
		if row.Field("type").Text() == "turn/start" {
			start = i
			if i > 0 && rows[i-1].Field("type").Text() == "agent/inbox/spliced" {
				start = i - 1
			}
			break
		}
	}
	if start < 0 {
		return nil, errors.New("gen: the template has no turn")
	}
	t := &Template{prelude: bytes.Join(lines[:start+1], nil), lines: lines[start+1:], rows: rows[start:], ids: map[string]struct{}{}}
	for _, row := range t.rows {
		typ := row.Field("type").Text()
		t.once = append(t.once, once(row))
		if typ == "turn/start" {
			t.turns++
		}
		collectIDs(row.Field("data"), "", t.ids)
	}
	return t, nil
}

// onceOnly are the event types a session holds once, so later copies leave
// them out: the protected system message, the title, and a parent's
// catalog of its subagent children.
var onceOnly = map[string]bool{"system/message": true, "session/title": true, "subagent/catalog": true}

// once reports whether later copies leave row out: an event of a type the
// session holds once, or the first request/header (reason "initial"),
// which dsh does not log again for the same header.
func once(row jsonv.Value) bool {
	typ := row.Field("type").Text()
	return onceOnly[typ] || typ == "request/header" && row.Field("data").Field("reason").Text() == "initial"
}

// idKeys are the members whose string values are message or tool call ids,
// renamed in every copy so that each copy's ids are its own.
var idKeys = map[string]bool{"id": true, "callId": true, "toolCallId": true, "rootCallId": true, "parentCallId": true, "subCallId": true}

// collectIDs adds the message ids and tool call ids found in v to ids.
func collectIDs(v jsonv.Value, key string, ids map[string]struct{}) {
	switch v.Kind() {
	case jsonv.Object:
		for _, m := range v.Members() {
			collectIDs(m.Value, m.Key, ids)
		}
	case jsonv.Array:
		for _, e := range v.Elements() {
			collectIDs(e, "", ids)
		}
	case jsonv.String:
		if idKeys[key] {
			ids[v.Text()] = struct{}{}
		}
	}
}

// Write writes the template once, then further copies of its turns until
// at least size bytes are written, and returns the bytes written.
func (t *Template) Write(w io.Writer, size int64) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	n, _ := bw.Write(t.prelude)
	written := int64(n)
	for _, line := range t.lines {
		n, _ := bw.Write(line)
		written += int64(n)
	}
	seq := int64(len(t.rows))
	if first, ok := t.rows[0].Field("seq").Count(); ok {
		seq += first
	}
	var buf []byte
	for k := 1; written < size; k++ {
		shift := make(map[int64]int64, len(t.rows))
		for i, row := range t.rows {
			if t.once[i] {
				continue
			}
			old, _ := row.Field("seq").Count()
			shift[old] = seq
			c := copier{k: k, turns: t.turns, ids: t.ids, shift: shift}
			buf = append(c.row(row, seq).Append(buf[:0]), '\n')
			n, err := bw.Write(buf)
			if err != nil {
				return written, err
			}
			written += int64(n)
			seq++
		}
	}
	return written, bw.Flush()
}

// copier rewrites the template's rows for copy k.
type copier struct {
	k     int
	turns int64
	ids   map[string]struct{}
	shift map[int64]int64 // template seq → this copy's seq
}

// row returns the copy of a template row at seq; its time moves with it.
func (c copier) row(row jsonv.Value, seq int64) jsonv.Value {
	oldSeq, _ := row.Field("seq").Count()
	oldTime, _ := row.Field("time").SafeInt()
	out := row.With("seq", jsonv.IntValue(seq)).With("time", jsonv.IntValue(oldTime+seq-oldSeq))
	for _, key := range []string{"data", "sourceEventSeqs", "surfaceOp"} {
		if v, ok := out.Get(key); ok {
			out = out.With(key, c.value(v, key))
		}
	}
	return out
}

// value rewrites turn numbers, ids and seq references inside v, found
// under key.
func (c copier) value(v jsonv.Value, key string) jsonv.Value {
	switch v.Kind() {
	case jsonv.Object:
		members := v.Members()
		out := make([]jsonv.Member, len(members))
		for i, m := range members {
			if key == "shadowedRange" {
				// compaction/summary names its span {start, end} in every version.
				out[i] = jsonv.M(m.Key, c.seqs(m.Value))
				continue
			}
			out[i] = jsonv.M(m.Key, c.value(m.Value, m.Key))
		}
		return jsonv.ObjectValue(out...)
	case jsonv.Array:
		refs := strings.HasSuffix(key, "Seqs")
		elems := v.Elements()
		out := make([]jsonv.Value, len(elems))
		for i, e := range elems {
			if refs {
				out[i] = c.seqs(e)
			} else {
				out[i] = c.value(e, "")
			}
		}
		return jsonv.ArrayValue(out...)
	case jsonv.Number:
		n, ok := v.Count()
		switch {
		case ok && key == "turn":
			return jsonv.IntValue(n + int64(c.k)*c.turns)
		case ok && strings.HasSuffix(key, "Seq"):
			return c.seqs(v)
		}
	case jsonv.String:
		if _, ok := c.ids[v.Text()]; ok && idKeys[key] {
			return jsonv.StringValue(v.Text() + "-" + strconv.Itoa(c.k))
		}
	}
	return v
}

// seqs maps a seq, or a [start, end] range of seqs, to this copy's seqs.
func (c copier) seqs(v jsonv.Value) jsonv.Value {
	if v.Kind() == jsonv.Array {
		out := make([]jsonv.Value, v.Len())
		for i, e := range v.Elements() {
			out[i] = c.seqs(e)
		}
		return jsonv.ArrayValue(out...)
	}
	if n, ok := v.Count(); ok {
		if s, ok := c.shift[n]; ok {
			return jsonv.IntValue(s)
		}
	}
	return v
}

// WriteFile makes a session of at least size bytes at path from the
// template session file at template, and returns the bytes written.
func WriteFile(template, path string, size int64) (int64, error) {
	return fromTemplate(template, path, func(src io.Reader, dst io.Writer) (int64, error) {
		tmpl, err := Load(src)
		if err != nil {
			return 0, err
		}
		return tmpl.Write(dst, size)
	})
}

// fromTemplate opens the template file, creates the file at path and has
// write make the one from the other, returning what write counted.
func fromTemplate(template, path string, write func(src io.Reader, dst io.Writer) (int64, error)) (int64, error) {
	src, err := os.Open(template)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	n, err := write(src, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// Store writes a dsh store of n sessions under root in dsh's layout,
// <root>/--<projectKey(cwd)>--/<id>/session.v<N>.jsonl, and returns the
// bytes written. Session i repeats templates[i%len(templates)] to between
// one and four times its size, under the id gen-<i> and one of 16 working
// directories, in the generation file its header's version names; the
// templates must be v2-framed sessions (v2, v3 or v4).
func Store(root string, templates []string, n int) (int64, error) {
	type loaded struct {
		tmpl *Template
		size int64
	}
	var all []loaded
	for _, path := range templates {
		data, err := os.ReadFile(path)
		if err != nil {
			return 0, err
		}
		tmpl, err := Load(bytes.NewReader(data))
		if err != nil {
			return 0, fmt.Errorf("%s: %w", path, err)
		}
		all = append(all, loaded{tmpl, int64(len(data))})
	}
	if len(all) == 0 {
		return 0, errors.New("gen: no template")
	}
	var total int64
	var buf bytes.Buffer
	for i := range n {
		t := all[i%len(all)]
		buf.Reset()
		if _, err := t.tmpl.Write(&buf, t.size*int64(1+i%4)); err != nil {
			return total, err
		}
		project := "/home/dev/project-" + strconv.Itoa(i%16)
		header, body, _ := bytes.Cut(buf.Bytes(), []byte("\n"))
		hv, err := jsonv.Parse(header)
		if err != nil {
			return total, err
		}
		id := "gen-" + strconv.Itoa(i)
		hv = hv.With("id", jsonv.StringValue(id)).With("cwd", jsonv.StringValue(project))
		dir := filepath.Join(root, "--home-dev-project-"+strconv.Itoa(i%16)+"--", id)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return total, err
		}
		out := append(hv.Append(nil), '\n')
		out = append(out, body...)
		version, _ := hv.Field("version").Count()
		name := "session.v" + strconv.FormatInt(version, 10) + ".jsonl"
		if err := os.WriteFile(filepath.Join(dir, name), out, 0o600); err != nil {
			return total, err
		}
		total += int64(len(out))
	}
	return total, nil
}

// LargeStore writes sessions repeating the v4 template to about file bytes
// each, as <root>/--project--/large-NNN/session.v4.jsonl, until they hold
// about size bytes, and returns how many files and bytes it wrote.
func LargeStore(template, root string, size, file int64) (files int, total int64, err error) {
	for total < size {
		dir := filepath.Join(root, "--project--", fmt.Sprintf("large-%03d", files))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return files, total, err
		}
		n, err := WriteFile(template, filepath.Join(dir, "session.v4.jsonl"), min(file, size-total))
		if err != nil {
			return files, total, err
		}
		total += n
		files++
	}
	return files, total, nil
}
