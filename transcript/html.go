package transcript

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"html/template"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

//go:embed page.html.tmpl
var pageTemplates string

// page holds the fragments of the HTML page; html/template escapes every
// value from the log for the context it lands in.
var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"join": func(ids []string) string { return strings.Join(ids, " ") },
}).Parse(pageTemplates))

// NewHTML returns a renderer that writes the transcript to w as one
// self-contained HTML page: inline CSS and script, nothing loaded from the
// network (a Content-Security-Policy says so to the browser). The page
// streams: each item is written as it comes; the script builds the
// timeline of turns, steps and requests from the page when it loads, and
// shows a request's messages when one is clicked. For the request view
// each distinct message (a node's message, again when a projection
// changed it) is written once, hidden, before the first request that saw
// it, and each request names only what it adds to the previous one.
// The text of user and assistant messages and of compaction summaries is
// rendered from Markdown after it is cut to MaxOutput, so rendering holds
// one cut text and its HTML at a time.
func NewHTML(w io.Writer, header session.Header, opts Options) Renderer {
	h := &htmlPage{out: bufio.NewWriter(w), opts: opts}
	h.err = page.ExecuteTemplate(h.out, "head", map[string]any{
		"ID":      header.ID,
		"Created": msTime(header.CreatedAt),
		"Cwd":     header.Cwd,
		"Parent":  header.ParentSession,
		"File":    opts.Name,
	})
	return h
}

type htmlPage struct {
	out    *bufio.Writer
	opts   Options
	err    error
	inTurn bool
	inStep bool
}

func (h *htmlPage) exec(name string, data any) {
	if h.err == nil {
		h.err = page.ExecuteTemplate(h.out, name, data)
	}
}

func (h *htmlPage) closeStep() {
	if h.inStep {
		h.exec("step-end", nil)
		h.inStep = false
	}
}

func (h *htmlPage) closeTurn() {
	h.closeStep()
	if h.inTurn {
		h.exec("turn-end", nil)
		h.inTurn = false
	}
}

// Messages is true: the page's request view shows every request's messages.
func (h *htmlPage) Messages() bool { return true }

func (h *htmlPage) Item(it Item) error {
	switch it.Kind {
	case TurnStart:
		h.closeTurn()
		h.exec("turn", it)
		h.inTurn = true
	case StepStart:
		h.closeStep()
		h.exec("step", it)
		h.inStep = true
	case TurnEnd:
		h.closeStep()
		h.exec("turn-status", map[string]any{"Turn": it.Turn, "Detail": it.Detail, "Class": endClass(it.Detail), "Seq": it.Seq})
		h.closeTurn()
	case OpenEnd:
		h.closeStep()
		h.exec("turn-status", map[string]any{"Turn": it.Turn, "Detail": "still open at the end of the log: dsh's crash repair would close it", "Class": "open", "Seq": it.Seq})
	case Request:
		h.request(it)
	case Attempt:
		h.exec("attempt", it)
	case ToolCall:
		h.exec("tool-started", it)
	case Compaction:
		h.exec("compaction", map[string]any{"Item": it, "Markdown": h.markdown(it.Text, it.Seq)})
	case Title:
		h.exec("title", it)
	case Message:
		h.message(it)
	}
	return h.err
}

// request writes the message versions no request saw before (hidden, for
// the request view) and the request itself: its place in the chain of
// requests (the previous one and how many of its messages it keeps) and
// the messages it adds, so that the page grows with the log, not with
// requests times messages.
func (h *htmlPage) request(it Item) {
	ids := make([]string, len(it.Added))
	var fresh []map[string]any
	for i, m := range it.Added {
		ids[i] = messageID(m.Seq, m.Version)
		if m.Fresh {
			fresh = append(fresh, map[string]any{
				"ID": ids[i], "Seq": m.Seq,
				"Role": m.Message.Field("role").Text(), "JSON": indent(m.Message.Encode()),
			})
		}
	}
	if len(fresh) > 0 {
		h.exec("store", fresh)
	}
	base := ""
	if it.Index > 1 && it.Shared > 0 {
		base = strconv.Itoa(it.Index - 1)
	}
	h.exec("request", map[string]any{"Item": it, "IDs": ids, "Base": base, "Usage": usageText(it.Usage)})
}

func (h *htmlPage) message(it Item) {
	type block struct {
		Block
		Text     string
		Markdown *markdownText
	}
	inline := !folded(it) && it.Role != "tool" // shown block by block, not as one preformatted text
	var blocks []block
	for _, b := range it.Blocks {
		switch {
		case b.Type == "tool-call":
			blocks = append(blocks, block{Block: b, Text: h.cut(prettyJSON(b.Arguments), it.Seq)})
		case b.Type == "text" && b.Text != "" && inline:
			md := h.markdown(b.Text, it.Seq)
			blocks = append(blocks, block{Block: b, Markdown: &md})
		default:
			blocks = append(blocks, block{Block: b, Text: h.cut(b.Text, it.Seq)})
		}
	}
	duration := ""
	if it.DurationMS >= 0 && it.Role == "tool" {
		duration = (time.Duration(it.DurationMS) * time.Millisecond).String()
	}
	h.exec("message", map[string]any{
		"Item": it, "Label": roleLabel(it), "Folded": folded(it), "Blocks": blocks,
		"Text": h.cut(textOf(it.Blocks), it.Seq), "Duration": duration,
	})
}

func (h *htmlPage) Close(surface Surface) error {
	h.closeTurn()
	var shadowed []string
	type replacement struct {
		Seq, Start, End int64
		Shadowed        string
	}
	var replacements []replacement
	for _, r := range surface.Replacements {
		var seqs []string
		for _, s := range r.ShadowedSeqs {
			seqs = append(seqs, strconv.FormatInt(s, 10))
			shadowed = append(shadowed, strconv.FormatInt(s, 10)+":"+strconv.FormatInt(r.Seq, 10))
		}
		replacements = append(replacements, replacement{r.Seq, r.StartSeq, r.EndSeq, strings.Join(seqs, ", ")})
	}
	h.exec("tail", map[string]any{
		"Nodes": surface.Nodes, "Events": surface.Events,
		"Replacements": replacements, "Shadowed": strings.Join(shadowed, " "),
	})
	if h.err != nil {
		return h.err
	}
	return h.out.Flush()
}

// cut shortens a text shown in the transcript (the request view shows
// messages whole), ending it with a note saying how much was left out.
func (h *htmlPage) cut(text string, seq int64) string {
	short, note := h.cutNote(text, seq)
	if note == "" {
		return text
	}
	return short + "\n" + note
}

// cutNote returns the part of text the transcript shows and, when the rest
// is left out, a note saying how much and where the whole text is.
func (h *htmlPage) cutNote(text string, seq int64) (string, string) {
	short, rest := cutText(text, h.opts.maxOutput())
	if rest == 0 {
		return text, ""
	}
	return short, "… [cut: " + strconv.Itoa(rest) + " more characters; the whole text is in event " + strconv.FormatInt(seq, 10) + " and in the request view]"
}

// markdownText is a message text rendered from Markdown, and the note of
// its cut if it was cut.
type markdownText struct {
	HTML template.HTML
	Note string
}

// markdown renders the part of a Markdown text the transcript shows; the
// cut note follows the rendered text, so that a cut inside a code block
// does not swallow it.
func (h *htmlPage) markdown(text string, seq int64) markdownText {
	short, note := h.cutNote(text, seq)
	rendered, err := renderMarkdown(short)
	if err != nil && h.err == nil {
		h.err = err
	}
	return markdownText{HTML: rendered, Note: note}
}

func messageID(seq int64, version int) string {
	return "mv-" + strconv.FormatInt(seq, 10) + "-" + strconv.Itoa(version)
}

// indent pretty-prints JSON bytes without changing any value.
func indent(encoded []byte) string {
	var out bytes.Buffer
	if err := json.Indent(&out, encoded, "", "  "); err != nil {
		return string(encoded)
	}
	return out.String()
}

// usageText words a logged usage object: "in 10 / out 5", with the cache
// and reasoning counts when present.
func usageText(usage jsonv.Value) string {
	if usage.Kind() != jsonv.Object {
		return ""
	}
	var parts []string
	for _, f := range []struct{ key, label string }{
		{"inputTokens", "in"}, {"outputTokens", "out"}, {"cacheReadTokens", "cache read"},
		{"cacheWriteTokens", "cache write"}, {"reasoningTokens", "reasoning"},
	} {
		if n, ok := usage.Field(f.key).Count(); ok {
			parts = append(parts, f.label+" "+strconv.FormatInt(n, 10))
		}
	}
	return strings.Join(parts, " · ")
}

// endClass is the CSS class of a turn's end.
func endClass(detail string) string {
	switch {
	case detail == "completed":
		return "completed"
	case strings.HasPrefix(detail, "interrupted"):
		return "crashed"
	}
	return "aborted"
}
