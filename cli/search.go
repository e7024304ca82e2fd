package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/listing"
	"github.com/dshlog/dshlog/search"
	"github.com/dshlog/dshlog/store"
	"github.com/dshlog/dshlog/verify/batch"
)

// searchOptions are the inputs of dshlog search.
type searchOptions struct {
	query          search.Query
	paths          []string
	list, count    bool
	json           bool
	since, until   string
	allGenerations bool
	jobs           int
	color          string
	vocab          vocabularyFlags
}

func init() { addVerb(newSearchCommand) }

// The roles and event types search can be limited to.
var (
	searchRoles = []string{"system", "developer", "user", "assistant", "tool"}
	searchTypes = []string{"system/message", "developer/message", "user/message", "assistant/message", "tool/result", "session/title"}
)

// newSearchCommand returns dshlog search, which finds what was said in
// sessions.
func newSearchCommand(s *streams) *cobra.Command {
	var opts searchOptions
	cmd := &cobra.Command{
		Use:   "search PATTERN [FILE|DIR...]",
		Short: "Find what was said in sessions: messages, reasoning, tool calls and results, titles",
		Long: `Find PATTERN in what was said in dsh sessions, on decoded text (a quote, a
backslash or a line break inside a message is matched as it reads, not as
JSON escapes it): the text of user, system, developer and assistant
messages, assistant reasoning (with --reasoning), tool calls (the tool's
name and its arguments), tool results and session titles. Each field is
matched on its own; a match never spans two fields or two content blocks.

PATTERN is a Go regular expression (https://pkg.go.dev/regexp/syntax), or a
fixed string with -F; -i ignores case. The inputs are files and directories;
a directory is walked for session logs, taking of each session the
generation dsh would open (--all-generations: every one). Without inputs
the store is searched: $DSH_SESSIONS_DIR, else $DSH_HOME/sessions, else
~/.dsh/sessions. Plain, Zstandard and gzip files are read.

Each hit is one line: FILE:SEQ: SESSION turn N WHO: SNIPPET, where WHO is
the message's role ("assistant reasoning", "assistant tool-call NAME",
"tool result NAME") or session/title, and the snippet shows the match in
its context on one line (a line break shows as ⏎). The match is colored on
a terminal (--color; NO_COLOR turns auto off), and put in «» otherwise.
Hits come in path order, then file order, whatever -j.

-l prints the path of each session file with a hit, -c each one's path and
hit count as PATH:COUNT. --json prints one object per hit with the keys:
  path     the file
  session  the session id (the header's id)
  seq      the event's seq
  turn     the turn (the event's turn, else the last turn/start's; 0 before)
  time     the event's time (epoch ms)
  type     the event type (user/message, assistant/message, tool/result, …)
  role     the message's role, null for a title
  tool     the tool of a tool call or of the call a result answers, or null
  field    text, reasoning, tool-name, arguments or title
  block    the index of the content block in the message, null for a title
  start    the byte offset of the match in the field's decoded text (UTF-8)
  end      the byte offset just after the match
  before   up to 160 bytes of the field before the match
  match    the matched text, cut to 240 bytes (end-start is its length)
  after    up to 160 bytes of the field after the match
With -l or -c, --json prints one object per session: path, session and
(with -c) hits.

A file in the current format (v4) is first scanned as bytes for the
pattern's literal as JSON escapes it, the way grep would; only the rows
that may hold it are decoded, so a rare word costs about what grep -rF
does. Its rows are searched as stored, without judging the log (verify
does that); a torn last line is left out, as dsh drops it. An older format
(v0..v3) is migrated in memory as dsh reads it, and searched up to where
dsh refuses it.

Exit status: 0 when something was found, 1 when nothing was (no output),
2 for a usage error, 3 when a file could not be read (it is named on
stderr; the other files are still searched).`,
		Example: `  dshlog search -F 'npm install'
  dshlog search -l -i 'migration' ~/.dsh/sessions
  dshlog search --role user --since 2026-07-01 'deploy(ed)? to prod'
  dshlog search --tool bash -F 'rm -rf' --json | jq -r .session`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.query.Pattern, opts.paths = args[0], args[1:]
			return runSearch(opts, s)
		},
	}
	flags := cmd.Flags()
	flags.BoolVarP(&opts.query.Fixed, "fixed-strings", "F", false, "take PATTERN as a fixed string, not a regular expression")
	flags.BoolVarP(&opts.query.IgnoreCase, "ignore-case", "i", false, "ignore case (Unicode simple case folding)")
	flags.BoolVarP(&opts.list, "files-with-matches", "l", false, "print only the path of each session file with a hit")
	flags.BoolVarP(&opts.count, "count", "c", false, "print PATH:COUNT for each session file with a hit")
	flags.BoolVar(&opts.json, "json", false, "print one JSON object per hit (or per session with -l, -c)")
	flags.BoolVar(&opts.query.Reasoning, "reasoning", false, "search assistant reasoning too")
	flags.StringSliceVar(&opts.query.Roles, "role", nil, "only messages of `ROLE`: "+strings.Join(searchRoles, ", ")+" (repeat or separate with commas)")
	flags.StringSliceVar(&opts.query.Tools, "tool", nil, "only calls of, and results from, the tool `NAME` (repeat or separate with commas)")
	flags.StringSliceVar(&opts.query.Types, "type", nil, "only events of `TYPE`: "+strings.Join(searchTypes, ", "))
	flags.StringVar(&opts.since, "since", "", "only events at or after `TIME`: 2006-01-02, 2006-01-02T15:04 (UTC), RFC 3339, or a duration ago (36h, 7d)")
	flags.StringVar(&opts.until, "until", "", "only events before `TIME` (the forms of --since)")
	flags.StringVar(&opts.query.Project, "project", "", "only sessions whose directory (the header's cwd) is `DIR` or lies under it")
	flags.BoolVar(&opts.allGenerations, "all-generations", false, "in a walked directory, search every generation, not only the one dsh would open")
	flags.IntVarP(&opts.jobs, "jobs", "j", 0, "search `N` files in parallel (0: one per CPU)")
	flags.StringVar(&opts.color, "color", "auto", "color the matches: `WHEN` is auto (on a terminal, unless NO_COLOR is set), always or never")
	addVocabularyFlags(flags, &opts.vocab)
	return cmd
}

func runSearch(opts searchOptions, s *streams) error {
	if err := checkSearchOptions(&opts, time.Now()); err != nil {
		return err
	}
	color, err := useColor(opts.color, isTerminal(s.out), os.Getenv("NO_COLOR"))
	if err != nil {
		return err
	}
	opts.query.FirstOnly = opts.list
	if opts.query.Vocabulary, err = opts.vocab.resolve(); err != nil {
		return err
	}
	searcher, err := search.New(opts.query)
	if err != nil {
		return usageErrorf("pattern %q: %v", opts.query.Pattern, err)
	}
	files, err := searchFiles(opts, s)
	if err != nil {
		return err
	}
	jobs := opts.jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	w := bufio.NewWriterSize(s.out, 64<<10)
	p := &hitPrinter{w: w, color: color}
	sessions, unreadable := 0, 0
	var last error
	searcher.Run(files, jobs, func(h search.Hit) {
		if !opts.list && !opts.count {
			p.hit(h, opts.json)
		}
	}, func(r search.Result) {
		for _, n := range r.Notes {
			note(s, "%s", n)
		}
		if r.Err != nil {
			unreadable++
			last = explainRefusal(r.Err)
			if len(files) > 1 {
				w.Flush() // the hits before the note
				if text := errorText(last); strings.HasPrefix(text, r.Path+":") {
					note(s, "%s; searched no further", text)
				} else {
					note(s, "%s: %s; searched no further", r.Path, text)
				}
			}
		}
		if r.Hits == 0 {
			return
		}
		sessions++
		switch {
		case opts.list:
			p.session(r, opts.json, false)
		case opts.count:
			p.session(r, opts.json, true)
		}
	})
	if err := w.Flush(); err != nil {
		return err
	}
	switch {
	case unreadable == 1 && len(files) == 1:
		return last
	case unreadable > 0:
		return fmt.Errorf("%d of %d files not searched (unreadable or refused); the last: %w", unreadable, len(files), last)
	case sessions == 0:
		return &NoHitsError{}
	}
	return nil
}

// checkSearchOptions checks the flags that take values and reads the times.
func checkSearchOptions(opts *searchOptions, now time.Time) error {
	if opts.list && opts.count {
		return usageErrorf("-l and -c cannot be used together")
	}
	if opts.query.Pattern == "" {
		return usageErrorf("the pattern is empty")
	}
	for _, role := range opts.query.Roles {
		if !slices.Contains(searchRoles, role) {
			return usageErrorf("--role %q: not one of %s", role, strings.Join(searchRoles, ", "))
		}
	}
	for _, typ := range opts.query.Types {
		if !slices.Contains(searchTypes, typ) {
			return usageErrorf("--type %q: not one of %s", typ, strings.Join(searchTypes, ", "))
		}
	}
	if opts.query.Project != "" {
		project, err := filepath.Abs(opts.query.Project)
		if err != nil {
			return err
		}
		opts.query.Project = project
	}
	var err error
	if opts.query.Since, err = parseSearchTime("--since", opts.since, now); err != nil {
		return err
	}
	if opts.query.Until, err = parseSearchTime("--until", opts.until, now); err != nil {
		return err
	}
	return nil
}

// parseSearchTime reads a --since or --until value as epoch milliseconds
// (0 for ""): a date or minute in UTC, an RFC 3339 time, or a duration
// before now (Go's units, and d for days).
func parseSearchTime(flag, value string, now time.Time) (int64, error) {
	if value == "" {
		return 0, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, value); err == nil {
			return t.UnixMilli(), nil
		}
	}
	duration, err := time.ParseDuration(value)
	if days, ok := strings.CutSuffix(value, "d"); ok {
		n, dayErr := strconv.ParseFloat(days, 64)
		duration, err = time.Duration(n*24*float64(time.Hour)), dayErr
	}
	if err != nil || duration < 0 {
		return 0, usageErrorf("%s %q: not a date (2006-01-02), a time (2006-01-02T15:04, RFC 3339) or a duration ago (36h, 7d)", flag, value)
	}
	return now.Add(-duration).UnixMilli(), nil
}

// useColor decides whether matches are colored: always, never, or on a
// terminal when NO_COLOR is unset or empty (https://no-color.org).
func useColor(when string, terminal bool, noColor string) (bool, error) {
	switch when {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		return terminal && noColor == "", nil
	}
	return false, usageErrorf("--color %q: not auto, always or never", when)
}

// searchFiles lists the files to search: the inputs, or the store, each
// directory walked as verify walks it, in path order. The subagent
// children of historical logs are found once from the headers, as ls
// finds them.
func searchFiles(opts searchOptions, s *streams) ([]search.File, error) {
	inputs := opts.paths
	if len(inputs) == 0 {
		roots := listing.Roots(os.Getenv)
		if len(roots) == 0 {
			return nil, usageErrorf("no store given: pass a FILE or DIR, or set DSH_SESSIONS_DIR")
		}
		if _, err := os.Stat(roots[0]); errors.Is(err, fs.ErrNotExist) {
			return nil, withHint(err, "pass the files or directories to search, or set DSH_SESSIONS_DIR or DSH_HOME")
		}
		inputs = roots[:1]
	}
	for _, input := range inputs {
		if input == batch.Stdin {
			return nil, usageErrorf("search takes no standard input; save it to a file first")
		}
	}
	targets, empty := batch.Expand(inputs, batch.Selection{AllGenerations: opts.allGenerations})
	for _, dir := range empty {
		note(s, "%s: no session logs found", dir)
	}
	logs := make([]store.Log, len(targets))
	historical := false
	for i, t := range targets {
		logs[i] = store.Log{Path: t.Path, Size: t.Size}
		if l, ok := store.ParseName(filepath.Base(t.Path)); ok && l.Version < v4.Version {
			historical = true
		}
	}
	var children *listing.Children
	if historical {
		children = listing.ReadHeaders(logs)
	}
	files := make([]search.File, len(targets))
	for i, t := range targets {
		files[i] = search.File{Path: t.Path}
		if historical {
			files[i].Children, files[i].ChildrenKnown = children.Of(i), true
		}
	}
	return files, nil
}

// hitPrinter writes hits and sessions to a buffered stdout.
type hitPrinter struct {
	w     *bufio.Writer
	color bool
	buf   []byte
}

// The colors of a hit line, as grep colors its lines.
const (
	colorPath  = "\x1b[35m"
	colorSeq   = "\x1b[32m"
	colorMatch = "\x1b[1;31m"
	colorReset = "\x1b[0m"
)

// paint wraps text in a color when colors are on.
func (p *hitPrinter) paint(b []byte, color, text string) []byte {
	if !p.color {
		return append(b, text...)
	}
	return append(append(append(b, color...), text...), colorReset...)
}

// hit prints one hit.
func (p *hitPrinter) hit(h search.Hit, asJSON bool) {
	if asJSON {
		p.hitJSON(h)
		return
	}
	b := p.paint(p.buf[:0], colorPath, h.Path)
	b = append(b, ':')
	b = p.paint(b, colorSeq, strconv.FormatInt(h.Seq, 10))
	b = fmt.Appendf(b, ": %s turn %d %s: ", h.Session, h.Turn, who(h))
	before := lastRunes(h.Before, 40)
	if len(before) < h.Start {
		b = append(b, "…"...)
	}
	b = appendOneLine(b, before)
	match := firstRunes(h.Match, 80)
	if p.color {
		b = p.paint(b, colorMatch, oneLine(match))
	} else {
		b = appendOneLine(append(b, "«"...), match)
		b = append(b, "»"...)
	}
	if len(match) < h.End-h.Start {
		b = append(b, "…"...)
	}
	after := firstRunes(h.After, 40)
	b = appendOneLine(b, after)
	if len(after) < len(h.After) {
		b = append(b, "…"...)
	}
	b = append(b, '\n')
	p.buf = b
	p.w.Write(b)
}

// who says whose words a hit is in.
func who(h search.Hit) string {
	switch h.Field {
	case search.FieldTitle:
		return h.Type
	case search.FieldReasoning:
		return h.Role + " reasoning"
	case search.FieldToolName, search.FieldArguments:
		return h.Role + " tool-call " + h.Tool
	}
	if h.Type == "tool/result" {
		return strings.TrimSpace("tool result " + h.Tool)
	}
	if h.Role == "" {
		return h.Type
	}
	return h.Role
}

func (p *hitPrinter) hitJSON(h search.Hit) {
	b := append(p.buf[:0], `{"path":`...)
	b = jsonv.AppendString(b, h.Path)
	b = append(b, `,"session":`...)
	b = jsonv.AppendString(b, h.Session)
	b = fmt.Appendf(b, `,"seq":%d,"turn":%d,"time":%d,"type":`, h.Seq, h.Turn, h.Time)
	b = jsonv.AppendString(b, h.Type)
	b = append(b, `,"role":`...)
	b = appendOptionalString(b, h.Role)
	b = append(b, `,"tool":`...)
	b = appendOptionalString(b, h.Tool)
	b = append(b, `,"field":`...)
	b = jsonv.AppendString(b, h.Field)
	if h.Block < 0 {
		b = append(b, `,"block":null`...)
	} else {
		b = fmt.Appendf(b, `,"block":%d`, h.Block)
	}
	b = fmt.Appendf(b, `,"start":%d,"end":%d,"before":`, h.Start, h.End)
	b = jsonv.AppendString(b, h.Before)
	b = append(b, `,"match":`...)
	b = jsonv.AppendString(b, h.Match)
	b = append(b, `,"after":`...)
	b = jsonv.AppendString(b, h.After)
	b = append(b, "}\n"...)
	p.buf = b
	p.w.Write(b)
}

// session prints a session of -l or -c.
func (p *hitPrinter) session(r search.Result, asJSON, count bool) {
	b := p.buf[:0]
	switch {
	case asJSON:
		b = append(b, `{"path":`...)
		b = jsonv.AppendString(b, r.Path)
		b = append(b, `,"session":`...)
		b = jsonv.AppendString(b, r.Session)
		if count {
			b = fmt.Appendf(b, `,"hits":%d`, r.Hits)
		}
		b = append(b, "}\n"...)
	case count:
		b = p.paint(b, colorPath, r.Path)
		b = fmt.Appendf(b, ":%d\n", r.Hits)
	default:
		b = append(p.paint(b, colorPath, r.Path), '\n')
	}
	p.buf = b
	p.w.Write(b)
}

// firstRunes returns the first n characters of s, lastRunes the last n.
func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

func lastRunes(s string, n int) string {
	for i := len(s); i > 0; {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
		if n--; n == 0 {
			return s[i:]
		}
	}
	return s
}

// appendOneLine appends text on one line: a line break as ⏎, a tab as a
// space, a carriage return left out and another control character as its
// control picture (␀…␟, ␡).
func appendOneLine(b []byte, text string) []byte {
	for _, r := range text {
		switch {
		case r == '\n':
			b = append(b, "⏎"...)
		case r == '\t':
			b = append(b, ' ')
		case r == '\r':
		case r < 0x20:
			b = utf8.AppendRune(b, 0x2400+r)
		case r == 0x7f:
			b = append(b, "␡"...)
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return b
}

func oneLine(text string) string { return string(appendOneLine(nil, text)) }
