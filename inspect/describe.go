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
	data := ev.Data()
	d := Description{Seq: ev.Seq, Time: ev.Time, Type: ev.Type, Surface: ev.SurfaceOp()}
	d.Turn, d.HasTurn = data.Field("turn").SafeInt()
	d.Step, d.HasStep = data.Field("step").SafeInt()
	summary := summarize(ev.Type, data)
	if seqs, ok := ev.SourceEventSeqs(); ok {
		summary = join(summary, "(from "+SeqList(seqs)+")")
	}
	if ev.Ignorable() {
		summary = join(summary, "(ignorable)")
	}
	d.Summary = truncate(summary, summaryRunes)
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
func SeqList(seqs []int64) string {
	var parts []string
	for i := 0; i < len(seqs); {
		j := i + 1
		for j < len(seqs) && seqs[j] == seqs[j-1]+1 {
			j++
		}
		if j-i >= 3 {
			parts = append(parts, seqSpan(seqs[i], seqs[j-1]))
		} else {
			for _, s := range seqs[i:j] {
				parts = append(parts, itoa(s))
			}
		}
		i = j
	}
	return strings.Join(parts, ",")
}

// summarize picks the summary of an event type; types without their own
// summary list their scalar data fields.
func summarize(eventType string, data jsonv.Value) string {
	switch eventType {
	case "user/message":
		return message(data)
	case "system/message", "assistant/message", "tool/result":
		s := message(data.Field("message"))
		if data.Field("interrupted").IsTrue() {
			s = join(s, "[interrupted]")
		}
		if code := data.Field("error").Field("code").Text(); code != "" {
			s = join(s, "error "+code)
		}
		return s
	case "assistant/attempt":
		return attempt(data)
	case "tool/call":
		return call(data.Field("name").Text(), data.Field("callId").Text(), data.Field("arguments"))
	case "turn/end":
		return reason(data.Field("reason"))
	case "request/header":
		return requestHeader(data)
	case "request/context":
		return requestContext(data)
	case "agent/inbox/spliced":
		return spliced(data)
	case "session/title":
		return quote(data.Field("title").Text()) + " (messages " + SeqList(counts(data.Field("messageSeqs"))) + ")"
	case "compaction/summary":
		return compactionSummary(data)
	case "working-directory/change":
		return "working directory changed to " + quote(data.Field("cwd").Text())
	}
	return fields(data)
}

// defaultSource is the source kind a message of each role usually has; the
// summary names the source only when it is another one.
var defaultSource = map[string]string{
	"system":    "system-prompt",
	"user":      "user",
	"assistant": "model",
	"tool":      "tool",
}

// message summarizes a message: its role (and unusual source), the tool call
// a tool message answers, a text preview and the tool calls it makes.
func message(m jsonv.Value) string {
	role := m.Field("role").Text()
	head := role
	if kind := m.Field("source").Field("kind").Text(); kind != "" && kind != defaultSource[role] {
		head += " (" + kind + ")"
	}
	if id := m.Field("toolCallId").Text(); id != "" {
		head += " " + id
	}
	var texts []string
	var calls []string
	for _, block := range m.Field("content").Elements() {
		// Peek: a block skipped (reasoning) is not decoded, its text not copied.
		typ, _ := block.Peek("type")
		switch typ.Text() {
		case "text":
			texts = append(texts, block.Field("text").Text())
		case "tool-call":
			calls = append(calls, block.Field("name").Text()+"("+block.Field("id").Text()+")")
		case "tool-result": // the v0..v3 tool message shape
			head = join(head, block.Field("toolCallId").Text())
			texts = append(texts, contentText(block.Field("content")))
		}
	}
	s := head + ":"
	if len(texts) > 0 {
		s = join(s, strconv.Quote(cutJoined(texts, previewRunes)))
	}
	if len(calls) > 0 {
		s = join(s, "calls "+strings.Join(calls, ", "))
	}
	if m.Field("isError").IsTrue() {
		s = join(s, "[error]")
	}
	return s
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

// attempt summarizes a failed model request by its finish reason.
func attempt(data jsonv.Value) string {
	for _, entry := range data.Field("stream").Elements() {
		chunk := entry.Field("chunk")
		if chunk.Field("type").Text() != "finish" {
			continue
		}
		r := chunk.Field("reason")
		failure := r.Field("failure")
		if code := failure.Field("code").Text(); code != "" {
			return join("failed "+code, quote(failure.Field("message").Text()))
		}
		return "finished " + reason(r)
	}
	return itoa(int64(data.Field("stream").Len())) + " stream entries, no finish"
}

// call summarizes a tool call: name(id) and an argument preview.
func call(name, id string, arguments jsonv.Value) string {
	args, ok := arguments.Str()
	if !ok {
		args = arguments.String()
	}
	return join(name+"("+id+")", preview(args))
}

// reason writes a reason object by its kind, nested reasons in parentheses:
// "completed", "aborted (user)".
func reason(r jsonv.Value) string {
	kind := r.Field("kind").Text()
	if inner := r.Field("reason"); inner.Kind() == jsonv.Object {
		return kind + " (" + reason(inner) + ")"
	}
	if kind == "" {
		return r.String()
	}
	return kind
}

func requestHeader(data jsonv.Value) string {
	header := data.Field("header")
	s := data.Field("reason").Text() + ":"
	if model := providerModel(header.Field("config")); model != "" {
		s = join(s, model)
	}
	tools := header.Field("tools")
	switch tools.Kind() {
	case jsonv.Array:
		s = join(s+",", plural(tools.Len(), "tool"))
	case jsonv.String: // a snapshot's {{tools}} placeholder
		s = join(s+",", "tools "+tools.Text())
	}
	return s
}

func requestContext(data jsonv.Value) string {
	s := providerModel(data)
	if window, ok := data.Field("contextWindow").SafeInt(); ok {
		s = join(s+",", "context window "+itoa(window))
	}
	if data.Has("systemPromptUpdate") {
		s = join(s+",", "system prompt update")
	}
	return s
}

func providerModel(v jsonv.Value) string {
	provider, model := v.Field("provider").Text(), v.Field("model").Text()
	if provider == "" && model == "" {
		return ""
	}
	return provider + "/" + model
}

// spliced summarizes an inbox splice: its target, what it removed and the
// messages it inserted.
func spliced(data jsonv.Value) string {
	s := data.Field("target").Text() + ":"
	if removed, ok := data.Field("removedCount").SafeInt(); ok {
		s = join(s, "removed "+itoa(removed))
	}
	inserted := data.Field("inserted").Elements()
	switch {
	case len(inserted) == 0 && data.Has("removedCount"):
		return s
	case len(inserted) == 0:
		return s + " inserted none"
	}
	if len(inserted) > 1 {
		return join(s, "inserted "+itoa(int64(len(inserted)))+", first "+message(inserted[0]))
	}
	return join(s, "inserted "+message(inserted[0]))
}

func compactionSummary(data jsonv.Value) string {
	s := data.Field("compactionId").Text()
	if shadowed := counts(data.Field("shadowedSeqs")); len(shadowed) > 0 {
		s = join(s, "shadows "+SeqList(shadowed))
	}
	return join(s+":", quote(contentText(data.Field("summary"))))
}

// fields lists the data's members other than turn and step: scalars as
// key=value, objects as key={…}, arrays as key=[n].
func fields(data jsonv.Value) string {
	if data.Kind() != jsonv.Object {
		if data.IsNull() {
			return ""
		}
		return preview(data.String())
	}
	var parts []string
	for _, m := range data.Members() {
		if m.Key == "turn" || m.Key == "step" {
			continue
		}
		switch m.Value.Kind() {
		case jsonv.Object:
			if kind := m.Value.Field("kind").Text(); kind != "" {
				parts = append(parts, m.Key+"="+kind)
			} else {
				parts = append(parts, m.Key+"={…}")
			}
		case jsonv.Array:
			parts = append(parts, m.Key+"=["+itoa(int64(m.Value.Len()))+"]")
		case jsonv.String:
			parts = append(parts, m.Key+"="+preview(m.Value.Text()))
		default:
			parts = append(parts, m.Key+"="+m.Value.String())
		}
	}
	return strings.Join(parts, " ")
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

// quote previews text in double quotes, on one line and cut short.
func quote(text string) string { return strconv.Quote(preview(text)) }

// preview is text on one line and cut short, without quotes.
func preview(text string) string { return cutLine(text, previewRunes) }

// cutLine collapses every run of white space (newlines included) in text
// to one space, trims the ends and cuts the result as truncate does,
// reading only as much of text as it keeps: a message of megabytes costs
// its first n runes.
func cutLine(text string, n int) string { return cutJoined([]string{text}, n) }

// cutJoined is cutLine of the texts joined by spaces, without joining
// them: the texts after the first n runes are never read.
func cutJoined(texts []string, n int) string {
	var b strings.Builder
	b.Grow(n + 4)        // the cut of an ASCII text, in one allocation
	runes, cutAt := 0, 0 // cutAt: the bytes of the first n-1 runes
	add := func(s string) {
		b.WriteString(s)
		if runes++; runes == n-1 {
			cutAt = b.Len()
		}
	}
	space := false // white space since the last rune kept
	for k, text := range texts {
		if runes > n {
			break
		}
		if k > 0 { // the space that joins text to the one before
			space = b.Len() > 0
		}
		for i := 0; i < len(text) && runes <= n; {
			r, size := rune(text[i]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(text[i:])
			}
			switch {
			case isSpace(r):
				space = b.Len() > 0
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
		return b.String()
	}
	// As truncate does, by way of []rune: a byte that is not UTF-8 becomes
	// U+FFFD (valid UTF-8 goes through unchanged).
	kept := b.String()[:cutAt]
	if !utf8.ValidString(kept) {
		kept = string([]rune(kept))
	}
	return kept + "…"
}

// isSpace is unicode.IsSpace, without a call for ASCII.
func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || '\t' <= r && r <= '\r'
	}
	return unicode.IsSpace(r)
}

// truncate cuts s to at most n runes, ending with "…" when it cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := []rune(s)
	return string(runes[:n-1]) + "…"
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return itoa(int64(n)) + " " + noun + "s"
}

func seqSpan(start, end int64) string { return itoa(start) + ".." + itoa(end) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
