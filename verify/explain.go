package verify

// Explanation says what a finding code means, why dsh cares, and how a log
// usually comes to have it: the text of dshlog verify --explain.
type Explanation struct {
	Code     string
	Severity Severity
	// Meaning is what the finding says about the log.
	Meaning string
	// Why is what goes wrong in dsh, or for the model, because of it.
	Why string
	// Arises is how such a log usually comes about, and what to do.
	Arises string
}

// Explain returns the explanation of a finding code.
func Explain(code string) (Explanation, bool) {
	for _, e := range explanations {
		if e.Code == code {
			return e, true
		}
	}
	return Explanation{}, false
}

// Explanations returns the explanation of every finding code, in the order
// of the package comment.
func Explanations() []Explanation { return append([]Explanation(nil), explanations...) }

var explanations = []Explanation{
	{CodeCodecRefused, Error,
		"dsh's codec (its row reader, the v4 restore or a migration edge) refuses the file; the message is dsh's own text.",
		"dsh cannot open the session at all: resume, fork and every read of it fail with this error.",
		"A file edited by hand or by a tool that does not keep dsh's envelope (seq, time, data), a row cut or duplicated, an event type dsh does not know without ignorable:true, or a file written by a newer dsh. Restore it from a backup or repair the row the message names."},
	{CodeCodecDroppedRows, Error,
		"dsh's recoverable read drops a bad row and every row after it; the events before it are read.",
		"dsh opens the session silently without the dropped events, so the model never sees what they held, and a strict read refuses the file.",
		"A crash or a full disk in the middle of a write that left a damaged row, usually near the end. dshlog repair can cut the tail at the last good row."},
	{CodeSessionRefused, Error,
		"dsh's in-memory Session refuses to load the events the codec read; the message is dsh's own text.",
		"dsh fails to build the session (crash resume, fork and the live loop all construct it), even though the rows are well formed.",
		"An event that breaks the surface fold or the turn and step brackets: a replace of nodes not on the surface, a tool result without its call, a turn/start inside an open turn. Usually a log edited or merged by a tool."},
	{CodeHeaderMissing, Error,
		"A request (a settlement: assistant/message or assistant/attempt) has no request/header anywhere before it.",
		"The model, the call config and the tools of that request cannot be rebuilt from the log, so the request-reconstruction theorem fails for it.",
		"A writer that settles a request before logging its header, or a request/header row removed from the log."},
	{CodeHeaderChange, Error,
		`A request/header says reason "change" but equals the header already in force (dsh's headerEquals).`,
		`dsh's loop logs "change" only when the header differs; an equal header logs nothing or "series".`,
		"A header row edited by hand, or a writer that logs a header on every request."},
	{CodeHeaderSeries, Error,
		`A request/header says reason "series" but changes the header in force, or no header was in force.`,
		`A changed header is logged as "change" (with startsSeries when a series starts); "series" promises the same header.`,
		"A header row edited by hand, or a writer that mixes up the series and change reasons."},
	{CodeHeaderInitial, Error,
		`A request/header says reason "initial" after an earlier header.`,
		`A loop instance that finds a header already in the log (restart, resume, fork child) logs "resume"; "initial" is the log's first header only.`,
		"Two sessions' logs concatenated, or a writer that does not read the log before it starts."},
	{CodeHeaderResume, Error,
		`A request/header says reason "resume" with no earlier header and no session/end-seed before it.`,
		`A first header is "initial"; "resume" belongs to a new loop instance over an existing log.`,
		"A log whose start was cut off, or a header row edited by hand."},
	{CodeNotExtending, Error,
		"A request does not extend the previous one (its messages are not a prefix of the new ones), and nothing explains it: no series header and no session/end-seed after the rewrite lie between them.",
		"dsh's loop declares every break of the prefix with a series header; an unexplained break means the log and what the model saw disagree, and a provider's prefix cache is lost without a recorded reason.",
		"A compaction or system prompt replace written by a plugin that does not start a request series, or a series header removed from the log. The theorem line shows the first differing message."},
	{CodeSeriesMarker, Warning,
		"The surface was rewritten between two requests (the content generation changed) with no series marker, although the messages still extend.",
		"dsh's loop starts a series after every rewrite; the next request should say so with a series header.",
		"A rewrite that left the messages in view unchanged, written by a plugin that does not start a series."},
	{CodeToolBalance, Error,
		"A replace leaves a tool result on the surface without the assistant message that called it.",
		"The model's view holds a tool message whose call is gone; providers reject such a request.",
		"A compaction whose range cuts between a tool call and its result."},
	{CodeSystemAppendEmpty, Error,
		"A system/message appended after the first one has no content.",
		"On an in-history route dsh appends only a changed, non-empty system prompt; an empty one adds nothing to the model's view.",
		"A writer that appends the system prompt on every change, even to empty."},
	{CodeSystemAppendRoute, Error,
		"A system/message is appended after the first one, but the request's route does not update the system prompt in history (request/context systemPromptUpdate is not in-history).",
		"On other routes dsh replaces node 0 with the new prompt and starts a series; an appended one is a second system message the provider may not accept.",
		"A log written for one provider route and replayed under another, or a request/context row edited."},
	{CodeAssistantRepeated, Error,
		"A second assistant/message settles the same step.",
		"Each model call has exactly one settlement; a retried call settles with assistant/attempt, and only the last settlement of a step is a message.",
		"A retry logged as a message, or two steps merged by a tool."},
	{CodeInterruptedContent, Error,
		"An interrupted assistant/message holds other than non-blank text and reasoning (a tool call, another block, or nothing).",
		"An interrupted stream keeps only the text it produced; a tool call in it would be run without its answer being awaited.",
		"A writer that marks a complete message interrupted, or a message edited by hand."},
	{CodeInterruptedTurnEnd, Error,
		"An interrupted assistant/message sits in a turn that does not end aborted (or interrupted, after a crash).",
		"Only a cancelled turn keeps an interrupted answer; a turn that completes normally never holds one.",
		"A turn/end rewritten, or an interrupted flag set on a message of a normal turn."},
	{CodeInheritedOpenTurn, Error,
		"A fork child's inherited session/end-seed lies inside an open turn but is not followed by the forked closers dsh's fork writes.",
		"dsh's fork closes an open turn right after the marker; without the closers the child's first turn is left open.",
		"A fork made by copying a log up to a point inside a turn, instead of with dsh's fork or dshlog fork."},
	{CodeCrashEndUnresumed, Error,
		"A turn/end with reason interrupted is not followed by the resume marker session/end-seed.",
		"That reason is written only by crash repair, right before dsh resumes the session with a session/end-seed.",
		"A crash repair written by another tool, or events appended after a repair without resuming."},
	{CodeForkedEndOutsideSeed, Error,
		"A turn/end with reason forked appears outside the closers that follow a fork child's inherited marker.",
		"Only dsh's fork writes that reason, in a child's seed.",
		"A log edited by hand, or a fork child's seed copied into another session."},
	{CodeOpenTail, Warning,
		"The log ends inside an open turn.",
		"dsh treats it as a crash: on resume its crash repair appends the closers the message lists.",
		"A session that crashed or was killed mid-turn, or a log copied while dsh was still writing it. dshlog repair appends the same closers."},
	{CodeEmptyAssistant, Warning,
		"An assistant/message with empty content in a turn that completes normally.",
		"It adds no message to the model's view; usually the answer hit the max-tokens limit before any text.",
		"A request with too small a max-tokens setting, or a provider that returned nothing."},
	{CodeTornTail, Warning,
		"The last line has no final newline: a write cut short.",
		"dsh drops the torn line when it reads the log, so the event on it is lost.",
		"A crash or a full disk during the last write, or a file truncated by a copy. dshlog repair drops the torn line."},
	{CodeUnknownIgnorable, Info,
		"An event type dsh does not know, marked ignorable:true.",
		"dsh keeps it opaque and goes on: nothing is wrong, but nothing checks it either.",
		"A plugin's event type, or one from a newer or forked dsh."},
}
