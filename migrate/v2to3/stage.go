package v2to3

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"

	"github.com/dshlog/dshlog/codec/v3"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate/stage"
	"github.com/dshlog/dshlog/session"
)

// systemPromptPlugin is the v3 plugin source of promoted system prompts.
const systemPromptPlugin = "@deepseek-ai/dsh-system-prompt"

// generatedPrefix starts every synthetic system message id.
const generatedPrefix = "v2-to-v3-system-"

// anchor is what a system message inserted at a source row takes from it:
// the row's seq and type (its id) and its time, null when absent.
type anchor struct{ seq, typ, time jsonv.Value }

// shift says that source events from seq From on are moved Offset seqs
// later by the system messages inserted before them.
type shift struct{ From, Offset int64 }

// edgeStage migrates one v2 session's events. Its memory is small and does
// not grow with the log except in rare cases: the seq mapping is kept as one
// shift per inserted system message, and of the source message ids only
// those that could collide with a generated id (they start with
// "v2-to-v3-system-") are remembered.
type edgeStage struct {
	header     session.Header // source header
	migrated   bool           // the events come from the v1→v2 edge, not the v2 codec
	sourceCut  int64          // upstream cut, -1 when unknown
	processed  int64          // source events seen; the next must have this seq
	targetSeq  int64          // next target seq
	shifts     []shift
	originals  map[string]bool // source message ids with the generated prefix
	generated  map[string]bool // generated system message ids
	markerSeq  int64           // source seq of the last inherited marker, -1 if none
	markerCut  int64           // its target seq
	foreignSeq int64           // source seq of the last foreign v2 delivery marker, -1 if none
	step       jsonv.Value     // {turn, step} of the open step, or null
	head       int64           // target seq of the system head, -1 before the first step
	prompt     string          // the current system prompt
	// headlessAllowed says a surface may begin before the first step
	// (Edge.Headless); headless says one did, so no head is synthesized.
	headlessAllowed, headless bool
}

func newStage(in stage.StageInput) *edgeStage {
	s := &edgeStage{
		header:     in.SourceHeader,
		migrated:   !in.Decoded,
		sourceCut:  in.SourceCut,
		originals:  map[string]bool{},
		generated:  map[string]bool{},
		markerSeq:  -1,
		foreignSeq: -1,
		head:       -1,
	}
	if !in.SourceHeader.IsSeeded {
		s.markerSeq, s.markerCut = 0, 0
	}
	return s
}

// HeaderCut is 0 for an unseeded source, unknown (-1) for a seeded one.
func (s *edgeStage) HeaderCut() int64 {
	if s.header.IsSeeded {
		return -1
	}
	return 0
}

// Transform migrates the next source event (or each event of a run). A
// row the item owns is changed in place where it is moved to its target
// seq.
func (s *edgeStage) Transform(item session.Item, emit session.Emit) error {
	if item.Run == nil {
		return s.transform(item.Event, item.Owned, emit)
	}
	return item.EachEvent(func(ev session.Event) error { return s.transform(ev, false, emit) })
}

// transform migrates one source event; owned says the stage may change
// its row in place.
func (s *edgeStage) transform(ev session.Event, owned bool, emit session.Emit) error {
	row := logicalRow(ev.Row)
	owned = owned && row == ev.Row
	if n, ok := row.Field("seq").Number(); !ok || n != float64(s.processed) {
		return session.FormatErrorf("format v2 source events must be dense")
	}
	if err := admit(ev, row, s.migrated); err != nil {
		return err
	}
	data := row.Field("data")
	if err := s.observeMessageIDs(ev.Type, data); err != nil {
		return err
	}
	// A system message inserted here is anchored at the source row as read,
	// before remap moves it (in place, when owned).
	at := anchor{seq: row.Field("seq"), typ: row.Field("type"), time: row.Field("time")}
	source := row
	if ev.Type == "request/header" {
		header := data.Field("header")
		prompt := header.Field("system").Text()
		if prompt != s.prompt {
			if err := s.emitSystem(prompt, at, emit); err != nil {
				return err
			}
		}
		source, owned = row.With("data", data.With("header", header.Without("system"))), true
	}
	if v3.IsSurface(ev.Type) && s.head < 0 && !s.headless {
		if !s.headlessAllowed || !s.step.IsNull() {
			return session.Unsupportedf("format v2 surface before first step cannot acquire a system head without changing chronology")
		}
		s.headless = true
	}
	if ev.Type == "session/end-seed" && data.Field("inherited").IsTrue() {
		if !s.header.IsSeeded {
			return session.FormatErrorf("format v2 unseeded Session contains an inherited end-seed marker")
		}
		s.markerSeq, s.markerCut = s.processed, s.targetSeq
	}
	if ev.Type == "session-log-deepseek/delivery-accepted" {
		version, isNumber := data.Field("sessionFormatVersion").Number()
		if isNumber && version == 3 {
			return session.FormatErrorf("format v2 delivery marker claims target format v3")
		}
		if id, isString := data.Field("sessionId").Str(); isNumber && version == 2 && (!isString || id != s.header.ID) {
			s.foreignSeq = s.processed
		}
	}
	seq := s.targetSeq
	target, err := remap(source, owned, ev.Type, s.processed, seq, s.target)
	if err != nil {
		return err
	}
	s.processed++
	s.targetSeq++
	typ := ev.Type
	target, typ = renamePTC(typ, target)
	if target, err = canonicalize(target, typ); err != nil {
		return err
	}
	time, _ := target.Field("time").SafeInt()
	// The row handed on is the stage's own when it owned the source row or
	// built a new one from it.
	if err := emitRow(target, typ, seq, time, owned || target != row, emit); err != nil {
		return err
	}
	switch ev.Type {
	case "step/start":
		s.step = jsonv.ObjectValue(jsonv.M("turn", data.Field("turn")), jsonv.M("step", data.Field("step")))
		if s.head < 0 && !s.headless {
			return s.emitSystem("", at, emit)
		}
	case "step/end", "turn/end":
		s.step = jsonv.NullValue()
	}
	return nil
}

// target returns the target seq of an earlier source event.
func (s *edgeStage) target(source int64) int64 {
	i := sort.Search(len(s.shifts), func(i int) bool { return s.shifts[i].From > source })
	if i == 0 {
		return source
	}
	return source + s.shifts[i-1].Offset
}

// observeMessageIDs remembers the source message ids that could collide
// with a generated id, and refuses one that collides with an id already
// generated.
func (s *edgeStage) observeMessageIDs(typ string, data jsonv.Value) error {
	var messages []jsonv.Value
	switch typ {
	case "user/message":
		messages = []jsonv.Value{data}
	case "assistant/message", "tool/result":
		message, err := v3.Record(data.Field("message"), "message")
		if err != nil {
			return err
		}
		messages = []jsonv.Value{message}
	case "agent/inbox/spliced", "session/title-llm-request":
		messages = data.Field(messagesKey(typ)).Elements()
	}
	for _, m := range messages {
		id := m.Field("id").Text()
		if s.generated[id] {
			return session.Unsupportedf("source message id collides with a generated system message id")
		}
		if strings.HasPrefix(id, generatedPrefix) {
			s.originals[id] = true
		}
	}
	return nil
}

// emitSystem inserts a system message holding prompt, anchored at the
// source row at: the first head is appended, later ones replace the
// current head.
func (s *edgeStage) emitSystem(prompt string, at anchor, emit session.Emit) error {
	if s.step.IsNull() {
		return session.Unsupportedf("format v2 changed request prompt outside an open step cannot retain source chronology")
	}
	key := jsonv.ArrayValue(
		jsonv.StringValue("session-format-v2-to-v3"),
		jsonv.StringValue(s.header.ID),
		at.seq,
		at.typ)
	sum := sha256.Sum256(key.Encode())
	id := generatedPrefix + hex.EncodeToString(sum[:])
	if s.originals[id] || s.generated[id] {
		return session.Unsupportedf("generated system message id collides with an existing message id")
	}
	s.generated[id] = true
	content := jsonv.ArrayValue()
	if prompt != "" {
		content = jsonv.ArrayValue(jsonv.ObjectValue(
			jsonv.M("type", jsonv.StringValue("text")),
			jsonv.M("text", jsonv.StringValue(prompt))))
	}
	seq := s.targetSeq
	s.targetSeq++
	s.shifts = append(s.shifts, shift{From: s.processed, Offset: s.targetSeq - s.processed})
	members := []jsonv.Member{
		jsonv.M("type", jsonv.StringValue("system/message")),
		jsonv.M("seq", jsonv.IntValue(seq)),
		jsonv.M("time", at.time),
		jsonv.M("data", jsonv.ObjectValue(
			jsonv.M("turn", s.step.Field("turn")),
			jsonv.M("step", s.step.Field("step")),
			jsonv.M("message", jsonv.ObjectValue(
				jsonv.M("id", jsonv.StringValue(id)),
				jsonv.M("role", jsonv.StringValue("system")),
				jsonv.M("source", jsonv.ObjectValue(
					jsonv.M("kind", jsonv.StringValue("plugin")),
					jsonv.M("plugin", jsonv.StringValue(systemPromptPlugin)))),
				jsonv.M("content", content))))),
	}
	if s.head < 0 {
		members = append(members, jsonv.M("surfaceOp", jsonv.StringValue("append")))
	} else {
		head := jsonv.IntValue(s.head)
		members = append(members,
			jsonv.M("surfaceOp", jsonv.ObjectValue(
				jsonv.M("op", jsonv.StringValue("replace")),
				jsonv.M("start", head),
				jsonv.M("end", head))),
			jsonv.M("sourceEventSeqs", jsonv.ArrayValue(head)))
	}
	row, err := canonicalize(jsonv.ObjectValue(members...), "system/message")
	if err != nil {
		return err
	}
	time, _ := at.time.SafeInt()
	if err := emitRow(row, "system/message", seq, time, true, emit); err != nil {
		return err
	}
	s.head = seq
	s.prompt = prompt
	return nil
}

// Finish checks the inherited cut and the delivery markers and returns the
// target cut; nothing is emitted.
func (s *edgeStage) Finish(session.Emit) (int64, error) {
	if s.markerSeq < 0 {
		return 0, session.FormatErrorf("format v2 inherited end-seed marker must be a non-negative safe integer")
	}
	if s.sourceCut >= 0 && s.sourceCut != s.markerSeq {
		return 0, session.FormatErrorf("format v2 inherited end-seed marker disagrees with its source cut")
	}
	if s.foreignSeq >= 0 && (s.header.ParentSession == nil || s.foreignSeq >= s.markerSeq) {
		return 0, session.FormatErrorf("current-generation delivery marker names the wrong Session")
	}
	return s.markerCut, nil
}

// renamePTC renames the code-mode vocabulary: the two dispatch event types,
// the "code" agent preset, and the tools-code-mode plugin of user message
// sources (user/message, inbox splices, title requests). Nothing else. It
// returns the row and its type.
func renamePTC(typ string, row jsonv.Value) (jsonv.Value, string) {
	switch typ {
	case "agent-preset/selected":
		data := row.Field("data")
		if data.Field("agentPreset").Text() == "code" {
			return row.With("data", data.With("agentPreset", jsonv.StringValue("ptc"))), typ
		}
	case "tool/code-dispatch-start":
		return row.With("type", jsonv.StringValue("tool/ptc-dispatch-start")), "tool/ptc-dispatch-start"
	case "tool/code-dispatch":
		return row.With("type", jsonv.StringValue("tool/ptc-dispatch")), "tool/ptc-dispatch"
	case "user/message":
		if renamed, changed := renameSource(row.Field("data")); changed {
			return row.With("data", renamed), typ
		}
	case "agent/inbox/spliced", "session/title-llm-request":
		data := row.Field("data")
		key := messagesKey(typ)
		messages, changed := data.Field(key), false
		for i, m := range messages.Elements() {
			if renamed, ok := renameSource(m); ok {
				messages, changed = messages.WithIndex(i, renamed), true
			}
		}
		if changed {
			return row.With("data", data.With(key, messages)), typ
		}
	}
	return row, typ
}

func renameSource(message jsonv.Value) (jsonv.Value, bool) {
	source := message.Field("source")
	if source.Field("kind").Text() != "plugin" || source.Field("plugin").Text() != "tools-code-mode" {
		return message, false
	}
	return message.With("source", source.With("plugin", jsonv.StringValue("tools-ptc"))), true
}

// logicalRow returns row with its sourceEventSeqs as dsh's decoder hands
// them to the edge: physical [start, end] ranges expanded.
func logicalRow(row jsonv.Value) jsonv.Value {
	list, ok := row.Get("sourceEventSeqs")
	if !ok || list.Kind() != jsonv.Array {
		return row
	}
	expanded := make([]jsonv.Value, 0, list.Len())
	ranged := false
	for _, member := range list.Elements() {
		if member.Kind() != jsonv.Array {
			expanded = append(expanded, member)
			continue
		}
		ranged = true
		for _, seq := range session.ExpandSeqRanges(jsonv.ArrayValue(member)) {
			expanded = append(expanded, jsonv.IntValue(seq))
		}
	}
	if !ranged {
		return row
	}
	return row.With("sourceEventSeqs", jsonv.ArrayValue(expanded...))
}

// emitRow hands a transformed row on as an event of type typ at seq seq
// and time t, which the row holds; owned says the stage built the row for
// this event alone and keeps no hold of it (session.Item.Owned).
func emitRow(row jsonv.Value, typ string, seq, t int64, owned bool, emit session.Emit) error {
	return emit(session.Item{Event: session.Event{Type: typ, Seq: seq, Time: t, Row: row}, Owned: owned})
}
