package v0to1

import (
	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/codec/v0"
	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// edgeStage migrates one v0 session's events, one at a time and in order.
type edgeStage struct {
	header session.Header
	cut    int64
	// messageIDs maps the seq of each message event to its message id, so
	// that a legacy flat tool result replacing an earlier message can take
	// over its identity.
	messageIDs *messageIDs
	// retryIDs maps a legacy retry chain (turn, step, provider, policyKey)
	// to the retry id its first llm/retry was given.
	retryIDs map[string]string
	// compactionID is the id of the open compaction, "" when none is open.
	compactionID string
}

// HeaderCut is the v0 cut, which the edge never changes.
func (s *edgeStage) HeaderCut() int64 { return s.cut }

// Finish emits nothing and returns the unchanged cut.
func (s *edgeStage) Finish(session.Emit) (int64, error) { return s.cut, nil }

// Transform normalizes and validates one v0 event. A packed chunk run is
// forwarded as it is: no normalisation or validation applies to chunks.
func (s *edgeStage) Transform(item session.Item, emit session.Emit) error {
	if item.Run == nil {
		return s.transform(item.Event, item.PayloadChecked, emit)
	}
	if item.Run.RunType() == v0.ChunkRunType {
		return emit(item)
	}
	return item.EachEvent(func(ev session.Event) error { return s.transform(ev, false, emit) })
}

// transform migrates one event; checked says the codec found it passing the
// released payload rules of version 0 as it comes. A row a step rebuilt is
// one the edge made for this event alone and keeps no hold of, so the item
// owns it and the next stage may change it in place.
func (s *edgeStage) transform(ev session.Event, checked bool, emit session.Emit) error {
	decoded := ev.Row
	ev, err := s.normalize(ev, checked)
	if err != nil {
		return err
	}
	if err := s.checkDeliveryMarker(ev); err != nil {
		return err
	}
	return emit(session.Item{Event: ev, Owned: ev.Row != decoded})
}

// normalize is dsh's normalizeReleasedV0Event: each step sees what the one
// before it returned, in dsh's exact order.
func (s *edgeStage) normalize(ev session.Event, checked bool) (session.Event, error) {
	if ev.Type == "assistant/chunk" {
		return s.normalizeChunk(ev)
	}
	return s.normalizeSteps(ev, checked)
}

// normalizeSteps runs every step of normalize in turn. The payload rules
// that end them are skipped for an event that the codec checked (checked)
// and no step changed: they would pass it again.
func (s *edgeStage) normalizeSteps(ev session.Event, checked bool) (session.Event, error) {
	decoded := ev.Row
	ev = renameCompaction(ev)
	var err error
	if ev, err = s.refuseRetired(ev); err != nil {
		return ev, err
	}
	if ev, err = s.turnStart(ev); err != nil {
		return ev, err
	}
	if ev, err = s.turnEnd(ev); err != nil {
		return ev, err
	}
	if ev, err = s.requestHeader(ev); err != nil {
		return ev, err
	}
	if ev, err = s.steering(ev); err != nil {
		return ev, err
	}
	if ev, err = s.retryID(ev); err != nil {
		return ev, err
	}
	if ev, err = s.compaction(ev); err != nil {
		return ev, err
	}
	if ev, err = s.legacyMessage(ev); err != nil {
		return ev, err
	}
	if ev.Type != "assistant/chunk" && !(checked && ev.Row == decoded) {
		if err := checkPayload(ev); err != nil {
			return ev, err
		}
	}
	s.noteMessageID(ev, ev.Data())
	return ev, nil
}

// normalizeChunk is normalizeSteps for an assistant/chunk event, which no
// rename, legacy step or payload rule touches: of the steps only
// legacyMessage's demand for an object data applies to it, and the message
// id any event's data may carry is noted.
func (s *edgeStage) normalizeChunk(ev session.Event) (session.Event, error) {
	data, err := eventData(ev, "data")
	if err != nil {
		return ev, err
	}
	s.noteMessageID(ev, data)
	return ev, nil
}

// checkDeliveryMarker refuses a v0 delivery marker of this session's own
// generation that names another session (assertSourceDeliveryMarker).
func (s *edgeStage) checkDeliveryMarker(ev session.Event) error {
	if ev.Type != "session-log-deepseek/delivery-accepted" {
		return nil
	}
	data := ev.Data()
	version, present := data.Get("sessionFormatVersion")
	if present && !version.IsNull() {
		if n, ok := version.Number(); !ok || n != 0 {
			return nil
		}
	}
	if s.header.ParentSession != nil && ev.Seq < s.cut {
		return nil
	}
	if id, ok := data.Field("sessionId").Str(); ok && id == s.header.ID {
		return nil
	}
	return session.FormatErrorf("current-generation delivery marker names the wrong Session")
}

// checkPayload is dsh's assertReleasedEventPayload with version 0; a type
// that is not a string is looked up by its string form
// (v2.CheckTypeFormPayload).
func checkPayload(ev session.Event) error {
	typ, present := ev.Row.Get("type")
	if typ.Kind() == jsonv.String {
		return v2.CheckEventPayload(ev, 0)
	}
	known, err := v2.CheckTypeFormPayload(typ, present, ev.Seq, ev.Data())
	if !known {
		return session.Unsupportedf("format v0 contains unknown historical event type %s at seq %d; migration refuses unknown historical events even when ignorable", jsform.Stringify(typ, present), ev.Seq)
	}
	return err
}

// noteMessageID records the message identity an event carries, given its
// data: a user message's own id, or the id of the message in data.message.
func (s *edgeStage) noteMessageID(ev session.Event, data jsonv.Value) {
	if ev.Type != "user/message" {
		data = data.Field("message")
	}
	if data.Kind() != jsonv.Object {
		return
	}
	if id, ok := data.Field("id").Str(); ok {
		s.messageIDs.set(ev.Seq, id)
	}
}
