package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/listing"
	"github.com/dshlog/dshlog/stats"
	"github.com/dshlog/dshlog/store"
	"github.com/dshlog/dshlog/vocab"
)

// statsOptions are the inputs of dshlog stats.
type statsOptions struct {
	paths  []string
	json   bool
	follow followFlags
	vocab  vocabularyFlags
}

func init() { addVerb(newStatsCommand) }

// newStatsCommand returns dshlog stats, which counts what happened in
// sessions and where the prefix cache broke.
func newStatsCommand(s *streams) *cobra.Command {
	var opts statsOptions
	cmd := &cobra.Command{
		Use:   "stats FILE|DIR...",
		Short: "Count turns, requests, tools and tokens, and say why the prefix cache broke",
		Long: `Count what happened in sessions, per session and in total: turns, steps and
requests (failed ones, retries), cancelled turns, compactions, crashes dsh's
repair closed; tool calls by tool with their errors and durations (tool/call
to tool/result); the providers and models used; the tokens of the logged
usage (inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens,
reasoningTokens) with the share of input tokens read from the prefix cache.

Prefix-cache breaks: every request is rebuilt from the log (as verify does)
and compared with the one before; a request whose messages or header do not
extend the previous request's is a break, and its cause is one of:
  fork           it spans a fork child's inherited session/end-seed
  resume         it spans a session/end-seed (a new loop after a restart)
  system-prompt  the system prompt was rewritten or the header's changed
  compaction     a compaction or projection rewrote the surface
  tools          only the header's tool list changed
  config         only another part of the header changed (model, sampling…)
  unexplained    the messages do not extend and nothing in the log says why
Each break shows the input tokens it put back in front of the model: the
request's inputTokens less its cacheReadTokens when logged.

A DIR is searched for session logs (each session's current generation).
Each file is read twice, streaming; "-" is not accepted. --json prints one
document: {"sessions": [...], "total": {...}}.

` + followHelp + `

Following reads the file once. On a terminal, its totals are kept on one
screen, redrawn as lines arrive: events, turns, requests, tokens, the
cache-hit share and the latest prefix-cache breaks with their causes.
Otherwise (a pipe, a file) each request is a plain line as it is settled,
"seq S: request N: ...", with the session's running totals, and each break
a line "seq S: cache break: request N, CAUSE, ..." as it happens; with
--json, each request is an object with the keys seq, request, usage (null
when not logged) and total, and each break one with the keys seq and break,
one a line. When following ends, the tables (or the document) of the
session are printed as for a finished file.`,
		Example: `  dshlog stats testdata/seed-vectors/loop-events.v4.jsonl
  dshlog stats ~/.dsh/sessions
  dshlog stats --json session.v4.jsonl | jq .total.causes
  dshlog stats --follow --idle 5m ~/.dsh/sessions`,
		Args: followArgs(&opts.follow, cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.paths = args
			return runStats(opts, s)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print one JSON document instead of tables")
	addFollowFlags(cmd.Flags(), &opts.follow)
	addVocabularyFlags(cmd.Flags(), &opts.vocab)
	return cmd
}

func runStats(opts statsOptions, s *streams) error {
	if err := opts.follow.check(); err != nil {
		return err
	}
	if opts.follow.on {
		return statsFollowed(opts, s)
	}
	vocabulary, err := opts.vocab.resolve()
	if err != nil {
		return err
	}
	files, err := statsFiles(opts.paths, s)
	if err != nil {
		return err
	}
	sessions, failed := collectStats(files, vocabulary, s)
	total := stats.Sum(sessions)
	if opts.json {
		err = printStatsJSON(s, sessions, total)
	} else {
		err = printStatsTables(s, sessions, total)
	}
	if err != nil {
		return err
	}
	return failed
}

// statsFiles returns the logs to count: each FILE (Version -1: named, not
// found in a store) and the current logs under each DIR.
func statsFiles(paths []string, s *streams) ([]store.Log, error) {
	var files []store.Log
	for _, path := range paths {
		if path == "-" {
			return nil, usageErrorf("stats reads each file twice and takes no standard input; save it to a file first")
		}
		info, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			files = append(files, store.Log{Path: path, Version: -1})
			continue
		}
		err = store.Walk(path, func(d store.Dir) error {
			files = append(files, d.Current()...)
			return nil
		}, func(p string, err error) { note(s, "%s: skipped: %v", p, err) })
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// collectStats counts each log. The logs found in directories form a
// store: when one is historical, the children of each are found once from
// the headers, not by a store scan per log as dsh does. A file that cannot
// be read is a note, and the error returned at the end.
func collectStats(files []store.Log, vocabulary *vocab.Vocabulary, s *streams) ([]stats.Session, error) {
	var found []store.Log
	historical := false
	for _, l := range files {
		if l.Version >= 0 {
			found = append(found, l)
			historical = historical || l.Version < v4.Version
		}
	}
	var children *listing.Children
	if historical {
		children = listing.ReadHeaders(found)
	}
	var sessions []stats.Session
	var failed error
	uncounted, next := 0, 0
	for _, l := range files {
		var session stats.Session
		var err error
		switch {
		case l.Version < 0 || !historical:
			session, err = stats.Collect(l.Path, vocabulary)
		default:
			session, err = stats.CollectWithChildren(l.Path, children.Of(next), vocabulary)
		}
		if l.Version >= 0 {
			next++
		}
		if err != nil {
			uncounted++
			failed = fmt.Errorf("%d of %d files not counted (unreadable or unsupported); the last: %w", uncounted, len(files), err)
			if len(files) == 1 {
				failed = err
			} else {
				note(s, "%s: not counted: %v", l.Path, err)
			}
			continue
		}
		if !session.Complete {
			note(s, "%s: dsh refuses this log; counted up to the refusal: %s", l.Path, session.Problem)
		}
		sessions = append(sessions, session)
	}
	return sessions, failed
}

func printStatsJSON(s *streams, sessions []stats.Session, total stats.Total) error {
	if sessions == nil {
		sessions = []stats.Session{}
	}
	enc := json.NewEncoder(s.out)
	enc.SetEscapeHTML(false)
	return enc.Encode(struct {
		Sessions []stats.Session `json:"sessions"`
		Total    stats.Total     `json:"total"`
	}{sessions, total})
}

// statsRow is one row of the sessions table: a session's or the total's.
func statsRow(name string, c stats.Counts, calls int, u stats.Usage, breaks int) []string {
	return []string{name, strconv.Itoa(c.Turns), strconv.Itoa(c.Steps), strconv.Itoa(c.Requests),
		strconv.Itoa(c.FailedRequests), strconv.Itoa(c.Retries), strconv.Itoa(c.Cancels), strconv.Itoa(c.Compactions),
		strconv.Itoa(c.CrashesRepaired), strconv.Itoa(calls), itoa(u.InputTokens), itoa(u.OutputTokens),
		itoa(u.CacheReadTokens), hitShare(u), strconv.Itoa(breaks)}
}

// printStatsTables prints the sessions, tools, models and cache-break tables.
func printStatsTables(s *streams, sessions []stats.Session, total stats.Total) error {
	header := []string{"SESSION", "TURNS", "STEPS", "REQS", "FAILED", "RETRIES", "CANCELS", "COMPACTIONS", "CRASHES", "TOOL CALLS", "IN", "OUT", "CACHE READ", "CACHE HIT", "BREAKS"}
	right := []bool{false, true, true, true, true, true, true, true, true, true, true, true, true, true, true}
	var rows [][]string
	for _, x := range sessions {
		calls := 0
		for _, t := range x.Tools {
			calls += t.Calls
		}
		rows = append(rows, statsRow(x.Path, x.Counts, calls, x.Usage, len(x.Breaks)))
	}
	if len(sessions) > 1 {
		calls, breaks := 0, 0
		for _, t := range total.Tools {
			calls += t.Calls
		}
		for _, c := range total.Causes {
			breaks += c.Breaks
		}
		rows = append(rows, statsRow(fmt.Sprintf("TOTAL (%d sessions)", total.Sessions), total.Counts, calls, total.Usage, breaks))
	}
	if err := printTable(s.out, header, right, rows); err != nil {
		return err
	}

	if len(total.Tools) > 0 {
		rows = rows[:0]
		for _, t := range total.Tools {
			mean := "-"
			if t.Timed > 0 {
				mean = ms(t.TotalMS / int64(t.Timed))
			}
			rows = append(rows, []string{t.Name, strconv.Itoa(t.Calls), strconv.Itoa(t.Errors), strconv.Itoa(t.Timed), ms(t.TotalMS), mean, ms(t.MaxMS)})
		}
		fmt.Fprintln(s.out)
		if err := printTable(s.out, []string{"TOOL", "CALLS", "ERRORS", "TIMED", "TOTAL TIME", "MEAN", "MAX"},
			[]bool{false, true, true, true, true, true, true}, rows); err != nil {
			return err
		}
	}

	if len(total.Models) > 0 {
		rows = rows[:0]
		for _, m := range total.Models {
			name := m.Provider + "/" + m.Model
			if m.Provider == "" && m.Model == "" {
				name = "(no request header)"
			}
			rows = append(rows, []string{name, strconv.Itoa(m.Requests), itoa(m.Usage.InputTokens), itoa(m.Usage.OutputTokens),
				itoa(m.Usage.CacheReadTokens), itoa(m.Usage.CacheWriteTokens), itoa(m.Usage.ReasoningTokens), hitShare(m.Usage)})
		}
		fmt.Fprintln(s.out)
		if err := printTable(s.out, []string{"PROVIDER/MODEL", "REQS", "IN", "OUT", "CACHE READ", "CACHE WRITE", "REASONING", "CACHE HIT"},
			[]bool{false, true, true, true, true, true, true, true}, rows); err != nil {
			return err
		}
	}

	fmt.Fprintln(s.out)
	rows = rows[:0]
	breaks := 0
	for _, c := range total.Causes {
		breaks += c.Breaks
		putBack := itoa(c.PutBack)
		if c.Unlogged > 0 {
			putBack += fmt.Sprintf(" (%d without usage)", c.Unlogged)
		}
		rows = append(rows, []string{string(c.Cause), strconv.Itoa(c.Breaks), putBack})
	}
	if err := printTable(s.out, []string{"CACHE BREAK CAUSE", "BREAKS", "INPUT TOKENS PUT BACK"}, []bool{false, true, true}, rows); err != nil {
		return err
	}
	fmt.Fprintln(s.out)
	if breaks == 0 {
		fmt.Fprintf(s.out, "no cache breaks: each of the %d requests after a session's first extends the one before it\n", total.Extending)
		return nil
	}
	rows = rows[:0]
	unexplained := 0
	for _, x := range sessions {
		for _, b := range x.Breaks {
			if !b.Explained() {
				unexplained++
			}
			what, explained, putBack := breakCells(b)
			rows = append(rows, []string{x.Path, strconv.Itoa(b.Request), strconv.FormatInt(b.Seq, 10), strconv.FormatInt(b.PreviousSeq, 10),
				string(b.Cause), what, explained, putBack})
		}
	}
	if err := printTable(s.out, []string{"SESSION", "REQUEST", "SEQ", "AFTER", "CAUSE", "CHANGED", "EXPLAINED BY", "PUT BACK"},
		[]bool{false, true, true, true, false, false, false, true}, rows); err != nil {
		return err
	}
	fmt.Fprintf(s.out, "\n%d of %d requests after a session's first break the prefix cache", breaks, breaks+total.Extending)
	if unexplained > 0 {
		fmt.Fprintf(s.out, "; %d break(s) unexplained: the messages do not extend the previous request and no series header or session/end-seed says why (dshlog verify reports request-not-extending)", unexplained)
	}
	fmt.Fprintln(s.out)
	return nil
}

// breakCells are a break's CHANGED, EXPLAINED BY and PUT BACK cells.
func breakCells(b stats.Break) (what, explained, putBack string) {
	what, explained, putBack = "messages", "nothing", itoa(b.PutBack)
	if b.MessagesExtend {
		what = "header"
	}
	if b.Explained() {
		explained = string(b.ExplainedBy) + " @" + strconv.FormatInt(b.MarkerSeq, 10)
	}
	if !b.UsageLogged {
		putBack = "no usage"
	}
	return what, explained, putBack
}

// hitShare formats the cache-hit share of usage, "-" when not logged.
func hitShare(u stats.Usage) string {
	share, ok := u.CacheHitShare()
	if !ok {
		return "-"
	}
	return strconv.FormatFloat(100*share, 'f', 1, 64) + "%"
}

// ms formats milliseconds as a duration.
func ms(n int64) string { return (time.Duration(n) * time.Millisecond).String() }
