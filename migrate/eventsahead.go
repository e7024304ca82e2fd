package migrate

import (
	"io"

	"github.com/dshlog/dshlog/session"
)

// eventsAhead runs a Reader's restore (the codec, the stages and the
// artifact check) on a goroutine of its own, a few batches of events ahead
// of the caller of Next, so that on a machine with more than one core the
// migration overlaps what the caller does with the events (fold, verify).
// It changes nothing the caller sees: the same events in order, then the
// same error or io.EOF. A batch handed over belongs to the caller: the
// restore never looks into its events again (no codec or stage looks into
// an event after emitting it).
//
// Batches are cut as Encode's are (batchFull), and at most behindBatches
// wait for the caller, so the events held are those of about
// behindBatches × behindBytes of source text besides the two batches in
// hand.
type eventsAhead struct {
	batches chan eventBatch
	free    batchPool
	stop    chan struct{} // closed when the caller stops reading
	done    chan struct{} // closed when the goroutine returns

	cur  eventBatch // the batch being handed out
	next int        // its next event
}

// eventBatch is a run of events in order; err follows them.
type eventBatch struct {
	events []session.Event
	// err is what Next returns after the events: nil while more batches
	// follow, io.EOF at the end, or the restore's error.
	err      error
	snapshot bool // the Reader's Snapshot once the events were read
}

// startEventsAhead starts restoring r's events on a goroutine of its own;
// r's restore belongs to it until close.
func startEventsAhead(r *Reader) *eventsAhead {
	a := &eventsAhead{
		batches: make(chan eventBatch, behindBatches),
		free:    newBatchPool(),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	go a.run(r)
	return a
}

// run restores the events and hands them over in batches, until the
// restore ends or the caller stops reading.
func (a *eventsAhead) run(r *Reader) {
	defer close(a.done)
	batch, from := a.free.get(), r.text
	for {
		ev, err := r.nextInline()
		if err != nil {
			a.hand(eventBatch{events: batch, err: err, snapshot: r.snapshot})
			return
		}
		batch = append(batch, ev)
		if !batchFull(len(batch), r.text-from) {
			continue
		}
		if !a.hand(eventBatch{events: batch, snapshot: r.snapshot}) {
			return
		}
		batch, from = a.free.get(), r.text
	}
}

// hand gives a batch to the caller, waiting while behindBatches wait; it
// reports false once the caller has stopped reading.
func (a *eventsAhead) hand(b eventBatch) bool {
	select {
	case a.batches <- b:
		return true
	case <-a.stop:
		return false
	}
}

// nextEvent is Next for r, whose restore runs ahead.
func (a *eventsAhead) nextEvent(r *Reader) (session.Event, error) {
	for a.next == len(a.cur.events) {
		if err := a.cur.err; err != nil {
			a.cur.err = io.EOF // as the inline Next, done, returns
			return session.Event{}, err
		}
		if a.cur.events != nil {
			a.free.put(a.cur.events)
		}
		a.cur, a.next = <-a.batches, 0
		r.Snapshot = a.cur.snapshot
	}
	ev := a.cur.events[a.next]
	a.cur.events[a.next] = session.Event{}
	a.next++
	return ev, nil
}

// close stops the goroutine and waits for it to return; r's restore is
// then the caller's again.
func (a *eventsAhead) close() {
	select {
	case <-a.stop:
	default:
		close(a.stop)
	}
	<-a.done
}
