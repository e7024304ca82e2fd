// Package verify judges a recorded dsh session the way a CI gate needs it:
// dsh's own verdicts first (the v4 codec's restore and admission, then the
// Session load checks), then what dsh guarantees only by how it writes logs
// (semantics.md §6) and the request-reconstruction theorem (§4.5, §4.6):
// every request rebuilds from the events before its settlement, and each
// one append-extends the previous unless a series marker or a lifecycle
// boundary explains why not.
//
// Findings and their codes:
//
//	codec-refused              error    dsh's codec or v4 restore refuses the file (dsh's text)
//	codec-dropped-rows         error    dsh's recoverable read drops a bad row and all after it
//	session-refused            error    dsh's Session refuses to load the events (dsh's text)
//	header-missing             error    a settlement with no request/header before it (W11)
//	header-change-unchanged    error    reason "change" but the header equals the one in force (§4.6)
//	header-series-changed      error    reason "series" but the header differs, or none was in force (§4.6)
//	header-initial-repeated    error    reason "initial" after an earlier header (W15)
//	header-resume-first        error    reason "resume" with no earlier header or session/end-seed (W15)
//	request-not-extending      error    a request that does not extend the previous one, unexplained (W17):
//	                                    no series header, and no session/end-seed after the last rewrite
//	series-marker-missing      warning  the content generation changed between requests with no series marker
//	surface-tool-balance       error    a replace leaves a tool result without its call on the surface (W10)
//	system-append-empty        error    a later system/message appended with no content (§4.7)
//	system-append-route        error    a later system/message appended on a route that does not update in history (§4.7)
//	assistant-repeated         error    a second assistant/message in one step (W11, W13)
//	interrupted-content        error    an interrupted message with other than non-blank text (W12)
//	interrupted-turn-end       error    an interrupted message in a turn that does not end aborted (W12)
//	inherited-marker-open-turn error    an inherited end-seed marker in an open turn without forked closers (W16)
//	crash-end-unresumed        error    a turn/end{interrupted} not followed by the resume marker (W16)
//	forked-end-outside-seed    error    a turn/end{forked} that is not a closer after a fork's inherited marker (W16)
//	open-tail                  warning  the log ends inside a turn: crash repair would close it
//	empty-assistant            warning  an empty assistant message in a turn that completes normally (W13)
//	torn-tail                  warning  the last line is torn (no final newline); dsh drops it
//	unknown-event-type         error    an event type the chosen dsh build does not know, which it refuses;
//	                                    the hint names a build that declares it and the flag that accepts it
//	unknown-ignorable          info     an ignorable event dsh does not know, opaque to it (§1.6)
//
// Which event types exist is the vocabulary of the dsh build that wrote the
// log, the one the reader was opened with (migrate.Options.Vocabulary).
//
// Check also returns the theorem in data, a Chain: how many requests were
// rebuilt from the log, how many extend the previous one, and each break
// with its Cause (a small closed set of stable strings: fork, resume,
// system-prompt, compaction, tools, config, unexplained), the event that
// explains it (a series header, a changed header, a session/end-seed, a
// fork boundary) and, where the messages part, the first differing message
// with excerpts of both.
//
// Memory is that of the fold (the live surface) plus the previous request's
// messages and header, and one record per break, never the whole log.
package verify

import (
	"errors"
	"fmt"
	"io"

	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/session"
)

// Check reads every event of r, hands each finding to report (which may be
// nil) as soon as it is known, and returns the session's request chain. It
// returns an error only when the input could not be read (an I/O failure,
// not a refusal: dsh's refusals are findings).
func Check(r *migrate.Reader, report func(Finding)) (Chain, error) {
	c := NewChecker(r, report)
	for {
		_, err := c.Next()
		if err == io.EOF {
			return c.Chain(), nil
		}
		if err != nil {
			return Chain{}, err
		}
	}
}

// Checker is Check one event at a time, for a caller that does something
// with each event as soon as it is judged (dshlog stats --follow counts it
// and shows a break as its request arrives).
type Checker struct {
	r    *migrate.Reader
	j    *judge
	done bool
}

// NewChecker returns the Checker of r's events; report (which may be nil)
// is handed each finding as soon as it is known.
func NewChecker(r *migrate.Reader, report func(Finding)) *Checker {
	// A v4 file holds one event per row after the header, in seq order; a
	// migrated file's events have no line of their own.
	return &Checker{r: r, j: newJudge(report, r.SourceVersion == v4.Version, r.Vocabulary())}
}

// Next reads the next event, judges it and returns it. After the last
// event, or a refusal after which dsh reads no further, it reports the
// findings about the log's end and returns io.EOF; any other error means
// the input could not be read.
func (c *Checker) Next() (session.Event, error) {
	if c.done {
		return session.Event{}, io.EOF
	}
	ev, err := c.r.Next()
	if err == nil {
		c.j.event(ev)
		return ev, nil
	}
	c.done = true
	if err != io.EOF {
		if err := c.j.refused(err); err != nil {
			return session.Event{}, err
		}
		return session.Event{}, io.EOF
	}
	if err := c.end(); err != nil {
		return session.Event{}, err
	}
	return session.Event{}, io.EOF
}

// end judges what the reader found at the log's end: rows it dropped, a
// torn last line, a turn left open.
func (c *Checker) end() error {
	j, r := c.j, c.r
	issue := r.Issue()
	if issue != nil {
		if err := j.dropped(issue); err != nil {
			return err
		}
	}
	if r.TornTail() {
		f := Finding{Code: CodeTornTail, Severity: Warning, Seq: -1,
			Message: "the last line has no final newline (a write cut short); dsh drops it"}
		if j.rowPerEvent && issue == nil {
			f.Line = int(j.lastSeq) + 3 // the line after the last event's
		}
		j.report(f)
	}
	j.end()
	j.chain.Complete = j.loading
	return nil
}

// Chain returns the request chain of the events judged so far; it is
// Complete only once Next has returned io.EOF on a log that folds to its
// end.
func (c *Checker) Chain() Chain { return c.j.chain }

// refused turns the codec's refusal into a finding; an error that is not a
// refusal means the file could not be read. A refusal met at a row (not at
// the end) is about the row after the last event handed out: the rows
// dsh's recoverable read withheld before refusing start there.
func (j *judge) refused(err error) error {
	return j.codecFinding(CodeCodecRefused, err, j.lastSeq+1)
}

// dropped reports the row dsh's recoverable read dropped with the rest of
// the file: in a v4 file, the row after the last event read.
func (j *judge) dropped(issue error) error {
	return j.codecFinding(CodeCodecDroppedRows, issue, j.lastSeq+1)
}

// codecFinding reports a codec refusal. In a v4 file a refusal met at a
// row is placed at row seq; elsewhere it keeps the line the reader names.
func (j *judge) codecFinding(code string, err error, seq int64) error {
	var refusal *session.Refusal
	if !errors.As(err, &refusal) {
		return err
	}
	f := Finding{Code: code, Severity: Error, Seq: -1, Message: refusal.Text()}
	var located *jsonl.Error
	atRow := errors.As(err, &located) && located.Line > 0
	var unknown *v4.UnknownTypeError
	isUnknown := errors.As(err, &unknown)
	if isUnknown {
		f.Code = CodeUnknownEventType
		f.Message = fmt.Sprintf("event type %s is unknown to dsh %s, which refuses the log (%s)",
			jsform.Quote(unknown.Type), j.vocab.Build().Name, refusal.Text())
		f.Hint, _ = j.vocab.Hint(unknown.Type)
		seq = unknown.Seq
	}
	switch {
	case j.rowPerEvent && (atRow || isUnknown || code == CodeCodecDroppedRows):
		f.Seq, f.Line = seq, int(seq)+2
	case atRow && isUnknown:
		f.Seq, f.Line = seq, located.Line
	case atRow:
		f.Line = located.Line
	}
	var row *migrate.RowError
	if f.Seq < 0 && !isUnknown && errors.As(err, &row) {
		f.Seq = row.Seq
	}
	j.report(f)
	j.loading = false
	return nil
}
