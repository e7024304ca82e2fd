package verify

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// judge folds a session's events as dsh's Session loads them and checks
// what the fold reveals, one event at a time.
type judge struct {
	report      func(Finding)
	rowPerEvent bool // line = seq + 2
	vocab       *vocab.Vocabulary
	// bracketExplains says the writer of the log's build opens no series
	// after a compaction, so a closed compaction bracket explains a break.
	bracketExplains bool
	fold            *fold.Fold
	// loading is true while every event so far was accepted by the codec
	// and loaded by the Session fold; after a refusal dsh reads no further,
	// so neither does the fold.
	loading bool
	lastSeq int64

	prev        *request // the previous settlement's request: &last, or nil
	last        request  // where prev points, so that a settlement allocates nothing
	since       since    // what happened since the previous settlement
	endSeedSeen bool
	chain       Chain

	systemSeen   bool   // a system/message has been folded
	systemAppend int64  // a later system/message appended since the previous settlement, or -1
	promptUpdate string // systemPromptUpdate of the latest request/context

	step     stepState
	forkTail []session.Event // forked closers an inherited marker calls for
	forkAt   int64           // the inherited marker's seq
	// crashEnd is the seq of a turn/end{interrupted} the next event must
	// follow with the resume marker, or -1.
	crashEnd int64
	// orphan is the tool/result a replace was last found to part from its
	// call, reported once; -1 when none.
	orphan int64
}

// since is what happened between the previous settlement and the event
// being judged: the markers that explain a break, and the rewrites that
// cause one.
type since struct {
	series        int64 // the last series header, or -1
	header        int64 // the last request/header, or -1
	seed          int64 // the last session/end-seed, or -1
	seedInherited bool  // the last session/end-seed is a fork boundary
	seedGen       int   // the content generation at the last session/end-seed
	systemRewrite bool  // a system/message replaced nodes
	compaction    bool  // another replace, or an image/offload projection
	bracket       int64 // the last compaction/end, or -1
}

// nothingSince is the state right after a settlement.
var nothingSince = since{series: -1, header: -1, seed: -1, bracket: -1}

// rewriteCause names the rewrites since the previous settlement: a
// system prompt rewrite, else a compaction.
func (s since) rewriteCause() Cause {
	if s.systemRewrite {
		return CauseSystemPrompt
	}
	return CauseCompaction
}

// request is what the series rule needs of a request (§4.5): request k is
// the k-th settlement, and its messages are the view before it. Between two
// requests with the same content generation the surface only grew, so the
// later one extends the earlier: the messages are taken only when a
// rewrite may have broken that.
type request struct {
	index             int
	seq               int64
	typ               string
	count             int // messages in the model's view
	contentGeneration int
	header            jsonv.Value // the canonical header in force
	hasHeader         bool
	// messages is the view, kept once a rewrite needs it; nil otherwise.
	messages []jsonv.Value
}

// stepState follows the open turn and step for the message invariants.
type stepState struct {
	assistants  int     // assistant/message settlements in the open step
	interrupted int64   // seq of an interrupted message in the open turn, or -1
	empty       []int64 // empty assistant messages in the open turn
}

// newJudge returns the judge of an empty log read with the vocabulary v;
// report may be nil when only the chain is wanted.
func newJudge(report func(Finding), rowPerEvent bool, v *vocab.Vocabulary) *judge {
	if report == nil {
		report = func(Finding) {}
	}
	bracketExplains := v.Build().V0 != nil && !v.Build().V0.SeriesAfterCompaction
	return &judge{report: report, rowPerEvent: rowPerEvent, vocab: v, bracketExplains: bracketExplains, fold: fold.NewWith(v), loading: true,
		lastSeq: -1, since: nothingSince, systemAppend: -1, crashEnd: -1, orphan: -1, step: stepState{interrupted: -1}}
}

// find reports a finding about the event at seq.
func (j *judge) find(code string, severity Severity, seq int64, format string, args ...any) {
	f := Finding{Code: code, Severity: severity, Seq: seq, Message: fmt.Sprintf(format, args...)}
	if j.rowPerEvent && seq >= 0 {
		f.Line = int(seq) + 2
	}
	j.report(f)
}

// event judges the next event the codec accepted.
func (j *judge) event(ev session.Event) {
	j.lastSeq = ev.Seq
	if !j.vocab.Has(ev.Type) && ev.Ignorable() {
		j.find(CodeUnknownIgnorable, Info, ev.Seq, "ignorable event type %q is unknown to dsh, which keeps it opaque", ev.Type)
	}
	if !j.loading {
		return
	}
	rawOp, hasOp := ev.Row.Get("surfaceOp") // ev.SurfaceOp(), with one lookup instead of two
	op := session.ParseSurfaceOp(rawOp, hasOp)
	rewrite := rewrites(ev.Type, op)
	if p := j.prev; p != nil && p.messages == nil && rewrite {
		// Only appends happened since p: its view is the first messages.
		p.messages = j.fold.Messages()[:p.count]
	}
	var req request
	settles := fold.IsSettlement(ev.Type)
	if settles {
		req = j.request(ev)
	}
	before, hadHeader := j.fold.Header()
	if err := j.fold.Load(ev); err != nil {
		j.loading = false
		j.find(CodeSessionRefused, Error, ev.Seq, "%s", refusalText(err))
		return
	}
	closer := j.forkCloser(ev)
	if at := j.crashEnd; at >= 0 {
		j.crashEnd = -1
		if ev.Type != "session/end-seed" {
			j.find(CodeCrashEndUnresumed, Error, at, "turn/end with reason interrupted is a crash closer, but %s follows it instead of the resume marker session/end-seed", ev.Type)
		}
	}
	if settles {
		j.settlement(req, hadHeader)
	}
	if rewrite {
		j.rewrote(ev)
	}
	switch ev.Type {
	case "request/header":
		j.header(ev, before.Header, hadHeader)
	case "session/end-seed":
		j.endSeed(ev)
	case "compaction/end":
		j.since.bracket = ev.Seq
	case "system/message":
		j.system(ev)
	case "request/context":
		j.promptUpdate = ev.Data().Field("systemPromptUpdate").Text()
	case "turn/start":
		j.step = stepState{interrupted: -1}
	case "step/start":
		j.step.assistants = 0
	case "assistant/message":
		j.assistant(ev)
	case "turn/end":
		j.turnEnd(ev, closer)
	}
	if op.Kind == session.OpReplace && fold.IsSurfaceEligible(ev.Type) {
		j.toolBalance(ev.Seq)
	}
}

// refusalText is dsh's "<Class>: <message>" for a refusal.
func refusalText(err error) string {
	if r, ok := err.(*session.Refusal); ok {
		return r.Text()
	}
	return err.Error()
}

// toolsUnseen reports whether a request header gives its tools as the
// normalized snapshot's "{{tools}}" placeholder, which hides them.
func toolsUnseen(header jsonv.Value) bool {
	return header.Field("tools").Kind() == jsonv.String
}

// rewrites reports whether an event of type typ with surface operation op
// may change messages already in the view:
// a replace or a projection, the events that move the content generation.
func rewrites(typ string, op session.SurfaceOp) bool {
	return op.Kind == session.OpReplace || typ == "image/offload"
}

// rewrote notes a rewrite the fold committed: a system prompt's, or a
// compaction's.
func (j *judge) rewrote(ev session.Event) {
	if ev.Type == "system/message" {
		j.since.systemRewrite = true
	} else {
		j.since.compaction = true
	}
}

// request describes the request settlement settles, from the fold of the
// events before it.
func (j *judge) request(settlement session.Event) request {
	h, hasHeader := j.fold.Header()
	r := request{index: j.fold.Settlements() + 1, seq: settlement.Seq, typ: settlement.Type,
		count: j.fold.MessageCount(), contentGeneration: j.fold.ContentGeneration(),
		header: h.Header, hasHeader: hasHeader}
	if j.prev != nil && r.contentGeneration != j.prev.contentGeneration {
		r.messages = j.fold.Messages()
	}
	return r
}

// settlement checks request k against its prefix (a header must be in
// force) and against request k-1 (the series rule of §4.6).
func (j *judge) settlement(req request, hadHeader bool) {
	if !hadHeader {
		j.find(CodeHeaderMissing, Error, req.seq, "request %d (%s) has no request/header before it: its model and tools are unknown", req.index, req.typ)
	}
	if at := j.systemAppend; at >= 0 && j.promptUpdate != "in-history" {
		j.find(CodeSystemAppendRoute, Error, at,
			"system/message appended after the first one, but request %d's route does not update the system prompt in history (request/context systemPromptUpdate is %q); elsewhere a prompt change replaces node 0",
			req.index, j.promptUpdate)
	}
	j.systemAppend = -1
	j.chain.Requests++
	if j.prev != nil {
		j.link(j.prev, req)
	}
	j.last = req
	j.prev = &j.last
	j.since = nothingSince
}

// link judges request req against the previous request p (the series rule
// of §4.6) and adds it to the chain: it extends p, or it breaks the chain
// and the break is explained by a lifecycle boundary after every rewrite,
// a series header, or the header that changed, or it is unexplained.
func (j *judge) link(p *request, req request) {
	rewritten := req.contentGeneration != p.contentGeneration
	var diff *MessageDiff
	if rewritten {
		diff = diffMessages(p.messages, req.messages)
	}
	// A lifecycle boundary explains a break only for rewrites before it.
	afterSeed := j.since.seed >= 0 && req.contentGeneration == j.since.seedGen
	// A writer that never opens a series after a compaction (the v0 line)
	// lets the closed compaction bracket explain the break it made.
	bracketed := j.bracketExplains && j.since.bracket >= 0 && j.since.compaction && !j.since.systemRewrite
	explained := j.since.series >= 0 || afterSeed || bracketed
	switch {
	case diff != nil && !explained:
		j.find(CodeNotExtending, Error, req.seq,
			"request %d (%d messages) does not extend request %d at seq %d (%d messages), and no series header or session/end-seed lies between them (the surface was rewritten: content generation %d -> %d)",
			req.index, req.count, p.index, p.seq, p.count, p.contentGeneration, req.contentGeneration)
	case rewritten && !explained:
		j.find(CodeSeriesMarker, Warning, req.seq,
			"the surface was rewritten since request %d at seq %d (content generation %d -> %d), yet no series header lies between them",
			p.index, p.seq, p.contentGeneration, req.contentGeneration)
	}
	headerCause := Cause("")
	if j.since.header >= 0 { // else the header in force is the one p had
		headerCause = headerChange(p, req)
	}
	if diff == nil && headerCause == "" {
		j.chain.Extending++
		return
	}
	b := Break{Request: req.index, Seq: req.seq, PreviousSeq: p.seq, MessagesExtend: diff == nil, MarkerSeq: -1, Diff: diff}
	switch {
	case afterSeed && j.since.seedInherited:
		b.Cause, b.ExplainedBy, b.MarkerSeq = CauseFork, MarkerFork, j.since.seed
	case afterSeed:
		b.Cause, b.ExplainedBy, b.MarkerSeq = CauseResume, MarkerEndSeed, j.since.seed
	case diff != nil && j.since.series >= 0:
		b.Cause, b.ExplainedBy, b.MarkerSeq = j.since.rewriteCause(), MarkerSeries, j.since.series
	case diff != nil && bracketed:
		b.Cause, b.ExplainedBy, b.MarkerSeq = CauseCompaction, MarkerBracket, j.since.bracket
	case diff != nil:
		b.Cause = CauseUnexplained
	default:
		b.Cause, b.ExplainedBy, b.MarkerSeq = headerCause, MarkerHeader, j.since.header
	}
	j.chain.Breaks = append(j.chain.Breaks, b)
}

// headerChange names what differs between the headers in force at p and
// at req, or "" when they are equal. A header where there was none counts
// as a change of config.
func headerChange(p *request, req request) Cause {
	switch {
	case p.hasHeader && req.hasHeader:
		return headerDiff(p.header, req.header)
	case p.hasHeader != req.hasHeader:
		return CauseConfig
	}
	return ""
}

// header checks a request/header's reason against the header in force
// before it (§4.3, §4.6, W15).
func (j *judge) header(ev session.Event, before jsonv.Value, hadHeader bool) {
	data := ev.Data()
	reason := data.Field("reason").Text()
	j.since.header = ev.Seq
	if reason == "series" || data.Field("startsSeries").IsTrue() {
		j.since.series = ev.Seq
	}
	current := fold.CanonicalHeader(data.Field("header"))
	switch reason {
	case "change":
		// A "{{tools}}" placeholder (a normalized snapshot) hides the tools,
		// which may be what changed.
		if hadHeader && headerEquals(before, current) && !toolsUnseen(current) {
			j.find(CodeHeaderChange, Error, ev.Seq, `request/header says "change" but equals the header in force`)
		}
	case "series":
		if !hadHeader || !headerEquals(before, current) {
			j.find(CodeHeaderSeries, Error, ev.Seq, `request/header says "series" but changes the header in force; a changed header says "change" with startsSeries`)
		}
	case "initial":
		if hadHeader {
			j.find(CodeHeaderInitial, Error, ev.Seq, `request/header says "initial" but an earlier header exists; a new loop instance says "resume"`)
		}
	case "resume":
		if !hadHeader && !j.endSeedSeen {
			j.find(CodeHeaderResume, Error, ev.Seq, `request/header says "resume" but no header or session/end-seed precedes it; the first header says "initial"`)
		}
	}
}

// headerEquals is dsh's headerEquals (request-header.ts): the call config
// fields the loop compares, stop element-wise, the adapter default flags,
// the system prompt, and the tools as JSON text.
func headerEquals(a, b jsonv.Value) bool { return headerDiff(a, b) == "" }

// headerDiff names the first part of the header that headerEquals finds
// different, the system prompt first, then the tools, then the call
// config; "" when the headers are equal.
func headerDiff(a, b jsonv.Value) Cause {
	if !sameField(a, b, "system") {
		return CauseSystemPrompt
	}
	ta, tb := a.Field("tools").Elements(), b.Field("tools").Elements()
	if len(ta) != len(tb) {
		return CauseTools
	}
	for i := range ta {
		if !bytes.Equal(jsonText(ta[i]), jsonText(tb[i])) {
			return CauseTools
		}
	}
	ca, cb := a.Field("config"), b.Field("config")
	for _, key := range []string{"provider", "model", "reasoningEffort", "temperature", "maxTokens", "stop"} {
		if !sameField(ca, cb, key) {
			return CauseConfig
		}
	}
	da, db := a.Field("adapterDefaults"), b.Field("adapterDefaults")
	if da.Field("reasoningEffort").IsTrue() != db.Field("reasoningEffort").IsTrue() ||
		da.Field("maxTokens").IsTrue() != db.Field("maxTokens").IsTrue() {
		return CauseConfig
	}
	return ""
}

// sameField reports whether key is absent from both objects or present in
// both with equal values.
func sameField(a, b jsonv.Value, key string) bool {
	va, okA := a.Get(key)
	vb, okB := b.Get(key)
	return okA == okB && (!okA || jsonv.Equal(va, vb))
}

// endSeed notes a lifecycle boundary; an inherited marker inside an open
// turn must be followed by the forked closers (W16).
func (j *judge) endSeed(ev session.Event) {
	inherited := ev.Data().Field("inherited").IsTrue()
	j.endSeedSeen = true
	j.since.seed, j.since.seedInherited, j.since.seedGen = ev.Seq, inherited, j.fold.ContentGeneration()
	if inherited && j.fold.TurnOpen() {
		j.forkTail, j.forkAt = j.fold.Closers(fold.Forked), ev.Seq
	}
}

// system checks a system/message appended after the first one: on an
// in-history route the changed prompt is appended, never empty (§4.7).
func (j *judge) system(ev session.Event) {
	first := !j.systemSeen
	j.systemSeen = true
	if first || ev.SurfaceOp().Kind != session.OpAppend {
		return
	}
	if content := ev.Data().Field("message").Field("content"); content.Len() == 0 {
		j.find(CodeSystemAppendEmpty, Error, ev.Seq, "system/message appended after the first one has no content; an in-history route appends only a changed, non-empty prompt")
	}
	if j.systemAppend < 0 {
		j.systemAppend = ev.Seq
	}
}

// forkCloser checks the event after an inherited marker in an open turn
// against the next forked closer dsh's fork would have written, and reports
// whether it is that closer.
func (j *judge) forkCloser(ev session.Event) bool {
	if len(j.forkTail) == 0 || ev.Seq == j.forkAt {
		return false
	}
	want := j.forkTail[0]
	if ev.Type == want.Type && jsonv.Equal(ev.Data(), want.Data()) {
		j.forkTail = j.forkTail[1:]
		return true
	}
	j.forkTail = nil
	j.find(CodeInheritedOpenTurn, Error, j.forkAt,
		"inherited session/end-seed inside an open turn is not followed by dsh's forked closers (seq %d is %s, expected %s)", ev.Seq, ev.Type, want.Type)
	return false
}

// assistant checks an assistant/message: one per step (W13), and the shape
// and turn of an interrupted one (W12).
func (j *judge) assistant(ev session.Event) {
	j.step.assistants++
	if j.step.assistants == 2 {
		j.find(CodeAssistantRepeated, Error, ev.Seq, "a second assistant/message settles the same step; a retried request settles with assistant/attempt")
	}
	data := ev.Data()
	content := data.Field("message").Field("content")
	if data.Field("interrupted").IsTrue() {
		if problem := interruptedProblem(content); problem != "" {
			j.find(CodeInterruptedContent, Error, ev.Seq, "interrupted assistant/message %s", problem)
		}
		if j.step.interrupted < 0 {
			j.step.interrupted = ev.Seq
		}
		return
	}
	if content.Kind() == jsonv.Array && content.Len() == 0 {
		j.step.empty = append(j.step.empty, ev.Seq)
	}
}

// interruptedProblem says what is wrong with an interrupted message's
// content, or "": it must be non-empty text or reasoning, some of it
// not blank, and never a tool call.
func interruptedProblem(content jsonv.Value) string {
	text := false
	for _, block := range content.Elements() {
		switch typ := block.Field("type").Text(); typ {
		case "text", "reasoning":
			if strings.TrimSpace(block.Field("text").Text()) != "" {
				text = true
			}
		case "tool-call":
			return "carries a tool-call block; an interrupted stream asks for no tool"
		default:
			return fmt.Sprintf("carries a %q block; only text and reasoning survive an interruption", typ)
		}
	}
	if !text {
		return "has no non-blank text"
	}
	return ""
}

// turnEnd checks the messages of the closing turn against its reason, and
// the closers' reasons: interrupted only from crash repair, forked only in
// a fork child's seed (W16). closer says the event is a forked closer.
func (j *judge) turnEnd(ev session.Event, closer bool) {
	reasonKind, _ := ev.Data().PeekPath("reason", "kind") // Peek: the reason is not decoded for its kind
	kind := reasonKind.Text()
	switch {
	case kind == "interrupted":
		j.crashEnd = ev.Seq
	case kind == "forked" && !closer:
		j.find(CodeForkedEndOutsideSeed, Error, ev.Seq, "turn/end with reason forked outside the closers that follow a fork child's inherited session/end-seed")
	}
	if at := j.step.interrupted; at >= 0 && kind != "aborted" && kind != "interrupted" {
		j.find(CodeInterruptedTurnEnd, Error, at, "interrupted assistant/message, but its turn ends %q at seq %d instead of aborted", kind, ev.Seq)
	}
	if kind == "completed" {
		for _, seq := range j.step.empty {
			j.find(CodeEmptyAssistant, Warning, seq, "assistant/message with empty content (a max-tokens stop?) in a turn that completes normally; it adds no message to the model's view")
		}
	}
	j.step = stepState{interrupted: -1}
}

// toolBalance walks the surface after a replace: every tool result must
// follow the assistant message that asked for it (W10).
func (j *judge) toolBalance(seq int64) {
	open := 0
	for _, n := range j.fold.Surface() {
		switch n.Type {
		case "assistant/message":
			for _, block := range n.Message.Field("content").Elements() {
				if block.Field("type").Text() == "tool-call" {
					open++
				}
			}
		case "tool/result":
			open--
			if open < 0 {
				if n.Seq == j.orphan {
					return // a later replace left the earlier orphan as it was
				}
				j.orphan = n.Seq
				j.find(CodeToolBalance, Error, seq, "the replace leaves tool/result seq %d on the surface without the assistant message that called it; a provider rejects an orphan tool message", n.Seq)
				return
			}
		}
	}
}

// end checks the end of a log the Session loaded: forked closers still
// owed, or a turn left open.
func (j *judge) end() {
	if !j.loading {
		return
	}
	if len(j.forkTail) > 0 {
		j.find(CodeInheritedOpenTurn, Error, j.forkAt, "inherited session/end-seed inside an open turn is not followed by dsh's forked closers (the log ends)")
		return
	}
	if j.fold.TurnOpen() {
		closers := j.fold.Closers(fold.Interrupted)
		types := make([]string, len(closers))
		for i, c := range closers {
			types[i] = c.Type
		}
		noun := "closers"
		if len(closers) == 1 {
			noun = "closer"
		}
		j.find(CodeOpenTail, Warning, j.lastSeq, "the log ends inside an open turn; dsh's crash repair would append %d %s (%s)", len(closers), noun, strings.Join(types, ", "))
	}
}
