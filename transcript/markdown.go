package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/dshlog/dshlog/session"
)

// Options say how a transcript is rendered.
type Options struct {
	// MaxOutput is the number of characters of a tool result or a folded
	// message shown before it is cut with a note; 0 means 4000.
	MaxOutput int
	// Name names the file in the heading.
	Name string
}

func (o Options) maxOutput() int {
	if o.MaxOutput <= 0 {
		return 4000
	}
	return o.MaxOutput
}

// NewMarkdown returns a renderer that writes the transcript to w as
// Markdown: a heading per turn, user and assistant text, reasoning and
// system or context messages folded in <details>, tool calls with their
// arguments and results (long ones cut with a note), compaction summaries,
// request boundaries, and interrupted, aborted and crashed turns marked.
func NewMarkdown(w io.Writer, header session.Header, opts Options) Renderer {
	md := &markdown{out: bufio.NewWriter(w), opts: opts}
	md.heading(header)
	return md
}

type markdown struct {
	out  *bufio.Writer
	opts Options
}

// Messages is false: the transcript counts a request's messages only.
func (md *markdown) Messages() bool { return false }

func (md *markdown) Close(surface Surface) error {
	fmt.Fprintf(md.out, "\n---\n\n*%d events; the model's view ends with %d nodes", surface.Events, len(surface.Nodes))
	if n := len(surface.Replacements); n > 0 {
		fmt.Fprintf(md.out, "; %d replace(s) shadowed earlier nodes", n)
	}
	fmt.Fprint(md.out, ".*\n")
	return md.out.Flush()
}

func (md *markdown) heading(h session.Header) {
	fmt.Fprintf(md.out, "# Session %s\n\n", inlineCode(h.ID))
	if md.opts.Name != "" {
		fmt.Fprintf(md.out, "- file: %s\n", inlineCode(md.opts.Name))
	}
	fmt.Fprintf(md.out, "- created: %s\n", msTime(h.CreatedAt))
	if h.Cwd != nil {
		fmt.Fprintf(md.out, "- working directory: %s\n", inlineCode(*h.Cwd))
	}
	if h.ParentSession != nil {
		fmt.Fprintf(md.out, "- parent session: %s\n", inlineCode(*h.ParentSession))
	}
}

func (md *markdown) Item(it Item) error {
	out := md.out
	switch it.Kind {
	case TurnStart:
		fmt.Fprintf(out, "\n## Turn %d\n", it.Turn)
	case Title:
		fmt.Fprintf(out, "\n*Title: %s*\n", escapeInline(it.Text))
	case Request:
		fmt.Fprintf(out, "\n---\n*Request %d (seq %d): %d messages", it.Index, it.Seq, it.Count)
		if it.Model != "" {
			fmt.Fprintf(out, ", %s/%s", it.Provider, it.Model)
		}
		if it.Reason != "" {
			fmt.Fprintf(out, ", header %s", it.Reason)
		}
		fmt.Fprint(out, "*\n")
	case Attempt:
		fmt.Fprintf(out, "\n> **Request failed** (seq %d): %s\n", it.Seq, escapeInline(it.Detail))
	case Message:
		md.message(it)
	case ToolCall:
		fmt.Fprintf(out, "\n*Tool %s started (call %s, seq %d).*\n", inlineCode(it.ToolName), inlineCode(it.CallID), it.Seq)
	case Compaction:
		fmt.Fprintf(out, "\n**Compaction summary**")
		if it.Replaces != nil {
			fmt.Fprintf(out, " (shadows seq %d..%d)", it.Replaces[0], it.Replaces[1])
		}
		fmt.Fprintf(out, ":\n\n%s\n", quote(md.cut(it.Text, it.Seq)))
	case TurnEnd:
		switch {
		case it.Detail == "completed":
			fmt.Fprintf(out, "\n*Turn %d completed.*\n", it.Turn)
		case strings.HasPrefix(it.Detail, "interrupted"):
			fmt.Fprintf(out, "\n> **Turn %d crashed**: closed by dsh's crash repair (%s).\n", it.Turn, it.Detail)
		default:
			fmt.Fprintf(out, "\n> **Turn %d ended: %s.**\n", it.Turn, it.Detail)
		}
	case OpenEnd:
		fmt.Fprintf(out, "\n> **Turn %d is still open** at the end of the log (a crash or a live session); dsh's crash repair would close it.\n", it.Turn)
	}
	return nil
}

func (md *markdown) message(it Item) {
	out := md.out
	label := roleLabel(it)
	if it.Replaces != nil {
		label += fmt.Sprintf(", replaces seq %d..%d", it.Replaces[0], it.Replaces[1])
	}
	if folded(it) {
		fmt.Fprintf(out, "\n<details><summary>%s (seq %d)</summary>\n\n%s\n\n</details>\n", htmlText(label), it.Seq, fenced(md.cut(textOf(it.Blocks), it.Seq), ""))
		return
	}
	if it.Role == "tool" {
		status := "result"
		if it.IsError {
			status = "error"
		}
		fmt.Fprintf(out, "\n**Tool %s** %s %s (seq %d", status, inlineCode(it.ToolName), inlineCode(it.CallID), it.Seq)
		if it.DurationMS >= 0 {
			fmt.Fprintf(out, ", %s", time.Duration(it.DurationMS)*time.Millisecond)
		}
		fmt.Fprintf(out, "):\n\n%s\n", fenced(md.cut(textOf(it.Blocks), it.Seq), ""))
		return
	}
	fmt.Fprintf(out, "\n**%s** (seq %d)", label, it.Seq)
	if it.Interrupted {
		fmt.Fprint(out, " **[interrupted]**")
	}
	fmt.Fprint(out, ":\n")
	for _, b := range it.Blocks {
		switch b.Type {
		case "reasoning":
			fmt.Fprintf(out, "\n<details><summary>Reasoning</summary>\n\n%s\n\n</details>\n", quote(md.cut(b.Text, it.Seq)))
		case "tool-call":
			fmt.Fprintf(out, "\nCalls %s (%s):\n\n%s\n", inlineCode(b.Name), inlineCode(b.CallID), fenced(md.cut(prettyJSON(b.Arguments), it.Seq), "json"))
		default:
			if b.Text != "" {
				fmt.Fprintf(out, "\n%s\n", md.cut(b.Text, it.Seq))
			}
		}
	}
}

// cut shortens text to the output limit, with a note saying how much was
// left out and where the whole text is.
func (md *markdown) cut(text string, seq int64) string {
	short, rest := cutText(text, md.opts.maxOutput())
	if rest == 0 {
		return text
	}
	return short + fmt.Sprintf("\n… [cut: %d more characters; the whole text is in event %d]", rest, seq)
}

// cutText returns the first max characters of text and how many were left.
func cutText(text string, max int) (string, int) {
	if len(text) <= max {
		return text, 0
	}
	r := []rune(text)
	if len(r) <= max {
		return text, 0
	}
	return string(r[:max]), len(r) - max
}

// folded reports whether a message is shown folded: system prompts,
// developer messages and user messages the harness wrote (runtime context,
// reminders), which are not what a person typed.
func folded(it Item) bool {
	switch it.Role {
	case "system", "developer":
		return true
	case "user":
		return it.Source != "user" && it.Source != "compact-checkpoint" && it.Source != ""
	}
	return false
}

// roleLabel names a message for people.
func roleLabel(it Item) string {
	switch {
	case it.Source == "compact-checkpoint":
		return "Compaction summary (user message)"
	case it.Role == "assistant":
		return "Assistant"
	case it.Role == "user" && (it.Source == "user" || it.Source == ""):
		return "User"
	case it.Source != "" && it.Source != it.Role:
		return capitalize(it.Role) + " (" + it.Source + ")"
	}
	return capitalize(it.Role)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// textOf joins the text of blocks (tool calls named).
func textOf(blocks []Block) string {
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "tool-call":
			parts = append(parts, "calls "+b.Name+"("+b.CallID+") "+b.Arguments)
		default:
			if b.Text != "" {
				parts = append(parts, b.Text)
			}
		}
	}
	return strings.Join(parts, "\n\n")
}

// fenced puts text in a code fence longer than any backtick run inside it.
func fenced(text, lang string) string {
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	return fence + lang + "\n" + text + "\n" + fence
}

// inlineCode puts s in backticks, more than any run inside it.
func inlineCode(s string) string {
	ticks := "`"
	for strings.Contains(s, ticks) {
		ticks += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return ticks + " " + s + " " + ticks
	}
	return ticks + s + ticks
}

// quote prefixes every line with "> ".
func quote(text string) string {
	return "> " + strings.ReplaceAll(text, "\n", "\n> ")
}

// escapeInline keeps a one-line text from starting Markdown or HTML.
func escapeInline(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return htmlText(s)
}

// htmlText escapes the characters HTML gives meaning to, for text inside
// the <details> and <summary> tags Markdown passes through.
func htmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// prettyJSON indents a JSON text for reading; text that is not JSON is
// returned as it is.
func prettyJSON(text string) string {
	var out bytes.Buffer
	if err := json.Indent(&out, []byte(text), "", "  "); err != nil {
		return text
	}
	return out.String()
}

// msTime formats epoch milliseconds as a UTC time.
func msTime(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05 UTC") + " (" + strconv.FormatInt(ms, 10) + ")"
}
