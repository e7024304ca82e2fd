package v3

import (
	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// Restorer is dsh's restoreReleasedV3Artifact against the released v3
// vocabulary, the check dsh's historical catalog applies to a restored or
// migrated v3 artifact (how dsh reads a child session of generation 0–3 for
// catalog evidence). It is a streaming validator: feed every event in seq
// order with Add, then call Finish with the artifact's inherited cut.
//
// dsh checks the whole artifact in three passes: the v3 envelopes and
// system head, then the released v2 artifact rules on a relationship view
// of the events (system messages seen as user messages, PTC dispatches under
// their v2 names), then the released cross-event relationships. A refusal of
// an earlier pass wins over any of a later one, and within a pass the
// earliest event wins, so Add never refuses: it records the first refusal of
// each pass and Finish reports them in dsh's order.
//
// Memory: the surface (one seq per surface node), the tool, retry, PTC and
// command bookkeeping of the relationship pass, and one small fact per user
// message and command event, which title and command references may cite.
type Restorer struct {
	header session.Header
	count  int64

	headErr    error      // first refusal of the envelope and system-head pass
	step       [2]jsValue // turn and step of the open step, if stepOpen
	stepOpen   bool
	head       int64      // seq of the protected system head, -1 if none
	hasSurface bool       // a surface event has been seen
	frameErr   error      // first refusal of the released v2 artifact pass
	lastMarker int64      // seq of the last inherited end-seed marker, -1 if none
	rel        *relations // the relationship pass
}

// NewRestorer starts checking the events of a v3 artifact with header h.
func NewRestorer(h session.Header) *Restorer {
	return &Restorer{header: h, head: -1, lastMarker: -1, rel: newRelations(h)}
}

// Add takes the next event of the artifact.
func (r *Restorer) Add(ev session.Event) {
	index := r.count
	r.count++
	if r.headErr != nil {
		return
	}
	view, err := r.checkEvent(ev)
	if err != nil {
		r.headErr = err
		return
	}
	if r.frameErr != nil {
		return
	}
	if r.frameErr = r.checkFrame(view, index); r.frameErr != nil {
		return
	}
	r.rel.add(view, index)
}

// Finish checks the artifact as a whole, given its inherited event count,
// and returns dsh's first refusal.
func (r *Restorer) Finish(cut int64) error {
	if err := CheckHeader(r.header); err != nil {
		return err
	}
	if r.headErr != nil {
		return r.headErr
	}
	switch {
	case cut < 0 || cut > maxSafeInteger:
		return session.FormatErrorf("format v2 inherited event count must be a non-negative safe integer")
	case cut > r.count:
		return session.FormatErrorf("format v2 inherited event count exceeds its events")
	case !r.header.IsSeeded && cut != 0:
		return session.FormatErrorf("unseeded format v2 Session has inherited events")
	case r.frameErr != nil:
		return r.frameErr
	case r.header.IsSeeded && r.lastMarker != cut:
		return session.FormatErrorf("format v2 seeded header disagrees with its last inherited end-seed marker")
	case !r.header.IsSeeded && r.lastMarker >= 0:
		return session.FormatErrorf("format v2 unseeded Session contains an inherited end-seed marker")
	}
	return r.rel.finish(cut)
}

// checkEvent is the first pass for one event: PTC admission, the canonical
// envelope against the released vocabulary, the protected system head, and
// the event's relationship view.
func (r *Restorer) checkEvent(ev session.Event) (jsonv.Value, error) {
	row := ev.Row
	if err := CheckAdmission(row); err != nil {
		return row, err
	}
	if err := CheckEvent(row, IsReleasedEventType); err != nil {
		return row, err
	}
	typ := ev.Type
	switch typ {
	case "step/start":
		data, err := Record(row.Field("data"), typ)
		if err != nil {
			return row, err
		}
		r.step, r.stepOpen = [2]jsValue{member(data, "turn"), member(data, "step")}, true
	case "step/end", "turn/end":
		r.stepOpen = false
	}
	op := row.Field("surfaceOp")
	seq, _ := row.Field("seq").Count()
	if typ == "system/message" {
		data, err := Record(row.Field("data"), "system/message")
		if err != nil {
			return row, err
		}
		if !r.stepOpen || !r.step[0].is(member(data, "turn")) || !r.step[1].is(member(data, "step")) {
			return row, session.FormatErrorf("system/message does not match an open step")
		}
		if r.hasSurface && r.head < 0 {
			return row, session.FormatErrorf("system/message requires a protected first surface head")
		}
		if op.Text() == "append" {
			if !r.hasSurface {
				r.head = seq
			}
		} else {
			replace, err := Record(op, "system replacement")
			if err != nil {
				return row, err
			}
			start, end := r.isHead(replace.Field("startSeq")), r.isHead(replace.Field("endSeq"))
			if start || end {
				if !start || !end {
					return row, session.FormatErrorf("system/message must replace exactly the current system head")
				}
				r.head = seq
			}
		}
	} else if surfaceTypes[typ] && op.Text() != "append" {
		replace, err := Record(op, "surface replacement")
		if err != nil {
			return row, err
		}
		if r.isHead(replace.Field("startSeq")) || r.isHead(replace.Field("endSeq")) {
			return row, session.FormatErrorf("surface replacement cannot shadow the protected system head")
		}
	}
	if typ == "compaction/prune" || typ == "compaction/summary" {
		data, err := Record(row.Field("data"), typ)
		if err != nil {
			return row, err
		}
		for _, s := range data.Field("shadowedSeqs").Elements() {
			if r.isHead(s) {
				return row, session.FormatErrorf("compaction cannot shadow the protected system head")
			}
		}
	}
	if surfaceTypes[typ] {
		r.hasSurface = true
	}
	return relationshipView(row, typ)
}

// isHead reports whether a seq value is === the current head.
func (r *Restorer) isHead(v jsonv.Value) bool {
	n, ok := v.Number()
	return ok && r.head >= 0 && n == float64(r.head)
}

// relationshipView is the event as dsh's released relationship validator
// sees it: PTC dispatches under their v2 names, ignorable retired dispatches
// opaque, a system message as a user message, a canonical TOOL_NOT_STARTED
// repair with its id suffix set to its own seq, and replacements with the
// released endpoint names start/end.
func relationshipView(row jsonv.Value, typ string) (jsonv.Value, error) {
	view := row
	switch typ {
	case "tool/ptc-dispatch-start":
		view = row.With("type", jsonv.StringValue("tool/code-dispatch-start"))
	case "tool/ptc-dispatch":
		view = row.With("type", jsonv.StringValue("tool/code-dispatch"))
	case "tool/code-dispatch-start", "tool/code-dispatch":
		view = row.With("type", jsonv.StringValue("v3/opaque-released-event"))
	case "system/message":
		data, err := Record(row.Field("data"), "system data")
		if err != nil {
			return row, err
		}
		message, err := Record(data.Field("message"), "system message")
		if err != nil {
			return row, err
		}
		view = row.With("type", jsonv.StringValue("user/message")).With("data", message.With("role", jsonv.StringValue("user")))
	case "tool/result":
		var err error
		if view, err = repairView(row); err != nil {
			return row, err
		}
	}
	op := row.Field("surfaceOp")
	if !surfaceTypes[typ] || op.Text() == "append" {
		return view, nil
	}
	return view.With("surfaceOp", jsonv.ObjectValue(
		jsonv.M("op", jsonv.StringValue("replace")),
		jsonv.M("start", op.Field("startSeq")),
		jsonv.M("end", op.Field("endSeq")))), nil
}

func repairView(row jsonv.Value) (jsonv.Value, error) {
	data, err := Record(row.Field("data"), "tool result")
	if err != nil {
		return row, err
	}
	if !data.Has("error") {
		return row, nil
	}
	e, err := Record(data.Field("error"), "tool error")
	if err != nil {
		return row, err
	}
	if e.Field("code").Text() != "TOOL_NOT_STARTED" {
		return row, nil
	}
	message, err := Record(data.Field("message"), "tool message")
	if err != nil {
		return row, err
	}
	source, err := Record(message.Field("source"), "tool source")
	if err != nil {
		return row, err
	}
	if !IsRepairIdentity(message.Field("id"), source.Field("callId")) {
		return row, nil
	}
	id := "interrupted-tool-result-" + source.Field("callId").Text() + "-" + row.Field("seq").String()
	return row.With("data", data.With("message", message.With("id", jsonv.StringValue(id)))), nil
}

// logOptional and surfaceOptional are the envelope members a released v2
// log-only or surface event may carry besides type, seq, time and data.
var (
	logOptional     = []string{"ignorable"}
	surfaceOptional = []string{"ignorable", "sourceEventSeqs", "surfaceOp"}
)

// checkFrame is the released v2 artifact pass for one event of the view:
// vocabulary (v2 inventory, the released v3 names, or ignorable), exact
// envelope, density, time, ignorable and inherited markers.
func (r *Restorer) checkFrame(view jsonv.Value, index int64) error {
	label := "format v2 event " + itoa(index)
	typ := view.Field("type").Text()
	_, inV2 := v2.V2Disposition(typ)
	if !inV2 && !releasedEventTypes[typ] && !view.Field("ignorable").IsTrue() {
		return session.Unsupportedf("format v2 contains unknown event type %s at seq %d", view.Field("type").String(), index)
	}
	optional := logOptional
	if !inV2 || typ == "user/message" || typ == "assistant/message" || typ == "tool/result" {
		optional = surfaceOptional
	}
	if err := Fields(view, []string{"type", "seq", "time", "data"}, optional, Named(label)); err != nil {
		return err
	}
	if n, ok := view.Field("seq").Number(); !ok || n != float64(index) {
		return session.FormatErrorf("%s is not dense", label)
	}
	if _, ok := view.Field("time").SafeInt(); !ok {
		return session.FormatErrorf("%s time must be a safe integer", label)
	}
	if ig, ok := view.Get("ignorable"); ok && !ig.IsTrue() {
		return session.FormatErrorf("%s ignorable must be true when present", label)
	}
	if typ == "session/end-seed" {
		data, err := Record(view.Field("data"), "session/end-seed "+itoa(index)+" data")
		if err != nil {
			return err
		}
		if data.Field("inherited").IsTrue() {
			r.lastMarker = index
		}
	}
	return nil
}

func itoa(n int64) string { return jsonv.IntValue(n).String() }
