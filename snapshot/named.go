package snapshot

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/dshlog/dshlog/jsonv"
)

// The named placeholders below are the ones the snapshot normalizers of dsh's
// pre-v1 line and its forks write (packages/test-support/acp-snapshot's
// normalize.ts and suite.ts, apps/web/tests/scaffold.ts,
// scripts/smoke-python-runtime.py): {{sessionId}} for the run's session ids
// and any other UUID, {{messageId}} for a message id, {{parent}} and
// {{child-N}} for the parent's and child N's session ids, {{workflow-run}}
// for a workflow run id, {{rpcId}} for a browser RPC id and
// {{messagePrefix}} for one message of a request header's messagePrefix.

// placeholderPattern matches a named placeholder, such as {{sessionId}},
// {{child-2}} or {{spillLocator:out.txt}}; text such as {{ name }} or
// {{.Field}} is not one.
var placeholderPattern = regexp.MustCompile(`\{\{([A-Za-z][A-Za-z0-9_]*(?:[-:][A-Za-z0-9_.~-]+)*)\}\}`)

// childPlaceholder matches the name child-N.
var childPlaceholder = regexp.MustCompile(`^child-([1-9][0-9]*)$`)

// The formats of the ids restore makes up for {{messageId}} and {{rpcId}}:
// UUID-shaped, the log's session ordinal first and the id's ordinal last, so
// that the logs of one snapshot folder never share one.
const (
	messageIDFormat = "%08d-0000-4000-9000-%012d"
	rpcIDFormat     = "%08d-0000-4000-a000-%012d"
)

// prefixStandIn is the message {{messagePrefix}} becomes: a request-only
// user message, the shape of dsh's workspace-instruction and skill-catalog
// prefix messages, saying that the snapshot did not keep its text.
const prefixStandIn = `{"role":"user","content":[{"type":"text","text":"<system-reminder>\nThe snapshot did not keep this request prefix message.\n</system-reminder>"}]}`

// UnfilledError is a placeholder restore cannot fill: its name has no rule
// and no value was given, or it stands where its rule gives no value.
type UnfilledError struct {
	// Placeholder is the placeholder as written, such as {{agent-1}}.
	Placeholder string
	// Name is its name, such as agent-1.
	Name string
	// Path is where in the row it stands, such as data.childId; empty for
	// the row itself.
	Path string
	// Reason says why it has no value.
	Reason string
}

func (e *UnfilledError) Error() string {
	at := e.Path
	if at == "" {
		at = "the row"
	}
	return fmt.Sprintf("cannot fill placeholder %s at %s: %s", e.Placeholder, at, e.Reason)
}

// namedFiller gives the named placeholders of one log their values, row by
// row. It holds the messages an agent/inbox/spliced row inserted until a
// surface row delivers them, so that both carry one message id.
type namedFiller struct {
	given    map[string]string // values given by name, before any rule
	sessions func(n int) string
	workflow string
	own      int // the log's session ordinal
	messages int // message ids made up so far
	rpcs     int // rpc ids made up so far
	rpc      string
	inbox    []inboxMessage
	prefix   jsonv.Value
}

// inboxMessage is a message an inbox splice inserted, without its id, and
// the id restore gave it.
type inboxMessage struct {
	message jsonv.Value
	id      string
}

// newNamedFiller returns the filler of a log whose session ordinal is own.
func newNamedFiller(given map[string]string, sessions func(int) string, workflow string, own int) *namedFiller {
	prefix, err := jsonv.Parse([]byte(prefixStandIn))
	if err != nil {
		panic(err) // a constant
	}
	return &namedFiller{given: given, sessions: sessions, workflow: workflow, own: own, prefix: prefix}
}

// place is where a value stands: its row's type, its path in the row, the
// member it is the value of, and whether the row is the session header.
type place struct {
	rowType string
	path    string
	key     string
	header  bool
}

func (p place) member(key string) place {
	return place{rowType: p.rowType, path: join(p.path, key), key: key, header: p.header}
}

func (p place) element(i int) place {
	return place{rowType: p.rowType, path: p.path + "[" + strconv.Itoa(i) + "]", key: p.key, header: p.header}
}

// row fills the named placeholders of one row; changed is false when it
// held none.
func (f *namedFiller) row(v jsonv.Value, header bool) (jsonv.Value, bool, error) {
	typ := v.Field("type").Text()
	if typ == "turn/start" {
		f.rpc = "" // a turn's first {{rpcId}} names a new RPC
	}
	return f.walk(v, place{rowType: typ, header: header})
}

// walk fills the placeholders inside v.
func (f *namedFiller) walk(v jsonv.Value, at place) (jsonv.Value, bool, error) {
	switch v.Kind() {
	case jsonv.String:
		s := v.Text()
		if !strings.Contains(s, "{{") {
			return v, false, nil
		}
		filled, err := f.text(s, at)
		if err != nil || filled == s {
			return v, false, err
		}
		return jsonv.StringValue(filled), true, nil
	case jsonv.Array:
		return f.walkArray(v, at)
	case jsonv.Object:
		return f.walkObject(v, at)
	}
	return v, false, nil
}

func (f *namedFiller) walkArray(v jsonv.Value, at place) (jsonv.Value, bool, error) {
	elems := v.Elements()
	var out []jsonv.Value
	for i, e := range elems {
		var filled jsonv.Value
		var changed bool
		var err error
		if f.isPrefixElement(e, at) {
			filled, changed = f.prefix, true
		} else if filled, changed, err = f.walk(e, at.element(i)); err != nil {
			return v, false, err
		}
		if changed && out == nil {
			out = slices.Clone(elems)
		}
		if out != nil {
			out[i] = filled
		}
	}
	if out == nil {
		return v, false, nil
	}
	return jsonv.ArrayValue(out...), true, nil
}

// isPrefixElement reports whether e is a {{messagePrefix}} element of a
// request header's messagePrefix, which the filler can give a whole message.
func (f *namedFiller) isPrefixElement(e jsonv.Value, at place) bool {
	_, given := f.given["messagePrefix"]
	return !given && at.rowType == "request/header" && at.path == "data.header.messagePrefix" && e.Text() == "{{messagePrefix}}" && e.Kind() == jsonv.String
}

func (f *namedFiller) walkObject(v jsonv.Value, at place) (jsonv.Value, bool, error) {
	members := v.Members()
	madeUp := false
	if id, ok := messageID(v); ok {
		madeUp = f.madeUpMessageID(id)
	}
	var out []jsonv.Member
	for i, m := range members {
		if loc := placeholderPattern.FindStringIndex(m.Key); loc != nil {
			tok := m.Key[loc[0]:loc[1]]
			return v, false, &UnfilledError{Placeholder: tok, Name: tok[2 : len(tok)-2], Path: join(at.path, m.Key), Reason: "it names a member, and restore fills placeholders only in values"}
		}
		if madeUp && m.Key == "id" {
			continue // given once the rest of the message is filled
		}
		filled, changed, err := f.walk(m.Value, at.member(m.Key))
		if err != nil {
			return v, false, err
		}
		if changed && out == nil {
			out = slices.Clone(members)
		}
		if out != nil {
			out[i].Value = filled
		}
	}
	if out != nil {
		v = jsonv.ObjectValue(out...)
	}
	if !madeUp {
		return v, out != nil, nil
	}
	return v.With("id", jsonv.StringValue(f.madeUpID(v, at))), true, nil
}

// madeUpMessageID reports whether a message's id is one restore makes up:
// {{messageId}}, or {{sessionId}}, which dsh's ACP normalizer writes for
// every UUID, message ids included.
func (f *namedFiller) madeUpMessageID(id string) bool {
	name := strings.TrimSuffix(strings.TrimPrefix(id, "{{"), "}}")
	if _, given := f.given[name]; given || len(name)+4 != len(id) {
		return false
	}
	return name == "messageId" || name == "sessionId"
}

// madeUpID is the id of a message whose id restore makes up: a new one,
// unless an inbox splice inserted the same message earlier, whose delivery
// this is (dsh keeps a message's id from the inbox to the surface).
func (f *namedFiller) madeUpID(message jsonv.Value, at place) string {
	body := message.Without("id")
	if at.rowType == "agent/inbox/spliced" && strings.HasPrefix(at.path, "data.inserted[") {
		id := f.newMessageID()
		f.inbox = append(f.inbox, inboxMessage{message: jsonv.Detach(body), id: id})
		return id
	}
	for i, pending := range f.inbox {
		if sameJSON(pending.message, body) {
			f.inbox = slices.Delete(f.inbox, i, i+1)
			return pending.id
		}
	}
	return f.newMessageID()
}

func (f *namedFiller) newMessageID() string {
	f.messages++
	return fmt.Sprintf(messageIDFormat, f.own, f.messages)
}

// text fills every named placeholder inside the string s.
func (f *namedFiller) text(s string, at place) (string, error) {
	var failure error
	filled := placeholderPattern.ReplaceAllStringFunc(s, func(tok string) string {
		if failure != nil {
			return tok
		}
		value, err := f.value(tok[2:len(tok)-2], at)
		if err != nil {
			err.Placeholder, err.Path = tok, at.path
			failure = err
			return tok
		}
		return value
	})
	return filled, failure
}

// value is the value of the placeholder name standing at at.
func (f *namedFiller) value(name string, at place) (string, *UnfilledError) {
	if value, ok := f.given[name]; ok {
		return value, nil
	}
	switch {
	case name == "sessionId" && at.header && at.key == "parentSession":
		return f.sessions(1), nil
	case name == "sessionId":
		return f.sessions(f.own), nil
	case name == "parent":
		return f.sessions(1), nil
	case name == "messageId":
		return f.newMessageID(), nil
	case name == "workflow-run":
		return f.workflow, nil
	case name == "rpcId":
		if f.rpc == "" {
			f.rpcs++
			f.rpc = fmt.Sprintf(rpcIDFormat, f.own, f.rpcs)
		}
		return f.rpc, nil
	case name == "messagePrefix":
		return "", &UnfilledError{Name: name, Reason: "it stands for a whole message, which restore puts only in place of an element of a request/header's data.header.messagePrefix"}
	case name == "tools":
		return "", &UnfilledError{Name: name, Reason: "it stands for a tool list, which rule R3 puts only in place of a request/header's data.header.tools"}
	}
	if m := childPlaceholder.FindStringSubmatch(name); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n < 1<<30 {
			return f.sessions(n + 1), nil
		}
	}
	return "", &UnfilledError{Name: name, Reason: "restore has no rule for it and no value was given"}
}

// sameJSON reports whether a and b are the same JSON value, the members of
// objects in any order (dsh compares messages by value).
func sameJSON(a, b jsonv.Value) bool {
	switch {
	case a.Kind() == jsonv.Array && b.Kind() == jsonv.Array:
		ae, be := a.Elements(), b.Elements()
		if len(ae) != len(be) {
			return false
		}
		for i := range ae {
			if !sameJSON(ae[i], be[i]) {
				return false
			}
		}
		return true
	case a.Kind() == jsonv.Object && b.Kind() == jsonv.Object:
		am, bm := sortedMembers(a), sortedMembers(b)
		if len(am) != len(bm) {
			return false
		}
		for i := range am {
			if am[i].Key != bm[i].Key || !sameJSON(am[i].Value, bm[i].Value) {
				return false
			}
		}
		return true
	}
	return jsonv.Equal(a, b)
}

func sortedMembers(v jsonv.Value) []jsonv.Member {
	return slices.SortedFunc(slices.Values(v.Members()), func(a, b jsonv.Member) int { return cmp.Compare(a.Key, b.Key) })
}
