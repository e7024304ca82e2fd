package migrate

import (
	"io"

	"github.com/dshlog/dshlog/codec/v4"
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
func Encode(w io.Writer, r *Reader) (Written, error) {
	var out Written
	// The header's bytes do not depend on the cut, which is known only at
	// the end; that the cut fits the header is checked there, as dsh's
	// writer checks it when it encodes the prepared artifact.
	buf, err := v4.AppendHeader(make([]byte, 0, flushSize+64<<10), r.Header, 0)
	if err != nil {
		return out, err
	}
	flush := func() error {
		n, err := w.Write(buf)
		out.Bytes += int64(n)
		buf = buf[:0]
		return err
	}
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return out, err
		}
		buf = v4.AppendEvent(buf, ev)
		out.Events++
		if len(buf) >= flushSize {
			if err := flush(); err != nil {
				return out, err
			}
		}
	}
	out.Cut = r.Cut()
	if _, err := v4.AppendHeader(nil, r.Header, out.Cut); err != nil {
		return out, err
	}
	return out, flush()
}
