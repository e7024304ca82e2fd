package agentloop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// ErrCrashed is returned by Run when the script kills the process during a
// tool call: the log ends with that call's tool/call, as a crash leaves it.
var ErrCrashed = errors.New("the loop was killed during a tool call (the log ends with a dangling tool/call)")

// maxRetries bounds the RATE_LIMIT retries of one step.
const maxRetries = 3

// Loop runs a script's turns and writes the session log.
type Loop struct {
	script *Script
	model  Model
	tools  *Tools
	clock  *Clock
	ids    *IDs
	out    io.Writer

	header   session.Header
	appender *v4.Appender
	fold     *fold.Fold

	turn      int64             // the last turn number in the log
	turnNodes map[int64][]int64 // the surface nodes each turn appended (not the system prompt)
	openTurn  int64             // the turn being written, 0 between turns

	requests      int // requests this loop instance has built
	generation    int // the content generation at this instance's previous request (or attach)
	contextLogged bool
}

// New starts a loop writing a fresh session to out; the header line is
// written at once. (RunScript starts a fork child from its seed.)
func New(s *Script, model Model, tools *Tools, out io.Writer) (*Loop, error) {
	h := session.Header{Version: v4.Version, ID: s.Session, CreatedAt: s.CreatedAt}
	return start(s, model, tools, out, h, 0, nil)
}

// start writes header h (with inherited cut) and the seed events, each
// admitted like any other, and returns the loop ready for its first turn.
func start(s *Script, model Model, tools *Tools, out io.Writer, h session.Header, cut int64, seed []session.Event) (*Loop, error) {
	// The loop writes as the current official dsh does.
	appender, err := v4.NewAppender(h, vocab.Default())
	if err != nil {
		return nil, err
	}
	l := &Loop{script: s, model: model, tools: tools, clock: NewClock(s.CreatedAt), ids: NewIDs(s.Seed),
		out: out, header: h, appender: appender, fold: fold.New(), turnNodes: map[int64][]int64{}}
	line, err := v4.AppendHeader(nil, h, cut)
	if err != nil {
		return nil, err
	}
	if _, err := out.Write(line); err != nil {
		return nil, err
	}
	for _, ev := range seed {
		if err := l.write(ev); err != nil {
			return nil, err
		}
	}
	if n := len(seed); n > 0 && seed[n-1].Time >= l.clock.Now() {
		l.clock = NewClock(seed[n-1].Time + 1)
	}
	l.generation = l.fold.ContentGeneration()
	return l, nil
}

// Header returns the session's header.
func (l *Loop) Header() session.Header { return l.header }

// ErrInterrupted is returned by Run when ctx was cancelled (the user
// interrupted the run): the turn in progress was closed as aborted and no
// further turn was started.
var ErrInterrupted = errors.New("the run was interrupted; the turn in progress ends aborted")

// Run runs every turn of the script. A cancelled ctx is a user's cancel:
// the stream in progress is settled as dsh settles it, its turn ends
// aborted, and Run returns ErrInterrupted.
func (l *Loop) Run(ctx context.Context) error {
	for i, turn := range l.script.Turns {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		if err := l.runTurn(ctx, turn); err != nil {
			if errors.Is(err, ErrCrashed) {
				return err
			}
			return fmt.Errorf("turn %d of the script: %w", i+1, err)
		}
	}
	return nil
}

// write admits ev with dsh's reader and Session checks, then writes its
// row. Nothing is written for a refused event.
func (l *Loop) write(ev session.Event) error {
	line, err := l.appender.Append(nil, ev)
	if err != nil {
		return fmt.Errorf("agentloop: dsh would refuse %s at seq %d: %w", ev.Type, ev.Seq, err)
	}
	if err := l.fold.Load(ev); err != nil {
		return fmt.Errorf("agentloop: dsh would refuse %s at seq %d: %w", ev.Type, ev.Seq, err)
	}
	l.track(ev)
	_, err = l.out.Write(line)
	return err
}

// track follows turns and the nodes each turn appends, for compaction.
func (l *Loop) track(ev session.Event) {
	switch ev.Type {
	case "turn/start":
		l.turn, _ = ev.Data().Field("turn").Count()
		l.openTurn = l.turn
	case "turn/end":
		l.openTurn = 0
	}
	if l.openTurn > 0 && ev.SurfaceOp().Kind == session.OpAppend && ev.Type != "system/message" && fold.IsSurfaceEligible(ev.Type) {
		l.turnNodes[l.openTurn] = append(l.turnNodes[l.openTurn], ev.Seq)
	}
}

// event builds the next event in dsh's key order (type, seq, time, data,
// sourceEventSeqs, surfaceOp) and writes it.
func (l *Loop) event(typ string, data jsonv.Value, sources []int64, op session.SurfaceOp) (session.Event, error) {
	seq, now := l.fold.Next(), l.clock.Now()
	members := []jsonv.Member{
		jsonv.M("type", jsonv.StringValue(typ)),
		jsonv.M("seq", jsonv.IntValue(seq)),
		jsonv.M("time", jsonv.IntValue(now)),
		jsonv.M("data", data),
	}
	if sources != nil {
		members = append(members, jsonv.M("sourceEventSeqs", ints(sources)))
	}
	if op.Kind != session.OpNone {
		members = append(members, jsonv.M("surfaceOp", op.Value()))
	}
	ev := session.Event{Type: typ, Seq: seq, Time: now, Row: jsonv.ObjectValue(members...)}
	l.clock.Tick()
	return ev, l.write(ev)
}

var appendOp = session.SurfaceOp{Kind: session.OpAppend}

// runTurn writes one turn: the inbox splices, then steps until the model
// asks for no tool, the user cancels, or the provider fails for good.
func (l *Loop) runTurn(ctx context.Context, turn Turn) error {
	user := obj(
		"content", textContent(turn.User),
		"source", obj("kind", str("user")),
		"role", str("user"),
		"id", str(l.ids.Next()),
	)
	if _, err := l.event("agent/inbox/spliced", obj("target", str("next-turn"), "start", num(0), "inserted", jsonv.ArrayValue(user)), nil, session.SurfaceOp{}); err != nil {
		return err
	}
	number := l.turn + 1
	if _, err := l.event("turn/start", obj("turn", num(number)), nil, session.SurfaceOp{}); err != nil {
		return err
	}
	if _, err := l.event("agent/inbox/spliced", obj("target", str("next-turn"), "start", num(0), "removedCount", num(1), "inserted", jsonv.ArrayValue()), nil, session.SurfaceOp{}); err != nil {
		return err
	}
	var end jsonv.Value
	for step := int64(1); ; step++ {
		if _, err := l.event("step/start", obj("turn", num(number), "step", num(step)), nil, session.SurfaceOp{}); err != nil {
			return err
		}
		if !l.hasSystemPrompt() {
			message := obj("role", str("system"), "content", textContent(l.script.System), "source", obj("kind", str("system-prompt")), "id", str(l.ids.Next()))
			if _, err := l.event("system/message", obj("turn", num(number), "step", num(step), "message", message), nil, appendOp); err != nil {
				return err
			}
		}
		if step == 1 {
			if turn.Compact != nil {
				if err := l.compact(number, *turn.Compact); err != nil {
					return err
				}
			}
			if _, err := l.event("user/message", user, nil, appendOp); err != nil {
				return err
			}
		}
		outcome, err := l.runStep(ctx, turn, number, step)
		if err != nil {
			return err
		}
		if _, err := l.event("step/end", obj("turn", num(number), "step", num(step)), nil, session.SurfaceOp{}); err != nil {
			return err
		}
		if !outcome.next {
			end = outcome.end
			break
		}
	}
	_, err := l.event("turn/end", obj("turn", num(number), "reason", end), nil, session.SurfaceOp{})
	return err
}

// hasSystemPrompt reports whether the surface has its system prompt node.
func (l *Loop) hasSystemPrompt() bool {
	surface := l.fold.Surface()
	return len(surface) > 0 && surface[0].Type == "system/message"
}

// stepOutcome says how a step ended: go on with the next step, or end the
// turn with reason end.
type stepOutcome struct {
	next bool
	end  jsonv.Value
}

var completed = obj("kind", str("completed"))

// runStep sends the step's request (again after a RATE_LIMIT), settles it
// and runs the tools it asks for.
func (l *Loop) runStep(ctx context.Context, turn Turn, number, step int64) (stepOutcome, error) {
	for attempt := 0; ; attempt++ {
		r, cancelled, err := l.send(ctx, number, step)
		if err != nil {
			return stepOutcome{}, err
		}
		switch {
		case cancelled:
			if err := l.settleCancelled(r, number, step); err != nil {
				return stepOutcome{}, err
			}
			return stepOutcome{end: obj("kind", str("aborted"), "reason", obj("kind", str("user")))}, nil
		case r.finish.Kind == "error" || r.finish.Kind == "aborted":
			if _, err := l.event("assistant/attempt", obj("turn", num(number), "step", num(step), "stream", r.stream()), nil, session.SurfaceOp{}); err != nil {
				return stepOutcome{}, err
			}
			if r.finish.Code == "RATE_LIMIT" && attempt < maxRetries {
				if !l.waitToRetry(ctx, *r.finish, attempt+1) {
					return stepOutcome{end: obj("kind", str("aborted"), "reason", obj("kind", str("user")))}, nil
				}
				continue // a retry re-runs the attempt in the same step
			}
			return stepOutcome{end: obj("kind", str("error"), "error", failureValue(*r.finish))}, nil
		}
		if _, err := l.settle(r, number, step, false); err != nil {
			return stepOutcome{}, err
		}
		calls := r.toolCalls()
		if len(calls) == 0 {
			return stepOutcome{end: completed}, nil
		}
		return stepOutcome{next: true}, l.runTools(turn, calls, number, step)
	}
}

// waitToRetry waits as long as the model asks before retry number retry
// after failure f (see Backoff), and reports false when the user cancels
// meanwhile: the turn then ends aborted, as a cancel mid-stream ends it.
func (l *Loop) waitToRetry(ctx context.Context, f Finish, retry int) bool {
	b, ok := l.model.(Backoff)
	if !ok {
		return true
	}
	d := b.RetryDelay(f, retry)
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// send writes the request's header and context when due, builds the
// request from the log, checks it, and streams the reply. cancelled says
// the user cancelled mid-stream.
func (l *Loop) send(ctx context.Context, number, step int64) (*reply, bool, error) {
	if err := l.logHeader(); err != nil {
		return nil, false, err
	}
	if !l.contextLogged {
		l.contextLogged = true
		if _, err := l.event("request/context", obj("provider", str(l.script.Provider), "model", str(l.script.Model)), nil, session.SurfaceOp{}); err != nil {
			return nil, false, err
		}
	}
	req := freeze(l.fold.Dispatch(), l.header.ID)
	if err := l.checkDispatch(req); err != nil {
		return nil, false, err
	}
	l.requests++
	l.generation = l.fold.ContentGeneration()
	r := &reply{time: l.clock.Now()}
	err := l.model.Stream(ctx, req, func(c Chunk) error { r.add(c); return nil })
	switch {
	case errors.Is(err, context.Canceled):
		return r, true, nil
	case err != nil:
		return nil, false, fmt.Errorf("request %d: %w", req.Index(), err)
	case r.finish == nil:
		return nil, false, fmt.Errorf("request %d: the model's stream ended without a finish", req.Index())
	}
	return r, false, nil
}

// logHeader writes the request/header dsh's buildRequest writes before
// this request (§4.3): initial or resume for the instance's first request,
// series when a rewrite changed the content generation since its previous
// one, nothing otherwise. The header itself never changes in a script.
func (l *Loop) logHeader() error {
	var reason string
	_, inForce := l.fold.Header()
	switch {
	case l.requests == 0 && inForce:
		reason = "resume"
	case l.requests == 0:
		reason = "initial"
	case l.fold.ContentGeneration() != l.generation:
		reason = "series"
	default:
		return nil
	}
	members := []jsonv.Member{jsonv.M("header", l.requestHeader()), jsonv.M("reason", str(reason))}
	if reason != "series" && l.fold.ContentGeneration() != l.generation {
		members = append(members, jsonv.M("startsSeries", jsonv.BoolValue(true)))
	}
	_, err := l.event("request/header", jsonv.ObjectValue(members...), nil, session.SurfaceOp{})
	return err
}

// requestHeader is the script's header: config, then tools when any.
func (l *Loop) requestHeader() jsonv.Value {
	members := []jsonv.Member{jsonv.M("config", obj("provider", str(l.script.Provider), "model", str(l.script.Model)))}
	if len(l.script.Tools) > 0 {
		tools := make([]jsonv.Value, len(l.script.Tools))
		for i, name := range l.script.Tools {
			tools[i] = toolSchema(name)
		}
		members = append(members, jsonv.M("tools", jsonv.ArrayValue(tools...)))
	}
	return jsonv.ObjectValue(members...)
}

// checkDispatch is dsh's live invariant at dispatch (invariant.ts): a
// header is in force and the request is, byte for byte, the one the log
// derives now.
func (l *Loop) checkDispatch(req Request) error {
	if _, ok := l.fold.Header(); !ok {
		return fmt.Errorf("llm request for session %q has no request/header in the log", l.header.ID)
	}
	if want := freeze(l.fold.Dispatch(), l.header.ID); req.body != want.body || req.index != want.index {
		return fmt.Errorf("llm request for session %q diverges from the dispatch-time durable derivation (log-reconstruction desync)", l.header.ID)
	}
	return nil
}

// settle writes the assistant/message of a finished or interrupted stream.
func (l *Loop) settle(r *reply, number, step int64, interrupted bool) (session.Event, error) {
	message := obj(
		"role", str("assistant"),
		"content", jsonv.ArrayValue(r.content(interrupted)...),
		"source", obj("kind", str("model"), "provider", str(l.script.Provider), "model", str(l.script.Model)),
		"id", str(l.ids.Next()),
	)
	members := []jsonv.Member{jsonv.M("turn", num(number)), jsonv.M("step", num(step)), jsonv.M("message", message)}
	if r.usage != nil {
		members = append(members, jsonv.M("usage", usageValue(*r.usage)))
	}
	if interrupted {
		members = append(members, jsonv.M("interrupted", jsonv.BoolValue(true)))
	}
	members = append(members, jsonv.M("stream", r.stream()))
	return l.event("assistant/message", jsonv.ObjectValue(members...), nil, appendOp)
}

// settleCancelled settles a stream the user cancelled: the streamed text
// is kept as an interrupted message; with no text it is an attempt.
func (l *Loop) settleCancelled(r *reply, number, step int64) error {
	if r.keptText() {
		_, err := l.settle(r, number, step, true)
		return err
	}
	_, err := l.event("assistant/attempt", obj("turn", num(number), "step", num(step), "stream", r.stream()), nil, session.SurfaceOp{})
	return err
}

// runTools runs the calls one at a time: tool/call, the tool, tool/result
// citing its call. A crash during a call ends the run after its tool/call.
func (l *Loop) runTools(turn Turn, calls []*block, number, step int64) error {
	for _, call := range calls {
		arguments := call.text.String()
		callEvent, err := l.event("tool/call", obj("turn", num(number), "step", num(step), "callId", str(call.id), "name", str(call.name), "arguments", str(arguments)), nil, session.SurfaceOp{})
		if err != nil {
			return err
		}
		if call.id == turn.CrashIn {
			return ErrCrashed
		}
		output, isError := l.tools.Run(call.name, arguments)
		message := obj(
			"role", str("tool"),
			"source", obj("kind", str("tool"), "callId", str(call.id)),
			"toolCallId", str(call.id),
			"content", textContent(output),
			"isError", jsonv.BoolValue(isError),
			"id", str(l.ids.Next()),
		)
		if _, err := l.event("tool/result", obj("turn", num(number), "step", num(step), "message", message), []int64{callEvent.Seq}, appendOp); err != nil {
			return err
		}
	}
	return nil
}

// compact replaces the nodes of whole earlier turns by a summary, inside a
// compaction bracket: the summary user/message's replace cites every node
// it shadows.
func (l *Loop) compact(number int64, c Compact) error {
	var first, last int64 = -1, -1
	for _, t := range c.Turns {
		nodes := l.turnNodes[t]
		if len(nodes) == 0 {
			return fmt.Errorf("compact: turn %d has no nodes to replace", t)
		}
		if first < 0 {
			first = nodes[0]
		}
		last = nodes[len(nodes)-1]
	}
	surface := l.fold.Nodes()
	from, to := slices.Index(surface, first), slices.Index(surface, last)
	if from < 0 || to < from {
		return fmt.Errorf("compact: turns %v are no longer on the surface in order", c.Turns)
	}
	shadowed := surface[from : to+1]
	tokens := 0
	for _, n := range l.fold.Surface()[from : to+1] {
		tokens += len(n.Message.Encode()) / 4
	}
	id := l.ids.Next()
	bracket := obj("compactionId", str(id), "turn", num(number))
	if _, err := l.event("compaction/start", bracket, nil, session.SurfaceOp{}); err != nil {
		return err
	}
	summary := obj(
		"compactionId", str(id),
		"summary", textContent(c.Summary),
		"shadowedRange", obj("start", num(first), "end", num(last)),
		"shadowedSeqs", ints(shadowed),
		"shadowedTokenCount", num(int64(tokens)),
		"provider", str(l.script.Provider),
		"model", str(l.script.Model),
	)
	if _, err := l.event("compaction/summary", summary, nil, session.SurfaceOp{}); err != nil {
		return err
	}
	checkpoint := obj(
		"content", textContent(c.Summary),
		"source", obj("kind", str("compact-checkpoint"), "compactionId", str(id)),
		"role", str("user"),
		"id", str(l.ids.Next()),
	)
	replace := session.SurfaceOp{Kind: session.OpReplace, StartSeq: first, EndSeq: last}
	if _, err := l.event("user/message", checkpoint, slices.Clone(shadowed), replace); err != nil {
		return err
	}
	_, err := l.event("compaction/end", bracket, nil, session.SurfaceOp{})
	return err
}

// obj builds an object from alternating keys and values.
func obj(pairs ...any) jsonv.Value {
	members := make([]jsonv.Member, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		members = append(members, jsonv.M(pairs[i].(string), pairs[i+1].(jsonv.Value)))
	}
	return jsonv.ObjectValue(members...)
}

func str(s string) jsonv.Value { return jsonv.StringValue(s) }

func num(n int64) jsonv.Value { return jsonv.IntValue(n) }

func ints(seqs []int64) jsonv.Value {
	values := make([]jsonv.Value, len(seqs))
	for i, s := range seqs {
		values[i] = jsonv.IntValue(s)
	}
	return jsonv.ArrayValue(values...)
}

// textContent is a content array of one text block.
func textContent(text string) jsonv.Value {
	return jsonv.ArrayValue(obj("type", str("text"), "text", str(text)))
}
