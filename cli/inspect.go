package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/goccy/go-json"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/spf13/cobra"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/inspect"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// inspectOptions are the inputs of dshlog inspect.
type inspectOptions struct {
	file   string
	json   bool
	filter inspect.Filter
	vocab  vocabularyFlags
	follow followFlags
	read   migrate.Options // how the session is read, from vocab
}

func init() { addVerb(newInspectCommand) }

// newInspectCommand returns dshlog inspect, which lists a session's events.
func newInspectCommand(s *streams) *cobra.Command {
	var opts inspectOptions
	cmd := &cobra.Command{
		Use:   "inspect FILE|DIR",
		Short: "List the events of a session",
		Long: `List the events of a session file as dsh reads it: seq, type, surface
operation (append, replace a..b, or blank for a log-only event), turn/step and
a one-line summary. Older formats are migrated in memory; nothing is written.

With --json, each event is one JSON object with the keys seq, time, type,
surface, turn, step, summary and row (the event line as dsh writes it).

Events of a type the dsh build does not know (--dsh, --vocabulary; see dshlog
vocabulary) are listed all the same, marked "(unknown type)", with a warning
that that dsh refuses the log.

FILE may be "-" for standard input, and may be zstd or gzip compressed. Notes
on stderr say when the file was migrated in memory, was a normalized snapshot
(seq and time restored) or ended in a torn line (dropped, as dsh does).

` + followHelp + ` The table's
columns are sized by the file as it is when following starts; a wider cell
later widens its column from its row on.`,
		Example: `  dshlog inspect testdata/seed-vectors/loop-events.v4.jsonl
  dshlog inspect --type 'tool/*' --from 8 --to 15 session.v4.jsonl
  zstdcat session.v4.jsonl.zst | dshlog inspect --json -
  dshlog inspect --follow ~/.dsh/sessions`,
		Args: followArgs(&opts.follow, cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.file = args[0]
			}
			opts.filter.ToSet = cmd.Flags().Changed("to")
			return runInspect(opts, s)
		},
	}
	flags := cmd.Flags()
	flags.BoolVar(&opts.json, "json", false, "print one JSON object per event instead of a table")
	flags.Int64Var(&opts.filter.From, "from", 0, "show events from this seq on")
	flags.Int64Var(&opts.filter.To, "to", 0, "show events up to this seq (inclusive)")
	flags.StringArrayVar(&opts.filter.Types, "type", nil, "show only event types matching this glob (repeatable), e.g. 'tool/*'")
	addVocabularyFlags(flags, &opts.vocab)
	addFollowFlags(flags, &opts.follow)
	return cmd
}

func runInspect(opts inspectOptions, s *streams) error {
	defer tuneReadHeap()()
	if err := opts.filter.Check(); err != nil {
		return &UsageError{Err: err}
	}
	if opts.filter.From < 0 || (opts.filter.ToSet && opts.filter.To < opts.filter.From) {
		return usageErrorf("empty seq range: --from %d --to %d", opts.filter.From, opts.filter.To)
	}
	if err := opts.follow.check(); err != nil {
		return err
	}
	v, err := opts.vocab.resolve()
	if err != nil {
		return err
	}
	// inspect lists every event, those of unknown types too.
	opts.read = migrate.Options{Recovery: v2.Recoverable, Vocabulary: v.WithUnknownAllowed()}
	if opts.follow.on {
		return inspectFollowed(opts, s)
	}
	var sink inspectSink
	if opts.json {
		sink = newInspectJSON(s.out)
	} else {
		table := newInspectTable(s.out, opts.file)
		if opts.file != "-" {
			// A file can be read twice: size the columns first, then stream
			// the table, so memory does not grow with the log.
			if err := sizeColumns(opts, s, table); err != nil {
				return err
			}
		}
		sink = table
	}
	return inspectEvents(opts, s, sink)
}

// inspectEvents reads the session and gives each selected event to sink.
func inspectEvents(opts inspectOptions, s *streams, sink inspectSink) error {
	events, err := openSession(opts.file, s, opts.read)
	if err != nil {
		return err
	}
	defer events.Close()
	return listEvents(events, opts, s, sink)
}

// listEvents gives each selected event of events to sink.
func listEvents(events *sessionEvents, opts inspectOptions, s *streams, sink inspectSink) error {
	warner := unknownWarner{s: s, file: events.name, vocab: opts.read.Vocabulary}
	readErr := events.each(s, func(ev session.Event) error {
		warner.see(ev)
		if !opts.filter.Match(ev.Seq, ev.Type) || !sink.wants(ev.Seq) {
			return nil
		}
		return sink.add(describeEvent(ev, opts.read.Vocabulary), ev)
	})
	// What was read is shown even when the reader stopped at a problem.
	if err := sink.flush(); err != nil {
		return err
	}
	return readErr
}

// describeEvent is inspect.Describe, marking an event of a type the vocabulary
// (when there is one) does not know.
func describeEvent(ev session.Event, v *vocab.Vocabulary) inspect.Description {
	d := inspect.Describe(ev)
	if v != nil && !v.Has(ev.Type) && !ev.Ignorable() {
		d.Summary = "(unknown type) " + d.Summary
	}
	return d
}

// sizeColumns reads the session once to measure the table's columns. A
// problem in the rows is left for the second reading to report.
func sizeColumns(opts inspectOptions, s *streams, table *inspectTable) error {
	events, err := openSession(opts.file, s, opts.read)
	if err != nil {
		return err
	}
	defer events.Close()
	table.lastSeq = -1
	for {
		ev, err := events.Next()
		if err != nil {
			break
		}
		table.lastSeq = ev.Seq
		if opts.filter.Match(ev.Seq, ev.Type) {
			table.measure(describeEvent(ev, opts.read.Vocabulary))
		}
	}
	table.sized = true
	return nil
}

// inspectSink prints described events.
type inspectSink interface {
	// wants reports whether the event with seq is to be printed at all.
	wants(seq int64) bool
	add(d inspect.Description, ev session.Event) error
	flush() error
}

var inspectColumns = []string{"SEQ", "TYPE", "SURFACE", "TURN/STEP", "SUMMARY"}

// inspectTable prints a table for people. Its columns are sized before the
// first row is printed: by a first reading of the file (sized), or else, for
// a stream that cannot be read twice, by spooling the rows' cells to a
// temporary file until flush, so memory never grows with the log.
type inspectTable struct {
	out    *trimTrailingSpace
	file   string
	widths []int // display width of each column
	sized  bool  // widths are final: rows stream as they come
	// lastSeq is the last event of the sizing reading; events appended to
	// a live session after it were not measured and are left out.
	lastSeq int64
	spool   *cellSpool         // the rows of an unsized table, until flush
	table   *tablewriter.Table // started at the first printed row
}

func newInspectTable(out io.Writer, file string) *inspectTable {
	t := &inspectTable{out: &trimTrailingSpace{w: bufio.NewWriterSize(out, outputBuffer)}, file: file}
	for _, title := range inspectColumns {
		t.widths = append(t.widths, twwidth.Width(title))
	}
	return t
}

// inspectCells are a description's cells in the order of inspectColumns.
func inspectCells(d inspect.Description) []string {
	return []string{itoa(d.Seq), d.Type, inspect.SurfaceText(d.Surface), d.TurnStep(), d.Summary}
}

func (t *inspectTable) measure(d inspect.Description) {
	for col, cell := range inspectCells(d) {
		t.widths[col] = max(t.widths[col], twwidth.Width(cell))
	}
}

func (t *inspectTable) wants(seq int64) bool { return !t.sized || seq <= t.lastSeq }

func (t *inspectTable) add(d inspect.Description, _ session.Event) error {
	if t.sized {
		return t.print(inspectCells(d))
	}
	t.measure(d)
	if t.spool == nil {
		spool, err := newCellSpool()
		if err != nil {
			return err
		}
		t.spool = spool
	}
	return t.spool.add(inspectCells(d))
}

func (t *inspectTable) print(cells []string) error {
	if t.table == nil {
		if err := t.start(); err != nil {
			return err
		}
	}
	for col, cell := range cells {
		// The renderer would silently cut a cell wider than its column.
		if twwidth.Width(cell) > t.widths[col] {
			return fmt.Errorf("%s: event %s changed between the two readings inspect makes of the file; run it again", t.file, cells[0])
		}
	}
	return t.table.Append(cells)
}

// start begins the streamed table with the final column widths.
func (t *inspectTable) start() error {
	const padding = "  "
	widths := tw.NewMapper[int, int]()
	for col, w := range t.widths {
		widths.Set(col, w+len(padding))
	}
	t.table = tablewriter.NewTable(t.out,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenColumns: tw.Off, BetweenRows: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.Off},
			},
		})),
		tablewriter.WithStreaming(tw.StreamConfig{Enable: true}),
		tablewriter.WithWidths(tw.CellWidth{PerColumn: widths}),
		tablewriter.WithPadding(tw.Padding{Right: padding, Overwrite: true}),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{
			PerColumn: []tw.Align{tw.AlignRight, tw.AlignLeft, tw.AlignLeft, tw.AlignLeft, tw.AlignLeft},
		}),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithTrimSpace(tw.Off),
	)
	if err := t.table.Start(); err != nil {
		return err
	}
	t.table.Header(inspectColumns)
	return nil
}

func (t *inspectTable) flush() error {
	if t.spool != nil {
		err := t.spool.each(t.print)
		t.spool.close()
		t.spool = nil
		if err != nil {
			return err
		}
	}
	if t.table == nil { // no row: the header alone
		if err := t.start(); err != nil {
			return err
		}
	}
	if err := t.table.Close(); err != nil {
		return err
	}
	return t.out.flush()
}

// trimTrailingSpace passes lines through without the spaces that end them,
// so the last column's padding never reaches the output.
type trimTrailingSpace struct {
	w       *bufio.Writer
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
	if _, err := t.w.Write(bytes.TrimRight(t.pending, " ")); err != nil {
		return err
	}
	t.pending = nil
	return t.w.Flush()
}

// inspectJSON prints one JSON object per event, streaming, with stable keys:
// seq, time, type, surface, turn, step, summary, and row, the event row
// exactly as dsh's v4 writer writes it.
type inspectJSON struct {
	out *bufio.Writer
	buf []byte
}

// outputBuffer is the write buffer of a verb that streams a large output
// (a line per event, a row per node): a pipe takes it in a few writes per
// megabyte instead of hundreds.
const outputBuffer = 64 << 10

func newInspectJSON(out io.Writer) *inspectJSON {
	return &inspectJSON{out: bufio.NewWriterSize(out, outputBuffer)}
}

func (j *inspectJSON) wants(int64) bool { return true }

func (j *inspectJSON) add(d inspect.Description, ev session.Event) error {
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

// cellSpool keeps table rows in a temporary file: one JSON array of cells a
// line. It lets a table read from a stream be sized before it is printed
// without holding the rows in memory.
type cellSpool struct {
	f *os.File
	w *bufio.Writer
}

func newCellSpool() (*cellSpool, error) {
	f, err := os.CreateTemp("", "dshlog-inspect-*.jsonl")
	if err != nil {
		return nil, err
	}
	return &cellSpool{f: f, w: bufio.NewWriter(f)}, nil
}

func (s *cellSpool) add(cells []string) error {
	line, err := json.Marshal(cells)
	if err != nil {
		return err
	}
	s.w.Write(line)
	return s.w.WriteByte('\n')
}

// each hands the spooled rows back in order.
func (s *cellSpool) each(visit func(cells []string) error) error {
	if err := s.w.Flush(); err != nil {
		return err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	lines := bufio.NewScanner(s.f)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		var cells []string
		if err := json.Unmarshal(lines.Bytes(), &cells); err != nil {
			return err
		}
		if err := visit(cells); err != nil {
			return err
		}
	}
	return lines.Err()
}

// close removes the spool file.
func (s *cellSpool) close() {
	s.f.Close()
	os.Remove(s.f.Name())
}
