// Package v4 is dsh's current session format: the v2 row framing with the
// header version 4, native admission of each row, and the writer that
// produces the exact bytes dsh writes.
package v4

import (
	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// Version is the format version this package reads and writes.
const Version = 4

// DecodeHeader decodes a v4 physical header.
func DecodeHeader(v jsonv.Value) (session.Header, error) {
	if v.Kind() != jsonv.Object || !isVersion(v, Version) {
		return session.Header{}, session.FormatErrorf("expected format v4 physical header")
	}
	h, err := v2.DecodeHeader(v.With("version", jsonv.IntValue(2)))
	h.Version = Version
	return h, err
}

func isVersion(v jsonv.Value, want float64) bool {
	n, ok := v.Field("version").Number()
	return ok && n == want
}

// Decoder reads the rows of a v4 session: admission of each row first
// (refused whatever the recovery), then the v2 row discipline.
type Decoder struct {
	*v2.Decoder
}

// NewDecoder returns a Decoder for a v4 session with header h.
func NewDecoder(h session.Header, recovery v2.Recovery) *Decoder {
	return &Decoder{Decoder: v2.NewDecoder(h, recovery)}
}

// Decode takes the next parsed row; see v2.Decoder.Decode.
func (d *Decoder) Decode(row jsonv.Value) (session.Event, bool, error) {
	if err := AdmitRow(row); err != nil {
		return session.Event{}, false, err
	}
	return d.Decoder.Decode(row)
}

// CheckRow runs the checks of Decode that depend on the row alone (the
// admission and the v2 framing), so that a reader can run them ahead of
// the decoder, on another goroutine, and hand the result to DecodeChecked
// with the same row.
func CheckRow(row jsonv.Value) v2.RowCheck {
	if err := AdmitRow(row); err != nil {
		return v2.RowCheck{Admission: err}
	}
	return v2.CheckRow(row)
}

// DecodeChecked is Decode for a row whose CheckRow result is c.
func (d *Decoder) DecodeChecked(row jsonv.Value, c v2.RowCheck) (session.Event, bool, error) {
	if c.Admission != nil {
		return session.Event{}, false, c.Admission
	}
	return d.Decoder.DecodeChecked(row, c)
}

// AppendHeader appends the header line (with its newline) as dsh writes it.
func AppendHeader(dst []byte, h session.Header, cut int64) ([]byte, error) {
	h.Version = Version
	dst, err := v2.EncodeHeader(dst, h, cut)
	if err != nil {
		return dst, err
	}
	return append(dst, '\n'), nil
}

// AppendEvent appends the event's row line (with its newline) as dsh writes
// it: the row unchanged but for sourceEventSeqs range compression.
func AppendEvent(dst []byte, ev session.Event) []byte {
	return append(v2.EncodeEvent(dst, ev), '\n')
}
