package v0

import (
	"strconv"

	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// Decoder reads the body rows of one v0 or v1 session as dsh's released
// codec scans them: each row is an event or a packed chunk run, seqs are
// dense from 0 (a run counts for its members), and in recoverable mode the
// first damaged row ends the log quietly unless a later turn/end row makes
// the damage fatal.
type Decoder struct {
	header   session.Header
	cut      int64
	recovery v2.Recovery
	rowIndex int64
	count    int64
	issue    error
}

// NewDecoder decodes the physical header hv of a session of the given
// version (0 or 1) and starts reading its rows.
func NewDecoder(hv jsonv.Value, version int, recovery v2.Recovery) (*Decoder, error) {
	h, cut, err := DecodeHeader(hv, version)
	if err != nil {
		return nil, err
	}
	return &Decoder{header: h, cut: cut, recovery: recovery}, nil
}

// Header returns the logical header.
func (d *Decoder) Header() session.Header { return d.header }

// HeaderCut returns the inherited cut the header states (seedLength, or 0).
func (d *Decoder) HeaderCut() int64 { return d.cut }

// Issue returns the first problem recovery has dropped rows for, if any.
func (d *Decoder) Issue() error { return d.issue }

// Decode takes the next parsed body row and emits the event or the packed
// run it decodes to; a row that recovery drops emits nothing.
func (d *Decoder) Decode(row jsonv.Value, emit session.Emit) error {
	current := d.rowIndex
	d.rowIndex++
	c, f, err := decodeRow(row, current)
	if err != nil {
		if d.recovery == v2.Strict {
			return err
		}
		if d.issue == nil {
			d.issue = err
		}
		return nil
	}
	return d.place(row, current, c.item(), f, emit)
}

// RowCheck is what CheckRow concludes about a body row from the row alone,
// for DecodeChecked: the packed run or the event it decodes to and, for an
// event, what is known of its envelope and payload. Its zero value says
// nothing is known, and DecodeChecked then decodes the row itself.
type RowCheck struct {
	run     *ChunkRun
	event   session.Event
	ahead   aheadEvent
	decoded bool // the row decoded, to run or to event
}

// CheckRow decodes a row ahead of DecodeChecked, from the row alone: the
// event or packed run it decodes to and, for an event, whether it passes
// dsh's released payload rules at the session's version with the row's own
// seq (which the stages would otherwise run in place). A row the codec
// refuses is left for DecodeChecked to decode again, where its index words
// the refusal. CheckRow reads nothing of the decoder but its version, so it
// may run on other goroutines while the decoder decodes earlier rows. The
// result allocates nothing.
func (d *Decoder) CheckRow(row jsonv.Value) RowCheck {
	c, f, err := decodeRow(row, 0)
	if err != nil || c.run != nil {
		return c
	}
	if payloadPasses(c.event, f, d.header.Version) {
		c.ahead |= payloadChecked
	}
	if seq, ok := f.seq.Count(); ok {
		c.event.Seq = seq
		c.ahead |= seqCounted
		if f.hasRanges {
			c.ahead |= hasRanges
		}
	}
	return c
}

// aheadEvent is what CheckRow concluded about an event row besides the
// event itself: a set of the flags below.
type aheadEvent uint8

const (
	// payloadChecked says the event passes the payload rules.
	payloadChecked aheadEvent = 1 << iota
	// seqCounted says the row's seq is a count, the event's Seq; the
	// envelope is then read off the flags instead of the row.
	seqCounted
	// hasRanges says the row has sourceEventSeqs.
	hasRanges
)

// DecodeChecked is Decode for a row whose CheckRow result is c.
func (d *Decoder) DecodeChecked(row jsonv.Value, c RowCheck, emit session.Emit) error {
	if !c.decoded {
		return d.Decode(row, emit)
	}
	item := c.item()
	var f envelope
	if c.run == nil {
		item.PayloadChecked = c.ahead&payloadChecked != 0
		if c.ahead&seqCounted == 0 {
			f = readEnvelope(row)
		} else {
			f = envelope{seq: jsonv.IntValue(c.event.Seq), hasSeq: true}
			if c.ahead&hasRanges != 0 {
				f.ranges, f.hasRanges = row.Field("sourceEventSeqs"), true
			}
		}
	}
	current := d.rowIndex
	d.rowIndex++
	return d.place(row, current, item, f, emit)
}

// payloadPasses reports whether the event of a decoded row passes the
// released payload rules of version at the row's seq. Those rules read the
// event's type, seq and data only, so the verdict holds for the event
// Decode emits, whose seq is the row's when it is emitted at all (and
// whose sourceEventSeqs may be expanded). The stages check assistant/chunk
// events otherwise, and a type that is not a string by its string form:
// neither is checked ahead.
func payloadPasses(ev session.Event, f envelope, version int) bool {
	if f.typ.Kind() != jsonv.String || ev.Type == "assistant/chunk" {
		return false
	}
	seq, ok := f.seq.Count()
	if !ok {
		return false
	}
	ev.Seq = seq
	return v2.CheckEventPayload(ev, version) == nil
}

// place applies the seq discipline and the recovery policy to the item
// that the body row at index current decoded to, whose envelope f holds,
// and emits it.
func (d *Decoder) place(row jsonv.Value, current int64, item session.Item, f envelope, emit session.Emit) error {
	closesTurn := item.Run == nil && item.Event.Type == "turn/end"
	if d.issue != nil {
		if closesTurn {
			return d.issue
		}
		return nil
	}
	seq, ok := f.seq, f.hasSeq
	if item.Run != nil {
		seq, ok = jsonv.IntValue(item.Run.FirstSeq()), true
	}
	if n, isNumber := seq.Number(); !isNumber || n != float64(d.count) {
		gap := session.FormatErrorf("released Session row %d has seq gap (expected %d, got %s)", current, d.count, jsform.String(seq, ok))
		if d.recovery == v2.Strict {
			return gap
		}
		d.issue = gap
		if closesTurn {
			return gap
		}
		return nil
	}
	if item.Run != nil {
		d.count += item.Run.EventCount()
		return emit(item)
	}
	item.Event.Seq = d.count
	d.count++
	if f.hasRanges {
		// Checked by decodeRow; expanded only now that the seq is in place.
		seqs := expandSeqRanges(f.ranges)
		item.Event.Row = row.With("sourceEventSeqs", seqArray(seqs))
	}
	return emit(item)
}

// Finish checks that the header's cut lies within the log and returns it.
func (d *Decoder) Finish(session.Emit) (int64, error) {
	if d.cut > d.count {
		return 0, session.FormatErrorf("Session inheritedEventCount exceeds its event count")
	}
	return d.cut, nil
}

// envelope is what the codec reads of a row's members, in one scan.
type envelope struct {
	typ, seq, time, ranges jsonv.Value
	hasSeq, hasRanges      bool
}

func readEnvelope(row jsonv.Value) envelope {
	var f envelope
	for _, m := range row.Members() {
		switch m.Key {
		case "type":
			f.typ = m.Value
		case "seq":
			f.seq, f.hasSeq = m.Value, true
		case "time":
			f.time = m.Value
		case "sourceEventSeqs":
			f.ranges, f.hasRanges = m.Value, true
		}
	}
	return f
}

// decodeRow classifies one body row and decodes it; it returns what it
// read of the row's envelope too.
func decodeRow(row jsonv.Value, rowIndex int64) (RowCheck, envelope, error) {
	if row.Kind() != jsonv.Object {
		_, err := v2.ReleasedRecord(row, "released Session row "+itoa(rowIndex))
		return RowCheck{}, envelope{}, err
	}
	f := readEnvelope(row)
	if tag, ok := f.typ.Str(); ok && (tag == textChunks || tag == reasoningChunks || tag == toolCallChunks) {
		run, err := decodePackedRun(row, tag, rowIndex)
		if err != nil {
			return RowCheck{}, f, err
		}
		return RowCheck{run: run, decoded: true}, f, nil
	}
	ev, err := decodeEvent(row, f, rowIndex)
	return RowCheck{event: ev, decoded: err == nil}, f, err
}

// item is the run or the event the row decoded to.
func (c RowCheck) item() session.Item {
	if c.run != nil {
		return session.Item{Run: c.run}
	}
	return session.Item{Event: c.event}
}

// decodeEvent decodes an event row whose envelope f holds. The codec
// checks nothing but its sourceEventSeqs, which Decode expands once the
// row's seq is known to be in place; type, time and data are the edges'
// business, so an event whose type is not a string has an empty Type.
func decodeEvent(row jsonv.Value, f envelope, rowIndex int64) (session.Event, error) {
	ev := session.Event{Row: row}
	ev.Type, _ = f.typ.Str()
	ev.Time, _ = f.time.SafeInt()
	if f.hasRanges {
		seq, ok := f.seq.Count()
		if !ok {
			_, err := jsform.Count(f.seq, "released Session row "+itoa(rowIndex)+" seq")
			return ev, err
		}
		if err := checkSeqRanges(f.ranges, seq); err != nil {
			return ev, err
		}
	}
	return ev, nil
}

func seqArray(seqs []int64) jsonv.Value {
	elems := make([]jsonv.Value, len(seqs))
	for i, s := range seqs {
		elems[i] = jsonv.IntValue(s)
	}
	return jsonv.ArrayValue(elems...)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
