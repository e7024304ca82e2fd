package cli

import (
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/lease"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/store"
	"github.com/dshlog/dshlog/transcript"
)

// exportOptions are the inputs of dshlog export.
type exportOptions struct {
	file      string
	format    string
	output    string
	maxOutput int
	vocab     vocabularyFlags
}

func init() { addVerb(newExportCommand) }

// newExportCommand returns dshlog export, which writes a session as a
// transcript for people.
func newExportCommand(s *streams) *cobra.Command {
	var opts exportOptions
	cmd := &cobra.Command{
		Use:   "export FILE --format md|html [-o OUT]",
		Short: "Write a session as a Markdown transcript or a self-contained HTML page",
		Long: `Write a session as a transcript for people, to standard output or to OUT.

--format md writes Markdown: one section per turn with the user's messages,
the assistant's text (reasoning folded away in <details>), tool calls with
their arguments and results (outputs longer than --max-output characters are
cut with a note naming the event that holds them), compaction summaries,
request boundaries (with the number of messages the model saw) and
interrupted, aborted and crashed turns marked.

--format html writes one self-contained HTML file (its CSS and script are
inline; it loads nothing from the network): a timeline of turns, steps and
requests, the transcript with expandable tool calls, the model's view at the
end with the shadowed (compacted) ranges, and for every request the exact
messages the model saw (click a request, or open the page at #request-K).
What the user typed, the assistant's text and compaction summaries are
rendered as Markdown (CommonMark with GitHub's tables, strikethrough,
autolinks and task lists; a line break stays a line break; code blocks as
code, with their language). System prompts and other harness-written
context, reasoning, tool-call arguments and tool results stay preformatted
text, as written; the request view shows the messages' JSON. Nothing from
the log becomes live markup: HTML inside a message shows as text, an image
becomes a link to it (the page loads nothing), and a javascript:, vbscript:,
file: or data: link has no target.

The session is read once, as fold reads it (dsh's own load checks; a log dsh
refuses is refused). OUT is written to a temporary file first and published
whole; an existing OUT is replaced only when the export succeeded, and never
when it is the session itself or is named like a session log.`,
		Example: `  dshlog export session.v4.jsonl --format md
  dshlog export session.v4.jsonl --format html -o session.html`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.file = args[0]
			return runExport(opts, s)
		},
	}
	flags := cmd.Flags()
	flags.StringVar(&opts.format, "format", "", "md or html (required)")
	flags.StringVarP(&opts.output, "output", "o", "", "write to this file instead of standard output")
	flags.IntVar(&opts.maxOutput, "max-output", 4000, "characters of a tool output or folded message shown before it is cut")
	addVocabularyFlags(flags, &opts.vocab)
	return cmd
}

func runExport(opts exportOptions, s *streams) error {
	if opts.format != "md" && opts.format != "html" {
		return usageErrorf("--format must be md or html, got %q", opts.format)
	}
	if opts.maxOutput < 1 {
		return usageErrorf("--max-output must be 1 or more, got %d", opts.maxOutput)
	}
	if err := checkExportTarget(opts.file, opts.output); err != nil {
		return err
	}
	vocabulary, err := opts.vocab.resolve()
	if err != nil {
		return err
	}
	events, err := openSession(opts.file, s, migrate.Options{Recovery: v2.Recoverable, Vocabulary: vocabulary})
	if err != nil {
		return err
	}
	defer events.Close()
	return publishOutput(opts.output, s.out, func(w io.Writer) error {
		topts := transcript.Options{MaxOutput: opts.maxOutput, Name: events.name}
		var r transcript.Renderer
		if opts.format == "html" {
			r = transcript.NewHTML(w, events.Header, topts)
		} else {
			r = transcript.NewMarkdown(w, events.Header, topts)
		}
		walker := transcript.NewWalker(r.Item, r.Messages())
		if err := events.each(s, walker.Event); err != nil {
			return err
		}
		surface, err := walker.Close()
		if err != nil {
			return err
		}
		return r.Close(surface)
	})
}

// checkExportTarget refuses an OUT that is the session itself or is named
// like a session log: replacing it would lose the log.
func checkExportTarget(file, out string) error {
	if out == "" || out == "-" {
		return nil
	}
	if _, ok := store.ParseName(filepath.Base(out)); ok {
		return usageErrorf("-o %s is named like a session log; export never writes over one", out)
	}
	outInfo, err := os.Stat(out)
	if err != nil {
		return nil // nothing there to lose
	}
	if fileInfo, err := os.Stat(file); err == nil && os.SameFile(fileInfo, outInfo) {
		return usageErrorf("-o %s is the session being exported", out)
	}
	return nil
}

// publishOutput runs write into a temporary file and, when it succeeds,
// publishes the file: copied to stdout when out is "" or "-", else synced
// and renamed to out. A failed write leaves no output behind.
func publishOutput(out string, stdout io.Writer, write func(io.Writer) error) error {
	if out == "" || out == "-" {
		return spoolToStdout(stdout, write)
	}
	dir := filepath.Dir(out)
	tmp, err := os.CreateTemp(dir, ".dshlog-export-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil { // a page to share, not a secret: CreateTemp made it 0600
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return err
	}
	return lease.SyncDir(dir)
}
