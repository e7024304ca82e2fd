package migrate

import (
	"github.com/dshlog/dshlog/migrate/stage"
)

// frontAhead runs the front of an old session's restore (the row reading,
// the codec and the first stages of the chain) on a goroutine of its own,
// handing what the last of those stages emits to the stages after them,
// which run on the Reader's goroutine: on a machine with more than one core
// the two halves of the chain overlap.
//
// It changes nothing the Reader's caller sees. The items go over row by row
// (a unit), each with the row's line and followed by the front's error on
// that row, if any; the back feeds a unit's items to its stages before it
// looks at the error, so an error of a later stage on an earlier item comes
// first, as when the stages run one into the other, and the events of the
// row that failed are dropped either way. The unit of the session's end
// carries the items the front's final checks emitted and the cut after
// them. No front stage looks into an item after emitting it.
//
// Units are handed over in batches cut as Encode's are (batchFull), at most
// behindBatches waiting, so the items held are those of about
// behindBatches × behindBytes of source text besides the batches in hand.
type frontAhead struct {
	units chan *unitBatch
	free  chan *unitBatch // consumed batches, for reuse
	stop  chan struct{}   // closed when the back stops reading
	done  chan struct{}   // closed when the goroutine returns

	filling *unitBatch // the batch the front stages emit into

	cur      *unitBatch // the batch being consumed
	next     int        // its next unit
	nextItem int        // and its next unit's first item
}

// unitBatch is a run of units, with their items one after the other.
type unitBatch struct {
	units []unit
	items []stage.Item
}

// unit is what the front made of one row, or of the session's end.
type unit struct {
	items int   // how many of the batch's items are the unit's
	line  int   // the row's line, for errors of the later stages; 0 at the end
	text  int64 // bytes of the row's text
	err   error // the front's error after the items, with its line
	end   bool  // the session's end: the later stages finish after the items
	cut   int64 // at the end, the cut after the front's stages
	// snapshot is the Reader's Snapshot once the row was read.
	snapshot bool
}

// frontStages is the number of stages of a session stored in version that
// run on the front goroutine: where the work of the v0-rows recipe splits
// most evenly (0 keeps the chain whole).
func frontStages(version int) int {
	if version == 0 {
		return 1 // the codec and v0→v1 | v1→v2, v2→v3, v3→v4, the check
	}
	return 0
}

// startFront splits r's chain and starts its front, when r's version has
// one; the restore's front belongs to the goroutine from then on.
func (r *Reader) startFront() {
	n := frontStages(r.SourceVersion)
	if n == 0 || r.restore.stream == nil || n >= len(r.restore.stream.stages) {
		return
	}
	f := &frontAhead{
		units:   make(chan *unitBatch, behindBatches),
		free:    make(chan *unitBatch, behindBatches+2),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
		filling: &unitBatch{},
	}
	r.restore.stream.splitAfter(n, func(item stage.Item) error {
		f.filling.items = append(f.filling.items, item)
		return nil
	})
	r.front = f
	go f.run(r)
}

// run reads and decodes rows through the front stages, handing each row's
// items over, until the session ends, the front refuses it or the back
// stops reading.
func (f *frontAhead) run(r *Reader) {
	defer close(f.done)
	var text int64
	for {
		b := f.filling
		from := len(b.items)
		line, n, end, err := r.step()
		u := unit{items: len(b.items) - from, line: line, text: n, err: err}
		if end && err == nil {
			b.units = append(b.units, u)
			from = len(b.items)
			u = unit{end: true}
			u.cut, u.err = r.restore.finishFront()
			if u.err != nil {
				u.err = lineError(r.lines, 0, u.err)
			}
			u.items = len(b.items) - from
		}
		u.snapshot = r.snapshot
		b.units = append(b.units, u)
		text += u.text
		last := u.err != nil || u.end
		if last || batchFull(len(b.items), text) {
			if !f.hand(b) || last {
				return
			}
			f.filling, text = f.newBatch(), 0
		}
	}
}

// newBatch returns an empty batch, reusing a consumed one when it can.
func (f *frontAhead) newBatch() *unitBatch {
	select {
	case b := <-f.free:
		return b
	default:
		return &unitBatch{}
	}
}

// hand gives a batch to the back, waiting while behindBatches wait; it
// reports false once the back has stopped reading.
func (f *frontAhead) hand(batch *unitBatch) bool {
	select {
	case f.units <- batch:
		return true
	case <-f.stop:
		return false
	}
}

// nextUnit returns the next unit and its items; the front ends with a unit
// that has an error or is the end, after which nextUnit is not called. The
// items are the caller's until the next call.
func (f *frontAhead) nextUnit() (unit, []stage.Item) {
	for f.cur == nil || f.next == len(f.cur.units) {
		if f.cur != nil {
			clear(f.cur.items)
			f.cur.items, f.cur.units = f.cur.items[:0], f.cur.units[:0]
			select {
			case f.free <- f.cur:
			default:
			}
		}
		f.cur, f.next, f.nextItem = <-f.units, 0, 0
	}
	u := f.cur.units[f.next]
	items := f.cur.items[f.nextItem : f.nextItem+u.items]
	f.next++
	f.nextItem += u.items
	return u, items
}

// fillBack is fill for a Reader whose chain is split: it feeds the next
// unit's items to the stages after the split, then returns the front's
// error, or finishes the session at its end.
func (r *Reader) fillBack() error {
	u, items := r.front.nextUnit()
	r.text += u.text
	r.snapshotBack = u.snapshot
	for _, item := range items {
		if err := r.restore.stream.emitBack(item); err != nil {
			return lineError(r.lines, u.line, err)
		}
	}
	if u.err != nil {
		return u.err
	}
	if !u.end {
		return nil
	}
	r.done = true
	cut, err := r.restore.finishBack(u.cut)
	if err != nil {
		return lineError(r.lines, 0, err)
	}
	r.cut = cut
	return nil
}

// close stops the front and waits for it to return; what it held is then
// the Reader's again.
func (f *frontAhead) close() {
	select {
	case <-f.stop:
	default:
		close(f.stop)
	}
	<-f.done
}

// isSnapshot is the Reader's Snapshot as known on its goroutine.
func (r *Reader) isSnapshot() bool {
	if r.front != nil {
		return r.snapshotBack
	}
	return r.snapshot
}
