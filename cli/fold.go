package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	v2 "github.com/dshlog/dshlog/codec/v2"
	v4 "github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/inspect"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/session"
)

// foldOptions are the inputs of dshlog fold.
type foldOptions struct {
	file    string
	surface bool
	json    bool
	at      int64
	atSet   bool
	request int
	vocab   vocabularyFlags
	// allowUnknown keeps events of unknown types opaque, with a warning,
	// instead of refusing the log as dsh does.
	allowUnknown bool
}

func init() { addVerb(newFoldCommand) }

// newFoldCommand returns dshlog fold, which shows the model's view of a log.
func newFoldCommand(s *streams) *cobra.Command {
	var opts foldOptions
	cmd := &cobra.Command{
		Use:   "fold FILE",
		Short: "Show the model's view of a session: surface, messages, requests",
		Long: `Fold a session log into the model's view, exactly as dsh's Session derives it:
the surface (the events whose messages the model sees, in model order, after
compaction replaces), the derived messages, the requests rebuilt from the log
and, when the log ends inside a turn, the closers crash repair would append.
Every event goes through the checks dsh's Session applies when it loads a
log (envelope, message and header shapes, then the surface guards: replace
ranges, source coverage, the tool-result rewrite rule, the system prompt at
node 0, in dsh's order); a log they refuse is refused with dsh's own words.
Older formats are migrated in memory; nothing is written.

An event type the dsh build (--dsh, --vocabulary; see dshlog vocabulary) does
not know is refused as that dsh refuses it; --allow-unknown keeps events of
unknown log-only types opaque instead, with a warning.

Without flags fold prints a summary (with the effective working directory:
the last working-directory/change, else the header's cwd). --surface adds the node list, the role
sequence, one line per node (seq, type, message preview), the shadowed ranges
(for each replace: its seq, the node range it covered, the nodes it shadowed,
the generation it started) and the closers an open tail needs.

--request K prints request K (the K-th assistant/message or assistant/attempt
settlement) as the loop sent it, rebuilt only from the events before it: the
header's config fields, messages, toolHistory, tools and sessionId.

--json prints one JSON document with these keys:
  session            session id
  events             number of events folded
  nodes              surface seqs, in model order
  roles              role of each derived message
  shadowed           [{seq, startSeq, endSeq, shadowedSeqs, replaceGeneration, contentGeneration}]
  replaceGeneration  committed replaces
  contentGeneration  committed replaces and message projections
  messages           number of derived messages
  requests           number of requests (settlements)
  header             {seq, reason, startsSeries, header} of the header in force, or null
  turnOpen           whether the log ends inside a turn
  closers            the events crash repair would append, as v4 rows
  workingDirectory   {cwd, seq} the effective working directory: the last
                     working-directory/change (seq) or the header's cwd (seq
                     null); null when there is neither

FILE may be "-" for standard input, and may be zstd or gzip compressed.`,
		Example: `  dshlog fold --surface testdata/seed-vectors/loop-events.v4.jsonl
  dshlog fold --surface --at 20 session.v4.jsonl
  dshlog fold --request 3 session.v4.jsonl
  dshlog fold --json session.v4.jsonl.zst | jq .nodes`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.file = args[0]
			opts.atSet = cmd.Flags().Changed("at")
			return runFold(opts, s)
		},
	}
	flags := cmd.Flags()
	flags.BoolVar(&opts.surface, "surface", false, "print the surface: nodes, roles, one line per node, shadowed ranges, closers")
	flags.BoolVar(&opts.json, "json", false, "print one JSON document (keys listed above)")
	flags.Int64Var(&opts.at, "at", 0, "fold only the events up to this seq (inclusive)")
	flags.IntVar(&opts.request, "request", 0, "print request K (1-based) as JSON")
	flags.BoolVar(&opts.allowUnknown, "allow-unknown", false, "keep events of unknown log-only types opaque, with a warning, instead of refusing the log")
	addVocabularyFlags(flags, &opts.vocab)
	return cmd
}

// errStopFolding ends a fold at --at without an error.
var errStopFolding = errors.New("stop folding")

func runFold(opts foldOptions, s *streams) error {
	defer tuneReadHeap()()
	if opts.request < 0 || opts.request > 0 && (opts.surface || opts.json) {
		return usageErrorf("--request takes a positive K and goes alone (not with --surface or --json)")
	}
	if opts.atSet && opts.at < 0 {
		return usageErrorf("--at must be a seq (0 or more), got %d", opts.at)
	}
	v, err := opts.vocab.resolve()
	if err != nil {
		return err
	}
	if opts.allowUnknown {
		v = v.WithUnknownAllowed()
	}
	events, err := openSession(opts.file, s, migrate.Options{Recovery: v2.Recoverable, Vocabulary: v})
	if err != nil {
		return err
	}
	defer events.Close()
	if opts.request > 0 {
		return printRequest(events, opts, s)
	}
	f := fold.NewWith(v)
	// What is printed of a message is its preview, made as the event is
	// folded: the fold keeps no message it will not print.
	summarize := func(string, jsonv.Value) string { return "" }
	if opts.surface && !opts.json {
		summarize = messagePreview
	}
	f.Summarize(summarize)
	warner := unknownWarner{s: s, file: events.name, vocab: v}
	var refused error
	readErr := events.each(s, func(ev session.Event) error {
		if opts.atSet && ev.Seq > opts.at {
			return errStopFolding
		}
		warner.see(ev)
		refused = applyEvent(f, ev, events.name)
		return refused
	})
	if refused != nil {
		return refused // dsh loads nothing of a log its fold refuses
	}
	if errors.Is(readErr, errStopFolding) {
		readErr = nil
	}
	var unknown *v4.UnknownTypeError
	if errors.As(readErr, &unknown) {
		return suggestAllowUnknown(readErr) // dsh loads nothing of a log it refuses
	}
	var whole *refusedLog
	if errors.As(readErr, &whole) {
		return withHint(readErr, "dsh refuses this log, so fold shows nothing of it; dshlog verify says why, and points the way when the build that wrote it reads it")
	}
	if readErr == nil && opts.atSet && f.Next() <= opts.at {
		return usageErrorf("--at %d is past the end of %s (last seq %d)", opts.at, events.name, f.Next()-1)
	}
	var printErr error
	switch {
	case opts.json:
		printErr = printFoldJSON(s.out, events.Header, f)
	default:
		printErr = printFoldSummary(s.out, events.Header, f, opts.surface)
	}
	if printErr != nil {
		return printErr
	}
	return readErr
}

// applyEvent folds one event as dsh's Session loads a stored log, wording a
// refusal as dsh does.
func applyEvent(f *fold.Fold, ev session.Event, file string) error {
	if err := f.Load(ev); err != nil {
		return withHint(fmt.Errorf("%s: %w", file, err), "dsh refuses to load this session too")
	}
	return nil
}

// printRequest prints request K, reading nothing past its settlement.
func printRequest(events *sessionEvents, opts foldOptions, s *streams) error {
	f := fold.NewWith(events.Vocabulary())
	var found *fold.Request
	err := events.each(s, func(ev session.Event) error {
		if opts.atSet && ev.Seq > opts.at {
			return errStopFolding
		}
		if fold.IsSettlement(ev.Type) && f.Settlements()+1 == opts.request {
			r, err := f.Request(ev)
			if err != nil {
				return err
			}
			found = &r
			return errStopFolding
		}
		return applyEvent(f, ev, events.name)
	})
	if err != nil && !errors.Is(err, errStopFolding) {
		return suggestAllowUnknown(err)
	}
	if found == nil {
		return usageErrorf("%s has %d requests; there is no request %d", events.name, f.Settlements(), opts.request)
	}
	return writeIndented(s.out, found.Value(events.Header.ID).Encode())
}

// writeIndented writes compact JSON indented by two spaces, as
// JSON.stringify(value, null, 2) does, and a newline.
func writeIndented(w io.Writer, compact []byte) error {
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err := w.Write(out.Bytes())
	return err
}

// printFoldSummary prints the fold for people; surface adds the nodes, the
// shadowed ranges and the closers.
func printFoldSummary(w io.Writer, h session.Header, f *fold.Fold, surface bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "session %s: %d events folded\n", h.ID, f.Next())
	fmt.Fprintf(&b, "surface: %d nodes, %d messages, replace generation %d, content generation %d\n",
		len(f.Surface()), f.MessageCount(), f.ReplaceGeneration(), f.ContentGeneration())
	fmt.Fprintf(&b, "requests: %d", f.Settlements())
	if h, ok := f.Header(); ok {
		fmt.Fprintf(&b, ", header in force @%d (%s", h.Seq, h.Reason)
		if h.StartsSeries {
			b.WriteString(", starts series")
		}
		b.WriteString(")")
	}
	b.WriteString("\n")
	b.WriteString(workingDirectoryLine(h, f))
	closers := f.InterruptedTurnClosers()
	if !surface {
		b.WriteString(tailState(closers))
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "nodes: %s\n", joinSeqs(f.Nodes(), " "))
	fmt.Fprintf(&b, "roles: %s\n\n", strings.Join(f.Roles(), " "))
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if err := printNodes(w, f); err != nil {
		return err
	}
	if err := printShadowed(w, f.Replacements()); err != nil {
		return err
	}
	if _, err := io.WriteString(w, "\n"+tailState(closers)); err != nil {
		return err
	}
	if len(closers) == 0 {
		return nil
	}
	return printEvents(w, closers)
}

// tailState says whether the log ends inside a turn.
func tailState(closers []session.Event) string {
	if len(closers) == 0 {
		return "tail: every turn is closed; no repair needed\n"
	}
	return fmt.Sprintf("tail: turn %s is open; crash repair would append %d closers\n",
		closers[len(closers)-1].Data().Field("turn"), len(closers))
}

// printNodes prints one line per surface node: seq, type and a preview of
// its message, from the summary the fold kept (messagePreview). The padded
// columns' widths come first, from the nodes, so that each line is written
// as it is made: a long surface's table is never held whole.
func printNodes(w io.Writer, f *fold.Fold) error {
	replaced := map[int64]fold.Replacement{}
	for _, r := range f.Replacements() {
		replaced[r.Seq] = r
	}
	header, right := []string{"SEQ", "TYPE", "MESSAGE"}, []bool{true, false, false}
	widths := []int{len(header[0]), len(header[1])}
	for _, n := range f.Surface() {
		widths[0] = max(widths[0], len(itoa(n.Seq)))
		widths[1] = max(widths[1], utf8.RuneCountInString(n.Type))
	}
	t := table{w: bufio.NewWriterSize(w, outputBuffer), widths: widths, right: right}
	t.row(header)
	for _, n := range f.Surface() {
		t.row([]string{itoa(n.Seq), n.Type, nodePreview(n, replaced)})
	}
	return t.w.Flush()
}

// messagePreview summarizes a node's message as inspect does for its event:
// the summary a fold that prints its surface keeps for each node.
func messagePreview(typ string, message jsonv.Value) string {
	data := message
	if typ != "user/message" {
		data = jsonv.ObjectValue(jsonv.M("message", message))
	}
	ev := session.Event{Type: typ, Row: jsonv.ObjectValue(jsonv.M("data", data))}
	return inspect.Describe(ev).Summary
}

// nodePreview is a node's preview (the summary the fold kept), marking a
// node that adds no message and one that replaced others.
func nodePreview(n fold.Node, replaced map[int64]fold.Replacement) string {
	preview := n.Summary()
	if !n.Visible {
		preview += " (empty: adds no message)"
	}
	if r, ok := replaced[n.Seq]; ok {
		preview += fmt.Sprintf(" [replaces %d..%d]", r.StartSeq, r.EndSeq)
	}
	return preview
}

// printShadowed prints the shadowed ranges: one row per replace.
func printShadowed(w io.Writer, replacements []fold.Replacement) error {
	if len(replacements) == 0 {
		_, err := io.WriteString(w, "\nshadowed ranges: none\n")
		return err
	}
	if _, err := io.WriteString(w, "\nshadowed ranges:\n"); err != nil {
		return err
	}
	var rows [][]string
	for _, r := range replacements {
		rows = append(rows, []string{itoa(r.Seq), fmt.Sprintf("%d..%d", r.StartSeq, r.EndSeq),
			inspect.SeqList(r.ShadowedSeqs), itoa(int64(r.ContentGeneration))})
	}
	return writeTable(w, []string{"SEQ", "RANGE", "SHADOWED", "GENERATION"}, []bool{true, false, false, false}, rows)
}

// writeTable prints a borderless table in the style of dshlog inspect: two
// spaces between columns, every column but the last padded to its widest
// cell (those columns hold ASCII: seqs, types, ranges), right-aligned where
// right says so.
func writeTable(w io.Writer, header []string, right []bool, rows [][]string) error {
	rows = append([][]string{header}, rows...)
	widths := make([]int, len(header)-1)
	for _, row := range rows {
		for i, cell := range row[:len(row)-1] {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	t := table{w: bufio.NewWriter(w), widths: widths, right: right}
	for _, row := range rows {
		t.row(row)
	}
	return t.w.Flush()
}

// table writes rows of cells whose column widths are known: every column
// but the last padded to its width, two spaces between columns.
type table struct {
	w      *bufio.Writer
	widths []int  // of every column but the last
	right  []bool // right-aligned columns
	line   []byte
}

func (t *table) row(cells []string) {
	line := t.line[:0]
	for i, cell := range cells {
		pad := 0
		if i < len(cells)-1 {
			pad = t.widths[i] - utf8.RuneCountInString(cell)
		}
		if t.right[i] {
			line = append(append(appendSpaces(line, pad), cell...), "  "...)
		} else {
			line = appendSpaces(append(line, cell...), pad+2)
		}
	}
	t.line = append(bytes.TrimRight(line, " "), '\n')
	t.w.Write(t.line)
}

func appendSpaces(b []byte, n int) []byte {
	for range n {
		b = append(b, ' ')
	}
	return b
}

// printFoldJSON prints the fold as one JSON document (keys documented in
// the command's help).
func printFoldJSON(w io.Writer, sh session.Header, f *fold.Fold) error {
	var shadowed []jsonv.Value
	for _, r := range f.Replacements() {
		shadowed = append(shadowed, jsonv.ObjectValue(
			jsonv.M("seq", jsonv.IntValue(r.Seq)),
			jsonv.M("startSeq", jsonv.IntValue(r.StartSeq)),
			jsonv.M("endSeq", jsonv.IntValue(r.EndSeq)),
			jsonv.M("shadowedSeqs", seqsValue(r.ShadowedSeqs)),
			jsonv.M("replaceGeneration", jsonv.IntValue(int64(r.ReplaceGeneration))),
			jsonv.M("contentGeneration", jsonv.IntValue(int64(r.ContentGeneration))),
		))
	}
	var roles []jsonv.Value
	for _, role := range f.Roles() {
		roles = append(roles, jsonv.StringValue(role))
	}
	header := jsonv.NullValue()
	if h, ok := f.Header(); ok {
		header = jsonv.ObjectValue(
			jsonv.M("seq", jsonv.IntValue(h.Seq)),
			jsonv.M("reason", jsonv.StringValue(h.Reason)),
			jsonv.M("startsSeries", jsonv.BoolValue(h.StartsSeries)),
			jsonv.M("header", h.Header),
		)
	}
	var closers []jsonv.Value
	for _, ev := range f.InterruptedTurnClosers() {
		closers = append(closers, ev.Row)
	}
	doc := jsonv.ObjectValue(
		jsonv.M("session", jsonv.StringValue(sh.ID)),
		jsonv.M("events", jsonv.IntValue(f.Next())),
		jsonv.M("nodes", seqsValue(f.Nodes())),
		jsonv.M("roles", jsonv.ArrayValue(roles...)),
		jsonv.M("shadowed", jsonv.ArrayValue(shadowed...)),
		jsonv.M("replaceGeneration", jsonv.IntValue(int64(f.ReplaceGeneration()))),
		jsonv.M("contentGeneration", jsonv.IntValue(int64(f.ContentGeneration()))),
		jsonv.M("messages", jsonv.IntValue(int64(f.MessageCount()))),
		jsonv.M("requests", jsonv.IntValue(int64(f.Settlements()))),
		jsonv.M("header", header),
		jsonv.M("turnOpen", jsonv.BoolValue(f.TurnOpen())),
		jsonv.M("closers", jsonv.ArrayValue(closers...)),
		jsonv.M("workingDirectory", workingDirectoryValue(sh, f)),
	)
	_, err := w.Write(append(doc.Encode(), '\n'))
	return err
}

func seqsValue(seqs []int64) jsonv.Value {
	values := make([]jsonv.Value, len(seqs))
	for i, s := range seqs {
		values[i] = jsonv.IntValue(s)
	}
	return jsonv.ArrayValue(values...)
}

func joinSeqs(seqs []int64, sep string) string {
	parts := make([]string, len(seqs))
	for i, s := range seqs {
		parts[i] = itoa(s)
	}
	return strings.Join(parts, sep)
}

// printEvents prints synthetic events (closers, a fork's tail) as rows of
// seq, type, turn/step and summary.
func printEvents(w io.Writer, events []session.Event) error {
	var rows [][]string
	for _, ev := range events {
		d := inspect.Describe(ev)
		rows = append(rows, []string{itoa(d.Seq), d.Type, d.TurnStep(), d.Summary})
	}
	return writeTable(w, []string{"SEQ", "TYPE", "TURN/STEP", "SUMMARY"}, []bool{true, false, false, false}, rows)
}

// workingDirectoryLine says which working directory is in force at the end
// of the fold, and where it came from.
func workingDirectoryLine(h session.Header, f *fold.Fold) string {
	cwd, seq, ok := f.WorkingDirectory(h.Cwd)
	switch {
	case !ok:
		return "working directory: none recorded\n"
	case seq < 0:
		return fmt.Sprintf("working directory: %s (header)\n", cwd)
	}
	return fmt.Sprintf("working directory: %s (working-directory/change @%d)\n", cwd, seq)
}

// workingDirectoryValue is workingDirectoryLine for --json.
func workingDirectoryValue(h session.Header, f *fold.Fold) jsonv.Value {
	cwd, seq, ok := f.WorkingDirectory(h.Cwd)
	if !ok {
		return jsonv.Value{}
	}
	at := jsonv.Value{}
	if seq >= 0 {
		at = jsonv.IntValue(seq)
	}
	return jsonv.ObjectValue(jsonv.M("cwd", jsonv.StringValue(cwd)), jsonv.M("seq", at))
}
