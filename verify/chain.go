package verify

import (
	"bytes"
	"unicode/utf8"

	"github.com/dshlog/dshlog/jsonv"
)

// Chain is the request-reconstruction theorem of one session in data
// (semantics.md §4.5, §4.6): every request rebuilt from the log, and for
// each one after the first whether it extends the previous one or breaks
// the chain, and what explains the break. Check builds it in the same pass
// that judges the log; it holds one entry per break, nothing per request.
//
// Requests == 0, or Requests == 1 + Extending + len(Breaks).
type Chain struct {
	// Complete is true when dsh's Session loaded every event of the log, so
	// the chain covers all of it; after a refusal it covers the requests
	// before the refused event.
	Complete bool `json:"complete"`
	// Requests counts the requests rebuilt from the log: request k is the
	// k-th settlement (assistant/message or assistant/attempt).
	Requests int `json:"requests"`
	// Extending counts the requests that extend the previous one: its
	// messages are a prefix of theirs (an equal list counts, as in a retry)
	// and the header in force is equal (dsh's headerEquals), so a
	// provider's prefix cache holds.
	Extending int `json:"extending"`
	// Breaks are the other requests after the first, in log order.
	Breaks []Break `json:"breaks"`
}

// Break is a request that does not extend the previous one.
type Break struct {
	// Request is the request's 1-based index; Seq is its settlement's seq
	// and PreviousSeq that of request Request-1.
	Request     int   `json:"request"`
	Seq         int64 `json:"seq"`
	PreviousSeq int64 `json:"previousSeq"`
	// Cause says what changed, one of a small closed set (see Cause).
	Cause Cause `json:"cause"`
	// MessagesExtend is true when only the header changed: the previous
	// request's messages are still a prefix of this one's.
	MessagesExtend bool `json:"messagesExtend"`
	// ExplainedBy names the event that explains the break and MarkerSeq
	// its seq; an unexplained break has ExplainedBy "" and MarkerSeq -1.
	ExplainedBy Marker `json:"explainedBy"`
	MarkerSeq   int64  `json:"markerSeq"`
	// Diff is where the messages part, when they do not extend; nil when
	// they do.
	Diff *MessageDiff `json:"diff,omitempty"`
}

// Explained reports whether an event of the log explains the break.
func (b Break) Explained() bool { return b.ExplainedBy != MarkerNone }

// Cause is why a request breaks the chain. The values are stable strings,
// meant for grouping breaks (for instance by what they cost in the
// provider's prefix cache); a break has exactly one.
type Cause string

// The causes of a break, in the order Check tries them: a lifecycle
// boundary first (whatever changed before it), then a surface rewrite,
// then a header change; a break no event explains is unexplained.
const (
	// CauseFork: the break spans a fork child's inherited session/end-seed
	// (the fork boundary), and anything that changed, changed before it.
	CauseFork Cause = "fork"
	// CauseResume: the break spans a plain session/end-seed (a new loop
	// instance after a crash or a restart), and anything that changed,
	// changed before it.
	CauseResume Cause = "resume"
	// CauseSystemPrompt: the system prompt was rewritten on the surface (a
	// system/message replace: node 0 on a route that replaces the prompt,
	// or an in-history normalization), or the header's system changed.
	CauseSystemPrompt Cause = "system-prompt"
	// CauseCompaction: a compaction rewrote the surface: a replace by any
	// event but a system/message (a checkpoint summary, a pruned tool
	// result) or an image/offload projection.
	CauseCompaction Cause = "compaction"
	// CauseTools: the messages extend, but the header's tool list changed.
	CauseTools Cause = "tools"
	// CauseConfig: the messages extend, but another part of the header
	// changed: provider, model, sampling, stop or adapter defaults.
	CauseConfig Cause = "config"
	// CauseUnexplained: the messages do not extend, and neither a series
	// header nor a session/end-seed after the rewrite lies between the two
	// requests (the finding request-not-extending).
	CauseUnexplained Cause = "unexplained"
)

// Causes lists every cause, in the order Check tries them.
var Causes = []Cause{CauseFork, CauseResume, CauseSystemPrompt, CauseCompaction, CauseTools, CauseConfig, CauseUnexplained}

// Marker names the kind of event that explains a break.
type Marker string

// The markers that explain a break.
const (
	// MarkerNone: nothing explains the break.
	MarkerNone Marker = ""
	// MarkerSeries: a request/header with reason "series" or startsSeries,
	// the writer's declaration that a new series starts (§4.6).
	MarkerSeries Marker = "series-header"
	// MarkerHeader: a request/header that changes the header in force.
	MarkerHeader Marker = "header"
	// MarkerEndSeed: a plain session/end-seed, where a new lifecycle began.
	MarkerEndSeed Marker = "end-seed"
	// MarkerFork: the inherited session/end-seed of a fork child.
	MarkerFork Marker = "fork-boundary"
	// MarkerBracket: a closed compaction bracket (its compaction/end), which
	// explains a compaction's break where the build's writer opens no new
	// series after one (the v0 line: vocab.V0Rules.SeriesAfterCompaction).
	MarkerBracket Marker = "compaction-bracket"
)

// MessageDiff is where two requests' messages part: the first message of
// the previous request that the current one does not repeat.
type MessageDiff struct {
	// Index is the 0-based index of the first differing message.
	Index int `json:"index"`
	// Expected is an excerpt of the previous request's message at Index as
	// JSON text, around the first byte that differs; Actual the same of the
	// current request's, "" when it has no message at Index.
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
}

// excerptBytes bounds an excerpt of a message.
const excerptBytes = 72

// diffMessages returns where cur stops repeating prev, or nil when prev is
// a prefix of cur (message by message as JSON text).
func diffMessages(prev, cur []jsonv.Value) *MessageDiff {
	for i, m := range prev {
		want := jsonText(m)
		if i >= len(cur) {
			return &MessageDiff{Index: i, Expected: excerpt(want, 0)}
		}
		got := jsonText(cur[i])
		if !bytes.Equal(want, got) {
			at := commonPrefix(want, got)
			return &MessageDiff{Index: i, Expected: excerpt(want, at), Actual: excerpt(got, at)}
		}
	}
	return nil
}

// jsonText returns JSON.stringify(v): the canonical text v keeps, when it
// keeps one (a surface node's message does), without copying it.
func jsonText(v jsonv.Value) []byte {
	if raw := v.Raw(); raw != nil {
		return raw
	}
	return v.Encode()
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// excerpt returns at most excerptBytes of text around offset at (starting a
// little before it), cut at character boundaries and marked with "…" where
// it was cut.
func excerpt(text []byte, at int) string {
	start := max(0, at-excerptBytes/4)
	end := min(len(text), start+excerptBytes)
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end--
	}
	s := string(text[start:end])
	if start > 0 {
		s = "…" + s
	}
	if end < len(text) {
		s += "…"
	}
	return s
}
