package migrate

import (
	"bytes"
	"sync"

	"github.com/dshlog/dshlog/codec/v3"
	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/jsonv"
)

// readAhead reads and parses a session's body lines on a goroutine of its
// own, a few batches ahead of the codec and the stages, so that on a machine
// with two cores the line reading and JSON parsing cost no wall time of
// their own. It changes nothing the consumer sees: the same lines, parsed
// the same way, in order, then the same final error.
type readAhead struct {
	out  chan *batch // full batches, in file order
	free chan *batch // consumed batches, for reuse
	done chan struct{}
	stop sync.Once
	wg   sync.WaitGroup

	cur  *batch // the batch being consumed
	next int    // its next line
}

// batch is a run of consecutive lines, each with its parse.
type batch struct {
	lines []parsedLine
	// err is what the line reader returned after the lines (io.EOF at the
	// end), or nil when more lines follow.
	err error
}

// parsedLine is one line and its parse; a torn line is not parsed.
type parsedLine struct {
	jsonl.Line
	row jsonv.Value
	err error // the parse's syntax error
	// check is the codec's checks of the row alone, when checked.
	check   v3.RowCheck
	checked bool
}

// A batch ends after batchLines lines or batchBytes bytes of text, whichever
// comes first; aheadBatches full batches may wait for the consumer. The
// memory held is a few batches of text and their parses, about 1 MiB.
const (
	batchLines   = 512
	batchBytes   = 256 << 10
	aheadBatches = 2
)

// startReadAhead starts reading the lines of r after the ones already read;
// check, when set, is run on every parsed row. r belongs to the read-ahead
// until close.
func startReadAhead(r *jsonl.Reader, check func(jsonv.Value) v3.RowCheck) *readAhead {
	a := &readAhead{
		out:  make(chan *batch, aheadBatches),
		free: make(chan *batch, aheadBatches+2),
		done: make(chan struct{}),
	}
	a.wg.Add(1)
	go a.run(r, check)
	return a
}

func (a *readAhead) run(r *jsonl.Reader, check func(jsonv.Value) v3.RowCheck) {
	defer a.wg.Done()
	for {
		var b *batch
		select {
		case b = <-a.free:
			clear(b.lines)
			b.lines = b.lines[:0]
		default:
			b = &batch{lines: make([]parsedLine, 0, batchLines)}
		}
		for size := 0; len(b.lines) < batchLines && size < batchBytes; {
			line, err := r.Next()
			if err != nil {
				b.err = err
				break
			}
			p := parsedLine{Line: line}
			if !line.Torn {
				p.row, p.err = jsonv.Parse(line.Text)
				warm(p.row)
				if p.err == nil && check != nil {
					p.check, p.checked = check(p.row), true
				}
			}
			b.lines = append(b.lines, p)
			size += len(line.Text)
		}
		select {
		case a.out <- b:
		case <-a.done:
			return
		}
		if b.err != nil {
			return
		}
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
			select {
			case a.free <- a.cur:
			default:
			}
		}
		a.cur, a.next = <-a.out, 0
	}
	p := a.cur.lines[a.next]
	a.cur.lines[a.next] = parsedLine{}
	a.next++
	return p, nil
}

// close stops the goroutine and waits for it to leave the line reader.
func (a *readAhead) close() {
	a.stop.Do(func() { close(a.done) })
	a.wg.Wait()
}

// warm decodes, ahead of the consumer, the parts of a parsed row that the
// codecs and stages from v2 on look into: the row, its data, the messages
// it carries with their sources and content lists, a request header's
// tools and an embedded stream that holds block chunks. Decoding is
// remembered in the values, so the consumer finds them decoded; content
// blocks and stream entries are left to be peeked at.
func warm(row jsonv.Value) {
	data := row.Field("data")
	row.Field("sourceEventSeqs").Elements()
	data.Members()
	warmMessage(data)
	warmMessage(data.Field("message"))
	for _, m := range data.Field("inserted").Elements() {
		warmMessage(m)
	}
	for _, tool := range data.Field("header").Field("tools").Elements() {
		tool.Members()
	}
	if stream := data.Field("stream"); stream.Raw() == nil || bytes.Contains(stream.Raw(), []byte(`"block-`)) {
		stream.Elements()
	}
}

func warmMessage(m jsonv.Value) {
	m.Field("source").Members()
	m.Field("content").Elements()
}
