package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/stats"
)

// statsFollowed counts a session as dsh appends to it, showing the figures
// and each prefix-cache break as they arrive, and prints the session's
// statistics when following ends (Ctrl-C or --idle).
func statsFollowed(opts statsOptions, s *streams) error {
	if len(opts.paths) > 1 {
		return usageErrorf("--follow counts one session: give one FILE or DIR, not %d", len(opts.paths))
	}
	ctx, stop := followContext()
	defer stop()
	arg := ""
	if len(opts.paths) == 1 {
		arg = opts.paths[0]
	}
	path, err := followTarget(arg, s)
	if err != nil {
		return err
	}
	out := bufio.NewWriter(s.out)
	var view statsView
	switch {
	case opts.json:
		view = &statsJSONLines{out: out}
	case isTerminal(s.out):
		view = &statsScreen{out: out, path: path}
	default:
		view = &statsLines{out: out}
	}
	var live *stats.Live
	vocabulary, err := opts.vocab.resolve()
	if err != nil {
		return err
	}
	events, err := openFollowed(ctx, path, s, migrate.Options{Recovery: v2.Recoverable, Vocabulary: vocabulary}, opts.follow, func() {
		if live != nil {
			view.caughtUp(live)
		}
	})
	if refused, ok := migrate.HeaderRefusal(err); ok {
		// As on a finished file: nothing is counted of a log whose header
		// dsh refuses.
		session := stats.Session{Path: path, Problem: refused.Text(), Tools: []stats.Tool{}, Models: []stats.Model{}, Breaks: []stats.Break{}}
		return printFollowedStats(opts, s, session)
	}
	if err != nil {
		return err
	}
	defer events.Close()
	live = stats.NewLive(events.Reader, path)
	for {
		step, err := live.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			out.Flush()
			return err
		}
		if err := view.step(step, live); err != nil {
			return err
		}
	}
	session := live.Session()
	view.end(live)
	if err := out.Flush(); err != nil {
		return err
	}
	events.noteEnd(s)
	if !opts.json {
		fmt.Fprintln(s.out) // after the lines, the tables
	}
	return printFollowedStats(opts, s, session)
}

// printFollowedStats prints the statistics of a followed session once
// following has ended, as stats prints a finished file's.
func printFollowedStats(opts statsOptions, s *streams, session stats.Session) error {
	if !session.Complete {
		note(s, "%s: dsh refuses this log; counted up to the refusal: %s", session.Path, session.Problem)
	}
	sessions := []stats.Session{session}
	if opts.json {
		return printStatsJSON(s, sessions, stats.Sum(sessions))
	}
	return printStatsTables(s, sessions, stats.Sum(sessions))
}

// statsView shows a followed session's figures while they grow.
type statsView interface {
	// step shows an event just counted.
	step(step stats.Step, live *stats.Live) error
	// caughtUp shows the figures once every line there is was read.
	caughtUp(live *stats.Live)
	// end shows the figures when following has ended.
	end(live *stats.Live)
}

// statsLines prints a line per request as it is settled, with the
// session's running totals, and a line per prefix-cache break: for a pipe
// or a file.
type statsLines struct{ out *bufio.Writer }

func (v *statsLines) step(step stats.Step, live *stats.Live) error {
	if step.Request == 0 {
		return nil
	}
	session := live.Session()
	line := fmt.Sprintf("seq %d: request %d: %s; session: %d requests, %s\n", step.Event.Seq, step.Request,
		requestUsage(step), session.Requests, usageText(session.Usage))
	if b := step.Break; b != nil {
		line += breakLine(*b) + "\n"
	}
	_, err := v.out.WriteString(line)
	return err
}

func (v *statsLines) caughtUp(*stats.Live) { v.out.Flush() }

func (v *statsLines) end(*stats.Live) {}

// requestUsage says what one request used.
func requestUsage(step stats.Step) string {
	if !step.Logged {
		return "no usage logged"
	}
	u := step.Usage
	text := fmt.Sprintf("in %d, out %d", u.InputTokens, u.OutputTokens)
	if u.CacheLogged > 0 {
		text += fmt.Sprintf(", cache read %d", u.CacheReadTokens)
	}
	return text
}

// usageText says what a session used so far.
func usageText(u stats.Usage) string {
	return fmt.Sprintf("in %d, out %d, cache read %d, cache hit %s", u.InputTokens, u.OutputTokens, u.CacheReadTokens, hitShare(u))
}

// breakLine says what broke the prefix cache at a request, in the words of
// the stats tables.
func breakLine(b stats.Break) string {
	what, explained, putBack := breakCells(b)
	if b.UsageLogged {
		putBack += " input tokens"
	}
	return fmt.Sprintf("seq %d: cache break: request %d, %s (%s changed), explained by %s, put back %s",
		b.Seq, b.Request, b.Cause, what, explained, putBack)
}

// statsJSONLines prints an object per request as it is settled and per
// prefix-cache break, one a line: {"seq", "request", "usage" (null when
// not logged), "total"} and {"seq", "break"}; for --json.
type statsJSONLines struct{ out *bufio.Writer }

func (v *statsJSONLines) step(step stats.Step, live *stats.Live) error {
	if step.Request == 0 {
		return nil
	}
	enc := json.NewEncoder(v.out)
	enc.SetEscapeHTML(false)
	request := struct {
		Seq     int64        `json:"seq"`
		Request int          `json:"request"`
		Usage   *stats.Usage `json:"usage"`
		Total   stats.Usage  `json:"total"`
	}{Seq: step.Event.Seq, Request: step.Request, Total: live.Session().Usage}
	if step.Logged {
		request.Usage = &step.Usage
	}
	if err := enc.Encode(request); err != nil || step.Break == nil {
		return err
	}
	return enc.Encode(struct {
		Seq   int64        `json:"seq"`
		Break *stats.Break `json:"break"`
	}{step.Event.Seq, step.Break})
}

func (v *statsJSONLines) caughtUp(*stats.Live) { v.out.Flush() }

func (v *statsJSONLines) end(*stats.Live) {}

// statsScreen keeps a followed session's totals on one screen of a
// terminal, redrawn (ANSI: cursor home, erase the screen, as watch does)
// each time every line there is was read.
type statsScreen struct {
	out    *bufio.Writer
	path   string
	events int
	last   int64         // the last event's seq
	recent []stats.Break // the latest breaks, at most screenBreaks
}

// screenBreaks is how many of the latest breaks the screen shows.
const screenBreaks = 8

func (v *statsScreen) step(step stats.Step, _ *stats.Live) error {
	v.events++
	v.last = step.Event.Seq
	if b := step.Break; b != nil {
		if len(v.recent) == screenBreaks {
			v.recent = v.recent[1:]
		}
		v.recent = append(v.recent, *b)
	}
	return nil
}

func (v *statsScreen) caughtUp(live *stats.Live) { v.draw(live, "Ctrl-C ends") }

func (v *statsScreen) end(live *stats.Live) { v.draw(live, "following ended") }

// draw redraws the screen, ending with status.
func (v *statsScreen) draw(live *stats.Live, status string) {
	lines := append(v.lines(live.Session()), status)
	v.out.WriteString("\x1b[H\x1b[2J" + strings.Join(lines, "\n") + "\n")
	v.out.Flush()
}

// lines are the screen's lines for the session's figures so far.
func (v *statsScreen) lines(session stats.Session) []string {
	calls := 0
	for _, t := range session.Tools {
		calls += t.Calls
	}
	u := session.Usage
	lines := []string{
		fmt.Sprintf("following %s (format v%d)", v.path, session.Format),
		fmt.Sprintf("events %d (last seq %d)  turns %d  steps %d  requests %d (%d failed, %d retried)  compactions %d  tool calls %d",
			v.events, v.last, session.Turns, session.Steps, session.Requests, session.FailedRequests, session.Retries, session.Compactions, calls),
		fmt.Sprintf("tokens  in %d  out %d  cache read %d  cache write %d  reasoning %d  cache hit %s",
			u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.ReasoningTokens, hitShare(u)),
		fmt.Sprintf("prefix cache: of the requests after the first, %d extend the one before, %d break it",
			session.Extending, len(session.Breaks)),
	}
	if len(session.Breaks) > len(v.recent) {
		lines = append(lines, "  latest breaks:")
	}
	for _, b := range v.recent {
		lines = append(lines, "  "+breakLine(b))
	}
	return lines
}
