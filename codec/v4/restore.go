package v4

import (
	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// Restorer is dsh's restoreReleasedV4Artifact, the generation-owned checks
// of a complete v4 artifact (header, inherited cut, vocabulary, density,
// native message admission, delivery, own catalog and lifecycle
// relationships), as a streaming validator: feed every event in seq order
// with Add, then call Finish with the artifact's inherited cut.
//
// dsh checks the artifact in passes (events, then ownership, then
// lifecycle) after the whole file has been decoded, so a refusal found late
// in an earlier pass wins over one found early in a later pass, and a
// decoding error wins over all of them. Add therefore never refuses: it
// records the first refusal of each pass and Finish reports them in dsh's
// order. After a refusal of the first pass Add only counts events.
//
// Memory: besides the lifecycle state (see lifecycle), the ownership checks
// of a seeded session keep the own catalog facts and the first foreign
// delivery after the last inherited marker, because the cut is known only at
// the end.
type Restorer struct {
	header session.Header
	vocab  *vocab.Vocabulary
	count  int64

	eventErr   error // first refusal of the per-event pass
	lastMarker int64 // seq of the last inherited end-seed marker, or -1

	own       ownership
	lifecycle *lifecycle
	// admitted says every event's row passed AdmitRow as it is: the
	// checks admission made are not made again.
	admitted bool
}

// NewRestorer starts validating the events of a v4 artifact with header h
// against the event vocabulary of the dsh build that wrote it.
func NewRestorer(h session.Header, v *vocab.Vocabulary) *Restorer {
	return &Restorer{
		header:     h,
		vocab:      v,
		lastMarker: -1,
		own:        ownership{header: h, pendingDelivery: -1, externalCatalog: v.ExternalCatalog()},
		lifecycle:  newLifecycle(v),
	}
}

// NewAdmittedRestorer is NewRestorer for events whose rows the native
// admission (AdmitRow) has passed just as they are, which is every event a
// Decoder hands out: the checks admission made on a row (retired syntax,
// system messages, tool and fork results, developer data) are not made
// again, and the verdicts are those of NewRestorer's.
func NewAdmittedRestorer(h session.Header, v *vocab.Vocabulary) *Restorer {
	r := NewRestorer(h, v)
	r.admitted, r.own.admitted = true, true
	return r
}

// admissionSkips reports whether AdmitRow leaves ev's row unchecked: an
// ignorable developer/message, which dsh's codec admits without a
// vocabulary to judge it by.
func admissionSkips(ev session.Event) bool {
	return ev.Type == "developer/message" && ev.Ignorable()
}

// UnknownTypeError is the refusal of an event whose type the vocabulary
// does not know and that is not ignorable: dsh's own refusal, plus the type
// and seq so that a reader can say which build declares it.
type UnknownTypeError struct {
	Type string
	Seq  int64
	// Version is the format whose reading refused the event: 4, or 3 when
	// the v3→v4 migration met it.
	Version int
	*session.Refusal
}

// Unwrap returns dsh's refusal.
func (e *UnknownTypeError) Unwrap() error { return e.Refusal }

func unknownType(typ string, seq int64) error { return NewUnknownTypeError(Version, typ, seq) }

// NewUnknownTypeError is the refusal of an event of a format-version log
// whose type is not known, with dsh's wording for that version (the v3→v4
// migration refuses a v3 event so).
func NewUnknownTypeError(version int, typ string, seq int64) *UnknownTypeError {
	return &UnknownTypeError{Type: typ, Seq: seq, Version: version,
		Refusal: session.Unsupportedf("format v%d contains unknown event type %s at seq %d", version, jsform.Quote(typ), seq)}
}

// Add takes the next event of the artifact.
func (r *Restorer) Add(ev session.Event) {
	index := r.count
	r.count++
	if r.eventErr != nil {
		return
	}
	if err := r.checkEvent(ev, index); err != nil {
		r.eventErr = err
		return
	}
	if !r.vocab.Has(ev.Type) {
		r.lifecycle.add(ev)
		return
	}
	marker := ev.Type == "session/end-seed" && ev.Data().Field("inherited").IsTrue()
	if marker {
		r.lastMarker = index
		r.own.marker()
	}
	r.own.add(ev)
	if r.own.err == nil {
		r.lifecycle.add(ev)
	}
}

// checkEvent is the per-event pass: vocabulary, density and native message
// admission of known events.
func (r *Restorer) checkEvent(ev session.Event, index int64) error {
	typ := r.vocab.Lookup(ev.Type)
	if typ == nil && !ev.Ignorable() && !r.vocab.AllowsUnknown() {
		return unknownType(ev.Type, index)
	}
	if ev.Seq != index {
		return session.FormatErrorf("format v4 event %d is not dense", index)
	}
	if typ == nil {
		return nil
	}
	if err := checkDeclared(typ, ev, index); err != nil {
		return err
	}
	if r.admitted && !admissionSkips(ev) {
		return nil // the rest, admission found true of the row
	}
	row := partsOf(ev.Row)
	if err := row.checkRetiredSyntax(); err != nil {
		return err
	}
	if err := row.checkSystemMessage(); err != nil {
		return err
	}
	if ev.Type != "tool/result" {
		return nil
	}
	if err := checkToolResult(ev.Row); err != nil {
		return err
	}
	return checkForkResult(ev.Row, func() (jsonv.Value, bool) {
		seqs, ok := ev.SourceEventSeqs()
		if !ok {
			return jsonv.Value{}, false
		}
		elems := make([]jsonv.Value, len(seqs))
		for i, s := range seqs {
			elems[i] = jsonv.IntValue(s)
		}
		return jsonv.ArrayValue(elems...), true
	})
}

// Finish checks the artifact as a whole, given its inherited event count,
// and returns dsh's first refusal.
func (r *Restorer) Finish(cut int64) error {
	if err := ValidateHeader(r.header); err != nil {
		return err
	}
	if cut < 0 || cut > maxSafeInteger {
		return session.FormatErrorf("format v4 inherited event count must be a non-negative safe integer")
	}
	if cut > r.count {
		return session.FormatErrorf("format v4 inherited event count exceeds its events")
	}
	if !r.header.IsSeeded && cut != 0 {
		return session.FormatErrorf("unseeded format v4 Session has inherited events")
	}
	if r.eventErr != nil {
		return r.eventErr
	}
	if r.header.IsSeeded && r.lastMarker != cut {
		return session.FormatErrorf("format v4 seeded header disagrees with its last inherited end-seed marker")
	}
	if !r.header.IsSeeded && r.lastMarker >= 0 {
		return session.FormatErrorf("format v4 unseeded Session contains an inherited end-seed marker")
	}
	if err := r.own.finish(); err != nil {
		return err
	}
	return r.lifecycle.finish()
}

// ownership is dsh's ownership pass over known events: developer data,
// producer-owned message sources, the current delivery generation and the
// uniqueness of own catalog children. Delivery and catalog rules depend on
// the inherited cut, which a seeded session reveals only at its last
// inherited marker; until then their refusals are kept pending, and a later
// marker clears the ones before it.
type ownership struct {
	header session.Header
	err    error // first definite refusal
	errAt  int64

	pendingDelivery int64 // seq of the first foreign delivery after the last marker, or -1
	catalogs        []ownCatalog
	ids             map[string]struct{} // own children of an unseeded session
	externalCatalog bool                // version-2 (external) catalog facts are valid
	admitted        bool                // see Restorer.admitted
}

type ownCatalog struct {
	at      int64
	childID string
	err     error
}

func (o *ownership) add(ev session.Event) {
	if o.err != nil {
		return
	}
	if err := o.check(ev); err != nil {
		o.err, o.errAt = err, ev.Seq
	}
}

func (o *ownership) check(ev session.Event) error {
	if !o.admitted || admissionSkips(ev) {
		if err := checkDeveloperData(ev.Row); err != nil {
			return err
		}
	}
	if err := checkMessageSources(ev); err != nil {
		return err
	}
	id, active, err := ValidateDelivery(ev, Version)
	if err != nil {
		return err
	}
	if active && id != o.header.ID {
		// Allowed only inside the inherited prefix of a Session with a parent.
		if o.header.ParentSession == nil || !o.header.IsSeeded {
			return errWrongSession
		}
		if o.pendingDelivery < 0 {
			o.pendingDelivery = ev.Seq
		}
	}
	if ev.Type != "subagent/catalog" {
		return nil
	}
	entry, err := catalogFact(ev.Data(), "subagent/catalog", o.externalCatalog)
	if !o.header.IsSeeded {
		if err != nil {
			return err
		}
		if o.ids == nil {
			o.ids = map[string]struct{}{}
		}
		if _, dup := o.ids[entry.ChildID]; dup {
			return session.FormatErrorf("duplicate catalog child %s", entry.ChildID)
		}
		o.ids[entry.ChildID] = struct{}{}
		return nil
	}
	o.catalogs = append(o.catalogs, ownCatalog{at: ev.Seq, childID: entry.ChildID, err: err})
	return nil
}

var errWrongSession = session.FormatErrorf("current-generation delivery marker names the wrong Session")

// marker clears what an inherited marker moves into the inherited prefix.
func (o *ownership) marker() {
	o.pendingDelivery = -1
	o.catalogs = o.catalogs[:0]
}

// finish returns the first ownership refusal by event position.
func (o *ownership) finish() error {
	err, at := o.err, o.errAt
	first := func(e error, pos int64) {
		if e != nil && (err == nil || pos < at) {
			err, at = e, pos
		}
	}
	if o.pendingDelivery >= 0 {
		first(errWrongSession, o.pendingDelivery)
	}
	ids := map[string]struct{}{}
	for _, c := range o.catalogs {
		if c.err != nil {
			first(c.err, c.at)
			break
		}
		if _, dup := ids[c.childID]; dup {
			first(session.FormatErrorf("duplicate catalog child %s", c.childID), c.at)
			break
		}
		ids[c.childID] = struct{}{}
	}
	return err
}
