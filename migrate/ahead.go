package migrate

import (
	"runtime"
	"sync"

	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/jsonv"
)

// readAhead reads a session's body lines on a goroutine of its own and
// parses them on a few more, some batches ahead of the codec and the
// stages, so that on a machine with more than one core the reading and the
// parsing, with the row checks that depend on the row alone, overlap the
// stateful work. It changes nothing the consumer sees: the same lines,
// parsed the same way, in order, then the same final error.
type readAhead struct {
	order chan *batch // batches in file order, each parsed once ready closes
	work  chan *batch // batches to parse
	free  chan *batch // consumed batches, for reuse
	done  chan struct{}
	stop  sync.Once
	wg    sync.WaitGroup

	// Text read but not yet consumed, at most about aheadBytes: reading
	// waits for room, so a session of huge rows holds one or two of them.
	mu       sync.Mutex
	room     sync.Cond // signalled when text is consumed or on close
	inFlight int
	closed   bool

	cur  *batch // the batch being consumed
	next int    // its next line
}

// batch is a run of consecutive lines, each with its parse.
type batch struct {
	lines []parsedLine
	// err is what the line reader returned after the lines (io.EOF at the
	// end), or nil when more lines follow.
	err   error
	ready chan struct{} // closed once every line is parsed
	size  int           // bytes of text
}

// parsedLine is one line and its parse; a torn line is not parsed.
type parsedLine struct {
	jsonl.Line
	row jsonv.Value
	err error // the parse's syntax error
	// check is the codec's checks of the row alone, when checked.
	check   rowCheck
	checked bool
}

// A batch ends after batchLines lines or batchBytes bytes of text, whichever
// comes first. A new batch is read while less than aheadBytes of text waits
// for the consumer, so the memory held is about that much text and its
// parses, or, for rows longer than that, the row being consumed and the next
// one. A larger window only keeps more garbage alive for the collector.
const (
	batchLines   = 512
	batchBytes   = 256 << 10
	aheadBytes   = 1 << 20
	aheadBatches = 16 // more than aheadBytes of batches, which bounds them first
)

// startReadAhead starts reading the lines of r after the ones already read;
// check, when set, is run on every parsed row. r belongs to the read-ahead
// until close.
func startReadAhead(r *jsonl.Reader, check func(jsonv.Value) rowCheck) *readAhead {
	a := &readAhead{
		order: make(chan *batch, aheadBatches),
		work:  make(chan *batch, aheadBatches),
		free:  make(chan *batch, aheadBatches+2),
		done:  make(chan struct{}),
	}
	a.room.L = &a.mu
	parsers := min(max(runtime.GOMAXPROCS(0), 1), 4)
	a.wg.Add(1 + parsers)
	go a.read(r)
	for range parsers {
		go a.parse(check)
	}
	return a
}

// read splits the lines into batches and hands each to the parsers and, in
// order, to the consumer.
func (a *readAhead) read(r *jsonl.Reader) {
	defer a.wg.Done()
	defer close(a.work)
	for a.waitForRoom() {
		var b *batch
		select {
		case b = <-a.free:
			clear(b.lines)
			b.lines, b.err = b.lines[:0], nil
		default:
			b = &batch{} // lines grow as read: a small file's batch stays small
		}
		b.ready = make(chan struct{})
		b.size = 0
		for len(b.lines) < batchLines && b.size < batchBytes {
			line, err := r.Next()
			if err != nil {
				b.err = err
				break
			}
			b.lines = append(b.lines, parsedLine{Line: line})
			b.size += len(line.Text)
		}
		a.mu.Lock()
		a.inFlight += b.size
		a.mu.Unlock()
		select {
		case a.order <- b:
		case <-a.done:
			return
		}
		a.work <- b // never blocks for long: the parsers take work until work closes
		if b.err != nil {
			return
		}
	}
}

// parse parses the lines of each batch it takes and runs check on the rows.
func (a *readAhead) parse(check func(jsonv.Value) rowCheck) {
	defer a.wg.Done()
	for b := range a.work {
		for i := range b.lines {
			p := &b.lines[i]
			if p.Torn {
				continue
			}
			p.row, p.err = jsonv.Parse(p.Text)
			if p.err == nil && check != nil {
				p.check, p.checked = check(p.row), true
			}
		}
		close(b.ready)
	}
}

// line returns the next line and its parse, or the reader's final error
// (io.EOF at the end) once every line has been returned.
func (a *readAhead) line() (parsedLine, error) {
	for a.cur == nil || a.next == len(a.cur.lines) {
		if a.cur != nil {
			if a.cur.err != nil {
				return parsedLine{}, a.cur.err
			}
			a.mu.Lock()
			a.inFlight -= a.cur.size
			a.room.Signal()
			a.mu.Unlock()
			select {
			case a.free <- a.cur:
			default:
			}
		}
		a.cur, a.next = <-a.order, 0
		<-a.cur.ready
	}
	p := a.cur.lines[a.next]
	a.cur.lines[a.next] = parsedLine{}
	a.next++
	return p, nil
}

// waitForRoom waits until less than aheadBytes of text is in flight, and
// reports false when the read-ahead is closed instead.
func (a *readAhead) waitForRoom() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for a.inFlight >= aheadBytes && !a.closed {
		a.room.Wait()
	}
	return !a.closed
}

// close stops the goroutines and waits for them to leave the line reader
// and the rows.
func (a *readAhead) close() {
	a.stop.Do(func() {
		a.mu.Lock()
		a.closed = true
		a.room.Broadcast()
		a.mu.Unlock()
		close(a.done)
	})
	a.wg.Wait()
}
