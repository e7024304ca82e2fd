package v3to4

import (
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// edit is an event on its way through the stage. Its row is copied on the
// first change, unless the item that brought it owns it (session.Item.Owned),
// and changed in place from then on: an event the stage rewrites in several
// places is built once.
type edit struct {
	session.Event
	owned bool // the row is the stage's to change in place
}

// set sets the row's member key to v.
func (e *edit) set(key string, v jsonv.Value) {
	if e.owned {
		e.Event = e.Event.Set(key, v)
		return
	}
	e.Event, e.owned = e.Event.With(key, v), true
}

// item is the edited event as the item the stage hands on, owned when the
// stage built or was handed its row.
func (e *edit) item() session.Item { return session.Item{Event: e.Event, Owned: e.owned} }
