package v4

import (
	"strings"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// toolCalls are the advertised tool calls of the open turn in advertising
// order (dsh's Map, whose first remaining key names an unresolved call).
type toolCalls struct {
	calls map[string]*toolCall
	order []string
}

type toolCall struct {
	name, arguments scalar
	started         bool
}

func (t *toolCalls) has(id string) bool { return t.calls[id] != nil }

func (t *toolCalls) get(id string) *toolCall { return t.calls[id] }

func (t *toolCalls) add(id string, name, arguments scalar) {
	if t.calls == nil {
		t.calls = map[string]*toolCall{}
	}
	t.calls[id] = &toolCall{name: name, arguments: arguments}
	t.order = append(t.order, id)
}

func (t *toolCalls) remove(id string) { delete(t.calls, id) }

func (t *toolCalls) clear() {
	clear(t.calls)
	t.order = t.order[:0]
}

// close refuses a step or turn end that leaves a call unresolved.
func (t *toolCalls) close(typ string) error {
	if len(t.calls) == 0 {
		t.order = t.order[:0]
		return nil
	}
	for _, id := range t.order {
		if t.calls[id] != nil {
			return session.FormatErrorf("%s leaves unresolved tool call %s", typ, id)
		}
	}
	return nil
}

// policyChain identifies one retry policy chain (turn, step, provider and
// policyKey compared with ===); a chain with an object member never matches.
type policyChain struct {
	turn, step, provider, policyKey scalar
}

func (c policyChain) comparable() bool {
	return !c.turn.composite() && !c.step.composite() && !c.provider.composite() && !c.policyKey.composite()
}

type retryAttempt struct {
	id      string
	attempt int64
}

type scheduledRetry struct {
	turn, step scalar
	started    bool
}

// retryChains are the llm/retry attempts scheduled so far.
type retryChains struct {
	scheduled map[retryAttempt]*scheduledRetry // the first schedule of each (retryId, retry)
	last      map[policyChain]retryAttempt     // the last attempt of each chain
	ids       map[string]struct{}              // every retryId scheduled
}

func newRetryChains() retryChains {
	return retryChains{
		scheduled: map[retryAttempt]*scheduledRetry{},
		last:      map[policyChain]retryAttempt{},
		ids:       map[string]struct{}{},
	}
}

// schedule admits an llm/retry: its attempt continues its policy chain
// under one retryId.
func (r *retryChains) schedule(id string, attempt int64, chain policyChain) error {
	prior, hasPrior := r.last[chain]
	hasPrior = hasPrior && chain.comparable()
	want := int64(1)
	if hasPrior {
		want = prior.attempt + 1
	}
	if attempt != want {
		return session.FormatErrorf("llm/retry skips its policy attempt sequence")
	}
	_, idUsed := r.ids[id]
	if (!hasPrior && idUsed) || (hasPrior && prior.id != id) {
		return session.FormatErrorf("llm/retry must keep one retryId per policy chain")
	}
	key := retryAttempt{id, attempt}
	if r.scheduled[key] == nil {
		r.scheduled[key] = &scheduledRetry{turn: chain.turn, step: chain.step}
	}
	if chain.comparable() {
		r.last[chain] = key
	}
	r.ids[id] = struct{}{}
	return nil
}

// start admits an llm/retry-started: it pairs the first scheduled attempt
// with that retryId and number, at the same coordinates, once.
func (r *retryChains) start(id string, attempt int64, turn, step scalar) error {
	s := r.scheduled[retryAttempt{id, attempt}]
	if s == nil {
		return session.FormatErrorf("llm/retry-started pairs no prior scheduled attempt")
	}
	if !s.turn.same(turn) || !s.step.same(step) {
		return session.FormatErrorf("llm/retry-started changes scheduled coordinates")
	}
	if s.started {
		return session.FormatErrorf("llm/retry-started repeats one scheduled attempt")
	}
	s.started = true
	return nil
}

// headerTools summarizes a request header's tools for developer tool
// additions: each object tool with a string name, and whether its
// definition is complete (string description, object parameters).
//
// In dsh's normalized snapshot form the tools may be the placeholder
// "{{tools}}" (unseen: nothing can be checked) or the tool names alone (the
// names are checked; completeness, which needs the schemas, counts as
// given): dsh accepts its own recordings, so a reader without the schemas
// must not refuse on what it cannot see.
type headerTools struct {
	names    []string
	complete []bool
	unseen   bool // the snapshot placeholder "{{tools}}"
}

// lookup returns how many tools carry the name and whether the first is
// complete.
func (h *headerTools) lookup(name string) (matches int, complete bool) {
	if h.unseen {
		return 1, true
	}
	for i, n := range h.names {
		if n == name {
			if matches == 0 {
				complete = h.complete[i]
			}
			matches++
		}
	}
	return matches, complete
}

// shareHeaderTools summarizes tools, sharing one summary between headers
// with equal tool names and completeness.
func (l *lifecycle) shareHeaderTools(tools jsonv.Value) *headerTools {
	var h headerTools
	var shape strings.Builder
	if tools.Kind() == jsonv.String {
		h.unseen = true
		shape.WriteString("{{tools}}")
	}
	for _, tool := range tools.Elements() {
		name, ok := tool.Field("name").Str()
		complete := ok && tool.Field("description").Kind() == jsonv.String && isObject(tool.Field("parameters"))
		if snapshotName, isName := tool.Str(); isName {
			name, ok, complete = snapshotName, true, true // a snapshot names the tool only
		} else if !isObject(tool) {
			ok = false
		}
		if !ok {
			continue
		}
		h.names = append(h.names, name)
		h.complete = append(h.complete, complete)
		shape.Write(jsonv.AppendString(nil, name))
		if complete {
			shape.WriteByte('+')
		}
		shape.WriteByte(',')
	}
	if shared := l.headerShapes[shape.String()]; shared != nil {
		return shared
	}
	l.headerShapes[shape.String()] = &h
	return &h
}
