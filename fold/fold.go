// Package fold derives dsh's model view of a session from its event log, the
// way dsh's own Session does: the surface (which events the model sees, in
// which order, after replacements), the messages each node projects, the
// request header and tool history in force, every model request rebuilt
// from the events strictly before its settlement, the closers crash repair
// appends to an open tail, and fork seeds.
//
// Which event types exist, and so which ignorable events are opaque, is the
// vocabulary of the dsh build that wrote the log (NewWith).
//
// A Fold is incremental and single-pass: Apply takes the events in seq
// order and validates each one with dsh's exact surface guards (in dsh's
// order) before committing it, so a refused event leaves the fold
// unchanged; Load first adds the checks dsh's Session makes on every event
// of a stored log it loads, and words refusals as that load does.
//
// Memory: a Fold holds the live surface (for each current node its seq,
// type, role and message bytes, plus a tool result's data without its
// content, which the tool-result rewrite guard compares; a fold that
// summarizes holds each node's summary instead of its message bytes, but
// for a message with an image block), the record of every replacement (its
// seqs only), the tools of every request/header (developer tool additions
// may name any earlier header), the latest canonical header and tool-history
// state, the open turn's step and pending tool calls, and the working
// directory of the last working-directory/change. It never holds a
// log-only event, a shadowed node's message or an assistant message's
// embedded stream.
package fold

import (
	"strings"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// Fold is the model view of a session folded up to some event.
type Fold struct {
	next     int64 // the seq the next event must carry
	lastTime int64 // the time of the last event: closers reuse it

	nodes             []Node
	visible           int // nodes whose message enters the model's view
	replaceGeneration int
	contentGeneration int
	replacements      []Replacement

	vocab         *vocab.Vocabulary     // the event types of the dsh build that wrote the log
	workingDir    string                // data.cwd of the last working-directory/change
	workingDirSeq int64                 // its seq, or -1 when there was none
	headerTools   map[int64]jsonv.Value // tools of each request/header, by seq
	header        headerState
	toolHistory   toolHistory
	turn          turnState
	settlements   int

	scratch []byte // where a tool result's data without content is written

	// summarize, when set, makes each node keep its summary in place of
	// its message (Summarize).
	summarize func(typ string, message jsonv.Value) string
}

// New returns the fold of an empty log written by the default dsh build
// (vocab.Default).
func New() *Fold { return NewWith(vocab.Default()) }

// NewWith returns the fold of an empty log written by the dsh build whose
// vocabulary is v: an ignorable event of a type outside it is opaque.
func NewWith(v *vocab.Vocabulary) *Fold {
	return &Fold{vocab: v, workingDirSeq: -1, headerTools: map[int64]jsonv.Value{}}
}

// Summarize makes the fold keep, for each node, summarize(type, message)
// (its Summary) instead of the message itself, which it then keeps only
// where an image/offload projection may need it (a node holding an image
// block; its summary is made again after a projection). A fold that
// summarizes holds one summary per node instead of the surface's messages:
// its Messages, Dispatch and Request are not the model's view (a dropped
// message is null), while everything else (checks, refusals, roles,
// generations, closers) is as without. Call it before the first event;
// summarize sees the message as the event carries it, and must not keep it.
func (f *Fold) Summarize(summarize func(typ string, message jsonv.Value) string) {
	f.summarize = summarize
}

// WorkingDirectory returns the effective working directory dsh's
// working-directory projection derives: the cwd of the last
// working-directory/change and its seq, or headerCwd (the header's cwd, the
// original project; nil when it has none) and seq -1 when there was no
// change. ok is false when there is neither.
func (f *Fold) WorkingDirectory(headerCwd *string) (cwd string, seq int64, ok bool) {
	if f.workingDirSeq >= 0 {
		return f.workingDir, f.workingDirSeq, true
	}
	if headerCwd != nil {
		return *headerCwd, -1, true
	}
	return "", -1, false
}

// Node is one entry of the surface: an event whose message is in the
// model's view, in surface order.
type Node struct {
	Seq  int64
	Type string
	// Message is the node's message (after any image/offload projection).
	// A fold that summarizes (Summarize) keeps it only for a node holding
	// an image block, which a projection may rewrite; elsewhere it is null.
	Message jsonv.Value
	// Visible is false when the node projects to nothing: an empty system,
	// developer or assistant message keeps its surface position but adds no
	// message to the model's view.
	Visible bool
	role    role // the message's role: one of dsh's, or in more.role
	// more holds what only some nodes have; nil for most. A pointer, so
	// that the other nodes pay 8 bytes for it.
	more *nodeMore
}

// nodeMore is the part of a node only some nodes have.
type nodeMore struct {
	// toolRest is a tool/result node's data with message.content nulled,
	// as JSON text: what a rewrite of it must keep, parsed only when a
	// rewrite comes.
	toolRest []byte
	summary  string // a summarizing fold's summary of the message
	role     string // a role other than dsh's
}

// role is a message's role: one of dsh's five, none (not a string, or
// empty), or another, which the node keeps as text.
type role uint8

const (
	roleNone role = iota
	roleSystem
	roleDeveloper
	roleUser
	roleAssistant
	roleTool
	roleOther
)

// roleNames are the texts of dsh's roles.
var roleNames = [...]string{roleNone: "", roleSystem: "system", roleDeveloper: "developer",
	roleUser: "user", roleAssistant: "assistant", roleTool: "tool"}

// Role returns the text of the message's role ("" when it is not a string).
func (n Node) Role() string {
	if n.role == roleOther {
		return n.more.role
	}
	return roleNames[n.role]
}

// Summary returns what the summarize function of a fold that summarizes
// returned for the node's message; "" in a fold that does not.
func (n Node) Summary() string {
	if n.more == nil {
		return ""
	}
	return n.more.summary
}

// Replacement records one committed replace: the event that made it, the
// node range it declared, the nodes it actually shadowed (in surface order)
// and the generations it started.
type Replacement struct {
	Seq               int64
	StartSeq          int64
	EndSeq            int64
	ShadowedSeqs      []int64
	ReplaceGeneration int
	ContentGeneration int
}

// Next returns the seq the next event must carry: the number of events
// folded so far.
func (f *Fold) Next() int64 { return f.next }

// Surface returns the current nodes in surface order. The slice is the
// fold's own and changes with the next Apply.
func (f *Fold) Surface() []Node { return f.nodes }

// Nodes returns the seqs of the current surface, in surface order (not
// ascending once a replace has happened).
func (f *Fold) Nodes() []int64 {
	seqs := make([]int64, len(f.nodes))
	for i, n := range f.nodes {
		seqs[i] = n.Seq
	}
	return seqs
}

// ReplaceGeneration counts the committed replaces.
func (f *Fold) ReplaceGeneration() int { return f.replaceGeneration }

// ContentGeneration counts the committed replaces and projections: the
// loop compares it between requests to decide whether a new series starts.
func (f *Fold) ContentGeneration() int { return f.contentGeneration }

// Replacements returns every committed replace in log order: the shadowed
// ranges of the session.
func (f *Fold) Replacements() []Replacement { return f.replacements }

// Settlements returns the number of settlements folded: the number of model
// requests the log records so far.
func (f *Fold) Settlements() int { return f.settlements }

// MessageCount returns the number of messages in the model's view.
func (f *Fold) MessageCount() int { return f.visible }

// Roles returns the role of every message in the model's view, in surface
// order: the text of each visible node's message role.
func (f *Fold) Roles() []string {
	roles := make([]string, 0, f.visible)
	for _, n := range f.nodes {
		if n.Visible {
			roles = append(roles, n.Role())
		}
	}
	return roles
}

// Messages returns the model's view: the message of every visible node, in
// surface order, exactly as dsh's deriveMessages returns them (not in a
// fold that summarizes).
func (f *Fold) Messages() []jsonv.Value {
	messages := make([]jsonv.Value, 0, f.visible)
	for _, n := range f.nodes {
		if n.Visible {
			messages = append(messages, n.Message)
		}
	}
	return messages
}

// Apply folds the next event. It checks the event the way dsh's surface
// fold does, in dsh's order, and leaves the fold unchanged when it refuses
// (the error is a *session.Refusal carrying dsh's words).
func (f *Fold) Apply(ev session.Event) error {
	plan, err := f.plan(ev)
	if err != nil {
		return err
	}
	f.commit(ev, plan)
	if ev.Type == typeHeader {
		tools := ev.Data().Field("header").Field("tools")
		f.headerTools[ev.Seq] = tools
		f.header.apply(ev)
	}
	if ev.Type == vocab.WorkingDirectoryChange {
		f.workingDir, f.workingDirSeq = strings.Clone(ev.Data().Field("cwd").Text()), ev.Seq
	}
	f.toolHistory.apply(ev, f.headerTools)
	f.turn.apply(ev)
	if IsSettlement(ev.Type) {
		f.settlements++
	}
	f.next++
	f.lastTime = ev.Time
	return nil
}

// SeedError words a refusal the way dsh's Session constructor does when the
// event at index fails while the log is loaded as a seed or restored.
func SeedError(index int64, err error) error {
	return session.Plainf("invalid seed event at index %d: %s", index, err.Error())
}

// truthy reports whether JavaScript treats v as true: dsh skips a derived
// message that is not.
func truthy(v jsonv.Value) bool {
	switch v.Kind() {
	case jsonv.Null:
		return false
	case jsonv.Bool:
		return v.IsTrue()
	case jsonv.Number:
		n, _ := v.Number()
		return n != 0
	case jsonv.String:
		return v.Text() != ""
	}
	return true
}
