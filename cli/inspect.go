package cli

import (
	"bufio"
	"bytes"
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/spf13/cobra"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/inspect"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/session"
)

// inspectOptions are the inputs of dshlog inspect.
type inspectOptions struct {
	file   string
	json   bool
	filter inspect.Filter
}

func init() { addVerb(newInspectCommand) }

// newInspectCommand returns dshlog inspect, which lists a session's events.
func newInspectCommand(s *streams) *cobra.Command {
	var opts inspectOptions
	cmd := &cobra.Command{
		Use:   "inspect FILE",
		Short: "List the events of a session",
		Long: `List the events of a session file as dsh reads it: seq, type, surface
operation (append, replace a..b, or blank for a log-only event), turn/step and
a one-line summary. Older formats are migrated in memory; nothing is written.

FILE may be "-" for standard input, and may be zstd or gzip compressed.`,
		Example: `  dshlog inspect testdata/seed-vectors/loop-events.v4.jsonl
  dshlog inspect --type 'tool/*' --from 8 --to 15 session.v4.jsonl
  zstdcat session.v4.jsonl.zst | dshlog inspect --json -`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.file = args[0]
			opts.filter.ToSet = cmd.Flags().Changed("to")
			return runInspect(opts, s)
		},
	}
	flags := cmd.Flags()
	flags.BoolVar(&opts.json, "json", false, "print one JSON object per event instead of a table")
	flags.Int64Var(&opts.filter.From, "from", 0, "show events from this seq on")
	flags.Int64Var(&opts.filter.To, "to", 0, "show events up to this seq (inclusive)")
	flags.StringArrayVar(&opts.filter.Types, "type", nil, "show only event types matching this glob (repeatable), e.g. 'tool/*'")
	return cmd
}

func runInspect(opts inspectOptions, s *streams) error {
	if err := opts.filter.Check(); err != nil {
		return &UsageError{Err: err}
	}
	if opts.filter.From < 0 || (opts.filter.ToSet && opts.filter.To < opts.filter.From) {
		return usageErrorf("empty seq range: --from %d --to %d", opts.filter.From, opts.filter.To)
	}
	events, err := openSession(opts.file, s, migrate.Options{Recovery: v2.Recoverable})
	if err != nil {
		return err
	}
	defer events.Close()
	var sink inspectSink = newInspectTable(s.out)
	if opts.json {
		sink = newInspectJSON(s.out)
	}
	readErr := events.each(s, func(ev session.Event) error {
		if !opts.filter.Match(ev.Seq, ev.Type) {
			return nil
		}
		return sink.add(ev)
	})
	// What was read is shown even when the reader stopped at a problem.
	if err := sink.flush(); err != nil {
		return err
	}
	return readErr
}

// inspectSink prints described events.
type inspectSink interface {
	add(session.Event) error
	flush() error
}

// inspectTable prints a table for people. The rows are kept until flush so
// the columns can be sized; each row is a short summary, never the event.
type inspectTable struct {
	out  io.Writer
	rows [][]string
}

func newInspectTable(out io.Writer) *inspectTable { return &inspectTable{out: out} }

func (t *inspectTable) add(ev session.Event) error {
	d := inspect.Describe(ev)
	t.rows = append(t.rows, []string{itoa(d.Seq), d.Type, inspect.SurfaceText(d.Surface), d.TurnStep(), d.Summary})
	return nil
}

func (t *inspectTable) flush() error {
	out := &trimTrailingSpace{w: t.out}
	table := tablewriter.NewTable(out,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenColumns: tw.Off, BetweenRows: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.Off},
			},
		})),
		tablewriter.WithPadding(tw.Padding{Right: "  ", Overwrite: true}),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{
			PerColumn: []tw.Align{tw.AlignRight, tw.AlignLeft, tw.AlignLeft, tw.AlignLeft, tw.AlignLeft},
		}),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithTrimSpace(tw.Off),
	)
	table.Header("SEQ", "TYPE", "SURFACE", "TURN/STEP", "SUMMARY")
	if err := table.Bulk(t.rows); err != nil {
		return err
	}
	if err := table.Render(); err != nil {
		return err
	}
	return out.flush()
}

// trimTrailingSpace passes lines through without the spaces that end them,
// so the last column's padding never reaches the output.
type trimTrailingSpace struct {
	w       io.Writer
	pending []byte
}

func (t *trimTrailingSpace) Write(p []byte) (int, error) {
	t.pending = append(t.pending, p...)
	for {
		i := bytes.IndexByte(t.pending, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := bytes.TrimRight(t.pending[:i], " ")
		if _, err := t.w.Write(append(line, '\n')); err != nil {
			return 0, err
		}
		t.pending = t.pending[i+1:]
	}
}

func (t *trimTrailingSpace) flush() error {
	if len(t.pending) == 0 {
		return nil
	}
	_, err := t.w.Write(bytes.TrimRight(t.pending, " "))
	t.pending = nil
	return err
}

// inspectJSON prints one JSON object per event, streaming, with stable keys:
// seq, time, type, surface, turn, step, summary, and row, the event row
// exactly as dsh's v4 writer writes it.
type inspectJSON struct {
	out *bufio.Writer
	buf []byte
}

func newInspectJSON(out io.Writer) *inspectJSON { return &inspectJSON{out: bufio.NewWriter(out)} }

func (j *inspectJSON) add(ev session.Event) error {
	d := inspect.Describe(ev)
	b := append(j.buf[:0], `{"seq":`...)
	b = jsonv.AppendNumber(b, float64(d.Seq))
	b = append(b, `,"time":`...)
	b = jsonv.AppendNumber(b, float64(d.Time))
	b = append(b, `,"type":`...)
	b = jsonv.AppendString(b, d.Type)
	b = append(b, `,"surface":`...)
	b = appendOptionalString(b, inspect.SurfaceText(d.Surface))
	b = append(b, `,"turn":`...)
	b = appendOptionalInt(b, d.Turn, d.HasTurn)
	b = append(b, `,"step":`...)
	b = appendOptionalInt(b, d.Step, d.HasStep)
	b = append(b, `,"summary":`...)
	b = jsonv.AppendString(b, d.Summary)
	b = append(b, `,"row":`...)
	b = v2.EncodeEvent(b, ev)
	b = append(b, "}\n"...)
	j.buf = b
	_, err := j.out.Write(b)
	return err
}

func (j *inspectJSON) flush() error { return j.out.Flush() }

func appendOptionalString(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return jsonv.AppendString(b, s)
}

func appendOptionalInt(b []byte, n int64, ok bool) []byte {
	if !ok {
		return append(b, "null"...)
	}
	return jsonv.AppendNumber(b, float64(n))
}

func itoa(n int64) string { return jsonv.IntValue(n).String() }
