// Package rescue turns a session log dsh refuses to open into one it opens,
// by the safe rewrites known from the field, and says exactly what it did.
//
// It reads the source's rows before any codec judges them and plans, in
// this order:
//
//  1. Writers. The rows whose seq continues the history (0, 1, 2, … in
//     file order) are kept. A row whose seq repeats an earlier one starts
//     the history of another writer that shares the earlier rows (two dsh
//     processes appending to one log with their own seq counters); each
//     later row joins the first history its seq continues. The history
//     with the most rows is kept; every other row (the other writers',
//     unparsable rows, a torn last line, rows past a seq gap) is set aside
//     and reported with its line, bytes and seq.
//  2. Compaction brackets a turn boundary crosses (compaction/start
//     written too early: "turn/end crosses an open compaction", "turn/start
//     crosses an open compaction"). The start moves to just before its
//     compaction/summary (its compaction/end when it has none), takes the
//     owner turn its compaction/end records, and every seq reference in the
//     log is renumbered: the envelope's sourceEventSeqs and replacement
//     surfaceOp startSeq/endSeq, developer/message headerSeq, command/done
//     sourceEventSeq, compaction/summary and compaction/prune shadowedRange
//     and shadowedSeqs, session/title and session/title-llm-request
//     messageSeqs, image/offload target seqs and the delivery watermark
//     throughSeq.
//  3. The longest prefix dsh accepts. When the history is still refused
//     (a damaged row, a refusal no rewrite explains), it is cut before the
//     first refused event and closed with dsh's crash closers (and the
//     resume marker when the closers cross an open compaction, as dsh's
//     resume writes it).
//
// Every candidate is written to a staging file and judged by verify (dsh's
// codec, restore and Session checks plus the writer's invariants); only a
// candidate with no error is the result. The source is only ever read.
//
// Memory: an index of the source's rows (line, length, seq, type; a few
// dozen bytes a row), the line numbers of each writer's history (a second
// writer's history shares nothing, so it copies the first one's lines up to
// where they part), plus what a verify and a fold of one candidate hold
// (the live surface). Rows themselves are streamed from the file on each
// pass, one at a time, and never held. Each candidate costs a few passes
// over the file; a refusal that names no event costs a bisection, so a
// logarithmic number of candidates.
package rescue

import (
	"github.com/dshlog/dshlog/verify"
)

// Step kinds, in the order a rescue takes them.
const (
	StepSetAside  = "set-aside" // a source row left out of the result
	StepMove      = "move"      // a compaction/start moved to its summary
	StepOwner     = "owner"     // the moved start given its owner turn
	StepReference = "reference" // an event's seq references renumbered
	StepCut       = "cut"       // the history cut before a refused event
	StepClose     = "close"     // a crash closer appended
)

// Step is one thing rescue did (or, in a dry run, would do).
type Step struct {
	// Kind is one of the Step constants.
	Kind string
	// Line and Bytes locate a source row (set-aside, move); 0 when none.
	Line, Bytes int
	// Seq is the event's seq in the source, To its seq in the result; -1
	// when there is none.
	Seq, To int64
	// Type is the event's type.
	Type string
	// Detail says why, or what changed, in words.
	Detail string
	// Rule names the rule of the log's own line a lift step read the row
	// by (see migrate/lift), "" for other steps.
	Rule string
	// SetAside is the JSON, as written, of a member that today's format
	// cannot hold and the step set aside; nil when none.
	SetAside []byte
	// Migrated is true for a step taken on the v4 migration of an older
	// source, whose Line is a line of that migration, not of the source.
	Migrated bool
}

// Result says what a rescue found and did.
type Result struct {
	// Diagnosis is verify's errors on the source: why dsh refuses it.
	Diagnosis []verify.Finding
	// Steps are what rescue did, in order; none when Healthy.
	Steps []Step
	// Events is the number of events in the result; Bytes its size.
	Events int64
	Bytes  int64
	// Healthy is true when the source had no error: nothing to rescue.
	Healthy bool
	// Remaining are the errors verify still finds in a result that dsh
	// opens: the writer's guarantees a log of an older format broke as its
	// own line wrote it, which no rewrite mends without losing what the log
	// holds (a v4 result has none).
	Remaining []verify.Finding
}
