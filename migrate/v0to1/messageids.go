package v0to1

// messageIDs maps the seq of each message event to its message id. It is
// kept for the whole session, one entry per message, so it holds no
// pointers: the ids are copied into one byte arena and the index keeps
// where each one lies, which leaves the garbage collector nothing to scan
// in it however long the session grows.
type messageIDs struct {
	text  []byte
	spans map[int64]idSpan
}

// idSpan is where an id lies in the arena.
type idSpan struct{ start, end int }

func newMessageIDs() *messageIDs {
	return &messageIDs{spans: map[int64]idSpan{}}
}

// set records id as the message id of seq, replacing any earlier one.
func (m *messageIDs) set(seq int64, id string) {
	start := len(m.text)
	m.text = append(m.text, id...)
	m.spans[seq] = idSpan{start, len(m.text)}
}

// get returns the message id of seq, and whether seq was given one.
func (m *messageIDs) get(seq int64) (string, bool) {
	span, ok := m.spans[seq]
	if !ok {
		return "", false
	}
	return string(m.text[span.start:span.end]), true
}
