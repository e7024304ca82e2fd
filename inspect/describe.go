// Package inspect describes dsh session events for people: for each event its
// seq, type, surface operation, turn and step, and a one-line summary of what
// it carries (roles, a text preview, tool names, reasons).
package inspect

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// Description is what a person needs to recognize one event.
type Description struct {
	Seq     int64
	Time    int64
	Type    string
	Surface session.SurfaceOp
	Turn    int64 // meaningful when HasTurn
	Step    int64 // meaningful when HasStep
	HasTurn bool
	HasStep bool
	Summary string
}

// The lengths summaries are cut to, in runes.
const (
	previewRunes = 40
	summaryRunes = 100
)

// Describe returns the description of ev.
func Describe(ev session.Event) Description {
	d := Description{Seq: ev.Seq, Time: ev.Time, Type: ev.Type}
	var data, seqs, surfaceOp jsonv.Value
	var hasSeqs, hasSurfaceOp, ignorable bool
	for _, m := range ev.Row.Members() { // one pass for the envelope's members
		switch m.Key {
		case "data":
			data = m.Value
		case "sourceEventSeqs":
			seqs, hasSeqs = m.Value, true
		case "surfaceOp":
			surfaceOp, hasSurfaceOp = m.Value, true
		case "ignorable":
			ignorable = m.Value.IsTrue()
		}
	}
	d.Surface = session.ParseSurfaceOp(surfaceOp, hasSurfaceOp)
	d.Turn, d.HasTurn = data.Field("turn").SafeInt()
	d.Step, d.HasStep = data.Field("step").SafeInt()
	var buf [256]byte // the summary, on the stack unless it is long
	b := appendSummary(buf[:0], ev.Type, data)
	if hasSeqs {
		b = appendSpace(b)
		b = append(b, "(from "...)
		b = appendSeqList(b, session.ExpandSeqRanges(seqs))
		b = append(b, ')')
	}
	if ignorable {
		b = append(appendSpace(b), "(ignorable)"...)
	}
	d.Summary = truncate(b, summaryRunes)
	return d
}

// SurfaceText is a surface operation as the inspect table shows it:
// "append", "replace a..b", "invalid", or "" for a log-only event.
func SurfaceText(op session.SurfaceOp) string {
	switch op.Kind {
	case session.OpAppend:
		return "append"
	case session.OpReplace:
		return "replace " + seqSpan(op.StartSeq, op.EndSeq)
	case session.OpInvalid:
		return "invalid"
	}
	return ""
}

// TurnStep is "turn/step", "turn", or "" when the event names neither.
func (d Description) TurnStep() string {
	switch {
	case d.HasTurn && d.HasStep:
		return itoa(d.Turn) + "/" + itoa(d.Step)
	case d.HasTurn:
		return itoa(d.Turn)
	}
	return ""
}

// SeqList writes seqs compactly: runs of three or more as "a..b", the rest
// one by one, comma-separated ("5,8..10,13").
func SeqList(seqs []int64) string { return string(appendSeqList(nil, seqs)) }

// appendSeqList appends SeqList(seqs) to b.
func appendSeqList(b []byte, seqs []int64) []byte {
	for i := 0; i < len(seqs); {
		j := i + 1
		for j < len(seqs) && seqs[j] == seqs[j-1]+1 {
			j++
		}
		if i > 0 {
			b = append(b, ',')
		}
		if j-i >= 3 {
			b = appendSeqSpan(b, seqs[i], seqs[j-1])
		} else {
			for k, s := range seqs[i:j] {
				if k > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, s, 10)
			}
		}
		i = j
	}
	return b
}

// appendSummary appends the summary of an event type to b; types without
// their own summary list their scalar data fields.
func appendSummary(b []byte, eventType string, data jsonv.Value) []byte {
	switch eventType {
	case "user/message":
		return appendMessage(b, data)
	case "system/message", "assistant/message", "tool/result":
		b = appendMessage(b, data.Field("message"))
		if data.Field("interrupted").IsTrue() {
			b = append(appendSpace(b), "[interrupted]"...)
		}
		if code := data.Field("error").Field("code").Text(); code != "" {
			b = append(appendSpace(b), "error "...)
			b = append(b, code...)
		}
		return b
	case "assistant/attempt":
		return appendAttempt(b, data)
	case "tool/call":
		return appendCall(b, data.Field("name").Text(), data.Field("callId").Text(), data.Field("arguments"))
	case "turn/end":
		return appendReason(b, data.Field("reason"))
	case "request/header":
		return appendRequestHeader(b, data)
	case "request/context":
		return appendRequestContext(b, data)
	case "agent/inbox/spliced":
		return appendSpliced(b, data)
	case "session/title":
		b = appendQuote(b, data.Field("title").Text())
		b = append(b, " (messages "...)
		b = appendSeqList(b, counts(data.Field("messageSeqs")))
		return append(b, ')')
	case "compaction/summary":
		return appendCompactionSummary(b, data)
	case "working-directory/change":
		b = append(b, "working directory changed to "...)
		return appendQuote(b, data.Field("cwd").Text())
	}
	return appendFields(b, data)
}

// defaultSource is the source kind a message of each role usually has; the
// summary names the source only when it is another one.
func defaultSource(role string) string {
	switch role {
	case "system":
		return "system-prompt"
	case "user":
		return "user"
	case "assistant":
		return "model"
	case "tool":
		return "tool"
	}
	return ""
}

// appendMessage appends the summary of a message: its role (and unusual
// source), the tool call a tool message answers, a text preview and the
// tool calls it makes. The source and the blocks are only peeked at, so
// what is not shown (a reasoning block, a source's other members) is not
// decoded.
func appendMessage(b []byte, m jsonv.Value) []byte {
	start := len(b)
	role := m.Field("role").Text()
	b = append(b, role...)
	if kind, _ := m.PeekPath("source", "kind"); kind.Text() != "" && kind.Text() != defaultSource(role) {
		b = append(b, " ("...)
		b = append(b, kind.Text()...)
		b = append(b, ')')
	}
	if id := m.Field("toolCallId").Text(); id != "" {
		b = append(b, ' ')
		b = append(b, id...)
	}
	var textsBuf [4]string
	texts := textsBuf[:0]
	var callsBuf [4]jsonv.Value
	calls := callsBuf[:0] // the tool-call blocks
	for _, block := range m.Field("content").Elements() {
		typ, _ := block.Peek("type")
		switch typ.Text() {
		case "text":
			texts = append(texts, previewText(block))
		case "tool-call":
			calls = append(calls, block)
		case "tool-result": // the v0..v3 tool message shape
			if len(b) > start { // the id joins the head with a space
				b = append(b, ' ')
			}
			id, _ := block.Peek("toolCallId")
			b = append(b, id.Text()...)
			content, _ := block.Peek("content")
			texts = append(texts, contentText(content))
		}
	}
	b = append(b, ':')
	if len(texts) > 0 {
		var cut [4 * (previewRunes + 4)]byte
		b = append(b, ' ')
		b = strconv.AppendQuote(b, string(appendCutJoined(cut[:0], texts, previewRunes)))
	}
	for i, block := range calls {
		if i == 0 {
			b = append(b, " calls "...)
		} else {
			b = append(b, ", "...)
		}
		name, _ := block.Peek("name")
		id, _ := block.Peek("id")
		b = append(b, name.Text()...)
		b = append(b, '(')
		b = append(b, id.Text()...)
		b = append(b, ')')
	}
	if m.Field("isError").IsTrue() {
		b = append(b, " [error]"...)
	}
	return b
}

// previewText returns a text block's text, or as much of its start as a
// preview reads: a long text is not decoded whole when its start holds more
// than previewRunes runes that are not white space, after which
// appendCutJoined reads no further.
func previewText(block jsonv.Value) string {
	text, whole, _ := block.PeekStringPrefix("text", previewBytes)
	if whole || holdsPreview(text) {
		return text
	}
	full, _ := block.Peek("text")
	return full.Text()
}

// previewBytes is how much of a text's start previewText decodes first:
// room for previewRunes runes of up to four bytes and some white space.
const previewBytes = 512

// holdsPreview reports whether s holds more than previewRunes+1 runes that
// are not white space, so that appendCutJoined stops inside it.
func holdsPreview(s string) bool {
	n := 0
	for _, r := range s {
		if !isSpace(r) {
			if n++; n > previewRunes+1 {
				return true
			}
		}
	}
	return false
}

// contentText joins the text of a content value: a string or a block list.
func contentText(content jsonv.Value) string {
	if s, ok := content.Str(); ok {
		return s
	}
	var texts []string
	for _, block := range content.Elements() {
		if text, ok := block.Field("text").Str(); ok {
			texts = append(texts, text)
		}
	}
	return strings.Join(texts, " ")
}

// appendAttempt appends the summary of a failed model request: its finish
// reason.
func appendAttempt(b []byte, data jsonv.Value) []byte {
	for _, entry := range data.Field("stream").Elements() {
		chunk := entry.Field("chunk")
		if chunk.Field("type").Text() != "finish" {
			continue
		}
		r := chunk.Field("reason")
		failure := r.Field("failure")
		if code := failure.Field("code").Text(); code != "" {
			b = append(b, "failed "...)
			b = append(b, code...)
			return appendQuote(append(b, ' '), failure.Field("message").Text())
		}
		return appendReason(append(b, "finished "...), r)
	}
	b = strconv.AppendInt(b, int64(data.Field("stream").Len()), 10)
	return append(b, " stream entries, no finish"...)
}

// appendCall appends the summary of a tool call: name(id) and an argument
// preview.
func appendCall(b []byte, name, id string, arguments jsonv.Value) []byte {
	args, ok := arguments.Str()
	if !ok {
		args = arguments.String()
	}
	b = append(b, name...)
	b = append(b, '(')
	b = append(b, id...)
	b = append(b, ") "...)
	return appendPreview(b, args)
}

// appendReason appends a reason object by its kind, nested reasons in
// parentheses: "completed", "aborted (user)".
func appendReason(b []byte, r jsonv.Value) []byte {
	kind := r.Field("kind").Text()
	if inner := r.Field("reason"); inner.Kind() == jsonv.Object {
		b = append(b, kind...)
		b = append(b, " ("...)
		return append(appendReason(b, inner), ')')
	}
	if kind == "" {
		return r.Append(b)
	}
	return append(b, kind...)
}

func appendRequestHeader(b []byte, data jsonv.Value) []byte {
	header := data.Field("header")
	b = append(b, data.Field("reason").Text()...)
	b = append(b, ':')
	b = appendProviderModel(b, header.Field("config"), " ")
	tools := header.Field("tools")
	switch tools.Kind() {
	case jsonv.Array:
		b = append(b, ", "...)
		b = appendPlural(b, tools.Len(), "tool")
	case jsonv.String: // a snapshot's {{tools}} placeholder
		b = append(b, ", tools "...)
		b = append(b, tools.Text()...)
	}
	return b
}

func appendRequestContext(b []byte, data jsonv.Value) []byte {
	b = appendProviderModel(b, data, "")
	if window, ok := data.Field("contextWindow").SafeInt(); ok {
		b = append(b, ", context window "...)
		b = strconv.AppendInt(b, window, 10)
	}
	if data.Has("systemPromptUpdate") {
		b = append(b, ", system prompt update"...)
	}
	return b
}

// appendProviderModel appends "provider/model", after prefix, unless the
// value names neither.
func appendProviderModel(b []byte, v jsonv.Value, prefix string) []byte {
	provider, model := v.Field("provider").Text(), v.Field("model").Text()
	if provider == "" && model == "" {
		return b
	}
	b = append(b, prefix...)
	b = append(b, provider...)
	b = append(b, '/')
	return append(b, model...)
}

// appendSpliced appends the summary of an inbox splice: its target, what it
// removed and the messages it inserted.
func appendSpliced(b []byte, data jsonv.Value) []byte {
	b = append(b, data.Field("target").Text()...)
	b = append(b, ':')
	if removed, ok := data.Field("removedCount").SafeInt(); ok {
		b = append(b, " removed "...)
		b = strconv.AppendInt(b, removed, 10)
	}
	inserted := data.Field("inserted").Elements()
	switch {
	case len(inserted) == 0 && data.Has("removedCount"):
		return b
	case len(inserted) == 0:
		return append(b, " inserted none"...)
	}
	b = append(b, " inserted "...)
	if len(inserted) > 1 {
		b = strconv.AppendInt(b, int64(len(inserted)), 10)
		b = append(b, ", first "...)
	}
	return appendMessage(b, inserted[0])
}

func appendCompactionSummary(b []byte, data jsonv.Value) []byte {
	b = append(b, data.Field("compactionId").Text()...)
	if shadowed := counts(data.Field("shadowedSeqs")); len(shadowed) > 0 {
		b = append(appendSpace(b), "shadows "...)
		b = appendSeqList(b, shadowed)
	}
	b = append(b, ": "...)
	return appendQuote(b, contentText(data.Field("summary")))
}

// appendFields appends the data's members other than turn and step:
// scalars as key=value, objects as key={…}, arrays as key=[n].
func appendFields(b []byte, data jsonv.Value) []byte {
	if data.Kind() != jsonv.Object {
		if data.IsNull() {
			return b
		}
		return appendPreview(b, data.String())
	}
	start := len(b)
	for _, m := range data.Members() {
		if m.Key == "turn" || m.Key == "step" {
			continue
		}
		if len(b) > start {
			b = append(b, ' ')
		}
		b = append(b, m.Key...)
		b = append(b, '=')
		switch m.Value.Kind() {
		case jsonv.Object:
			if kind, _ := m.Value.Peek("kind"); kind.Text() != "" {
				b = append(b, kind.Text()...)
			} else {
				b = append(b, "{…}"...)
			}
		case jsonv.Array:
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(m.Value.Len()), 10)
			b = append(b, ']')
		case jsonv.String:
			b = appendPreview(b, m.Value.Text())
		default:
			b = m.Value.Append(b)
		}
	}
	return b
}

// counts returns the non-negative safe integers of an array.
func counts(v jsonv.Value) []int64 {
	var out []int64
	for _, e := range v.Elements() {
		if n, ok := e.Count(); ok {
			out = append(out, n)
		}
	}
	return out
}

// appendQuote appends a preview of text in double quotes, on one line and
// cut short.
func appendQuote(b []byte, text string) []byte {
	var cut [4 * (previewRunes + 4)]byte
	return strconv.AppendQuote(b, string(appendCutJoined(cut[:0], []string{text}, previewRunes)))
}

// appendPreview appends text on one line and cut short, without quotes.
func appendPreview(b []byte, text string) []byte {
	return appendCutJoined(b, []string{text}, previewRunes)
}

// cutLine collapses every run of white space (newlines included) in text
// to one space, trims the ends and cuts the result as truncate does,
// reading only as much of text as it keeps: a message of megabytes costs
// its first n runes.
func cutLine(text string, n int) string { return cutJoined([]string{text}, n) }

// cutJoined is cutLine of the texts joined by spaces, without joining
// them: the texts after the first n runes are never read.
func cutJoined(texts []string, n int) string { return string(appendCutJoined(nil, texts, n)) }

// appendCutJoined appends cutJoined(texts, n) to b.
func appendCutJoined(b []byte, texts []string, n int) []byte {
	start := len(b)
	runes, cutAt := 0, start // cutAt: where the first n-1 runes end
	add := func(s string) {
		b = append(b, s...)
		if runes++; runes == n-1 {
			cutAt = len(b)
		}
	}
	space := false // white space since the last rune kept
	for k, text := range texts {
		if runes > n {
			break
		}
		if k > 0 { // the space that joins text to the one before
			space = len(b) > start
		}
		for i := 0; i < len(text) && runes <= n; {
			r, size := rune(text[i]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(text[i:])
			}
			switch {
			case isSpace(r):
				space = len(b) > start
			case space && runes == n:
				runes++ // the space would be rune n+1
			default:
				if space {
					add(" ")
					space = false
				}
				add(text[i : i+size])
			}
			i += size
		}
	}
	if runes <= n {
		return b
	}
	// As truncate does, by way of []rune: a byte that is not UTF-8 becomes
	// U+FFFD (valid UTF-8 goes through unchanged).
	b = b[:cutAt]
	if kept := b[start:]; !utf8.Valid(kept) {
		b = append(b[:start], string([]rune(string(kept)))...)
	}
	return append(b, "…"...)
}

// isSpace is unicode.IsSpace, without a call for ASCII.
func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || '\t' <= r && r <= '\r'
	}
	return unicode.IsSpace(r)
}

// truncate returns b as a string cut to at most n runes, ending with "…"
// when it cut.
func truncate(b []byte, n int) string {
	if utf8.RuneCount(b) <= n {
		return string(b)
	}
	runes := []rune(string(b))
	return string(runes[:n-1]) + "…"
}

// appendSpace appends the space that joins a part to the summary before
// it, when there is one.
func appendSpace(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	return append(b, ' ')
}

func appendPlural(b []byte, n int, noun string) []byte {
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, ' ')
	b = append(b, noun...)
	if n != 1 {
		b = append(b, 's')
	}
	return b
}

func seqSpan(start, end int64) string { return string(appendSeqSpan(nil, start, end)) }

func appendSeqSpan(b []byte, start, end int64) []byte {
	b = strconv.AppendInt(b, start, 10)
	b = append(b, ".."...)
	return strconv.AppendInt(b, end, 10)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
