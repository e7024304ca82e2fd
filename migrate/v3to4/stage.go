package v3to4

import (
	"sort"

	"github.com/dshlog/dshlog/codec/v3"
	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// migration is the v3→v4 stage at work on one session (dsh's
// ReleasedV3ToV4Stage). It holds small state: the seqs before which it
// inserted a turn/end (the whole source→target seq mapping follows from
// them), the own catalog entries after the last inherited marker, and a few
// scalars of the open turn, cut, time and delivery. It never looks into an
// event again once it has emitted it, so that what follows the stage may
// read the emitted events on another goroutine.
type migration struct {
	header     session.Header
	sourceCut  int64 // the chain's predeclared source cut, or -1
	candidates []ChildFact

	count      int64         // source events seen
	next       int64         // next target seq
	insertions []int64       // source seqs before which a turn/end was inserted, ascending
	catalogs   []catalogFact // own subagent/catalog facts, judged at Finish

	cut       int64 // target seq of the last inherited marker (0 unseeded), -1 before one
	markerSeq int64 // source seq of that marker
	time      int64 // time of the last source event, at first the header's createdAt
	foreign   int64 // source seq of the last v3 delivery naming another Session, or -1

	turn       float64 // the open turn's number
	turnOpen   bool
	stepOpen   bool
	spliceSeen bool // the previous event was a next-turn splice with inserted messages
}

// HeaderCut returns 0 for an unseeded session; a seeded one's cut is known
// only at Finish.
func (s *migration) HeaderCut() int64 {
	if !s.header.IsSeeded {
		return 0
	}
	return -1
}

// targetSeq maps an earlier source seq to its target seq.
func (s *migration) targetSeq(source int64) int64 {
	before := sort.Search(len(s.insertions), func(i int) bool { return s.insertions[i] > source })
	return source + int64(before)
}

// Transform migrates the next item. A row the item owns is changed in
// place.
func (s *migration) Transform(item session.Item, emit session.Emit) error {
	if item.Run == nil {
		return s.transform(item.Event, item.Owned, emit)
	}
	return item.EachEvent(func(ev session.Event) error { return s.transform(ev, false, emit) })
}

// transform migrates one source event; owned says the stage may change its
// row in place.
func (s *migration) transform(ev session.Event, owned bool, emit session.Emit) error {
	if ev.Seq != s.count {
		return session.FormatErrorf("V3 source events must be dense")
	}
	s.count++
	if turn, interrupted := s.observeRestart(ev); interrupted {
		s.insertions = append(s.insertions, ev.Seq)
		closer := jsonv.ObjectValue(
			jsonv.M("type", jsonv.StringValue("turn/end")),
			jsonv.M("seq", jsonv.IntValue(s.next)),
			jsonv.M("time", jsonv.IntValue(ev.Time)),
			jsonv.M("data", jsonv.ObjectValue(
				jsonv.M("turn", jsonv.NumberValue(turn)),
				jsonv.M("reason", jsonv.ObjectValue(jsonv.M("kind", jsonv.StringValue("interrupted")))),
			)),
		)
		if err := emit(session.Item{Event: session.Event{Type: "turn/end", Seq: s.next, Time: ev.Time, Row: closer}}); err != nil {
			return err
		}
		s.next++
	}
	target := s.next
	s.next++
	s.time = ev.Time
	if ev.Type == "session/end-seed" && ev.Data().Field("inherited").IsTrue() {
		if !s.header.IsSeeded {
			return session.FormatErrorf("unseeded format v3 Session contains an inherited end-seed marker")
		}
		s.markerSeq, s.cut = ev.Seq, target
		s.catalogs = s.catalogs[:0]
	} else if ev.Type == "subagent/catalog" {
		entry, err := v4.CatalogFact(ev.Data(), "subagent/catalog")
		s.catalogs = append(s.catalogs, catalogFact{entry, err})
	}
	if err := s.observeDelivery(ev); err != nil {
		return err
	}
	if ev.Ignorable() && !v3.IsReleasedEventType(ev.Type) {
		// An unknown ignorable event keeps its payload and its unchecked
		// envelope references; only its type is namespaced and its seq moved.
		opaque := edit{Event: ev, owned: owned}
		opaque.set("type", jsonv.StringValue("plugin:"+ev.Type))
		opaque.set("ignorable", jsonv.BoolValue(true))
		if target != ev.Seq {
			opaque.set("seq", jsonv.IntValue(target))
		}
		return emit(opaque.item())
	}
	if !v3.IsReleasedEventType(ev.Type) {
		return v4.NewUnknownTypeError(3, ev.Type, ev.Seq)
	}
	out := edit{Event: ev, owned: owned}
	if target != ev.Seq {
		if err := remap(&out, target, s.targetSeq); err != nil {
			return err
		}
	}
	data, changed, err := v4.MapMessages(out.Type, out.Data(), func(message jsonv.Value) (jsonv.Value, bool, error) {
		return rewriteMessageSource(message, ev.Seq)
	})
	if err != nil {
		return err
	}
	if changed {
		out.set("data", data)
	}
	if err := liftToolResult(&out); err != nil {
		return err
	}
	if err := migrateEventContent(&out); err != nil {
		return err
	}
	return emit(out.item())
}

// observeRestart follows turns, steps and splices (before the event changes
// them) and reports the open turn to close when ev is the turn/start of the
// next turn right after a next-turn splice with inserted messages, with no
// step open: dsh's evidence that the previous turn was interrupted. Every
// other turn-order violation is left to the v4 validation.
func (s *migration) observeRestart(ev session.Event) (float64, bool) {
	spliceSeen := s.spliceSeen
	s.spliceSeen = false
	switch ev.Type {
	case "turn/start":
		data := ev.Data()
		turnNumber, turnIsNumber := data.Field("turn").Number()
		if data.Kind() != jsonv.Object || !turnIsNumber {
			return 0, false
		}
		closed := s.turn
		interrupted := s.turnOpen && !s.stepOpen && spliceSeen && turnNumber == s.turn+1
		s.turn, s.turnOpen = turnNumber, true
		return closed, interrupted
	case "agent/inbox/spliced":
		data := ev.Data()
		inserted := data.Field("inserted")
		s.spliceSeen = data.Kind() == jsonv.Object && isString(data.Field("target"), "next-turn") &&
			inserted.Kind() == jsonv.Array && inserted.Len() > 0
	case "turn/end":
		s.turnOpen = false // only step events change the open step
	case "step/start":
		s.stepOpen = true
	case "step/end":
		s.stepOpen = false
	}
	return 0, false
}

// observeDelivery checks a delivery marker: the v3 generation's watermark
// must be sound, a claim of generation 4 is refused, and a v3 marker naming
// another Session is remembered for Finish.
func (s *migration) observeDelivery(ev session.Event) error {
	id, active, err := v4.ValidateDelivery(ev, 3)
	if err != nil || ev.Type != v4.DeliveryType {
		return err
	}
	if isNumber(ev.Data().Field("sessionFormatVersion"), 4) {
		return session.Unsupportedf("format v3 delivery marker claims target format v4")
	}
	if active && id != s.header.ID {
		s.foreign = ev.Seq
	}
	return nil
}

// Finish checks the own catalog, the cut and the deliveries, appends a
// subagent/catalog entry for each child the catalog lacks, and returns the
// target cut.
func (s *migration) Finish(emit session.Emit) (int64, error) {
	if s.cut < 0 {
		return 0, session.FormatErrorf("V3 inherited event count must be a non-negative safe integer")
	}
	existing := map[string]v4.CatalogEntry{}
	for _, c := range s.catalogs {
		entry, err := c.entry, c.err
		if err != nil {
			return 0, err
		}
		if _, dup := existing[entry.ChildID]; dup {
			return 0, session.Unsupportedf("duplicate catalog child %s", entry.ChildID)
		}
		existing[entry.ChildID] = entry
	}
	if s.sourceCut >= 0 && s.markerSeq != s.sourceCut {
		return 0, session.FormatErrorf("format v3 inherited cut disagrees with its source marker")
	}
	if s.foreign >= 0 && (s.header.ParentSession == nil || s.foreign >= s.markerSeq) {
		return 0, session.FormatErrorf("current-generation delivery marker names the wrong Session")
	}
	for _, child := range s.candidates {
		data, fact, hasFact, err := child.catalogFact()
		if err != nil {
			return 0, err
		}
		if entry, ok := existing[child.ChildID]; ok {
			if entry.ChildCreatedAt != child.ChildCreatedAt || hasFact && !sameEntry(entry, fact) {
				return 0, session.Unsupportedf("%s conflicts with its parent catalog", child.subject())
			}
			continue
		}
		if !hasFact {
			data, fact = child.unknownEntry()
		}
		existing[child.ChildID] = fact
		row := jsonv.ObjectValue(
			jsonv.M("type", jsonv.StringValue("subagent/catalog")),
			jsonv.M("seq", jsonv.IntValue(s.next)),
			jsonv.M("time", jsonv.IntValue(s.time)),
			jsonv.M("data", data),
		)
		if err := emit(session.Item{Event: session.Event{Type: "subagent/catalog", Seq: s.next, Time: s.time, Row: row}}); err != nil {
			return 0, err
		}
		s.next++
	}
	return s.cut, nil
}

// catalogFact is an own subagent/catalog payload read as a catalog entry
// when the event went by; its refusal waits for Finish, which reports the
// first one after the last inherited marker.
type catalogFact struct {
	entry v4.CatalogEntry
	err   error
}

// sameEntry is dsh's comparison of an existing catalog entry with a child's
// fact: equal mode and label (=== on each, a missing label equal only to a
// missing one).
func sameEntry(entry v4.CatalogEntry, fact v4.CatalogEntry) bool {
	labels := (entry.Label == nil) == (fact.Label == nil) && (entry.Label == nil || *entry.Label == *fact.Label)
	return entry.Mode == fact.Mode && labels
}
