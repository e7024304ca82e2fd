package v3

import (
	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// Decoder reads the rows of a v3 session as dsh's v3 codec does: row
// admission first (refused whatever the recovery), then the v2 framing, then
// for each framed event the PTC admission (refused whatever the recovery)
// and the canonical envelope check, which follows the recovery policy:
// strict refuses, recoverable withholds this and every later event and
// refuses only when a later turn/end arrives.
type Decoder struct {
	header   session.Header
	framing  *v2.Decoder
	recovery v2.Recovery
	issue    error // the first canonical failure withheld by recovery
	cut      int64 // seq of the last accepted inherited end-seed marker
	hasCut   bool
}

// NewDecoder returns a Decoder for the events of a v3 session with header h.
func NewDecoder(h session.Header, recovery v2.Recovery) *Decoder {
	return &Decoder{header: h, framing: v2.NewDecoder(h, recovery), recovery: recovery}
}

// Decode takes the next parsed row. It returns the event and true when the
// row is accepted, false when recovery withholds it, or the refusal.
func (d *Decoder) Decode(row jsonv.Value) (session.Event, bool, error) {
	return d.decode(row, nil)
}

// CheckRow runs the checks of Decode that depend on the row alone — dsh's
// row admission, the v2 framing and, for an admitted object, the canonical
// event check — so that a reader can run them ahead of the decoder, on
// another goroutine, and hand the result to DecodeChecked with the same row.
func CheckRow(row jsonv.Value) v2.RowCheck {
	if err := AdmitRow(row); err != nil {
		return v2.RowCheck{Admission: err}
	}
	if row.Kind() != jsonv.Object {
		return v2.RowCheck{} // the framing refuses it first
	}
	c := v2.RowCheck{Canonical: checkEvent(row, nil, true)}
	c.FrameRow(row)
	return c
}

// DecodeChecked is Decode for a row whose CheckRow result is c.
func (d *Decoder) DecodeChecked(row jsonv.Value, c v2.RowCheck) (session.Event, bool, error) {
	return d.decode(row, &c)
}

// decode is Decode with the row's own checks done already (c) or to do.
func (d *Decoder) decode(row jsonv.Value, c *v2.RowCheck) (session.Event, bool, error) {
	admission := AdmitRow
	if c != nil {
		admission = func(jsonv.Value) error { return c.Admission }
	}
	if err := admission(row); err != nil {
		return session.Event{}, false, err
	}
	var ev session.Event
	var ok bool
	var err error
	if c != nil {
		ev, ok, err = d.framing.DecodeChecked(row, *c)
	} else {
		ev, ok, err = d.framing.Decode(row)
	}
	if err != nil || !ok {
		return ev, false, err
	}
	// The framed row is the admitted one: dsh's event admission and its
	// structural half of the canonical check passed with AdmitRow.
	if d.issue == nil {
		var err error
		if c != nil {
			err = c.Canonical
		} else {
			err = checkEvent(ev.Row, nil, true)
		}
		if err != nil {
			if d.recovery == v2.Strict {
				return ev, false, err
			}
			d.issue = err
		}
	}
	if d.issue != nil {
		if ev.Type == "turn/end" {
			return ev, false, d.issue
		}
		return ev, false, nil
	}
	if ev.Type == "session/end-seed" && ev.Data().Field("inherited").IsTrue() {
		d.cut, d.hasCut = ev.Seq, true
	}
	return ev, true, nil
}

// Issue returns the first problem recovery has withheld events for, if any.
func (d *Decoder) Issue() error {
	if d.issue != nil {
		return d.issue
	}
	return d.framing.Issue()
}

// Finish checks the inherited marker against the header and returns the
// inherited event count. After a withheld canonical failure only markers
// that passed the canonical check count.
func (d *Decoder) Finish() (int64, error) {
	if d.issue == nil {
		return d.framing.Finish()
	}
	if d.header.IsSeeded && !d.hasCut {
		return 0, session.FormatErrorf("format v3 seeded Session lacks an accepted inherited end-seed marker")
	}
	if !d.header.IsSeeded && d.hasCut {
		return 0, session.FormatErrorf("format v3 unseeded Session contains an inherited end-seed marker")
	}
	return d.cut, nil
}
