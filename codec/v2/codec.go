// Package v2 is dsh's released format v2 physical codec: the header, the row
// framing and the sourceEventSeqs ranges that formats v3 and v4 reuse with
// only the header version swapped.
package v2

import (
	"path"

	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// Recovery is how a decoder treats a damaged row.
type Recovery int

const (
	// Recoverable records the first problem and drops that row and every
	// later one, unless a later row is a turn/end, which makes the problem
	// fatal. This is dsh's default.
	Recoverable Recovery = iota
	// Strict refuses at the first problem.
	Strict
)

func (r Recovery) String() string {
	if r == Strict {
		return "strict"
	}
	return "recoverable"
}

var (
	headerRequired = []string{"type", "version", "id", "createdAt", "isSeeded", "delegationDepth"}
	headerOptional = []string{"cwd", "parentSession", "origin", "agentPreset"}
	eventRequired  = []string{"type", "seq", "time", "data"}
	eventOptional  = []string{"ignorable", "sourceEventSeqs", "surfaceOp"}
)

// DecodeHeader decodes a v2 physical header as dsh's released v2 codec does,
// with its exact refusals.
func DecodeHeader(v jsonv.Value) (session.Header, error) {
	const label = "released v2 physical header"
	if ContainsNegZero(v) {
		return session.Header{}, session.FormatErrorf("%s is not lossless JSON", label)
	}
	if v.Kind() != jsonv.Object {
		return session.Header{}, session.FormatErrorf("%s must be an object", label)
	}
	err := jsform.ExactKeys(v, headerRequired, headerOptional, func(key string, missing bool) error {
		if missing {
			return session.FormatErrorf("%s lacks %s", label, key)
		}
		return session.FormatErrorf("%s has unexpected field %s", label, key)
	})
	if err != nil {
		return session.Header{}, err
	}
	if v.Field("type").Text() != "session" || !isNumber(v.Field("version"), 2) {
		return session.Header{}, session.FormatErrorf("expected released v2 physical Session header")
	}
	var h session.Header
	h.Version = 2
	id, ok := v.Field("id").Str()
	if !ok {
		return h, session.FormatErrorf("released v2 header id must be a string")
	}
	h.ID = id
	if h.CreatedAt, ok = v.Field("createdAt").Count(); !ok {
		return h, session.FormatErrorf("released v2 header createdAt must be a non-negative safe integer")
	}
	if h.DelegationDepth, ok = v.Field("delegationDepth").Count(); !ok {
		return h, session.FormatErrorf("released v2 header delegationDepth must be a non-negative safe integer")
	}
	if h.IsSeeded, ok = v.Field("isSeeded").Bool(); !ok {
		return h, session.FormatErrorf("released v2 header isSeeded must be boolean")
	}
	for _, f := range []struct {
		key string
		dst **string
	}{{"cwd", &h.Cwd}, {"parentSession", &h.ParentSession}, {"agentPreset", &h.AgentPreset}} {
		if fv, present := v.Get(f.key); present {
			s, ok := fv.Str()
			if !ok {
				return h, session.FormatErrorf("released v2 header %s must be a string", f.key)
			}
			*f.dst = session.Str(s)
		}
	}
	if ov, present := v.Get("origin"); present {
		if ov.Text() != "subagent" || ov.Kind() != jsonv.String {
			return h, session.FormatErrorf(`released v2 header origin must be "subagent"`)
		}
		h.Origin = session.Str("subagent")
	}
	if h.Cwd != nil && !path.IsAbs(*h.Cwd) {
		return h, session.FormatErrorf("format v2 header cwd must be absolute")
	}
	return h, nil
}

// EncodeHeader writes h as a v2-family header line body (no newline) with its
// fixed key order. cut is the inherited event count; an unseeded session
// must have none.
func EncodeHeader(dst []byte, h session.Header, cut int64) ([]byte, error) {
	if !h.IsSeeded && cut != 0 {
		return dst, session.FormatErrorf("unseeded format v2 Session has inherited events")
	}
	return h.Value().Append(dst), nil
}

// DecodeEvent checks the framing of the row at rowIndex (0-based body row)
// and returns it as an event. The seq discipline is the Decoder's job.
func DecodeEvent(row jsonv.Value, rowIndex int64) (session.Event, error) {
	if row.Kind() != jsonv.Object {
		return session.Event{}, session.FormatErrorf("released v2 row %d must be an object", rowIndex)
	}
	err := jsform.ExactKeys(row, eventRequired, eventOptional, func(key string, missing bool) error {
		if missing {
			return session.FormatErrorf("released v2 row %d lacks required field %s", rowIndex, key)
		}
		return session.FormatErrorf("released v2 row %d has unexpected field %s", rowIndex, key)
	})
	if err != nil {
		return session.Event{}, err
	}
	typ, ok := row.Field("type").Str()
	if !ok {
		return session.Event{}, session.FormatErrorf("released v2 row %d type must be a string", rowIndex)
	}
	t, ok := row.Field("time").SafeInt()
	if !ok {
		return session.Event{}, session.FormatErrorf("released v2 row %d time must be a safe integer", rowIndex)
	}
	if ig, present := row.Get("ignorable"); present && !ig.IsTrue() {
		return session.Event{}, session.FormatErrorf("released v2 row %d ignorable must be true when present", rowIndex)
	}
	ev := session.Event{Type: typ, Time: t, Row: row}
	seqValue := row.Field("seq")
	seq, isCount := seqValue.Count()
	ev.Seq = seq
	if !isCount {
		ev.Seq = -1 // not a count: the Decoder reports it as a seq gap
	}
	if ranges, present := row.Get("sourceEventSeqs"); present {
		if !isCount {
			return session.Event{}, session.FormatErrorf("released v2 row %d seq must be a non-negative safe integer", rowIndex)
		}
		if err := session.CheckSeqRanges(ranges, seq); err != nil {
			return session.Event{}, err
		}
	}
	return ev, nil
}

// Decoder applies dsh's v2 row discipline to a stream of rows: framing,
// dense seqs from 0, the recovery policy and the inherited end-seed cut.
type Decoder struct {
	Header   session.Header
	recovery Recovery
	rowIndex int64
	count    int64
	cut      int64
	hasCut   bool
	issue    error
}

// NewDecoder returns a Decoder for the events of a session with header h.
func NewDecoder(h session.Header, recovery Recovery) *Decoder {
	return &Decoder{Header: h, recovery: recovery}
}

// Decode takes the next parsed row. It returns the event and true when the
// row is accepted, false when recovery drops it, or the refusal.
func (d *Decoder) Decode(row jsonv.Value) (session.Event, bool, error) {
	current := d.rowIndex
	d.rowIndex++
	ev, err := DecodeEvent(row, current)
	if err != nil {
		if d.recovery == Strict {
			return ev, false, err
		}
		if d.issue == nil {
			d.issue = err
		}
		return ev, false, nil
	}
	return d.accept(row, ev, current)
}

// RowCheck is what a decoder of the v2 row family (v2, v3, v4) concludes
// about a row from the row alone: the version's admission, v3's canonical
// event check and the framing. The version's CheckRow computes it, so that
// a reader can run those checks ahead of the decoder, on another goroutine,
// and hand the result to the decoder's DecodeChecked with the same row.
type RowCheck struct {
	Admission, Canonical error
	// Framed is the event DecodeEvent returned, when it accepted the row
	// (FramedOK). The framing does not depend on the row's index but for
	// the refusal naming it, so a refused row is framed again in place.
	Framed   session.Event
	FramedOK bool
}

// CheckRow runs the v2 framing of a row ahead of the decoder.
func CheckRow(row jsonv.Value) RowCheck {
	var c RowCheck
	c.Framed, c.FramedOK = frame(row)
	return c
}

// frame returns the row's event when DecodeEvent accepts it.
func frame(row jsonv.Value) (session.Event, bool) {
	ev, err := DecodeEvent(row, 0)
	return ev, err == nil
}

// FrameRow sets the framing part of c for row, for the other versions'
// CheckRow.
func (c *RowCheck) FrameRow(row jsonv.Value) { c.Framed, c.FramedOK = frame(row) }

// DecodeChecked is Decode for a row whose framing c holds.
func (d *Decoder) DecodeChecked(row jsonv.Value, c RowCheck) (session.Event, bool, error) {
	if !c.FramedOK {
		return d.Decode(row)
	}
	current := d.rowIndex
	d.rowIndex++
	return d.accept(row, c.Framed, current)
}

// accept applies the seq discipline, the recovery policy and the inherited
// cut to the framed row at rowIndex current.
func (d *Decoder) accept(row jsonv.Value, ev session.Event, current int64) (session.Event, bool, error) {
	if d.issue != nil {
		if ev.Type == "turn/end" {
			return ev, false, d.issue
		}
		return ev, false, nil
	}
	if n, isNumber := row.Field("seq").Number(); !isNumber || n != float64(d.count) {
		gap := session.FormatErrorf("released v2 row %d has seq gap (expected %d, got %s)", current, d.count, jsform.String(row.Field("seq"), true))
		if d.recovery == Strict {
			return ev, false, gap
		}
		d.issue = gap
		if ev.Type == "turn/end" {
			return ev, false, gap
		}
		return ev, false, nil
	}
	ev.Seq = d.count // also when the row spelled it -0, which JavaScript's !== lets pass
	d.count++
	if ev.Type == "session/end-seed" {
		data := ev.Data()
		if data.Kind() != jsonv.Object {
			return ev, false, session.FormatErrorf("session/end-seed %d data must be an object", ev.Seq)
		}
		if data.Field("inherited").IsTrue() {
			d.cut, d.hasCut = ev.Seq, true
		}
	}
	return ev, true, nil
}

// Issue returns the first problem recovery has dropped rows for, if any.
func (d *Decoder) Issue() error { return d.issue }

// Count returns the number of events accepted so far.
func (d *Decoder) Count() int64 { return d.count }

// Finish checks the inherited marker against the header and returns the
// inherited event count (the last tagged marker's seq, or 0).
func (d *Decoder) Finish() (int64, error) {
	if d.Header.IsSeeded && !d.hasCut {
		return 0, session.FormatErrorf("released v2 seeded Session lacks an inherited end-seed marker")
	}
	if !d.Header.IsSeeded && d.hasCut {
		return 0, session.FormatErrorf("released v2 unseeded Session contains an inherited end-seed marker")
	}
	return d.cut, nil
}

// EncodeEvent appends the row of ev with sourceEventSeqs range-compressed in
// place, as dsh's v2 encoder writes it. A row that already holds the
// compressed form is copied without change.
func EncodeEvent(dst []byte, ev session.Event) []byte {
	ranges, present := ev.Row.Get("sourceEventSeqs")
	if !present || compressedSeqRanges(ranges) {
		return ev.Row.Append(dst)
	}
	compressed := session.EncodeSeqRanges(session.ExpandSeqRanges(ranges))
	if jsonv.Equal(compressed, ranges) {
		return ev.Row.Append(dst)
	}
	return ev.Row.With("sourceEventSeqs", compressed).Append(dst)
}

// compressedSeqRanges reports whether a sourceEventSeqs value is already
// what compressing its expansion writes, judged on the members as they are,
// without expanding them: counts and [start, end] pairs, strictly
// increasing, each run of three or more consecutive seqs a pair and every
// pair such a run. False means only that EncodeEvent must compress to know.
func compressedSeqRanges(v jsonv.Value) bool {
	if v.Kind() != jsonv.Array {
		return false
	}
	last := int64(-2) // the last seq so far; at first one no seq follows
	run := 0          // the consecutive seqs that end at last
	for _, member := range v.Elements() {
		if member.Kind() != jsonv.Array {
			n, ok := member.Count()
			if !ok || n <= last {
				return false
			}
			if n == last+1 {
				run++
			} else {
				run = 1
			}
			if run >= 3 {
				return false
			}
			last = n
			continue
		}
		if member.Len() != 2 {
			return false
		}
		start, ok1 := member.Index(0).Count()
		end, ok2 := member.Index(1).Count()
		if !ok1 || !ok2 || start <= last+1 || end-start < 2 {
			return false
		}
		last, run = end, 3
	}
	return true
}

// ContainsNegZero reports whether -0 occurs anywhere in v, which dsh's
// lossless-JSON snapshot refuses.
func ContainsNegZero(v jsonv.Value) bool {
	switch v.Kind() {
	case jsonv.Number:
		return v.IsNegZero()
	case jsonv.Array:
		for _, e := range v.Elements() {
			if ContainsNegZero(e) {
				return true
			}
		}
	case jsonv.Object:
		for _, m := range v.Members() {
			if ContainsNegZero(m.Value) {
				return true
			}
		}
	}
	return false
}

func isNumber(v jsonv.Value, want float64) bool {
	n, ok := v.Number()
	return ok && n == want
}

func itoa(n int64) string { return jsonv.IntValue(n).String() }
