package v4

import (
	"slices"
	"strings"

	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// The event types dsh's lifecycle relationships interpret.
var (
	surfaceTypes   = typeSet("system/message", "user/message", "developer/message", "assistant/message", "tool/result")
	stepTypes      = typeSet("system/message", "developer/message", "assistant/attempt")
	lifecycleTypes = typeSet(
		"system/message", "user/message", "developer/message", "assistant/message", "tool/result", "assistant/attempt",
		"turn/start", "turn/end", "step/start", "step/end", "tool/call", "request/header", "request/context",
		"tool/ptc-dispatch-start", "tool/ptc-dispatch", "llm/retry", "llm/retry-started", "session/title",
		"session/title-llm-request", "command/run", "command/done", "compaction/start", "compaction/summary",
		"compaction/end", "compaction/prune", "session/end-seed",
	)
)

func typeSet(types ...string) map[string]bool {
	set := make(map[string]bool, len(types))
	for _, t := range types {
		set[t] = true
	}
	return set
}

// The exact text of a not-started repair result.
const notStartedText = "The tool call was interrupted before the Harness recorded it as started. Retry it if it is still needed."

// lifecycle is dsh's assertV4LifecycleRelationships fed one event at a time:
// turns and steps, the surface with its protected system head, advertised
// tool calls, PTC dispatches, retry chains, titles, commands, compaction
// transactions and developer tool additions. An incomplete tail keeps its
// open transactions.
//
// dsh decides in a first pass which compactions are orphaned by a later
// inherited end-seed (a turn may cross those); streaming, a turn that
// crosses an open compaction records the refusal as pending and goes on as
// if the compaction were orphaned, until the next compaction/start,
// compaction/end or session/end-seed (or the end) settles it.
//
// Memory: the current surface, the tool calls of the open turn, every PTC
// sub-call id, the retry chains and command ids, and for later citations the
// seqs of human user messages and commands and the tool names of each
// request header (shared between equal headers).
type lifecycle struct {
	vocab *vocab.Vocabulary
	err   error

	crossErr     error // pending refusal of a turn crossing an open compaction
	crossStart   int64 // start seq of that compaction
	prepassStart int64 // dsh's pre-pass: the last compaction/start not yet closed, or -1

	turn, step         int64 // 0 when none is open (turns and steps count from 1)
	nextTurn, nextStep int64
	provider           scalar
	surface            []int64
	protectedHead      int64 // -1 when none
	compaction         *compaction
	tools              toolCalls
	dispatches         map[string]*dispatch
	retries            retryChains
	commands           map[string]struct{}

	humanUsers     []int64 // seqs of user/message events with a human source
	commandSeqs    []int64 // seqs of command/run and command/done events
	headers        map[int64]*headerTools
	headerShapes   map[string]*headerTools
	unknownHeaders []int64 // request/header seqs outside the vocabulary
}

type compaction struct {
	id         string
	command    scalar
	turn       int64 // 0 for a compaction outside any turn (turn null)
	seq        int64
	summarized bool
}

type dispatch struct {
	root    string
	settled bool
	// Deep-equality keys of the start's parentCallId, name and arguments,
	// dropped once the dispatch settles.
	parent, name, arguments string
}

func newLifecycle(v *vocab.Vocabulary) *lifecycle {
	return &lifecycle{
		vocab:         v,
		prepassStart:  -1,
		nextTurn:      1,
		nextStep:      1,
		protectedHead: -1,
		dispatches:    map[string]*dispatch{},
		retries:       newRetryChains(),
		commands:      map[string]struct{}{},
		headers:       map[int64]*headerTools{},
		headerShapes:  map[string]*headerTools{},
	}
}

// add takes the next event.
func (l *lifecycle) add(ev session.Event) {
	known := l.vocab.Has(ev.Type)
	if known {
		l.prepass(ev)
	}
	if l.err != nil {
		return
	}
	l.remember(ev, known)
	if !known {
		return
	}
	if err := l.accept(ev); err != nil {
		l.err = err
	}
}

// prepass follows dsh's orphan-compaction pre-pass and settles a pending
// crossing refusal.
func (l *lifecycle) prepass(ev session.Event) {
	switch ev.Type {
	case "compaction/start", "compaction/end", "session/end-seed":
	default:
		return
	}
	if l.crossErr != nil && l.prepassStart == l.crossStart {
		if ev.Type != "session/end-seed" {
			l.err = l.crossErr // not orphaned: the crossing was the first refusal
		}
		l.crossErr = nil
	}
	l.prepassStart = -1
	if ev.Type == "compaction/start" {
		l.prepassStart = ev.Seq
	}
}

// finish returns the first refusal.
func (l *lifecycle) finish() error {
	if l.crossErr != nil {
		return l.crossErr
	}
	return l.err
}

func (l *lifecycle) accept(ev session.Event) error {
	if !lifecycleTypes[ev.Type] {
		return nil
	}
	data := ev.Data()
	if !isObject(data) {
		return session.FormatErrorf("%s requires an object", ev.Type)
	}
	if stepTypes[ev.Type] {
		if err := l.requireStep(ev.Type, data); err != nil {
			return err
		}
	}
	if strings.HasPrefix(ev.Type, "turn/") && l.compaction != nil && l.crossErr == nil {
		l.crossErr = session.FormatErrorf("%s crosses an open compaction", ev.Type)
		l.crossStart = l.compaction.seq
	}
	if err := l.foldSurface(ev); err != nil {
		return err
	}
	switch ev.Type {
	case "turn/start":
		if l.turn != 0 || !isNumber(data.Field("turn"), float64(l.nextTurn)) {
			return session.FormatErrorf("turn/start does not open the expected turn")
		}
		l.turn = l.nextTurn
		l.nextStep = 1
		l.tools.clear()
	case "turn/end":
		if l.turn == 0 || !isNumber(data.Field("turn"), float64(l.turn)) || l.step != 0 {
			return session.FormatErrorf("turn/end does not match the open turn with no open step")
		}
		if err := l.tools.close(ev.Type); err != nil {
			return err
		}
		l.turn = 0
		l.nextTurn++
	case "step/start":
		if l.turn == 0 || !isNumber(data.Field("turn"), float64(l.turn)) || l.step != 0 ||
			!isNumber(data.Field("step"), float64(l.nextStep)) {
			return session.FormatErrorf("step/start does not match the open turn and next step")
		}
		l.step = l.nextStep
	case "step/end":
		if err := l.requireStep(ev.Type, data); err != nil {
			return err
		}
		if err := l.tools.close(ev.Type); err != nil {
			return err
		}
		l.step = 0
		l.nextStep++
	case "assistant/message", "tool/call", "tool/result":
		return l.tool(ev, data)
	case "developer/message":
		return l.developer(ev, data)
	case "request/header":
		if err := l.requireTurn(ev.Type); err != nil {
			return err
		}
		header := data.Field("header")
		if err := requireRecord(header, "request header"); err != nil {
			return err
		}
		config := header.Field("config")
		if err := requireRecord(config, "request config"); err != nil {
			return err
		}
		l.provider = member(config, "provider")
	case "request/context":
		return l.requireTurn(ev.Type)
	case "tool/ptc-dispatch-start", "tool/ptc-dispatch":
		return l.dispatch(ev, data)
	case "llm/retry", "llm/retry-started":
		return l.retry(ev, data)
	case "session/title", "session/title-llm-request":
		return l.title(ev, data)
	case "command/run":
		id, err := nonEmpty(data.Field("commandId"), "commandId")
		if err != nil {
			return err
		}
		if _, dup := l.commands[id]; dup {
			return session.FormatErrorf("command/run repeats commandId %s", id)
		}
		l.commands[id] = struct{}{}
	case "command/done":
		return l.commandDone(ev, data)
	case "compaction/start", "compaction/summary", "compaction/end", "compaction/prune":
		return l.compact(ev, data)
	case "user/message":
		source := data.Field("source")
		if err := requireRecord(source, "user message source"); err != nil {
			return err
		}
		if !isString(ev.Row.Field("surfaceOp"), "append") && isString(peek(source, "kind"), "compact-checkpoint") {
			_, err := l.compactionOwner(source, "compaction checkpoint")
			return err
		}
	case "session/end-seed":
		l.compaction = nil
	}
	return nil
}

// remember keeps what later events may cite: human user messages, commands
// and request-header tool definitions.
func (l *lifecycle) remember(ev session.Event, known bool) {
	switch ev.Type {
	case "user/message":
		if known && isString(peek(ev.Data(), "source", "kind"), "user") {
			l.humanUsers = append(l.humanUsers, ev.Seq)
		}
	case "command/run", "command/done":
		l.commandSeqs = append(l.commandSeqs, ev.Seq)
	case "request/header":
		if !known {
			l.unknownHeaders = append(l.unknownHeaders, ev.Seq)
			return
		}
		l.headers[ev.Seq] = l.shareHeaderTools(ev.Data().Field("header").Field("tools"))
	}
}

func (l *lifecycle) requireTurn(typ string) error {
	if l.turn == 0 {
		return session.FormatErrorf("%s is outside an open turn", typ)
	}
	return nil
}

func (l *lifecycle) requireStep(typ string, data jsonv.Value) error {
	if l.turn == 0 || l.step == 0 || !isNumber(data.Field("turn"), float64(l.turn)) || !isNumber(data.Field("step"), float64(l.step)) {
		return session.FormatErrorf("%s does not match an open turn and step", typ)
	}
	return nil
}

func (l *lifecycle) foldSurface(ev session.Event) error {
	if !surfaceTypes[ev.Type] {
		return nil
	}
	if ev.Type == "system/message" && len(l.surface) > 0 && l.protectedHead < 0 {
		return session.FormatErrorf("system/message requires a protected first surface head")
	}
	op := ev.Row.Field("surfaceOp")
	if isString(op, "append") {
		if ev.Type == "system/message" && len(l.surface) == 0 {
			l.protectedHead = ev.Seq
		}
		l.surface = append(l.surface, ev.Seq)
		return nil
	}
	if err := requireRecord(op, ev.Type+" surfaceOp"); err != nil {
		return err
	}
	start, err := earlier(op.Field("startSeq"), ev.Seq, "replacement start")
	if err != nil {
		return err
	}
	first := slices.Index(l.surface, start)
	end, err := earlier(op.Field("endSeq"), ev.Seq, "replacement end")
	if err != nil {
		return err
	}
	last := slices.Index(l.surface, end)
	if first < 0 || last < first {
		return session.FormatErrorf("%s replacement range is not on the current surface", ev.Type)
	}
	removed := l.surface[first : last+1]
	sources, ok := ev.SourceEventSeqs()
	if !ok {
		return session.FormatErrorf("replacement sourceEventSeqs requires an array")
	}
	for _, seq := range removed {
		if !slices.Contains(sources, seq) {
			return session.FormatErrorf("replacement sourceEventSeqs omit a shadowed surface node")
		}
	}
	if l.protectedHead >= 0 && slices.Contains(removed, l.protectedHead) {
		if ev.Type != "system/message" || len(removed) != 1 {
			return session.FormatErrorf("surface replacement cannot shadow the protected system head")
		}
		l.protectedHead = ev.Seq
	}
	l.surface = slices.Replace(l.surface, first, last+1, ev.Seq)
	return nil
}

func (l *lifecycle) tool(ev session.Event, data jsonv.Value) error {
	if ev.Type == "tool/result" && !isString(ev.Row.Field("surfaceOp"), "append") {
		return l.requireTurn(ev.Type)
	}
	if err := l.requireStep(ev.Type, data); err != nil {
		return err
	}
	if ev.Type == "assistant/message" {
		message := data.Field("message")
		if err := requireRecord(message, "assistant message"); err != nil {
			return err
		}
		content := message.Field("content")
		if err := requireArray(content, "assistant content"); err != nil {
			return err
		}
		calls := content.MayHoldString("tool-call")
		for _, block := range content.Elements() {
			if err := requireRecord(block, "assistant content block"); err != nil {
				return err
			}
			if !calls || !isString(tag(block), "tool-call") {
				continue
			}
			id, err := nonEmpty(block.Field("id"), "tool call id")
			if err != nil {
				return err
			}
			if l.tools.has(id) {
				return session.FormatErrorf("assistant/message repeats advertised tool call %s", id)
			}
			l.tools.add(id, member(block, "name"), member(block, "arguments"))
		}
		return nil
	}
	var message jsonv.Value
	idValue := data.Field("callId")
	if ev.Type == "tool/result" {
		message = data.Field("message")
		if err := requireRecord(message, "tool result message"); err != nil {
			return err
		}
		idValue = message.Field("toolCallId")
	}
	id, err := nonEmpty(idValue, "tool call id")
	if err != nil {
		return err
	}
	pending := l.tools.get(id)
	if pending == nil {
		return session.FormatErrorf("%s %s has no advertised tool lifecycle", ev.Type, id)
	}
	if ev.Type == "tool/call" {
		if pending.started || !pending.name.same(member(data, "name")) || !pending.arguments.same(member(data, "arguments")) {
			return session.FormatErrorf("tool/call %s does not match one advertised tool call", id)
		}
		pending.started = true
		return nil
	}
	if !pending.started {
		repair, err := notStartedRepair(ev, data, message, id)
		if err != nil {
			return err
		}
		if !repair {
			return session.FormatErrorf("tool/result %s is not the exact TOOL_NOT_STARTED repair", id)
		}
	}
	l.tools.remove(id)
	return nil
}

// notStartedRepair reports whether a result settling a call that never
// started is one of dsh's exact repair forms: a fork result (its identity
// checked by checkForkResult) or an interrupted-tool-result with the
// canonical text.
func notStartedRepair(ev session.Event, data, message jsonv.Value, callID string) (bool, error) {
	errorValue := data.Field("error")
	if err := requireRecord(errorValue, "not-started error"); err != nil {
		return false, err
	}
	if !isString(errorValue.Field("name"), "ToolNotStartedError") || !isString(errorValue.Field("code"), "TOOL_NOT_STARTED") ||
		!message.Field("isError").IsTrue() || ev.Row.Has("sourceEventSeqs") {
		return false, nil
	}
	id, err := nonEmpty(message.Field("id"), "not-started message id")
	if err != nil {
		return false, err
	}
	if strings.HasPrefix(id, "forked-tool-result-"+callID+"-") {
		return true, nil
	}
	prefix := "interrupted-tool-result-" + callID + "-"
	content := message.Field("content")
	if err := requireArray(content, "not-started content"); err != nil {
		return false, err
	}
	if !strings.HasPrefix(id, prefix) {
		return false, nil
	}
	_, canonical := canonicalDecimal(id[len(prefix):])
	block := content.Index(0)
	return canonical && content.Len() == 1 && isObject(block) && isString(block.Field("type"), "text") &&
		isString(block.Field("text"), notStartedText), nil
}

func (l *lifecycle) developer(ev session.Event, data jsonv.Value) error {
	headerSeqValue, ok := data.Get("headerSeq")
	if !ok {
		return nil
	}
	headerSeq, err := earlier(headerSeqValue, ev.Seq, "developer/message headerSeq")
	if err != nil {
		return err
	}
	tools, isHeader := l.headers[headerSeq]
	if !isHeader {
		if _, unknown := slices.BinarySearch(l.unknownHeaders, headerSeq); unknown {
			return session.FormatErrorf("developer/message headerSeq must reference a known request/header")
		}
		return session.FormatErrorf("developer/message headerSeq must reference an earlier request/header")
	}
	message := data.Field("message")
	if err := requireRecord(message, "developer message"); err != nil {
		return err
	}
	content := message.Field("content")
	if err := requireArray(content, "developer content"); err != nil {
		return err
	}
	for _, block := range content.Elements() {
		if !isObject(block) || !isString(tag(block), "tool-addition") {
			continue
		}
		name := block.Field("toolName").Text()
		matches, complete := tools.lookup(name)
		if matches != 1 {
			return session.FormatErrorf("developer/message tool-addition \"%s\" must name exactly one tool in headerSeq %d", name, headerSeq)
		}
		if !complete {
			return session.FormatErrorf("developer/message tool-addition \"%s\" requires a complete tool definition in headerSeq %d", name, headerSeq)
		}
	}
	return nil
}

func (l *lifecycle) dispatch(ev session.Event, data jsonv.Value) error {
	if err := l.requireTurn(ev.Type); err != nil {
		return err
	}
	id, err := nonEmpty(data.Field("subCallId"), "PTC subCallId")
	if err != nil {
		return err
	}
	root, err := nonEmpty(data.Field("rootCallId"), "PTC rootCallId")
	if err != nil {
		return err
	}
	parent, err := nonEmpty(data.Field("parentCallId"), "PTC parentCallId")
	if err != nil {
		return err
	}
	existing := l.dispatches[id]
	if existing != nil && existing.root != root {
		return session.FormatErrorf("PTC dispatch changes its rootCallId")
	}
	if parent != root {
		if p := l.dispatches[parent]; p == nil || p.root != root {
			return session.FormatErrorf("PTC parentCallId does not belong to rootCallId")
		}
	}
	name := deepKey(data.Get("name"))
	arguments := deepKey(data.Get("arguments"))
	parentKey := deepKey(data.Get("parentCallId"))
	if ev.Type == "tool/ptc-dispatch-start" {
		if existing != nil {
			return session.FormatErrorf("PTC dispatch repeats subCallId")
		}
		l.dispatches[id] = &dispatch{root: root, parent: parentKey, name: name, arguments: arguments}
		return nil
	}
	if existing == nil || existing.settled {
		return session.FormatErrorf("PTC dispatch has no unique start")
	}
	if existing.parent != parentKey || existing.name != name || existing.arguments != arguments {
		return session.FormatErrorf("PTC dispatch does not match its start")
	}
	*existing = dispatch{root: root, settled: true}
	return nil
}

func (l *lifecycle) retry(ev session.Event, data jsonv.Value) error {
	id, err := nonEmpty(data.Field("retryId"), "retryId")
	if err != nil {
		return err
	}
	attempt, err := jsform.Count(data.Field("retry"), "retry")
	if err != nil {
		return err
	}
	turn, step := member(data, "turn"), member(data, "step")
	if ev.Type == "llm/retry-started" {
		return l.retries.start(id, attempt, turn, step)
	}
	currentStep := l.step
	if currentStep == 0 {
		currentStep = l.nextStep - 1
	}
	if l.turn == 0 || !isNumber(data.Field("turn"), float64(l.turn)) || !isNumber(data.Field("step"), float64(currentStep)) {
		return session.FormatErrorf("llm/retry does not match the current turn and step")
	}
	provider := member(data, "provider")
	if !provider.same(l.provider) {
		return session.FormatErrorf("llm/retry provider does not match the open request/header")
	}
	return l.retries.schedule(id, attempt, policyChain{turn, step, provider, member(data, "policyKey")})
}

func (l *lifecycle) title(ev session.Event, data jsonv.Value) error {
	references := data.Field("messageSeqs")
	if err := requireArray(references, "title messageSeqs"); err != nil {
		return err
	}
	if ev.Type == "session/title" {
		source := data.Field("source")
		if err := requireRecord(source, "title source"); err != nil {
			return err
		}
		if (references.Len() == 0) != isString(peek(source, "kind"), "user") {
			return session.FormatErrorf("session/title messageSeqs must be empty exactly for a user title")
		}
	}
	seen := make(map[int64]struct{}, references.Len())
	for _, value := range references.Elements() {
		seq, err := earlier(value, ev.Seq, "title messageSeqs")
		if err != nil {
			return err
		}
		_, repeated := seen[seq]
		if _, human := slices.BinarySearch(l.humanUsers, seq); repeated || !human {
			return session.FormatErrorf("%s messageSeqs must cite distinct earlier human user/message events", ev.Type)
		}
		seen[seq] = struct{}{}
	}
	if ev.Type != "session/title-llm-request" {
		return nil
	}
	messages := data.Field("messages")
	if err := requireArray(messages, "title messages"); err != nil {
		return err
	}
	message := messages.Index(0)
	if err := requireRecord(message, "title message"); err != nil {
		return err
	}
	content := message.Field("content")
	if err := requireArray(content, "title content"); err != nil {
		return err
	}
	source := message.Field("source")
	if references.Len() == 0 || messages.Len() != 1 || !isString(message.Field("role"), "user") {
		return errTitleMessages
	}
	if err := requireRecord(source, "title source"); err != nil {
		return err
	}
	block := content.Index(0)
	if !isString(source.Field("kind"), "dsh-session-title-llm") || content.Len() != 1 ||
		!isObject(block) || !isString(block.Field("type"), "text") {
		return errTitleMessages
	}
	return nil
}

var errTitleMessages = session.FormatErrorf("session/title-llm-request messages do not represent messageSeqs")

func (l *lifecycle) commandDone(ev session.Event, data jsonv.Value) error {
	id, err := nonEmpty(data.Field("commandId"), "commandId")
	if err != nil {
		return err
	}
	if _, ok := l.commands[id]; !ok {
		return session.FormatErrorf("command/done has no prior command/run")
	}
	value, ok := data.Get("sourceEventSeq")
	if !ok {
		return nil
	}
	seq, err := earlier(value, ev.Seq, "command sourceEventSeq")
	if err != nil {
		return err
	}
	if _, isCommand := slices.BinarySearch(l.commandSeqs, seq); !isString(data.Field("kind"), "success") || isCommand {
		return session.FormatErrorf("command/done has invalid sourceEventSeq")
	}
	return nil
}

func (l *lifecycle) compact(ev session.Event, data jsonv.Value) error {
	if ev.Type == "compaction/prune" || ev.Type == "compaction/summary" {
		if err := l.span(ev, data); err != nil {
			return err
		}
	}
	switch ev.Type {
	case "compaction/prune":
		return nil
	case "compaction/start":
		if l.compaction != nil {
			return session.FormatErrorf("compaction/start overlaps an open compaction")
		}
		var owner int64
		if turn := data.Field("turn"); !turn.IsNull() || !data.Has("turn") {
			n, err := jsform.Count(turn, "compaction turn")
			if err != nil {
				return err
			}
			if n == 0 {
				// dsh compares the count with its open turn, which is never 0.
				return session.FormatErrorf("compaction/start does not match the open turn")
			}
			owner = n
		}
		if owner != l.turn {
			return session.FormatErrorf("compaction/start does not match the open turn")
		}
		id, err := nonEmpty(data.Field("compactionId"), "compactionId")
		if err != nil {
			return err
		}
		l.compaction = &compaction{id: id, command: member(data, "sourceCommandId"), turn: owner, seq: ev.Seq}
		return nil
	}
	current, err := l.compactionOwner(data, ev.Type)
	if err != nil {
		return err
	}
	if current.turn != l.turn {
		return session.FormatErrorf("%s does not match the open turn", ev.Type)
	}
	if ev.Type == "compaction/summary" {
		if current.summarized {
			return session.FormatErrorf("compaction/summary repeats")
		}
		current.summarized = true
		return nil
	}
	if !sameTurn(data, current.turn) {
		return session.FormatErrorf("compaction/end changes its owner turn")
	}
	if !data.Has("error") && !current.summarized {
		return session.FormatErrorf("successful compaction/end requires one summary")
	}
	l.compaction = nil
	return nil
}

// sameTurn is data.turn === turn for a compaction owner (0 standing for null).
func sameTurn(data jsonv.Value, turn int64) bool {
	if turn == 0 {
		return data.Has("turn") && data.Field("turn").IsNull()
	}
	return isNumber(data.Field("turn"), float64(turn))
}

func (l *lifecycle) compactionOwner(data jsonv.Value, subject string) (*compaction, error) {
	c := l.compaction
	if c == nil || !isString(data.Field("compactionId"), c.id) || !c.command.same(member(data, "sourceCommandId")) {
		return nil, session.FormatErrorf("%s has no matching compaction/start", subject)
	}
	return c, nil
}

func (l *lifecycle) span(ev session.Event, data jsonv.Value) error {
	shadowed := data.Field("shadowedRange")
	if err := requireRecord(shadowed, "compaction shadowedRange"); err != nil {
		return err
	}
	startSeq, err := earlier(shadowed.Field("start"), ev.Seq, "compaction range start")
	if err != nil {
		return err
	}
	start := slices.Index(l.surface, startSeq)
	endSeq, err := earlier(shadowed.Field("end"), ev.Seq, "compaction range end")
	if err != nil {
		return err
	}
	end := slices.Index(l.surface, endSeq)
	seqs := data.Field("shadowedSeqs")
	if err := requireArray(seqs, "compaction shadowedSeqs"); err != nil {
		return err
	}
	if start < 0 || end < start || !sameSeqs(l.surface[start:end+1], seqs) {
		return session.FormatErrorf("%s shadowedSeqs do not name an exact current surface span", ev.Type)
	}
	if l.protectedHead >= 0 {
		for _, s := range seqs.Elements() {
			if isNumber(s, float64(l.protectedHead)) {
				return session.FormatErrorf("compaction cannot shadow the protected system head")
			}
		}
	}
	return nil
}

// sameSeqs is isDeepStrictEqual between a surface span and a JSON list.
func sameSeqs(span []int64, seqs jsonv.Value) bool {
	if len(span) != seqs.Len() {
		return false
	}
	for i, s := range seqs.Elements() {
		if !isNumber(s, float64(span[i])) || s.IsNegZero() {
			return false
		}
	}
	return true
}

func requireRecord(v jsonv.Value, subject string) error {
	if !isObject(v) {
		return session.FormatErrorf("%s requires an object", subject)
	}
	return nil
}

func requireArray(v jsonv.Value, subject string) error {
	if v.Kind() != jsonv.Array {
		return session.FormatErrorf("%s requires an array", subject)
	}
	return nil
}

func nonEmpty(v jsonv.Value, subject string) (string, error) {
	s, ok := v.Str()
	if !ok || s == "" {
		return "", session.FormatErrorf("%s requires a nonempty string", subject)
	}
	return s, nil
}

// earlier requires a count naming an event before seq.
func earlier(v jsonv.Value, seq int64, subject string) (int64, error) {
	n, err := jsform.Count(v, subject)
	if err != nil {
		return 0, err
	}
	if n >= seq {
		return 0, session.FormatErrorf("%s must name an earlier event", subject)
	}
	return n, nil
}
