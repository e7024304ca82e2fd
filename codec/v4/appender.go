package v4

import (
	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// Appender is the writing side of the v4 reader: it turns events into the
// rows dsh writes and admits each row with the reader's own checks before
// handing it out, so a writer cannot produce a file the reader refuses. A
// row is admitted as it will be read back: encoded, parsed, then passed
// through the native admission and the v2 framing and seq discipline (the
// strict Decoder) and the per-event checks of the v4 restore (vocabulary,
// density, message admission, ownership and lifecycle relationships that
// a prefix already violates).
//
// A refusal is final: after one the Appender refuses every later event,
// because the reader would never read past it.
//
// Memory: that of a Restorer (see its doc).
type Appender struct {
	decoder  *Decoder
	restorer *Restorer
	err      error
}

// NewAppender starts admitting the events of a session with header h, as
// the dsh build whose vocabulary is v reads them. The header itself must be
// one the reader accepts.
func NewAppender(h session.Header, v *vocab.Vocabulary) (*Appender, error) {
	h.Version = Version
	if err := ValidateHeader(h); err != nil {
		return nil, err
	}
	return &Appender{decoder: NewDecoder(h, v2.Strict), restorer: NewAdmittedRestorer(h, v)}, nil
}

// Append admits ev as the next event and appends its row line (with its
// newline) to dst, exactly as AppendEvent writes it. On a refusal dst is
// returned unchanged with dsh's words.
func (a *Appender) Append(dst []byte, ev session.Event) ([]byte, error) {
	if a.err != nil {
		return dst, a.err
	}
	line := AppendEvent(nil, ev)
	row, err := jsonv.Parse(line[:len(line)-1])
	if err == nil {
		err = a.admit(row)
	}
	if err != nil {
		a.err = err
		return dst, err
	}
	return append(dst, line...), nil
}

// admit runs the reader's checks on one parsed row.
func (a *Appender) admit(row jsonv.Value) error {
	ev, _, err := a.decoder.Decode(row)
	if err != nil {
		return err
	}
	a.restorer.Add(ev)
	return a.restorer.prefixRefusal()
}

// prefixRefusal returns the first refusal the events added so far already
// earn, whatever follows: a per-event refusal, an ownership refusal or a
// lifecycle refusal that no later event can lift. (Refusals that wait for
// the inherited cut, such as a seeded session's pending delivery, are left
// to Finish.)
func (r *Restorer) prefixRefusal() error {
	if r.eventErr != nil {
		return r.eventErr
	}
	if r.own.err != nil {
		return r.own.err
	}
	return r.lifecycle.err
}
