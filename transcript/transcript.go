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

	// Request: its 1-based index, the surface nodes (seqs) and the messages
	// the model saw, in order, the provider/model and header reason in
	// force, and the logged usage of its settlement.
	Index    int
	Nodes    []int64
	Messages []jsonv.Value
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
	// Item is called for each item in log order.
	Item(Item) error
	// Close is called once after the last item with the final surface; it
	// flushes what the renderer buffered.
	Close(Surface) error
}

// Walker turns events into items for a renderer, one event at a time.
type Walker struct {
	fold     *fold.Fold
	calls    map[string]pendingCall // tool calls started, by call id
	names    map[string]string      // tool names by call id, from the turn's assistant messages
	turn     int64
	provider string
	model    string
	reason   string
	visit    func(Item) error
}

// NewWalker returns a Walker that hands items to visit. A request comes
// right before the Message or Attempt that settled it.
func NewWalker(visit func(Item) error) *Walker {
	return &Walker{fold: fold.New(), calls: map[string]pendingCall{}, visit: visit}
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
	w := NewWalker(r.Item)
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
		req, err := w.fold.Request(ev)
		if err == nil {
			if err := w.visit(w.request(req, data)); err != nil {
				return err
			}
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

// request describes a rebuilt request.
func (w *Walker) request(req fold.Request, settlement jsonv.Value) Item {
	nodes := make([]int64, 0, len(req.Messages))
	for _, n := range w.fold.Surface() {
		if n.Visible {
			nodes = append(nodes, n.Seq)
		}
	}
	return Item{
		Kind: Request, Seq: req.SettlementSeq, Turn: req.Turn, Step: req.Step,
		Index: req.Index, Nodes: nodes, Messages: req.Messages,
		Provider: w.provider, Model: w.model, Reason: w.reason,
		Usage: settlement.Field("usage"),
	}
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
