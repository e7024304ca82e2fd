package snapshot

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// Replacement is one plain text rewrite of rule R2 (for the corpus:
// every @x1a0f3n9/ and @xfcodeai/ to @deepseek-ai/).
type Replacement struct {
	Old, New string // every Old becomes New
}

// RestoreOptions say what a restore fills in.
type RestoreOptions struct {
	Values
	// Replace are the text rewrites of rule R2, applied in order to every
	// row after the placeholders; none unless asked.
	Replace []Replacement
	// Expected, when not nil, holds the prompts and tool lists dsh's snapshot
	// folder keeps beside the log; they take the place of Values.System and
	// Values.Tools. A prompt or tool list the files lack gets Values.System
	// or Values.Tools, with a warning.
	Expected *Expected
	// Child is K when the log is child K of its snapshot folder
	// (session.K.jsonl, ChildNumber), 0 for the parent. It numbers the
	// log's own session id in the named placeholders (Restore).
	Child int
	// Placeholders give named placeholders their values by name ("agent-1"
	// for {{agent-1}}), wherever they stand; they take precedence over
	// Restore's rules.
	Placeholders map[string]string
	// Warn, when not nil, is told what Restore filled in with a stand-in.
	Warn func(Warning)
}

// Warning is something Restore filled in with a stand-in value.
type Warning struct {
	File   string
	Line   int
	Reason string
}

func (w Warning) String() string {
	return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Reason)
}

// packedTypes are the v0/v1 rows that pack several stream chunks, one seq
// each (rule R4).
var packedTypes = map[string]string{
	"text-chunks":      "texts",
	"reasoning-chunks": "texts",
	"tool-call-chunks": "args",
}

// Restore reads a normalized snapshot from src (name is used in errors)
// and writes the session log it stands for to dst, one row at a time.
//
// Besides the placeholders of rules R1 and R3 it fills the named ones
// dsh's pre-v1 snapshot normalizers write, with the log's session ordinal
// S (1 for the parent, K+1 for child K, 2 for a child log whose number is
// not known): {{sessionId}} is the log's own session id (R1's session:S),
// the parent's (session:1) as the header's parentSession, and a message id
// as a message's id; {{parent}} is session:1 and {{child-N}} session:N+1;
// {{messageId}} is a new message id S-…-9000-N for each message, except
// that a message an agent/inbox/spliced row inserted keeps its id when a
// later row delivers the same message; {{rpcId}} is an RPC id S-…-a000-N,
// a new one for each turn; {{workflow-run}} is R1's workflow:1; and
// {{messagePrefix}} as an element of a request header's messagePrefix is
// a stand-in user message. Any other placeholder, or one where its rule
// gives no value, fails the restore with an *UnfilledError naming it and
// where it stands; none is left in the output.
func Restore(dst io.Writer, src io.Reader, name string, opts RestoreOptions) error {
	r, err := newRestorer(opts)
	if err != nil {
		return err
	}
	r.name = name
	lines := jsonl.NewReader(src, name)
	out := bufio.NewWriter(dst)
	for {
		line, err := nextLine(lines)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		r.line = line.Num
		row, err := r.row(line.Text)
		if err != nil {
			return &jsonl.Error{File: name, Line: line.Num, Err: err}
		}
		if _, err := out.Write(row); err != nil {
			return err
		}
	}
	if !r.sawHeader {
		return &jsonl.Error{File: name, Line: 1, Err: errors.New("no session header")}
	}
	return out.Flush()
}

// restorer carries a restore's state from row to row.
type restorer struct {
	opts      RestoreOptions
	name      string // the log's name, for warnings
	line      int    // the line being restored
	formats   []idFormat
	named     *namedFiller
	sawHeader bool
	createdAt float64
	seq       int64 // the next row's seq (R4)
	prompts   int   // system prompts substituted so far
	headers   int   // request/header tool lists substituted so far
	tools     jsonv.Value
	buf       []byte
}

func newRestorer(opts RestoreOptions) (*restorer, error) {
	formats, err := compileFormats(opts.IDFormats)
	if err != nil {
		return nil, err
	}
	if opts.TimeStep == 0 {
		opts.TimeStep = 1
	}
	return &restorer{opts: opts, formats: formats}, nil
}

// row restores one line: the header as text, a body row by the rules.
func (r *restorer) row(text []byte) ([]byte, error) {
	if !r.sawHeader {
		return r.header(text)
	}
	if r.opts.Expected != nil {
		var err error
		if text, err = r.substituteExpected(text); err != nil {
			return nil, err
		}
	}
	replaced := r.replaceText(string(text))
	v, err := jsonv.Parse([]byte(replaced))
	if err != nil {
		return nil, fmt.Errorf("not valid JSON after the placeholders were filled in: %v", err)
	}
	if v.Kind() != jsonv.Object {
		return nil, errors.New("row is not a JSON object")
	}
	v = r.restoreRow(v)
	if mayHoldPlaceholder(replaced) {
		if v, _, err = r.named.row(v, false); err != nil {
			return nil, err
		}
	}
	r.buf = append(v.Append(r.buf[:0]), '\n')
	return r.buf, nil
}

// header fills in the header's placeholders and keeps it otherwise as it is.
func (r *restorer) header(text []byte) ([]byte, error) {
	replaced := r.replaceText(string(text))
	hv, err := jsonv.Parse([]byte(replaced))
	if err != nil || hv.Kind() != jsonv.Object || hv.Field("type").Text() != "session" {
		return nil, errors.New("the first line is not a session header")
	}
	createdAt, ok := hv.Field("createdAt").Number()
	if !ok {
		return nil, errors.New("the session header has no numeric createdAt (rule R5 needs it)")
	}
	r.sawHeader, r.createdAt = true, createdAt
	r.named = newNamedFiller(r.opts.Placeholders, r.sessionID, r.ordinalValue(token("workflow", 1)), r.sessionOrdinal(hv))
	if !mayHoldPlaceholder(replaced) {
		return append([]byte(replaced), '\n'), nil
	}
	filled, changed, err := r.named.row(hv, true)
	if err != nil || !changed {
		return append([]byte(replaced), '\n'), err
	}
	return append(filled.Encode(), '\n'), nil
}

// mayHoldPlaceholder reports whether a row's text may hold a placeholder:
// {{ as written, or a brace escaped as \u007b.
func mayHoldPlaceholder(text string) bool {
	return strings.Contains(text, "{{") || strings.Contains(text, `\u007`)
}

// sessionOrdinal is the ordinal of the log's own session id: 1 for the
// parent, K+1 for child K (dsh numbers the parent's id first), and 2 for a
// log whose header names a parent but whose number is not known.
func (r *restorer) sessionOrdinal(header jsonv.Value) int {
	switch {
	case r.opts.Child > 0:
		return r.opts.Child + 1
	case header.Has("parentSession"):
		return 2
	}
	return 1
}

// sessionID is the session id of ordinal n, as rule R1 spells
// {{session:n}}.
func (r *restorer) sessionID(n int) string {
	return r.ordinalValue(token("session", n))
}

// warn tells the caller what the current row got as a stand-in.
func (r *restorer) warn(format string, args ...any) {
	if r.opts.Warn != nil {
		r.opts.Warn(Warning{File: r.name, Line: r.line, Reason: fmt.Sprintf(format, args...)})
	}
}

// replaceText applies rules R1 and R2: text replacements on the row. The
// placeholders stand inside JSON strings, so each value goes in as
// JSON.stringify writes it inside quotes (for the corpus's values, itself).
func (r *restorer) replaceText(text string) string {
	if strings.Contains(text, "{{") {
		text = strings.ReplaceAll(text, cwdToken, jsonInner(r.opts.Cwd))
		text = strings.ReplaceAll(text, systemToken, jsonInner(r.opts.System))
		text = tokenPattern.ReplaceAllStringFunc(text, func(tok string) string {
			return jsonInner(r.ordinalValue(tok))
		})
	}
	for _, rep := range r.opts.Replace {
		text = strings.ReplaceAll(text, jsonInner(rep.Old), jsonInner(rep.New))
	}
	return text
}

// jsonInner is s as it stands between the quotes of a JSON string.
func jsonInner(s string) string {
	quoted := jsonv.AppendString(nil, s)
	return string(quoted[1 : len(quoted)-1])
}

// restoreRow applies rules R3 to R7 to a row whose text is restored.
func (r *restorer) restoreRow(v jsonv.Value) jsonv.Value {
	typ := v.Field("type").Text()
	if typ == "request/header" && v.Field("data").Field("header").Field("tools").Text() == toolsToken {
		v = withPath(v, r.opts.Tools, "data", "header", "tools") // R3
	}
	seqKey, timeKey, width := "seq", "time", int64(1)
	if list, packed := packedTypes[typ]; packed {
		seqKey, timeKey = "seq0", "time0"
		width = int64(v.Field("data").Field(list).Len())
	}
	time := r.createdAt + float64(r.seq*r.opts.TimeStep)
	if t, ok := timeAt(r.opts.Clock, r.seq); ok {
		time = t
	}
	members := []jsonv.Member{
		jsonv.M("type", v.Field("type")),
		jsonv.M(seqKey, jsonv.IntValue(r.seq)),
		jsonv.M(timeKey, jsonv.NumberValue(time)),
	}
	for _, m := range v.Members() {
		switch m.Key {
		case "type", "seq", "time", "seq0", "time0":
			continue
		case "sourceEventSeqs":
			m.Value = compressSeqs(m.Value) // R7
		}
		members = append(members, m)
	}
	r.seq += width
	return jsonv.ObjectValue(members...)
}

// compressSeqs re-encodes an expanded list of seqs with dsh's ranges; any
// other value is kept as it is.
func compressSeqs(v jsonv.Value) jsonv.Value {
	elems := v.Elements()
	if v.Kind() != jsonv.Array {
		return v
	}
	seqs := make([]int64, len(elems))
	for i, e := range elems {
		n, ok := e.SafeInt()
		if !ok || e.Kind() != jsonv.Number {
			return v
		}
		seqs[i] = n
	}
	return session.EncodeSeqRanges(seqs)
}

// withPath returns v with the member at the path of keys set to val, each
// key keeping its position.
func withPath(v jsonv.Value, val jsonv.Value, keys ...string) jsonv.Value {
	if len(keys) == 1 {
		return v.With(keys[0], val)
	}
	return v.With(keys[0], withPath(v.Field(keys[0]), val, keys[1:]...))
}
