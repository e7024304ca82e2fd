package v4

import (
	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// checkDeclared applies what the vocabulary knows of an event's type beyond
// dsh's own rules: a surface type known only from a declaration file is
// refused, as dshlog cannot derive the message it stands for; a payload
// with a structural schema (from a declaration, or a built-in rule such as
// working-directory/change's) must fit it.
func checkDeclared(t *vocab.Type, ev session.Event, seq int64) error {
	if t.Surface && !t.Derivable {
		return session.Unsupportedf("format v4 event type %s at seq %d is a surface type (declared by %s), and dshlog cannot derive a message for it",
			jsform.Quote(t.Name), seq, t.Origin)
	}
	if t.Schema == nil {
		return nil
	}
	if err := t.Schema.Check(ev.Data(), "data"); err != nil {
		if t.Derivable {
			return session.FormatErrorf("format v4 %s at seq %d has an invalid payload: %v", t.Name, seq, err)
		}
		return session.FormatErrorf("format v4 %s at seq %d does not fit the schema declared by %s: %v", t.Name, seq, t.Origin, err)
	}
	return nil
}
