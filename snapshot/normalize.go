package snapshot

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// NormalizeOptions say which run-specific values Normalize recognizes
// besides those dsh's normalizer finds by their shape.
type NormalizeOptions struct {
	// IDFormats are the forms of ids to turn back into their own ordinals
	// (message-3 → {{message:3}}); Defaults().IDFormats undoes rule R1.
	// Other ids get the next free ordinal of their kind in first-seen order,
	// as dsh's redaction gives them.
	IDFormats map[string]string
	// Sessions are session ids known in advance: Sessions[0] is
	// {{session:1}}, and so on. Normalizing a child alone needs its parent's
	// and earlier siblings' ids to number it as dsh numbers it beside them.
	Sessions []string
}

// Row is one normalized row of a log.
type Row struct {
	// Line is the row's line in the log (the header is line 1).
	Line int
	// Seq is the row's seq in the log, or -1 for the header and a row
	// without one.
	Seq int64
	// Type is the row's type.
	Type string
	// Value is the row in snapshot form.
	Value jsonv.Value
}

// Normalize writes the log read from src (name is used in errors) to dst in
// dsh's normalized snapshot form. It reads src twice.
func Normalize(dst io.Writer, src io.ReadSeeker, name string, opts NormalizeOptions) error {
	_, err := NormalizeRecorded(dst, src, name, opts)
	return err
}

// NormalizeRecorded is Normalize that also returns what the placeholders
// stood for, with which Restore gives the log back.
func NormalizeRecorded(dst io.Writer, src io.ReadSeeker, name string, opts NormalizeOptions) (Recorded, error) {
	n, err := NewNormalizer(src, name, opts)
	if err != nil {
		return Recorded{}, err
	}
	out := bufio.NewWriter(dst)
	var buf []byte
	for {
		row, err := n.Next()
		if err == io.EOF {
			return n.Recorded(), out.Flush()
		}
		if err != nil {
			return Recorded{}, err
		}
		buf = append(row.Value.Append(buf[:0]), '\n')
		if _, err := out.Write(buf); err != nil {
			return Recorded{}, err
		}
	}
}

// Normalizer hands out the rows of a log in snapshot form, one at a time.
type Normalizer struct {
	src   io.ReadSeeker
	lines *jsonl.Reader
	name  string

	cwd, basename string
	cwdPath       *regexp.Regexp // absolute paths ending in the cwd's last segment
	developer     bool           // the log holds developer messages: keep tool names
	ids           *identities
	header        bool // the header was handed out
	recorded      Recorded
	clock         clock
}

// NewNormalizer reads the whole of src from its start once to learn the
// ids and the cwd to replace, then rewinds it for Next.
func NewNormalizer(src io.ReadSeeker, name string, opts NormalizeOptions) (*Normalizer, error) {
	formats, err := compileFormats(opts.IDFormats)
	if err != nil {
		return nil, err
	}
	n := &Normalizer{src: src, name: name, ids: newIdentities(formats)}
	for _, id := range opts.Sessions {
		n.ids.claim(id, "session", true)
	}
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	if err := n.scan(); err != nil {
		return nil, err
	}
	n.ids.assign()
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	n.lines = jsonl.NewReader(src, name)
	return n, nil
}

// scan is the first pass: it claims ids in dsh's order (the header's
// first, then each row's) and notes the cwd and developer messages.
func (n *Normalizer) scan() error {
	lines := jsonl.NewReader(n.src, n.name)
	first := true
	for {
		line, err := nextLine(lines)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		v, err := parseRow(n.name, line)
		if err != nil {
			return err
		}
		if first {
			if err := n.readHeader(v, line); err != nil {
				return err
			}
			first = false
			continue
		}
		typ := v.Field("type").Text()
		n.developer = n.developer || typ == "developer/message"
		if typ == "feedback/message-put" {
			n.ids.claim(v.Field("data").Field("item").Field("version").Text(), "id", false)
		}
		n.ids.collect(v, typ, "")
	}
	if first {
		return &jsonl.Error{File: n.name, Line: 1, Err: errors.New("no session header")}
	}
	return nil
}

// readHeader notes the header's cwd and claims the session ids it names:
// a child's parent first, as dsh claims the parent's header first.
func (n *Normalizer) readHeader(hv jsonv.Value, line jsonl.Line) error {
	if hv.Field("type").Text() != "session" {
		return &jsonl.Error{File: n.name, Line: line.Num, Err: errors.New("the first line is not a session header")}
	}
	n.cwd = hv.Field("cwd").Text()
	if n.cwd != "" && n.cwd != cwdToken {
		n.basename = n.cwd[strings.LastIndexAny(n.cwd, `/\`)+1:]
		if n.basename != "" {
			n.cwdPath = regexp.MustCompile(`(?:[A-Za-z]:)?[\\/](?:[^\\/\s<>"]+[\\/])*` + regexp.QuoteMeta(n.basename))
		}
	}
	n.ids.claim(hv.Field("parentSession").Text(), "session", true)
	n.ids.claim(hv.Field("id").Text(), "session", true)
	return nil
}

// nextLine returns r's next line that is not blank, or io.EOF after the
// last: dsh's snapshot harness skips blank lines.
func nextLine(r *jsonl.Reader) (jsonl.Line, error) {
	for {
		line, err := r.Next()
		if err != nil || len(bytes.TrimSpace(line.Text)) > 0 {
			return line, err
		}
	}
}

// parseRow parses one line as a JSON object.
func parseRow(name string, line jsonl.Line) (jsonv.Value, error) {
	v, err := jsonv.Parse(line.Text)
	if err != nil {
		return v, &jsonl.Error{File: name, Line: line.Num, Err: fmt.Errorf("not valid JSON: %v", err)}
	}
	if v.Kind() != jsonv.Object {
		return v, &jsonl.Error{File: name, Line: line.Num, Err: errors.New("row is not a JSON object")}
	}
	return v, nil
}

// Next returns the next row in snapshot form, or io.EOF after the last.
func (n *Normalizer) Next() (Row, error) {
	line, err := nextLine(n.lines)
	if err != nil {
		return Row{}, err
	}
	v, err := parseRow(n.name, line)
	if err != nil {
		return Row{}, err
	}
	row := Row{Line: line.Num, Seq: -1, Type: v.Field("type").Text()}
	seq, hasSeq := v.Field("seq").Count()
	time, hasTime := v.Field("time").Number()
	if _, packed := packedTypes[row.Type]; packed {
		seq, hasSeq = v.Field("seq0").Count()
		time, hasTime = v.Field("time0").Number()
	}
	if hasSeq {
		row.Seq = seq
	}
	v = mapStrings(v, n.tokenizeCwd)
	if !n.header {
		n.header = true
		n.recorded.Cwd = n.cwd
		if v.Has("cwd") {
			v = v.With("cwd", jsonv.StringValue(cwdToken))
		}
	} else {
		if hasSeq && hasTime {
			n.clock.see(seq, time)
		}
		v = n.scrub(v, row.Type)
	}
	row.Value = mapStrings(v, n.ids.replace)
	return row, nil
}

// Recorded is what the placeholders of the rows handed out so far stood
// for; after Next has returned io.EOF, all of them.
func (n *Normalizer) Recorded() Recorded {
	r := n.recorded
	r.IDs = map[string]string{}
	for id, tok := range n.ids.tokens {
		if id != tok {
			r.IDs[tok] = id
		}
	}
	r.Clock = slices.Clone(n.clock.runs)
	return r
}

// scrub does what dsh's scrubSessionSnapshot does to a body row: the system
// prompt and the tool schemas become placeholders, seq and time go, and
// sourceEventSeqs are written out one by one.
func (n *Normalizer) scrub(v jsonv.Value, typ string) jsonv.Value {
	data := v.Field("data")
	switch typ {
	case "system/message":
		content := data.Field("message").Field("content")
		if block := content.Index(0); block.Field("text").Kind() == jsonv.String {
			n.recorded.Prompts = append(n.recorded.Prompts, block.Field("text").Text())
			content = content.WithIndex(0, block.With("text", jsonv.StringValue(systemToken)))
			v = withPath(v, content, "data", "message", "content")
		}
	case "request/header":
		header := data.Field("header")
		if header.Field("system").Kind() == jsonv.String {
			// v0–v2 headers carry the prompt themselves; dsh scrubbed it there too
			header = header.With("system", jsonv.StringValue(systemToken))
		}
		if header.Kind() == jsonv.Object && header.Has("tools") {
			if n.recorded.Tools == nil || data.Field("reason").Text() == "change" {
				n.recorded.Tools = append(n.recorded.Tools, header.Field("tools"))
			}
			header = header.With("tools", n.scrubTools(header.Field("tools")))
		}
		if header.Kind() == jsonv.Object {
			v = withPath(v, header, "data", "header")
		}
	case "feedback/message-put":
		if item := data.Field("item"); item.Kind() == jsonv.Object {
			for _, clock := range []string{"createdAt", "updatedAt"} {
				if item.Has(clock) {
					item = item.With(clock, jsonv.IntValue(0))
				}
			}
			v = withPath(v, item, "data", "item")
		}
	}
	v = v.Without("seq", "time", "seq0", "time0")
	if seqs, ok := v.Get("sourceEventSeqs"); ok && seqs.Kind() == jsonv.Array {
		expanded := session.ExpandSeqRanges(seqs)
		elems := make([]jsonv.Value, len(expanded))
		for i, s := range expanded {
			elems[i] = jsonv.IntValue(s)
		}
		v = v.With("sourceEventSeqs", jsonv.ArrayValue(elems...))
	}
	return v
}

// scrubTools is a request header's tools in snapshot form: {{tools}}, or
// the tool names when the log holds developer messages (their tool additions
// refer to earlier headers by name).
func (n *Normalizer) scrubTools(tools jsonv.Value) jsonv.Value {
	if !n.developer || tools.Kind() != jsonv.Array {
		return jsonv.StringValue(toolsToken)
	}
	names := make([]jsonv.Value, 0, tools.Len())
	for _, tool := range tools.Elements() {
		if tool.Kind() == jsonv.String {
			names = append(names, tool)
		} else {
			names = append(names, tool.Field("name"))
		}
	}
	return jsonv.ArrayValue(names...)
}

// tokenizeCwd replaces the header's cwd in s by {{cwd}}, as dsh's
// tokenizeSessionFixtureCwd does: each spelling of it at a path boundary,
// then any absolute path whose last segment is the cwd's.
func (n *Normalizer) tokenizeCwd(s string) string {
	if n.cwdPath == nil {
		return s
	}
	if !strings.Contains(s, n.basename) {
		return s
	}
	for _, spelling := range cwdSpellings(n.cwd) {
		s = replaceAtBoundary(s, spelling, cwdToken)
	}
	s = replaceFollowedBy(s, n.cwdPath, cwdToken)
	return strings.ReplaceAll(s, "/private"+cwdToken, cwdToken)
}

// cwdSpellings are the spellings of cwd dsh knows, longest first: itself
// and, for an absolute POSIX path, macOS's /private alias.
func cwdSpellings(cwd string) []string {
	if strings.HasPrefix(cwd, "/") && !strings.HasPrefix(cwd, "/private/") {
		return []string{"/private" + cwd, cwd}
	}
	return []string{cwd}
}

// pathTextBoundary are the characters that end a path in text.
const pathTextBoundary = " \t\n\r\f\v<>'\"`()[]{},;:!?="

func isPathBoundary(c byte) bool { return strings.IndexByte(pathTextBoundary, c) >= 0 }

// replaceAtBoundary replaces each occurrence of spelling in s that starts
// and ends at a path boundary, so that a longer path sharing the prefix is
// left alone.
func replaceAtBoundary(s, spelling, replacement string) string {
	var b strings.Builder
	cursor := 0
	for {
		i := strings.Index(s[cursor:], spelling)
		if i < 0 {
			break
		}
		start, end := cursor+i, cursor+i+len(spelling)
		b.WriteString(s[cursor:start])
		if atCwdBoundary(s, start, end) {
			b.WriteString(replacement)
		} else {
			b.WriteString(spelling)
		}
		cursor = end
	}
	if cursor == 0 {
		return s
	}
	b.WriteString(s[cursor:])
	return b.String()
}

// fileURIPrefix is text that ends in file:// or file:///.
var fileURIPrefix = regexp.MustCompile(`(?i)(?:^|[^a-z0-9+.-])file:///?$`)

// atCwdBoundary is dsh's isCwdMatch: the match starts after a boundary (or
// a file:// prefix) and ends at a separator, a boundary, or a full stop
// that ends a sentence.
func atCwdBoundary(s string, start, end int) bool {
	startsAt := start == 0 || isPathBoundary(s[start-1]) || fileURIPrefix.MatchString(s[:start])
	endsAt := end == len(s) || s[end] == '/' || s[end] == '\\' || isPathBoundary(s[end]) ||
		(s[end] == '.' && (end+1 == len(s) || isPathBoundary(s[end+1])))
	return startsAt && endsAt
}

// replaceFollowedBy replaces each match of re in s that is followed by the
// end of s, a separator or a path boundary (the lookahead dsh's pattern has).
func replaceFollowedBy(s string, re *regexp.Regexp, replacement string) string {
	matches := re.FindAllStringIndex(s, -1)
	if matches == nil {
		return s
	}
	var b strings.Builder
	cursor := 0
	for _, m := range matches {
		end := m[1]
		if end < len(s) && s[end] != '/' && s[end] != '\\' && !isPathBoundary(s[end]) {
			continue
		}
		b.WriteString(s[cursor:m[0]])
		b.WriteString(replacement)
		cursor = end
	}
	b.WriteString(s[cursor:])
	return b.String()
}

// mapStrings returns v with f applied to every string value (not to keys);
// subtrees where nothing changes are kept as they are.
func mapStrings(v jsonv.Value, f func(string) string) jsonv.Value {
	out, _ := mapStringsChanged(v, f)
	return out
}

// mapStringsChanged is mapStrings that also reports whether anything changed.
func mapStringsChanged(v jsonv.Value, f func(string) string) (jsonv.Value, bool) {
	switch v.Kind() {
	case jsonv.String:
		s, _ := v.Str()
		if t := f(s); t != s {
			return jsonv.StringValue(t), true
		}
	case jsonv.Array:
		elems := v.Elements()
		var out []jsonv.Value
		for i, e := range elems {
			m, changed := mapStringsChanged(e, f)
			if changed && out == nil {
				out = slices.Clone(elems)
			}
			if out != nil {
				out[i] = m
			}
		}
		if out != nil {
			return jsonv.ArrayValue(out...), true
		}
	case jsonv.Object:
		members := v.Members()
		var out []jsonv.Member
		for i, m := range members {
			mv, changed := mapStringsChanged(m.Value, f)
			if changed && out == nil {
				out = slices.Clone(members)
			}
			if out != nil {
				out[i] = jsonv.M(m.Key, mv)
			}
		}
		if out != nil {
			return jsonv.ObjectValue(out...), true
		}
	}
	return v, false
}
