package rescue

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/verify"
	"github.com/dshlog/dshlog/vocab"
)

// wallClock is the time dsh stamps a live append with, in milliseconds.
func wallClock() int64 { return time.Now().UnixMilli() }

// Options tune a rescue.
type Options struct {
	// Now is the wall clock in milliseconds, which stamps a resume marker
	// as dsh stamps it; nil means the system clock.
	Now func() int64
	// Read says how logs are read and judged; the zero value is dsh's
	// recoverable reader.
	Read migrate.Options
}

// Rescue judges the log at path and, when dsh refuses it, writes the
// rescued log into a new file in dir and returns its path with what was
// found and done. The file has passed verify with no error; the caller
// publishes or removes it. A healthy source gets no file (Result.Healthy).
func Rescue(path, dir string, opts Options) (Result, string, error) {
	var res Result
	var lifted []Step
	if readsV0AsLine(path) {
		var line *vocab.Vocabulary
		line, opts.Read.Vocabulary = lineAndToday(opts.Read.Vocabulary)
		diagnosis, err := errorsOf(path, opts.Read)
		if err != nil || len(diagnosis) == 0 {
			res.Diagnosis, res.Healthy = diagnosis, err == nil
			return res, "", err
		}
		res.Diagnosis = diagnosis
		migrated, steps, err := liftToV4(path, dir, line)
		if err != nil {
			return res, "", err
		}
		defer os.Remove(migrated)
		path, lifted = migrated, steps
	}
	diagnosis, err := errorsOf(path, opts.Read)
	if err != nil {
		return res, "", err
	}
	if res.Diagnosis == nil {
		res.Diagnosis = diagnosis
	}
	if len(diagnosis) == 0 && lifted == nil {
		res.Healthy = true
		return res, "", nil
	}
	if lifted != nil && !anyRefusal(diagnosis) {
		// dsh opens the migration as it is; what verify still finds there
		// the log had as its own line wrote it, and cutting the history
		// to pass would lose what the log holds.
		res.Remaining = diagnosis
		return liftedResult(res, path, dir, lifted)
	}
	header, rows, writers, err := scan(path)
	if err != nil {
		return res, "", err
	}
	var best *attempt
	for _, h := range writers {
		if best != nil && len(h.lines) <= len(best.kept) {
			break // a shorter history cannot keep more rows
		}
		a, err := rescueHistory(path, dir, header, h, opts)
		if err != nil {
			if best != nil {
				os.Remove(best.file)
			}
			return res, "", err
		}
		if best == nil || len(a.kept) > len(best.kept) {
			if best != nil {
				os.Remove(best.file)
			}
			best = a
		} else {
			os.Remove(a.file)
		}
	}
	mended := append(setAside(rows, best.kept, writers), best.steps...)
	if lifted != nil {
		for i := range mended {
			mended[i].Migrated = true
		}
	}
	res.Steps = append(lifted, mended...)
	res.Events, res.Bytes = best.events, best.bytes
	return res, best.file, nil
}

// anyRefusal reports whether one of the findings is dsh refusing the log.
func anyRefusal(findings []verify.Finding) bool {
	for _, f := range findings {
		if f.Refuses() {
			return true
		}
	}
	return false
}

// liftedResult is the result of a format v0 log whose migration to v4,
// read as its own line reads it, today's dsh opens as it is: the migrated
// file, moved to a staging file of its own.
func liftedResult(res Result, migrated, dir string, steps []Step) (Result, string, error) {
	f, err := os.CreateTemp(dir, ".rescue-*.jsonl.tmp")
	if err != nil {
		return res, "", err
	}
	f.Close()
	if err := os.Rename(migrated, f.Name()); err != nil {
		os.Remove(f.Name())
		return res, "", err
	}
	info, err := os.Stat(f.Name())
	if err != nil {
		os.Remove(f.Name())
		return res, "", err
	}
	events, err := countRows(f.Name())
	if err != nil {
		os.Remove(f.Name())
		return res, "", err
	}
	res.Steps, res.Events, res.Bytes = steps, events, info.Size()
	return res, f.Name(), nil
}

// countRows counts the event rows of a log: its lines after the header.
func countRows(path string) (int64, error) {
	text, err := migrate.OpenText(path, nil)
	if err != nil {
		return 0, err
	}
	defer text.Close()
	lines := jsonl.NewReader(text, path)
	n := int64(-1)
	for {
		if _, err := lines.Next(); err == io.EOF {
			return max(n, 0), nil
		} else if err != nil {
			return 0, err
		}
		n++
	}
}

// attempt is a verified candidate for one writer's history.
type attempt struct {
	file   string
	kept   []int // source lines in the result
	steps  []Step
	events int64
	bytes  int64
}

// rescueHistory mends one history: moves the crossed compaction starts,
// then cuts it to the longest prefix verify passes, closing it with the
// crash closers.
func rescueHistory(path, dir string, header []byte, h history, opts Options) (*attempt, error) {
	ms, err := findMoves(path, h.lines)
	if err != nil {
		return nil, err
	}
	c := candidate{keep: h.lines, moves: ms}
	var cuts []Step
	for {
		a, problem, err := c.build(path, dir, header, opts)
		if err != nil {
			return nil, err
		}
		if problem == nil {
			a.steps = append(append(cuts, c.moveSteps()...), a.steps...)
			return a, nil
		}
		os.Remove(a.file)
		n := int64(len(c.keep))
		var at int64
		if problem.Seq >= 0 {
			at = min(c.moves.oldSeq(problem.Seq), n-1)
		} else {
			// A refusal of the whole file (dsh's lifecycle checks run at the
			// end) names no event: find the longest prefix that passes.
			if at, err = c.longestPassing(path, dir, header, opts); err != nil {
				return nil, err
			}
		}
		if at < 0 || n == 0 {
			return nil, fmt.Errorf("%s: even the header alone is refused: %s", path, problem.Message)
		}
		cuts = append(cuts[:0], Step{Kind: StepCut, Seq: at, To: -1, Line: c.keep[at],
			Detail: fmt.Sprintf("history cut before seq %d: [%s] %s", at, problem.Code, problem.Message)})
		c = candidate{keep: c.keep[:at], moves: c.moves.within(at)}
	}
}

// longestPassing returns the length of the longest prefix of the
// candidate (shorter than the whole) that verify passes once closed, by
// bisection: a prefix of a passing prefix passes. It returns -1 when not
// even the empty history passes.
func (c candidate) longestPassing(path, dir string, header []byte, opts Options) (int64, error) {
	lo, hi := int64(-1), int64(len(c.keep))-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		prefix := candidate{keep: c.keep[:mid], moves: c.moves.within(mid)}
		a, problem, err := prefix.build(path, dir, header, opts)
		if err != nil {
			return 0, err
		}
		os.Remove(a.file)
		if problem == nil {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo, nil
}

// candidate is a history to write: the source lines kept, in order (the
// i-th holds seq i), and the starts to move.
type candidate struct {
	keep  []int
	moves moves
}

// moveSteps reports the moves.
func (c candidate) moveSteps() []Step {
	var steps []Step
	for _, m := range c.moves {
		steps = append(steps, Step{Kind: StepMove, Line: m.line, Seq: m.start, To: m.target - 1, Type: "compaction/start",
			Detail: fmt.Sprintf("moved to just before seq %d, out of the way of %s at seq %d", m.target, m.crossing, m.crossingSeq)})
	}
	return steps
}

// findMoves reads the history's events and returns the compaction starts
// a turn boundary crosses.
func findMoves(path string, keep []int) (moves, error) {
	var watch bracketWatch
	err := eachKept(path, keep, true, func(seq int64, line int, _ []byte, row jsonv.Value) error {
		watch.add(seq, line, row.Field("type").Text(), row.Field("data"))
		return nil
	})
	return watch.found, err
}

// eachKept streams the kept rows of the source, parsed, with their
// history seqs.
// With parse false the rows are handed on as text only (row is null).
func eachKept(path string, keep []int, parse bool, visit func(seq int64, line int, text []byte, row jsonv.Value) error) error {
	if len(keep) == 0 {
		return nil
	}
	text, err := migrate.OpenText(path, nil)
	if err != nil {
		return err
	}
	defer text.Close()
	lines := jsonl.NewReader(text, path)
	next := 0
	for next < len(keep) {
		line, err := lines.Next()
		if err == io.EOF {
			return fmt.Errorf("%s: the file ended before line %d; did it change while it was read?", path, keep[next])
		}
		if err != nil {
			return err
		}
		if line.Num != keep[next] {
			continue
		}
		var row jsonv.Value
		if parse {
			if row, err = jsonv.Parse(line.Text); err != nil {
				return fmt.Errorf("%s:%d: %w (did the file change while it was read?)", path, line.Num, err)
			}
		}
		if err := visit(int64(next), line.Num, line.Text, row); err != nil {
			return err
		}
		next++
	}
	return nil
}

// build writes the candidate and its crash closers into a new file in dir
// and verifies it: it returns the attempt and verify's first error, nil
// when there is none.
func (c candidate) build(path, dir string, header []byte, opts Options) (*attempt, *verify.Finding, error) {
	f, err := os.CreateTemp(dir, ".rescue-*.jsonl.tmp")
	if err != nil {
		return nil, nil, err
	}
	a := &attempt{file: f.Name(), kept: c.keep}
	w := bufio.NewWriter(f)
	err = c.write(path, header, w, a)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = a.close(opts)
	}
	if err != nil {
		os.Remove(a.file)
		return nil, nil, err
	}
	problems, err := errorsOf(a.file, opts.Read)
	if err != nil {
		os.Remove(a.file)
		return nil, nil, err
	}
	if len(problems) > 0 {
		return a, &problems[0], nil
	}
	return a, nil, nil
}

// write writes the header line and the kept rows, each as it is in the
// source unless the moves renumber it, then it is re-encoded as dsh's
// writer encodes it.
func (c candidate) write(path string, header []byte, w *bufio.Writer, a *attempt) error {
	w.Write(header)
	w.WriteByte('\n')
	a.bytes = int64(len(header) + 1)
	targets := map[int64]int{}
	for i, m := range c.moves {
		targets[m.target] = i
	}
	held := make([][]byte, len(c.moves))
	// emit writes one row; newline says it still needs its '\n'.
	emit := func(b []byte, newline bool) {
		w.Write(b)
		a.bytes += int64(len(b))
		if newline {
			w.WriteByte('\n')
			a.bytes++
		}
		a.events++
	}
	return eachKept(path, c.keep, len(c.moves) > 0, func(seq int64, line int, text []byte, row jsonv.Value) error {
		if len(c.moves) == 0 {
			emit(text, true)
			return nil
		}
		if i, ok := targets[seq]; ok && held[i] != nil {
			emit(held[i], false)
			held[i] = nil
		}
		to := c.moves.newSeq(seq)
		out, changed := remapped(row, to, c.moves.newSeq)
		if i := c.moveAt(seq); i >= 0 {
			m := c.moves[i]
			data := out.Field("data").Without("turn")
			if m.hasOwner {
				data = insertTurn(data, m.owner)
			}
			before := row.Field("data").Field("turn")
			out = out.With("data", data)
			a.steps = append(a.steps, Step{Kind: StepOwner, Line: line, Seq: seq, To: to, Type: "compaction/start",
				Detail: fmt.Sprintf("owner turn %s → %s, as its compaction/end records", before.String(), m.owner.String())})
			held[i] = v4.AppendEvent(nil, session.Event{Row: out})
			return nil
		}
		if to == seq && len(changed) == 0 {
			emit(text, true)
			return nil
		}
		var detail string
		switch {
		case len(changed) == 0:
			detail = "renumbered"
		case to != seq:
			detail = "renumbered; references rewritten: " + strings.Join(changed, ", ")
		default:
			detail = "references rewritten: " + strings.Join(changed, ", ")
		}
		a.steps = append(a.steps, Step{Kind: StepReference, Line: line, Seq: seq, To: to, Type: row.Field("type").Text(), Detail: detail})
		emit(v4.AppendEvent(nil, session.Event{Row: out}), false)
		return nil
	})
}

// moveAt returns the index of the move whose start is at seq, or -1.
func (c candidate) moveAt(seq int64) int {
	for i, m := range c.moves {
		if m.start == seq {
			return i
		}
	}
	return -1
}

// insertTurn sets data's turn where dsh's writer puts it in a
// compaction/start: after compactionId (and sourceCommandId), else first.
func insertTurn(data, turn jsonv.Value) jsonv.Value {
	if data.Has("turn") {
		return data.With("turn", turn)
	}
	members := data.Members()
	at := 0
	for i, m := range members {
		if m.Key == "compactionId" || m.Key == "sourceCommandId" {
			at = i + 1
		}
	}
	out := append(append(append([]jsonv.Member(nil), members[:at]...), jsonv.M("turn", turn)), members[at:]...)
	return jsonv.ObjectValue(out...)
}

// close appends dsh's crash closers to the written candidate when it ends
// inside a turn, and the resume marker when they cross an open compaction.
func (a *attempt) close(opts Options) error {
	src, err := migrate.Open(a.file, nil, migrate.OpenOptions{Options: opts.Read})
	if err != nil {
		return nil // refused: verify says why, and the history is cut
	}
	defer src.Close()
	f := fold.New()
	open := false
	for {
		ev, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil
		}
		switch ev.Type {
		case "compaction/start":
			open = true
		case "compaction/end", "session/end-seed":
			open = false
		}
		if f.Load(ev) != nil {
			return nil
		}
	}
	closers := f.InterruptedTurnClosers()
	if len(closers) == 0 {
		return nil
	}
	if open {
		now := opts.Now
		if now == nil {
			now = wallClock
		}
		closers = append(closers, fold.ResumeMarker(closers[len(closers)-1].Seq+1, now()))
	}
	var rows []byte
	for _, ev := range closers {
		rows = v4.AppendEvent(rows, ev)
		a.steps = append(a.steps, Step{Kind: StepClose, Seq: -1, To: ev.Seq, Type: ev.Type, Detail: closerDetail(ev)})
	}
	file, err := os.OpenFile(a.file, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = file.Write(rows)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	a.events += int64(len(closers))
	a.bytes += int64(len(rows))
	return err
}

// closerDetail says what a closer is for.
func closerDetail(ev session.Event) string {
	switch ev.Type {
	case "tool/result":
		return "crash closer: error result for tool call " + ev.Data().Field("message").Field("toolCallId").Text()
	case "session/end-seed":
		return "resume marker: the open compaction belongs to a dead lifecycle"
	}
	return "crash closer"
}

// errorsOf verifies the file at path and returns its errors, in order,
// and a torn last line: dsh drops it, and a rescued log has none.
func errorsOf(path string, read migrate.Options) ([]verify.Finding, error) {
	src, err := migrate.Open(path, nil, migrate.OpenOptions{Options: read, AnyZstdFraming: true})
	var refusal *session.Refusal
	if header, ok := migrate.HeaderRefusal(err); ok {
		return []verify.Finding{{Code: verify.CodeCodecRefused, Severity: verify.Error, Seq: -1, Line: 1, Message: header.Text()}}, nil
	}
	switch {
	case errors.As(err, &refusal):
		return []verify.Finding{{Code: verify.CodeCodecRefused, Severity: verify.Error, Seq: -1, Message: refusal.Text()}}, nil
	case err != nil:
		return nil, err
	}
	defer src.Close()
	return verify.Errors(src.Reader, func(f verify.Finding) bool {
		return f.Severity == verify.Error || f.Code == verify.CodeTornTail
	})
}

// setAside reports the source rows the result leaves out, in file order.
func setAside(rows []sourceRow, kept []int, writers []history) []Step {
	inKept := make(map[int]bool, len(kept))
	for _, l := range kept {
		inKept[l] = true
	}
	keptCount := int64(len(kept))
	var steps []Step
	for _, r := range rows {
		if inKept[r.line] {
			continue
		}
		reason := r.damage
		switch {
		case reason != "":
		case r.seq < keptCount && !inHistory(writers, r.line):
			reason = fmt.Sprintf("seq %d out of order: no history it continues", r.seq)
		case r.seq < keptCount:
			reason = fmt.Sprintf("seq %d repeats: another writer's row", r.seq)
		default:
			reason = "after the end of the kept history"
		}
		steps = append(steps, Step{Kind: StepSetAside, Line: r.line, Bytes: r.bytes, Seq: r.seq, To: -1, Type: r.typ, Detail: reason})
	}
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].Line < steps[j].Line })
	return steps
}

// inHistory reports whether any writer's history holds the line.
func inHistory(writers []history, line int) bool {
	for _, h := range writers {
		i := sort.SearchInts(h.lines, line)
		if i < len(h.lines) && h.lines[i] == line {
			return true
		}
	}
	return false
}
