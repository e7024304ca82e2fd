package session

// Item is one piece of a session's event stream as it flows from a codec
// through the migration stages to a sink: one event, or a compact run of
// events that a reader which knows the run's type may consume without
// expanding it.
type Item struct {
	Event Event
	Run   Run // nil for a plain event
	// PayloadChecked says the codec found the plain event passing dsh's
	// released payload rules at the stored version
	// (v2.CheckEventPayload(Event, version)), so that the first stage need
	// not run them again on the event as long as it leaves it unchanged.
	PayloadChecked bool
	// Owned says the plain event's Row is an object built for this item
	// alone, which nothing else refers to or will look into again, so that
	// the stage that takes the item may change the row in place
	// (jsonv.Value.Set) instead of copying it. A stage sets it only on rows
	// it built itself and keeps no hold of.
	Owned bool
}

// EachEvent calls f with the item's event, or with each event of its run in
// seq order: how a reader consumes a run whose type it does not know.
func (it Item) EachEvent(f func(Event) error) error {
	if it.Run == nil {
		return f(it.Event)
	}
	events, err := it.Run.Expand()
	if err != nil {
		return err
	}
	for _, ev := range events {
		if err := f(ev); err != nil {
			return err
		}
	}
	return nil
}

// Run is a compact run of consecutive events (dsh's SessionFormatEventRun),
// such as a v0/v1 packed chunk row.
type Run interface {
	// RunType names the kind of run, e.g. "released-assistant-chunks".
	RunType() string
	// FirstSeq is the seq of the run's first event.
	FirstSeq() int64
	// EventCount is the number of events the run stands for.
	EventCount() int64
	// Expand returns the run's events one by one.
	Expand() ([]Event, error)
}

// Emit hands an item on: from a codec to the first migration stage, from a
// stage to the next, or from the last to the sink.
type Emit func(Item) error
