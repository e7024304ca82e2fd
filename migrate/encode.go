package migrate

import (
	"io"

	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/session"
)

// flushSize is how much encoded text is gathered before a write.
const flushSize = 1 << 20

// Written says what Encode wrote.
type Written struct {
	Events int64
	Bytes  int64
	Cut    int64
}

// Encode writes every event of r as dsh's v4 writer does (the header line,
// then one line per event) and returns what it wrote. The writes are
// streamed: on a refusal part of the session has already gone to w, so a
// caller that must leave nothing behind writes to a staging file.
//
// When r's events may be looked into on another goroutine (see
// Reader.takeCheck), the artifact check, the encoding and the writes run on
// a goroutine of their own, a few batches of events behind the migration, so
// that on a machine with more than one core they overlap it. The bytes, and
// the error returned, are the same either way.
func Encode(w io.Writer, r *Reader) (Written, error) { return encode(w, r, true) }

// encode is Encode, with the encoding on the caller's goroutine unless
// behind and r allows it.
func encode(w io.Writer, r *Reader, behind bool) (Written, error) {
	// The header's bytes do not depend on the cut, which is known only at
	// the end; that the cut fits the header is checked there, as dsh's
	// writer checks it when it encodes the prepared artifact.
	buf, err := v4.AppendHeader(make([]byte, 0, flushSize+64<<10), r.Header, 0)
	if err != nil {
		return Written{}, err
	}
	if !behind {
		return encodeInline(w, r, buf)
	}
	if check, ok := r.takeCheck(); ok {
		return encodeBehind(w, r, buf, check)
	}
	return encodeInline(w, r, buf)
}

// encodeInline is Encode on the caller's goroutine, after the header.
func encodeInline(w io.Writer, r *Reader, header []byte) (Written, error) {
	e := &encoder{w: w, buf: header}
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return e.out, err
		}
		if err := e.add(ev); err != nil {
			return e.out, err
		}
	}
	return e.end(r)
}

// encoder encodes events into a buffer that it writes out once it holds
// flushSize bytes.
type encoder struct {
	w     io.Writer
	buf   []byte
	check validator // given each event before it is encoded, or nil
	out   Written
}

// add encodes ev, and writes the buffer out when it is full.
func (e *encoder) add(ev session.Event) error {
	if e.check != nil {
		e.check.Add(ev)
	}
	e.buf = v4.AppendEvent(e.buf, ev)
	e.out.Events++
	if len(e.buf) < flushSize {
		return nil
	}
	return e.flush()
}

func (e *encoder) flush() error {
	n, err := e.w.Write(e.buf)
	e.out.Bytes += int64(n)
	e.buf = e.buf[:0]
	return err
}

// end checks the header against the cut of r, which has returned io.EOF,
// and writes what is left.
func (e *encoder) end(r *Reader) (Written, error) {
	e.out.Cut = r.Cut()
	if _, err := v4.AppendHeader(nil, r.Header, e.out.Cut); err != nil {
		return e.out, err
	}
	return e.out, e.flush()
}

// Events are handed to the encoding goroutine in batches of at most
// behindEvents events or about behindBytes of the source text they come
// from, whichever comes first, and at most behindBatches batches wait for
// it: besides the read-ahead's text, the events held are those of about
// behindBatches × behindBytes of text, or of a few rows when rows are
// longer than that.
const (
	behindEvents  = 512
	behindBytes   = 256 << 10
	behindBatches = 2
)

// encodeBehind is Encode with check, the encoding and the writes on a
// goroutine of their own, fed batches of events in order. A batch handed
// over belongs to that goroutine: the migration never looks into its
// events again. On a refusal of the migration the encoding goroutine
// finishes the batches it was handed, as Encode would have before reading
// further, so that an earlier write error is still the one returned.
func encodeBehind(w io.Writer, r *Reader, header []byte, check validator) (Written, error) {
	b := startBehind(&encoder{w: w, buf: header, check: check})
	batch, from := b.free.get(), r.text
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if werr := b.close(batch); werr != nil {
				return b.enc.out, werr
			}
			return b.enc.out, err
		}
		batch = append(batch, ev)
		if !batchFull(len(batch), r.text-from) {
			continue
		}
		if !b.hand(batch) {
			err := b.close(nil)
			return b.enc.out, err
		}
		batch, from = b.free.get(), r.text
	}
	if err := b.close(batch); err != nil {
		return b.enc.out, err
	}
	if err := r.judge(); err != nil {
		return b.enc.out, err
	}
	return b.enc.end(r)
}

// batchFull reports whether a batch of events that came from text bytes of
// source is to be handed over.
func batchFull(events int, text int64) bool {
	return events >= behindEvents || text >= behindBytes
}

// batchPool recycles the event batches a producer hands to a consumer on
// another goroutine, so that a long session reuses a few slices.
type batchPool chan []session.Event

// newBatchPool returns a pool that holds the batches in flight and the two in hand.
func newBatchPool() batchPool { return make(batchPool, behindBatches+2) }

// get returns an empty batch, a recycled one when there is one.
func (p batchPool) get() []session.Event {
	select {
	case batch := <-p:
		return batch
	default:
		return make([]session.Event, 0, 64)
	}
}

// put recycles a consumed batch, dropping its events.
func (p batchPool) put(batch []session.Event) {
	clear(batch)
	select {
	case p <- batch[:0]:
	default:
	}
}

// behind runs an encoder on a goroutine of its own. Until close returns,
// the encoder belongs to that goroutine.
type behind struct {
	enc     *encoder
	batches chan []session.Event
	free    batchPool
	failed  chan struct{} // closed when a write fails
	done    chan struct{} // closed when the goroutine returns
	err     error         // the failed write's error; read after done
}

func startBehind(enc *encoder) *behind {
	b := &behind{
		enc:     enc,
		batches: make(chan []session.Event, behindBatches),
		free:    newBatchPool(),
		failed:  make(chan struct{}),
		done:    make(chan struct{}),
	}
	go b.run()
	return b
}

// run encodes the batches in order until they end or a write fails.
func (b *behind) run() {
	defer close(b.done)
	for batch := range b.batches {
		for _, ev := range batch {
			if err := b.enc.add(ev); err != nil {
				b.err = err
				close(b.failed)
				return
			}
		}
		b.free.put(batch)
	}
}

// hand gives a batch to the encoding goroutine, waiting while
// behindBatches wait for it; it reports false once a write has failed.
func (b *behind) hand(batch []session.Event) bool {
	select {
	case b.batches <- batch:
		return true
	case <-b.failed:
		return false
	}
}

// close hands over a last batch (when not nil and no write has failed),
// waits for the encoding goroutine to finish every batch, and returns the
// error of a failed write. The encoder is then the caller's again.
func (b *behind) close(last []session.Event) error {
	if last != nil {
		b.hand(last)
	}
	close(b.batches)
	<-b.done
	return b.err
}
