package v3

import (
	"unicode/utf16"

	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// toolNotStartedText is the exact content of a TOOL_NOT_STARTED repair.
const toolNotStartedText = "The tool call was interrupted before the Harness recorded it as started. Retry it if it is still needed."

// relations is dsh's assertReleasedArtifactRelationships over the
// relationship view of a v3 artifact, with the extensions v2 and v3 give
// it: assistant/attempt must sit in an open step, and a title request's
// framed text is not compared. dsh walks the finished artifact; relations
// walks it as it streams, so a check that needs a later event (a reference
// to a later seq, whether an open compaction was abandoned by a seed, the
// inherited cut for delivery markers) is kept pending with its position and
// decided when that event or Finish arrives. The earliest failure by
// position is dsh's refusal; after an immediate failure only the facts that
// pending checks may need are still recorded.
//
// A payload that dsh's JavaScript cannot even read (a property of null, a
// non-iterable list) is refused with class TypeError; only the fact of that
// refusal, not its wording, is dsh's.
type relations struct {
	header session.Header
	keys   keyer

	openTurn, openStep, provider jsValue
	nextTurn, nextStep           float64
	surface                      []int64
	compaction                   *compaction
	retries                      []retry
	retryStarts                  map[string]bool
	ptcRoots                     map[string]jsValue
	ptcStarts                    map[string]*ptcStart
	tools                        toolCalls
	commandRuns                  map[string]bool

	humans   map[int64]titleFact // verdict of every user/message as a title source
	commands map[int64]bool      // seqs of command/run and command/done events

	first      *failure
	pending    []reference
	crossing   *failure // a turn boundary crossing an open compaction, unless a seed abandons it
	deliveries []int64  // delivery markers naming another session, fine only if inherited
}

type failure struct {
	pos   int64
	order int
	err   error
}

// reference is a title or command check waiting for the event at seq.
type reference struct {
	at      failure // where it fails; err is filled in when decided
	seq     int64
	title   bool
	citedBy string // "<type> <seq>" of a citing title event
}

type compaction struct {
	id, sourceCommandID, turn jsValue
	startSeq                  int64
	summarized                bool
}

type retry struct{ turn, step, provider, policyKey, retryID, retry jsValue }

type ptcStart struct {
	root, parent, name, arguments jsValue
	settled                       bool
}

// toolCalls is the insertion-ordered map of the open step's tool calls.
type toolCalls struct {
	order []string
	calls map[string]*toolCall
}

type toolCall struct {
	id, name, arguments jsValue
	started             bool
}

// titleFact says how a user/message serves as a cited title source.
type titleFact int

const (
	humanSource     titleFact = iota // a human user message with readable content
	notHuman                         // another source kind
	dataNotObject                    // data is not an object
	sourceNotObject                  // data.source is not an object
	unreadable                       // content is not a list of values
)

func newRelations(h session.Header) *relations {
	return &relations{
		header:      h,
		openTurn:    jsNull,
		openStep:    jsNull,
		nextTurn:    1,
		nextStep:    1,
		retryStarts: map[string]bool{},
		ptcRoots:    map[string]jsValue{},
		ptcStarts:   map[string]*ptcStart{},
		tools:       toolCalls{calls: map[string]*toolCall{}},
		commandRuns: map[string]bool{},
		humans:      map[int64]titleFact{},
		commands:    map[int64]bool{},
	}
}

func typeError(format string, args ...any) error {
	r := session.FormatErrorf(format, args...)
	r.Class = "TypeError"
	return r
}

// fail records a failure at (pos, order) if it is the earliest so far.
func (r *relations) fail(pos int64, order int, err error) {
	if r.first == nil || pos < r.first.pos || (pos == r.first.pos && order < r.first.order) {
		r.first = &failure{pos, order, err}
	}
}

// add takes the relationship view of the event at seq.
func (r *relations) add(view jsonv.Value, seq int64) {
	typ := view.Field("type").Text()
	r.recordFacts(view, typ, seq)
	if r.first != nil {
		return
	}
	if err := r.check(view, typ, seq); err != nil {
		r.fail(seq, 0, err)
	}
}

// recordFacts keeps what later references may cite and decides the
// pending checks this event settles.
func (r *relations) recordFacts(view jsonv.Value, typ string, seq int64) {
	switch typ {
	case "user/message":
		r.humans[seq] = titleSource(view.Field("data"))
	case "command/run", "command/done":
		r.commands[seq] = true
	case "compaction/start", "compaction/end":
		if r.crossing != nil {
			r.fail(r.crossing.pos, r.crossing.order, r.crossing.err)
			r.crossing = nil
		}
	case "session/end-seed":
		r.crossing = nil // the open compaction was inherited and abandoned
	}
	kept := r.pending[:0]
	for _, ref := range r.pending {
		if ref.seq != seq {
			kept = append(kept, ref)
			continue
		}
		r.decide(ref, typ)
	}
	r.pending = kept
}

// decide settles a reference to an event of type typ ("" if none).
func (r *relations) decide(ref reference, typ string) {
	if !ref.title {
		if typ == "command/run" || typ == "command/done" {
			r.fail(ref.at.pos, ref.at.order, ref.at.err)
		}
		return
	}
	fact := notHuman
	if typ == "user/message" {
		fact = r.humans[ref.seq]
	}
	if err := citeError(fact, ref.citedBy, ref.seq); err != nil {
		r.fail(ref.at.pos, ref.at.order, err)
	}
}

func citeError(fact titleFact, citedBy string, seq int64) error {
	switch fact {
	case notHuman:
		return session.FormatErrorf("%s messageSeqs must cite earlier human user/message events", citedBy)
	case dataNotObject:
		return session.FormatErrorf("user/message %d data must be a JSON object", seq)
	case sourceNotObject:
		return session.FormatErrorf("user/message %d source must be a JSON object", seq)
	case unreadable:
		return typeError("user/message %d content cannot be read as a list of blocks", seq)
	}
	return nil
}

func titleSource(data jsonv.Value) titleFact {
	if data.Kind() != jsonv.Object {
		return dataNotObject
	}
	source := data.Field("source")
	if source.Kind() != jsonv.Object {
		return sourceNotObject
	}
	if source.Field("kind").Text() != "user" {
		return notHuman
	}
	content, ok := data.Get("content")
	if !ok || content.Kind() != jsonv.Array {
		return unreadable
	}
	for _, block := range content.Elements() {
		if block.IsNull() {
			return unreadable
		}
	}
	return humanSource
}

// finish decides what only the end of the artifact decides and returns the
// earliest failure.
func (r *relations) finish(cut int64) error {
	for _, ref := range r.pending {
		r.decide(ref, "")
	}
	r.pending = nil
	if r.crossing != nil {
		r.fail(r.crossing.pos, r.crossing.order, r.crossing.err)
	}
	for _, pos := range r.deliveries {
		if r.header.ParentSession == nil || pos >= cut {
			r.fail(pos, 0, session.FormatErrorf("current-generation delivery marker names the wrong Session"))
			break
		}
	}
	if r.first != nil {
		return r.first.err
	}
	return nil
}

// check runs the relationship rules for one event.
func (r *relations) check(view jsonv.Value, typ string, seq int64) error {
	stepEvent := typ == "assistant/attempt"
	if _, known := v2.V0Disposition(typ); !known && !stepEvent {
		return nil
	}
	label := typ + " " + itoa(seq)
	data, ok := view.Get("data")
	if !ok || data.Kind() != jsonv.Object {
		return session.FormatErrorf("%s data must be a JSON object", label)
	}
	if typ == "user/message" || typ == "assistant/message" || typ == "tool/result" {
		if err := r.applySurface(view, typ, seq); err != nil {
			return err
		}
	}
	if (typ == "turn/start" || typ == "turn/end") && r.compaction != nil && r.crossing == nil {
		r.crossing = &failure{seq, 0, session.FormatErrorf("%s crosses an open compaction", typ)}
	}
	if stepEvent {
		return r.requireOpenStep(typ, data)
	}
	f := func(key string) jsValue { return member(data, key) }
	switch typ {
	case "turn/start":
		if !r.openTurn.isNull() || !f("turn").is(jsValue{jsonv.NumberValue(r.nextTurn), true}) {
			return session.FormatErrorf("turn/start %s does not open expected turn %s", f("turn").stringify(), jsonv.NumberValue(r.nextTurn))
		}
		r.openTurn, r.openStep = f("turn"), jsNull
		r.tools.clear()
		r.nextStep = 1
	case "turn/end":
		if !r.openTurn.is(f("turn")) {
			return session.FormatErrorf("turn/end %s has no matching open turn", f("turn").stringify())
		}
		if err := r.tools.unresolved("turn/end"); err != nil {
			return err
		}
		if !r.openStep.isNull() {
			return session.FormatErrorf("turn/end %s crosses an open step", f("turn").stringify())
		}
		r.openTurn = jsNull
		r.nextTurn++
	case "step/start":
		if !r.openTurn.is(f("turn")) || !r.openStep.isNull() || !f("step").is(jsValue{jsonv.NumberValue(r.nextStep), true}) {
			return session.FormatErrorf("step/start does not match the open turn and next step")
		}
		r.openStep = f("step")
	case "step/end":
		if err := r.requireOpenStep(typ, data); err != nil {
			return err
		}
		if err := r.tools.unresolved("step/end"); err != nil {
			return err
		}
		r.tools.clear()
		r.openStep = jsNull
		r.nextStep++
	case "assistant/chunk":
		return r.requireOpenStep(typ, data)
	case "assistant/message":
		return r.advertise(data, label)
	case "tool/call":
		if err := r.requireOpenStep(typ, data); err != nil {
			return err
		}
		call := r.tools.get(&r.keys, f("callId"))
		if call == nil || call.started || !call.name.is(f("name")) || !call.arguments.is(f("arguments")) {
			return session.FormatErrorf("tool/call %s does not match one advertised tool call", f("callId").text())
		}
		call.started = true
	case "tool/result":
		return r.settleTool(view, data, label)
	case "request/header":
		if r.openTurn.isNull() {
			return session.FormatErrorf("request/header is outside an open turn")
		}
		header := f("header")
		if header.isNullish() {
			return typeError("Cannot read properties of %s (reading 'config')", header.stringify())
		}
		config := member(header.v, "config")
		if config.isNullish() {
			return typeError("Cannot read properties of %s (reading 'provider')", config.stringify())
		}
		r.provider = member(config.v, "provider")
	case "request/context":
		if r.openTurn.isNull() {
			return session.FormatErrorf("request/context is outside an open turn")
		}
	case "tool/code-dispatch-start", "tool/code-dispatch":
		return r.dispatch(typ, data)
	case "llm/retry":
		if err := r.requireOpenStep(typ, data); err != nil {
			return err
		}
		if !f("provider").is(r.provider) {
			return session.FormatErrorf("llm/retry provider does not match the open request/header")
		}
		if err := r.checkRetryChain(data); err != nil {
			return err
		}
		r.retries = append(r.retries, retry{f("turn"), f("step"), f("provider"), f("policyKey"), f("retryId"), f("retry")})
	case "llm/retry-started":
		return r.startRetry(data)
	case "session/title", "session/title-llm-request":
		return r.checkTitle(typ, data, seq, label)
	case "command/run":
		id := f("commandId")
		if k := r.keys.key(id); r.commandRuns[k] {
			return session.FormatErrorf("command/run repeats commandId %s", id.text())
		} else {
			r.commandRuns[k] = true
		}
	case "command/done":
		return r.commandDone(data, seq)
	case "session-log-deepseek/delivery-accepted":
		accepted := f("sessionFormatVersion")
		if accepted.isNullish() {
			accepted = jsNumber(0)
		}
		if accepted.is(jsNumber(int64(Version))) {
			if id, ok := f("sessionId").str(); !ok || id != r.header.ID {
				r.deliveries = append(r.deliveries, seq)
			}
		}
	case "compaction/start":
		if r.compaction != nil {
			return session.FormatErrorf("compaction/start overlaps an open compaction")
		}
		if err := r.compactionTurn(f("turn"), "compaction/start"); err != nil {
			return err
		}
		r.compaction = &compaction{id: f("compactionId"), sourceCommandID: f("sourceCommandId"), turn: f("turn"), startSeq: seq}
	case "compaction/summary":
		if err := r.compactionOwner(data, typ); err != nil {
			return err
		}
		if err := r.compactionTurn(r.compaction.turn, typ); err != nil {
			return err
		}
		if r.compaction.summarized {
			return session.FormatErrorf("compaction/summary repeats")
		}
		if err := r.surfaceSpan(data, typ); err != nil {
			return err
		}
		r.compaction.summarized = true
	case "compaction/end":
		if err := r.compactionOwner(data, typ); err != nil {
			return err
		}
		if !f("turn").is(r.compaction.turn) {
			return session.FormatErrorf("compaction/end changes its owner turn")
		}
		if err := r.compactionTurn(r.compaction.turn, typ); err != nil {
			return err
		}
		if !data.Has("error") && !r.compaction.summarized {
			return session.FormatErrorf("successful compaction/end requires one summary")
		}
		r.compaction = nil
	case "compaction/prune":
		return r.surfaceSpan(data, typ)
	case "user/message":
		source := data.Field("source")
		if source.Kind() != jsonv.Object {
			return session.FormatErrorf("user/message %d source must be a JSON object", seq)
		}
		if view.Field("surfaceOp").Text() != "append" && source.Field("kind").Text() == "plugin" && source.Field("plugin").Text() == "compact" {
			return r.compactionOwner(source, "compaction checkpoint at seq "+itoa(seq))
		}
	case "session/end-seed":
		r.compaction = nil
	}
	return nil
}

func (r *relations) requireOpenStep(typ string, data jsonv.Value) error {
	if !member(data, "turn").is(r.openTurn) || !member(data, "step").is(r.openStep) || r.openTurn.isNull() || r.openStep.isNull() {
		return session.FormatErrorf("%s does not match an open turn and step", typ)
	}
	return nil
}

// advertise registers the tool calls an assistant message advertises.
func (r *relations) advertise(data jsonv.Value, label string) error {
	if err := r.requireOpenStep("assistant/message", data); err != nil {
		return err
	}
	message := data.Field("message")
	if message.Kind() != jsonv.Object {
		return session.FormatErrorf("%s message must be a JSON object", label)
	}
	content := member(message, "content")
	if content.defined && content.v.Kind() == jsonv.String {
		return nil // iterating a string yields characters, never a tool call
	}
	if !content.defined || content.v.Kind() != jsonv.Array {
		return typeError("message content is not iterable")
	}
	for _, block := range content.v.Elements() {
		if block.IsNull() {
			return typeError("Cannot read properties of null (reading 'type')")
		}
		if block.Field("type").Text() != "tool-call" {
			continue
		}
		id := member(block, "id")
		if r.tools.get(&r.keys, id) != nil {
			return session.FormatErrorf("assistant/message repeats advertised tool call %s", id.text())
		}
		r.tools.add(&r.keys, &toolCall{id: id, name: member(block, "name"), arguments: member(block, "arguments")})
	}
	return nil
}

// settleTool checks a tool result against the step's advertised calls.
func (r *relations) settleTool(view, data jsonv.Value, label string) error {
	if view.Field("surfaceOp").Text() != "append" {
		if r.openTurn.isNull() {
			return session.FormatErrorf("tool/result replacement is outside an open turn")
		}
		return nil
	}
	if err := r.requireOpenStep("tool/result", data); err != nil {
		return err
	}
	message := data.Field("message")
	if message.Kind() != jsonv.Object {
		return session.FormatErrorf("%s message must be a JSON object", label)
	}
	source := message.Field("source")
	if source.Kind() != jsonv.Object {
		return session.FormatErrorf("%s source must be a JSON object", label)
	}
	e := member(data, "error")
	if e.defined && e.v.Kind() != jsonv.Object {
		return session.FormatErrorf("%s error must be a JSON object", label)
	}
	callID := member(source, "callId")
	call := r.tools.get(&r.keys, callID)
	if call == nil {
		return session.FormatErrorf("tool/result %s has no advertised tool lifecycle", callID.text())
	}
	if !call.started {
		exact, err := exactRepair(view, message, e)
		if err != nil {
			return err
		}
		if !exact {
			return session.FormatErrorf("tool/result %s is not the exact TOOL_NOT_STARTED repair", callID.text())
		}
	}
	r.tools.remove(&r.keys, callID)
	return nil
}

// exactRepair reports whether a result settles an advertised, never started
// call with dsh's exact TOOL_NOT_STARTED repair.
func exactRepair(view, message jsonv.Value, e jsValue) (bool, error) {
	content := member(message, "content")
	if content.isNullish() {
		return false, typeError("Cannot read properties of %s (reading '0')", content.stringify())
	}
	if !e.defined || e.v.Field("name").Text() != "ToolNotStartedError" || e.v.Field("code").Text() != "TOOL_NOT_STARTED" || view.Has("sourceEventSeqs") {
		return false, nil
	}
	callID := member(message.Field("source"), "callId")
	if id, ok := message.Field("id").Str(); !ok || id != "interrupted-tool-result-"+callID.text()+"-"+view.Field("seq").String() {
		return false, nil
	}
	if content.v.Kind() != jsonv.Array {
		return false, nil
	}
	block := content.v.Index(0)
	repair := block.Field("content")
	return block.Field("isError").IsTrue() && repair.Kind() == jsonv.Array && repair.Len() == 1 &&
		repair.Index(0).Field("type").Text() == "text" && repair.Index(0).Field("text").Text() == toolNotStartedText, nil
}

// dispatch checks a PTC dispatch start or settlement.
func (r *relations) dispatch(typ string, data jsonv.Value) error {
	if r.openTurn.isNull() {
		return session.FormatErrorf("%s is outside an open turn", typ)
	}
	f := func(key string) jsValue { return member(data, key) }
	root, parent, child := f("rootCallId"), f("parentCallId"), f("subCallId")
	childKey := r.keys.key(child)
	if known, ok := r.ptcRoots[childKey]; ok && known.defined && !known.is(root) {
		return session.FormatErrorf("%s changes its rootCallId", typ)
	}
	if !parent.is(root) {
		if known, ok := r.ptcRoots[r.keys.key(parent)]; !ok || !known.is(root) {
			return session.FormatErrorf("%s parentCallId does not belong to rootCallId", typ)
		}
	}
	if typ == "tool/code-dispatch-start" {
		if r.ptcStarts[childKey] != nil {
			return session.FormatErrorf("tool/code-dispatch-start repeats subCallId")
		}
		r.ptcStarts[childKey] = &ptcStart{root: root, parent: parent, name: f("name"), arguments: f("arguments")}
	} else {
		start := r.ptcStarts[childKey]
		if start == nil || start.settled {
			return session.FormatErrorf("tool/code-dispatch has no unique start")
		}
		if !start.root.is(root) || !start.parent.is(parent) || !start.name.is(f("name")) || !deepEqual(start.arguments, f("arguments")) {
			return session.FormatErrorf("tool/code-dispatch does not match its start")
		}
		start.settled = true
	}
	r.ptcRoots[childKey] = root
	return nil
}

func (r *relations) checkRetryChain(data jsonv.Value) error {
	f := func(key string) jsValue { return member(data, key) }
	var prior *retry
	for i := len(r.retries) - 1; i >= 0; i-- {
		c := &r.retries[i]
		if c.turn.is(f("turn")) && c.step.is(f("step")) && c.provider.is(f("provider")) && c.policyKey.is(f("policyKey")) {
			prior = c
			break
		}
	}
	last := jsNumber(0)
	if prior != nil && !prior.retry.isNullish() {
		last = prior.retry
	}
	expected := plusOne(last)
	if !f("retry").is(expected) {
		return session.FormatErrorf("llm/retry must use retry %s", expected.text())
	}
	if prior != nil && !prior.retryID.is(f("retryId")) {
		return session.FormatErrorf("llm/retry must preserve retryId across one policy chain")
	}
	if prior == nil {
		for _, c := range r.retries {
			if c.retryID.is(f("retryId")) {
				return session.FormatErrorf("llm/retry reuses retryId %s across policy chains", f("retryId").stringify())
			}
		}
	}
	return nil
}

// plusOne is JavaScript's v + 1 for a JSON value.
func plusOne(v jsValue) jsValue {
	switch v.v.Kind() {
	case jsonv.Number:
		n, _ := v.v.Number()
		return jsValue{jsonv.NumberValue(n + 1), true}
	case jsonv.Bool:
		if v.v.IsTrue() {
			return jsNumber(2)
		}
		return jsNumber(1)
	}
	return jsValue{jsonv.StringValue(v.text() + "1"), true}
}

func (r *relations) startRetry(data jsonv.Value) error {
	f := func(key string) jsValue { return member(data, key) }
	var scheduled *retry
	for i := range r.retries {
		if r.retries[i].retryID.is(f("retryId")) && r.retries[i].retry.is(f("retry")) {
			scheduled = &r.retries[i]
			break
		}
	}
	if scheduled == nil {
		return session.FormatErrorf("llm/retry-started pairs no prior scheduled attempt")
	}
	if !scheduled.turn.is(f("turn")) || !scheduled.step.is(f("step")) {
		return session.FormatErrorf("llm/retry-started does not match its scheduled turn and step")
	}
	key := f("retryId").stringify() + "\x00" + f("retry").stringify()
	if r.retryStarts[key] {
		return session.FormatErrorf("llm/retry-started repeats one scheduled attempt")
	}
	r.retryStarts[key] = true
	return nil
}

// checkTitle checks the cited sources of a title or title request; a
// citation of a later event waits for it.
func (r *relations) checkTitle(typ string, data jsonv.Value, seq int64, label string) error {
	seqs := member(data, "messageSeqs")
	if typ == "session/title" {
		source := data.Field("source")
		if source.Kind() != jsonv.Object {
			return session.FormatErrorf("session/title %d source must be a JSON object", seq)
		}
		if seqs.isNullish() {
			return typeError("Cannot read properties of %s (reading 'length')", seqs.stringify())
		}
		if (jsLength(seqs) == 0) != (source.Field("kind").Text() == "user") {
			return session.FormatErrorf("session/title %d messageSeqs must be empty exactly for a user title", seq)
		}
	}
	cited, ok := iterate(seqs)
	if !ok {
		return typeError("messageSeqs is not iterable")
	}
	for i, c := range cited {
		at := failure{pos: seq, order: i + 1}
		target, ok := index(c)
		switch {
		case !ok:
			r.fail(seq, i+1, session.FormatErrorf("%s messageSeqs must cite earlier human user/message events", label))
			return nil
		case target > seq:
			r.pending = append(r.pending, reference{at: at, seq: target, title: true, citedBy: label})
			continue
		}
		fact, isUser := r.humans[target]
		if !isUser {
			fact = notHuman
		}
		if err := citeError(fact, label, target); err != nil {
			r.fail(seq, i+1, err)
			return nil
		}
	}
	if typ != "session/title-llm-request" {
		return nil
	}
	order := len(cited) + 1
	messages := member(data, "messages")
	if messages.isNullish() {
		r.fail(seq, order, typeError("Cannot read properties of %s (reading '0')", messages.stringify()))
		return nil
	}
	first := elementAt(messages, 0)
	var source jsValue
	if first.defined {
		if first.isNull() {
			r.fail(seq, order, typeError("Cannot read properties of null (reading 'source')"))
			return nil
		}
		if source = member(first.v, "source"); !source.defined || source.v.Kind() != jsonv.Object {
			r.fail(seq, order, session.FormatErrorf("session/title-llm-request message source must be a JSON object"))
			return nil
		}
	}
	content := member(first.v, "content")
	framed := elementAt(content, 0)
	if jsLength(messages) != 1 || !first.defined || member(first.v, "role").text() != "user" || jsLength(content) != 1 || source.v.Field("kind").Text() != "plugin" ||
		source.v.Field("plugin").Text() != "dsh-session-title-llm" ||
		!framed.defined || framed.v.Field("type").Text() != "text" {
		r.fail(seq, order, session.FormatErrorf("session/title-llm-request messages do not represent messageSeqs"))
	}
	return nil
}

func (r *relations) commandDone(data jsonv.Value, seq int64) error {
	id := member(data, "commandId")
	if !r.commandRuns[r.keys.key(id)] {
		return session.FormatErrorf("command/done %s has no prior command/run", id.text())
	}
	source := member(data, "sourceEventSeq")
	if !source.defined {
		return nil
	}
	invalid := session.FormatErrorf("command/done %s has invalid sourceEventSeq", id.text())
	if data.Field("kind").Text() != "success" {
		return invalid
	}
	target, ok := index(source)
	switch {
	case !ok:
	case target > seq:
		r.pending = append(r.pending, reference{at: failure{pos: seq, err: invalid}, seq: target})
	case r.commands[target]:
		return invalid
	}
	return nil
}

func (r *relations) compactionOwner(data jsonv.Value, subject string) error {
	c := r.compaction
	if c == nil || !member(data, "compactionId").is(c.id) || !member(data, "sourceCommandId").is(c.sourceCommandID) {
		return session.FormatErrorf("%s has no matching compaction/start", subject)
	}
	return nil
}

func (r *relations) compactionTurn(owner jsValue, typ string) error {
	mismatch := !owner.is(r.openTurn)
	if owner.isNull() {
		mismatch = !r.openTurn.isNull()
	}
	if mismatch {
		return session.FormatErrorf("%s does not match the open turn", typ)
	}
	return nil
}

// surfaceSpan requires shadowedSeqs to name exactly a span of the current
// surface from shadowedRange.start to shadowedRange.end.
func (r *relations) surfaceSpan(data jsonv.Value, typ string) error {
	rng := member(data, "shadowedRange")
	if rng.isNullish() {
		return typeError("Cannot read properties of %s (reading 'start')", rng.stringify())
	}
	start, end := r.surfaceIndex(member(rng.v, "start")), r.surfaceIndex(member(rng.v, "end"))
	var expected []int64
	if start >= 0 && end >= start {
		expected = r.surface[start : end+1]
	}
	seqs := member(data, "shadowedSeqs")
	if seqs.isNullish() {
		return typeError("Cannot read properties of %s (reading 'length')", seqs.stringify())
	}
	mismatch := !jsNumber(int64(len(expected))).is(lengthOf(seqs))
	for i, s := range expected {
		if mismatch {
			break
		}
		mismatch = !jsNumber(s).is(elementAt(seqs, i))
	}
	if mismatch {
		return session.FormatErrorf("%s shadowedSeqs do not name an exact current surface span", typ)
	}
	return nil
}

// surfaceIndex is surface.indexOf(v), -1 when absent.
func (r *relations) surfaceIndex(v jsValue) int {
	for i, s := range r.surface {
		if jsNumber(s).is(v) {
			return i
		}
	}
	return -1
}

// applySurface folds a surface event into the surface.
func (r *relations) applySurface(view jsonv.Value, typ string, seq int64) error {
	op, ok := view.Get("surfaceOp")
	if !ok {
		return session.FormatErrorf("%s requires a surfaceOp marker", typ)
	}
	if op.Text() == "append" {
		r.surface = append(r.surface, seq)
		return nil
	}
	start, end := r.surfaceIndex(member(op, "start")), r.surfaceIndex(member(op, "end"))
	if start < 0 || end < start {
		return session.FormatErrorf("%s replacement range is not on the current surface", typ)
	}
	sources := map[int64]bool{}
	if list := view.Field("sourceEventSeqs"); list.Kind() == jsonv.Array {
		for _, s := range logicalSeqs(list) {
			if n, ok := s.Count(); ok {
				sources[n] = true
			}
		}
	}
	for _, s := range r.surface[start : end+1] {
		if !sources[s] {
			return session.FormatErrorf("%s replacement sourceEventSeqs omit a shadowed surface node", typ)
		}
	}
	surface := append(append(append([]int64(nil), r.surface[:start]...), seq), r.surface[end+1:]...)
	r.surface = surface
	return nil
}

func (t *toolCalls) clear() {
	t.order = t.order[:0]
	clear(t.calls)
}

func (t *toolCalls) get(k *keyer, id jsValue) *toolCall { return t.calls[k.key(id)] }

func (t *toolCalls) add(k *keyer, call *toolCall) {
	key := k.key(call.id)
	t.order = append(t.order, key)
	t.calls[key] = call
}

func (t *toolCalls) remove(k *keyer, id jsValue) {
	key := k.key(id)
	delete(t.calls, key)
	for i, o := range t.order {
		if o == key {
			t.order = append(t.order[:i], t.order[i+1:]...)
			break
		}
	}
}

// unresolved refuses a boundary that leaves an advertised call open (dsh
// names the first one, unless its id is undefined).
func (t *toolCalls) unresolved(boundary string) error {
	if len(t.order) == 0 {
		return nil
	}
	first := t.calls[t.order[0]]
	if !first.id.defined {
		return nil
	}
	return session.FormatErrorf("%s leaves unresolved tool call %s", boundary, first.id.text())
}

// iterate lists what for…of yields: array elements, or a string's UTF-16
// units as one-character strings; false for anything not iterable.
func iterate(v jsValue) ([]jsValue, bool) {
	if !v.defined {
		return nil, false
	}
	switch v.v.Kind() {
	case jsonv.Array:
		out := make([]jsValue, v.v.Len())
		for i, e := range v.v.Elements() {
			out[i] = jsValue{e, true}
		}
		return out, true
	case jsonv.String:
		units := utf16.Encode([]rune(v.v.Text()))
		out := make([]jsValue, len(units))
		for i, u := range units {
			out[i] = jsValue{jsonv.StringValue(string(rune(u))), true}
		}
		return out, true
	}
	return nil, false
}

// lengthOf reads value.length.
func lengthOf(v jsValue) jsValue {
	switch v.v.Kind() {
	case jsonv.Array:
		return jsNumber(int64(v.v.Len()))
	case jsonv.String:
		return jsNumber(int64(len(utf16.Encode([]rune(v.v.Text())))))
	case jsonv.Object:
		return member(v.v, "length")
	}
	return undefined
}

// jsLength is value.length as a number, -1 when it is not one.
func jsLength(v jsValue) int64 {
	n, ok := lengthOf(v).v.Count()
	if !ok {
		return -1
	}
	return n
}

// elementAt reads value[i].
func elementAt(v jsValue, i int) jsValue {
	switch v.v.Kind() {
	case jsonv.Array:
		if i < v.v.Len() {
			return jsValue{v.v.Index(i), true}
		}
	case jsonv.String:
		if units := utf16.Encode([]rune(v.v.Text())); i < len(units) {
			return jsValue{jsonv.StringValue(string(rune(units[i]))), true}
		}
	case jsonv.Object:
		return member(v.v, itoa(int64(i)))
	}
	return undefined
}

// deepEqual is dsh's deepEqualJson over possibly undefined values.
func deepEqual(a, b jsValue) bool {
	if !a.defined || !b.defined {
		return a.defined == b.defined
	}
	return jsform.DeepEqual(a.v, b.v)
}
