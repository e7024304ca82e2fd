// Package migrate carries a dsh session of any released format to the
// current one (v4) the way dsh's own catalog does: a codec decodes rows, a
// chain of adjacent stateful stages (v0→v1→v2→v3→v4) transforms them one at a
// time, and the v4 writer encodes the result. It also publishes the migrated
// generation beside its source with dsh's file protocol.
package migrate

import (
	"errors"
	"io"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// Options say how a session is read.
type Options struct {
	// Recovery is the codec's policy for damaged rows (dsh's default is
	// recoverable).
	Recovery v2.Recovery
}

// Reader streams the current-format (v4) events of a session file of any
// supported version, migrating in memory as it goes; it never writes.
type Reader struct {
	// Header is the session's current (v4) logical header.
	Header session.Header
	// SourceVersion is the format version the file was written in.
	SourceVersion int
	// Snapshot is true when the file is in dsh's normalized snapshot form
	// (no seq or time in rows): seq is restored by counting rows and time
	// as createdAt + seq, as the corpus restore rules do.
	Snapshot bool

	lines   *jsonl.Reader
	decoder *v4.Decoder
	pending []session.Event
	issue   error // the first unparsable row, fatal if a turn/end follows
	torn    bool
	cut     int64
	done    bool
	seq     int64
}

// NewReader reads the header of the session in lines and returns a Reader of
// its events.
func NewReader(lines *jsonl.Reader, opts Options) (*Reader, error) {
	line, err := lines.Next()
	if err == io.EOF || (err == nil && line.Torn) {
		return nil, lineError(lines, 1, session.Plainf("corrupt session log: empty or header-less session log"))
	}
	if err != nil {
		return nil, err
	}
	hv, err := jsonv.Parse(line.Text)
	if err != nil || hv.Kind() != jsonv.Object {
		return nil, lineError(lines, 1, session.Plainf("corrupt session log: header line is not valid JSON"))
	}
	version, ok := hv.Field("version").Count()
	if !ok {
		return nil, lineError(lines, 1, session.Plainf("corrupt session log: header version is not a non-negative safe integer"))
	}
	r := &Reader{lines: lines, SourceVersion: int(version)}
	switch {
	case version > v4.Version:
		return nil, lineError(lines, 1, session.Unsupportedf("stored Session uses newer format v%d; this build writes v%d", version, v4.Version))
	case version < v4.Version:
		return nil, lineError(lines, 1, session.Unsupportedf("format v%d is not supported yet", version))
	}
	h, err := v4.DecodeHeader(hv)
	if err != nil {
		return nil, lineError(lines, 1, err)
	}
	r.Header = h
	r.decoder = v4.NewDecoder(h, opts.Recovery)
	return r, nil
}

// Next returns the next event, or io.EOF after the last one. Errors carry
// the file and line.
func (r *Reader) Next() (session.Event, error) {
	for len(r.pending) == 0 {
		if r.done {
			return session.Event{}, io.EOF
		}
		if err := r.fill(); err != nil {
			return session.Event{}, err
		}
	}
	ev := r.pending[0]
	r.pending = r.pending[1:]
	return ev, nil
}

// fill reads rows until one yields events or the file ends.
func (r *Reader) fill() error {
	line, err := r.lines.Next()
	if err == io.EOF {
		return r.finish()
	}
	if err != nil {
		return err
	}
	if line.Torn {
		// dsh reads only up to the last newline: a torn tail is dropped.
		r.torn = true
		return r.finish()
	}
	row, err := jsonv.Parse(line.Text)
	if err != nil {
		if r.issue == nil {
			r.issue = &jsonl.Error{File: r.lines.Name(), Line: line.Num, Column: syntaxColumn(err),
				Err: session.Plainf("corrupt session log: row %d is not valid JSON", line.Num-1)}
		}
		return nil
	}
	if r.issue != nil {
		if row.Field("type").Text() == "turn/end" {
			return r.issue
		}
		return nil
	}
	if r.seq == 0 && !row.Has("seq") && row.Kind() == jsonv.Object {
		r.Snapshot = true
	}
	if r.Snapshot {
		row = restoreSnapshotRow(row, r.seq, r.Header.CreatedAt)
	}
	ev, ok, err := r.decoder.Decode(row)
	if err != nil {
		return lineError(r.lines, line.Num, err)
	}
	if ok {
		r.seq++
		r.pending = append(r.pending, ev)
	}
	return nil
}

func (r *Reader) finish() error {
	r.done = true
	cut, err := r.decoder.Finish()
	if err != nil {
		return lineError(r.lines, 0, err)
	}
	r.cut = cut
	return nil
}

// Cut returns the inherited event count; valid after Next returned io.EOF.
func (r *Reader) Cut() int64 { return r.cut }

// TornTail reports whether a torn last line was dropped; valid after Next
// returned io.EOF.
func (r *Reader) TornTail() bool { return r.torn }

// Issue returns the problem that made recovery drop the rows after it, if
// any; valid after Next returned io.EOF.
func (r *Reader) Issue() error {
	if r.issue != nil {
		return r.issue
	}
	return r.decoder.Issue()
}

// restoreSnapshotRow gives a normalized snapshot row its seq and time back,
// in the writer's key order: type, seq, time, then the rest as they were.
func restoreSnapshotRow(row jsonv.Value, seq, createdAt int64) jsonv.Value {
	members := []jsonv.Member{
		jsonv.M("type", row.Field("type")),
		jsonv.M("seq", jsonv.IntValue(seq)),
		jsonv.M("time", jsonv.IntValue(createdAt+seq)),
	}
	for _, m := range row.Members() {
		if m.Key != "type" && m.Key != "seq" && m.Key != "time" {
			members = append(members, m)
		}
	}
	return jsonv.ObjectValue(members...)
}

// syntaxColumn returns the 1-based byte column of a JSON syntax error, or 0.
func syntaxColumn(err error) int {
	var syntax *jsonv.SyntaxError
	if errors.As(err, &syntax) {
		return syntax.Offset + 1
	}
	return 0
}

func lineError(lines *jsonl.Reader, line int, err error) error {
	var located *jsonl.Error
	if errors.As(err, &located) {
		return err
	}
	return &jsonl.Error{File: lines.Name(), Line: line, Err: err}
}
