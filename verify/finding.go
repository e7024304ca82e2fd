package verify

// Severity says how much a finding matters: an error is a problem (dsh
// refuses the log, or a guarantee of dsh's writer is broken), a warning is
// worth a look, an info is a plain remark.
type Severity uint8

// The severities, most severe first.
const (
	Error Severity = iota
	Warning
	Info
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "info"
}

// Finding is one thing the verifier has to say about a session.
type Finding struct {
	// Code is stable and machine-readable, such as "codec-refused" or
	// "request-not-extending"; the codes are listed in the package comment.
	Code     string
	Severity Severity
	// Seq is the event the finding is about, or -1 when it is about the
	// file as a whole.
	Seq int64
	// Line is the finding's 1-based line in the file, or 0 when no single
	// line holds it (a migrated file's events have no line of their own).
	Line int
	// Message says what is wrong; where dsh refuses, it is dsh's own text
	// as dsh prints it ("<Class>: <message>").
	Message string
	// Hint is a likely fix, or "" (for an unknown event type: the build
	// that declares it and the flag that would accept it).
	Hint string
}

// Refuses reports whether the finding is dsh refusing to open the log (its
// codec, its migration or its Session load), so that nothing after it was
// judged.
func (f Finding) Refuses() bool {
	switch f.Code {
	case CodeCodecRefused, CodeCodecDroppedRows, CodeSessionRefused, CodeUnknownEventType:
		return true
	}
	return false
}

// The finding codes. Codec and session refusals carry dsh's verdicts; the
// others are the invariants dsh guarantees only by how it writes logs.
const (
	CodeCodecRefused         = "codec-refused"
	CodeCodecDroppedRows     = "codec-dropped-rows"
	CodeSessionRefused       = "session-refused"
	CodeHeaderMissing        = "header-missing"
	CodeHeaderChange         = "header-change-unchanged"
	CodeHeaderSeries         = "header-series-changed"
	CodeHeaderInitial        = "header-initial-repeated"
	CodeHeaderResume         = "header-resume-first"
	CodeNotExtending         = "request-not-extending"
	CodeSeriesMarker         = "series-marker-missing"
	CodeToolBalance          = "surface-tool-balance"
	CodeSystemAppendEmpty    = "system-append-empty"
	CodeSystemAppendRoute    = "system-append-route"
	CodeAssistantRepeated    = "assistant-repeated"
	CodeInterruptedContent   = "interrupted-content"
	CodeInterruptedTurnEnd   = "interrupted-turn-end"
	CodeInheritedOpenTurn    = "inherited-marker-open-turn"
	CodeCrashEndUnresumed    = "crash-end-unresumed"
	CodeForkedEndOutsideSeed = "forked-end-outside-seed"
	CodeOpenTail             = "open-tail"
	CodeEmptyAssistant       = "empty-assistant"
	CodeTornTail             = "torn-tail"
	CodeUnknownIgnorable     = "unknown-ignorable"
	CodeUnknownEventType     = "unknown-event-type"
)
