package agentloop

import (
	"bytes"
	"fmt"

	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/jsonv"
)

// Request is a model request frozen at dispatch: the JSON text of the
// request dsh's loop hands its model client (buildRequest: the header's
// config fields, messages, toolHistory, tools, sessionId), built once from
// the fold of the log and held in a Go string, so nothing can change it
// afterwards. JSON returns a copy; a model that edits its copy changes
// nothing the loop or the Recorder holds.
type Request struct {
	index int    // 1-based: the k-th request of the log
	body  string // the frozen JSON text
}

// freeze encodes the fold's request for session id.
func freeze(r fold.Request, sessionID string) Request {
	return Request{index: r.Index, body: string(r.Value(sessionID).Encode())}
}

// Index returns the request's number in the log: request k is settled by
// the log's k-th settlement.
func (r Request) Index() int { return r.index }

// JSON returns a copy of the request's JSON text.
func (r Request) JSON() []byte { return []byte(r.body) }

// Value parses the request (a fresh value each call).
func (r Request) Value() jsonv.Value {
	v, err := jsonv.Parse([]byte(r.body))
	if err != nil {
		panic("agentloop: a frozen request is not JSON: " + err.Error()) // freeze encodes valid JSON
	}
	return v
}

// Messages returns the request's messages, each as its JSON text.
func (r Request) Messages() [][]byte {
	var out [][]byte
	for _, m := range r.Value().Field("messages").Elements() {
		out = append(out, m.Encode())
	}
	return out
}

// Mismatch is a difference between a request the model received and the
// request rebuilt from the log: which request, which part (a message, or a
// field such as tools or model), and both versions.
type Mismatch struct {
	// Index is the request's number in the log (Request.Index).
	Index int
	// Settlement is the seq of the settlement the rebuilt request comes
	// from, or -1 when the log has no settlement for it.
	Settlement int64
	// Part names what differs: "message N" (0-based) or a top-level
	// field; Sent and Rebuilt are both versions as JSON, "(absent)" for
	// a missing one.
	Part    string
	Sent    string
	Rebuilt string
	// Problem, when set, is a difference that is not a part: the log has
	// no settlement for the request.
	Problem string
}

// Error says which request differs, where, and both versions.
func (m *Mismatch) Error() string {
	if m.Problem != "" {
		return fmt.Sprintf("request %d: %s", m.Index, m.Problem)
	}
	return fmt.Sprintf("request %d (settled at seq %d): %s differs\n  sent:    %s\n  rebuilt: %s",
		m.Index, m.Settlement, m.Part, m.Sent, m.Rebuilt)
}

// compareRequests compares a sent request with a rebuilt one: messages one
// by one as JSON text, then every other top-level field (§4.8 compares the
// config fields, tools and the session id field by field; the order of the
// top-level keys is not normative).
func compareRequests(sent, rebuilt jsonv.Value, index int, settlement int64) *Mismatch {
	mismatch := func(part string, a, b jsonv.Value, aok, bok bool) *Mismatch {
		show := func(v jsonv.Value, ok bool) string {
			if !ok {
				return "(absent)"
			}
			return v.String()
		}
		return &Mismatch{Index: index, Settlement: settlement, Part: part, Sent: show(a, aok), Rebuilt: show(b, bok)}
	}
	sm, rm := sent.Field("messages").Elements(), rebuilt.Field("messages").Elements()
	for i := range max(len(sm), len(rm)) {
		switch {
		case i >= len(sm):
			return mismatch(fmt.Sprintf("message %d", i), jsonv.Value{}, rm[i], false, true)
		case i >= len(rm):
			return mismatch(fmt.Sprintf("message %d", i), sm[i], jsonv.Value{}, true, false)
		case !bytes.Equal(sm[i].Encode(), rm[i].Encode()):
			return mismatch(fmt.Sprintf("message %d", i), sm[i], rm[i], true, true)
		}
	}
	keys := append(sent.Keys(), rebuilt.Keys()...)
	for _, key := range keys {
		if key == "messages" {
			continue
		}
		a, aok := sent.Get(key)
		b, bok := rebuilt.Get(key)
		if aok != bok || !bytes.Equal(a.Encode(), b.Encode()) {
			return mismatch(key, a, b, aok, bok)
		}
	}
	return nil
}
