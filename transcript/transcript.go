// Package transcript turns a session's events into a transcript for
// people: a stream of Items (turns, messages, tool calls and results,
// requests, failed attempts, compactions, turn ends) that a renderer writes
// as it receives them. Markdown and HTML render it.
//
// A Walker reads the events once, in seq order, and folds them (fold.Load)
// so that every request is told with the messages the model saw when it was
// sent. Memory is the fold's (the live surface) plus the tool calls still
// waiting for their results; no Item outlives the call that hands it on.
package transcript

import (
	"hash/fnv"
	"io"
	"strings"

	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// Kind says what an Item is.
type Kind int

// The kinds of transcript items.
const (
	// TurnStart opens turn Turn.
	TurnStart Kind = iota
	// StepStart opens step Step of turn Turn.
	StepStart
	// Message is a message that joined the model's view (system, developer,
	// user, assistant or tool), or replaced part of it (compaction).
	Message
	// Request is a model request: the messages the model saw, settled by
	// the next Message or Attempt.
	Request
	// Attempt is a request that failed and settled as assistant/attempt.
	Attempt
	// ToolCall is a tool the loop started (tool/call).
	ToolCall
	// Compaction is a compaction summary (compaction/summary).
	Compaction
	// Title is a session title (session/title).
	Title
	// TurnEnd closes turn Turn with Reason.
	TurnEnd
	// OpenEnd says the log ends inside turn Turn: dsh's crash repair would
	// close it.
	OpenEnd
)

// Item is one entry of a transcript. Which fields are set depends on Kind.
type Item struct {
	Kind Kind
	Seq  int64
	Time int64
	Turn int64
	Step int64

	// Message: the event type, its role, its source kind (user, model,
	// system-prompt, compact-checkpoint, runtime-context, …), its content
	// blocks, whether it was interrupted, and for a replace the range of
	// nodes it replaced. Whether a later replace shadows the node is known
	// only at the end: see Surface.
	Type        string
	Role        string
	Source      string
	Blocks      []Block
	Interrupted bool
	Replaces    *[2]int64
	// Message (tool results): the call it answers, its tool name, whether
	// it is an error, and the milliseconds from tool/call to the result
	// (-1 when no tool/call was logged).
	CallID     string
	ToolName   string
	IsError    bool
	DurationMS int64
	// Message values: the node's message as stored (JSON).
	Value jsonv.Value

	// Request: its 1-based index, the number of messages the model saw,
	// the provider/model and header reason in force, and the logged usage
	// of its settlement. The messages themselves are told against the
	// previous request's: its first Shared messages, then Added.
	Index    int
	Count    int
	Shared   int
	Added    []ModelMessage
	Provider string
	Model    string
	Reason   string
	Usage    jsonv.Value

	// Attempt and TurnEnd: the failure or end reason, e.g. "RATE_LIMIT:
	// busy", "completed", "aborted (user)", "interrupted".
	Detail string
	// ToolCall: its arguments (JSON text) in Text; Compaction and Title:
	// the summary or the title.
	Text string
}

// Block is one content block of a message.
type Block struct {
	// Type is text, reasoning, tool-call, image or another block type.
	Type string
	Text string
	// Tool calls: id, name and arguments (JSON text).
	CallID, Name, Arguments string
}

// ModelMessage is one message of a request: the node's seq, the version of
// its message (1, then one more each time a rewrite changed it), whether
// this request is the first to see that version (Fresh), and the message
// as stored.
type ModelMessage struct {
	Seq     int64
	Version int
	Fresh   bool
	Message jsonv.Value
}

// Surface is the model's view at the end of the log: the nodes and the
// replaces that shadowed others.
type Surface struct {
	Nodes        []int64
	Replacements []fold.Replacement
	Events       int64
}

// Events is a stream of session events ending with io.EOF.
type Events interface {
	Next() (session.Event, error)
}

// Renderer writes a transcript as its items come.
type Renderer interface {
	// Messages reports whether the renderer shows requests' messages
	// (Item.Shared and Item.Added).
	Messages() bool
	// Item is called for each item in log order.
	Item(Item) error
	// Close is called once after the last item with the final surface; it
	// flushes what the renderer buffered.
	Close(Surface) error
}

// Walker turns events into items for a renderer, one event at a time.
type Walker struct {
	fold     *fold.Fold
	messages bool
	view     requestView
	calls    map[string]pendingCall // tool calls started, by call id
	names    map[string]string      // tool names by call id, from the turn's assistant messages
	turn     int64
	provider string
	model    string
	reason   string
	visit    func(Item) error
}

// NewWalker returns a Walker that hands items to visit. A request comes
// right before the Message or Attempt that settled it; its Shared and
// Added are filled only when messages is true (they cost a hash of each
// message once, and a walk of the surface after each replace).
func NewWalker(visit func(Item) error, messages bool) *Walker {
	return &Walker{fold: fold.New(), calls: map[string]pendingCall{}, visit: visit, messages: messages}
}

// Close ends the walk after the last event: it reports an open tail turn
// and returns the final surface.
func (w *Walker) Close() (Surface, error) {
	surface := Surface{Nodes: w.fold.Nodes(), Replacements: w.fold.Replacements(), Events: w.fold.Next()}
	if w.fold.TurnOpen() {
		return surface, w.visit(Item{Kind: OpenEnd, Seq: w.fold.Next(), Turn: w.turn})
	}
	return surface, nil
}

// Render reads every event of events and renders the transcript with r.
func Render(r Renderer, events Events) error {
	w := NewWalker(r.Item, r.Messages())
	for {
		ev, err := events.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := w.Event(ev); err != nil {
			return err
		}
	}
	surface, err := w.Close()
	if err != nil {
		return err
	}
	return r.Close(surface)
}

type pendingCall struct {
	name string
	time int64
}

// Event folds the next event (with dsh's load checks: a refusal is
// returned) and hands on the items it makes.
func (w *Walker) Event(ev session.Event) error {
	data := ev.Data()
	turn, _ := data.Field("turn").Count()
	step, _ := data.Field("step").Count()
	item := Item{Seq: ev.Seq, Time: ev.Time, Turn: turn, Step: step, Type: ev.Type}
	if fold.IsSettlement(ev.Type) {
		if err := w.visit(w.request(ev)); err != nil {
			return err
		}
	}
	if err := w.fold.Load(ev); err != nil {
		return err
	}
	switch ev.Type {
	case "turn/start":
		w.turn = turn
		w.names = map[string]string{}
		item.Kind = TurnStart
	case "step/start":
		item.Kind = StepStart
	case "turn/end":
		item.Kind, item.Detail = TurnEnd, endReason(data.Field("reason"))
	case "request/header":
		config := data.Field("header").Field("config")
		w.provider, w.model = config.Field("provider").Text(), config.Field("model").Text()
		w.reason = data.Field("reason").Text()
		return nil
	case "assistant/attempt":
		item.Kind, item.Detail = Attempt, attemptFailure(data)
	case "tool/call":
		id := data.Field("callId").Text()
		w.calls[id] = pendingCall{name: data.Field("name").Text(), time: ev.Time}
		item.Kind, item.CallID, item.ToolName, item.Text = ToolCall, id, data.Field("name").Text(), data.Field("arguments").Text()
	case "compaction/summary":
		item.Kind, item.Text = Compaction, blocksText(data.Field("summary"))
		if r, ok := data.Get("shadowedRange"); ok {
			start, _ := r.Field("start").Count()
			end, _ := r.Field("end").Count()
			item.Replaces = &[2]int64{start, end}
		}
	case "session/title":
		item.Kind, item.Text = Title, data.Field("title").Text()
	default:
		if !fold.IsSurfaceEligible(ev.Type) || ev.SurfaceOp().Kind == session.OpNone {
			return nil
		}
		w.message(&item, ev)
	}
	return w.visit(item)
}

// message fills a Message item from a surface event.
func (w *Walker) message(item *Item, ev session.Event) {
	data := ev.Data()
	message := data.Field("message")
	if ev.Type == "user/message" {
		message = data
	}
	item.Kind, item.Value = Message, message
	item.Role = message.Field("role").Text()
	item.Source = message.Field("source").Field("kind").Text()
	item.Interrupted = data.Field("interrupted").IsTrue()
	if op := ev.SurfaceOp(); op.Kind == session.OpReplace {
		item.Replaces = &[2]int64{op.StartSeq, op.EndSeq}
	}
	item.Blocks = blocks(message.Field("content"))
	for _, b := range item.Blocks {
		if b.Type == "tool-call" && w.names != nil {
			w.names[b.CallID] = b.Name
		}
	}
	if ev.Type == "tool/result" {
		item.CallID = message.Field("source").Field("callId").Text()
		if item.CallID == "" {
			item.CallID = message.Field("toolCallId").Text()
		}
		item.IsError = message.Field("isError").IsTrue()
		item.DurationMS = -1
		item.ToolName = w.names[item.CallID]
		if call, ok := w.calls[item.CallID]; ok {
			item.ToolName, item.DurationMS = call.name, ev.Time-call.time
			delete(w.calls, item.CallID)
		}
	}
}

// request describes the request that the settlement ev (not yet folded)
// settles.
func (w *Walker) request(ev session.Event) Item {
	data := ev.Data()
	turn, _ := data.Field("turn").Count()
	step, _ := data.Field("step").Count()
	it := Item{
		Kind: Request, Seq: ev.Seq, Turn: turn, Step: step,
		Index: w.fold.Settlements() + 1, Count: w.fold.MessageCount(),
		Provider: w.provider, Model: w.model, Reason: w.reason,
		Usage: data.Field("usage"),
	}
	if w.messages {
		it.Shared, it.Added = w.view.next(w.fold)
	}
	return it
}

// requestView follows the messages of successive requests. While the fold
// makes no replace or projection between two requests, the later one is
// the earlier one plus the nodes appended since, and only those are read.
// After a replace the surface is walked again by reference; a node's
// message is read and hashed again only after a projection (the one
// surface operation that rewrites a node in place). It holds a reference
// and a hash per node, not messages.
type requestView struct {
	started           bool
	nodes             int // surface length at the previous request
	replaceGeneration int
	projections       int
	refs              []messageRef             // the previous request's messages
	versions          map[int64]messageVersion // the last version of each node's message
}

type messageRef struct {
	seq     int64
	version int
}

type messageVersion struct {
	version int
	hash    uint64
}

// next returns how many of the previous request's messages the next one
// keeps in front, and the messages that follow them.
func (v *requestView) next(f *fold.Fold) (int, []ModelMessage) {
	surface := f.Surface()
	if v.versions == nil {
		v.versions = map[int64]messageVersion{}
	}
	projections := f.ContentGeneration() - f.ReplaceGeneration()
	reread := projections != v.projections
	unchanged := v.started && f.ReplaceGeneration() == v.replaceGeneration && !reread
	from, shared := 0, 0
	if unchanged {
		from, shared = v.nodes, len(v.refs)
	}
	var added []ModelMessage
	var refs []messageRef
	for _, n := range surface[from:] {
		if !n.Visible {
			continue
		}
		last, seen := v.versions[n.Seq]
		m := ModelMessage{Seq: n.Seq, Version: last.version, Message: n.Message}
		if !seen || reread {
			sum := fnv.New64a()
			sum.Write(n.Message.Encode())
			if !seen || last.hash != sum.Sum64() {
				m.Version, m.Fresh = last.version+1, true
				v.versions[n.Seq] = messageVersion{m.Version, sum.Sum64()}
			}
		}
		added = append(added, m)
		refs = append(refs, messageRef{m.Seq, m.Version})
	}
	if unchanged {
		v.refs = append(v.refs, refs...)
	} else {
		// Keep in front what the previous request had in the same places.
		for shared < len(v.refs) && shared < len(refs) && v.refs[shared] == refs[shared] {
			shared++
		}
		added = added[shared:]
		v.refs = refs
	}
	v.started, v.nodes = true, len(surface)
	v.replaceGeneration, v.projections = f.ReplaceGeneration(), projections
	return shared, added
}

// blocks reads a message's content: a string or an array of blocks.
func blocks(content jsonv.Value) []Block {
	if s, ok := content.Str(); ok {
		return []Block{{Type: "text", Text: s}}
	}
	var out []Block
	for _, b := range content.Elements() {
		block := Block{Type: b.Field("type").Text()}
		switch block.Type {
		case "tool-call":
			block.CallID, block.Name, block.Arguments = b.Field("id").Text(), b.Field("name").Text(), b.Field("arguments").Text()
		case "image":
			block.Text = "[image]"
		default:
			block.Text = b.Field("text").Text()
		}
		out = append(out, block)
	}
	return out
}

// blocksText joins the text of content blocks.
func blocksText(content jsonv.Value) string {
	var parts []string
	for _, b := range blocks(content) {
		if b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// endReason words a turn/end reason: its kind, and the nested reason's kind
// in parentheses when there is one ("aborted (user)").
func endReason(reason jsonv.Value) string {
	kind := reason.Field("kind").Text()
	if inner := reason.Field("reason").Field("kind").Text(); inner != "" {
		return kind + " (" + inner + ")"
	}
	return kind
}

// attemptFailure words a failed attempt from its stream's finish chunk.
func attemptFailure(data jsonv.Value) string {
	for _, chunk := range data.Field("stream").Elements() {
		finish := chunk.Field("chunk")
		if finish.Field("type").Text() != "finish" {
			continue
		}
		failure := finish.Field("reason").Field("failure")
		code, message := failure.Field("code").Text(), failure.Field("message").Text()
		switch {
		case code != "" && message != "":
			return code + ": " + message
		case code != "" || message != "":
			return code + message
		}
		return finish.Field("reason").Field("kind").Text()
	}
	return "failed"
}
