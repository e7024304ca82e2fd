// Package session is dsh's logical session model shared by every format from
// v2 on: the header, the event envelope with typed access to its core fields,
// and the sourceEventSeqs range encoding; and the Item, an event or a compact
// run of events, that flows from a codec of any format through the
// migration stages, both of which sit above this package.
//
// An Event keeps its whole row as a jsonv.Value, so key order and untouched
// payload bytes survive to the encoder; the typed fields are read once when
// the row is decoded.
package session

import (
	"github.com/dshlog/dshlog/jsonv"
)

// Event is one logical session event.
type Event struct {
	Type string
	Seq  int64
	Time int64
	// Row is the whole row object in logical form: key order as read or as
	// the migration built it, sourceEventSeqs expanded or already compressed
	// (the encoder compresses either).
	Row jsonv.Value
}

// Data returns the event's data member (null when absent).
func (e Event) Data() jsonv.Value { return e.Row.Field("data") }

// Ignorable reports whether the row carries ignorable:true.
func (e Event) Ignorable() bool { return e.Row.Field("ignorable").IsTrue() }

// SourceEventSeqs returns the expanded sourceEventSeqs list and whether the
// row has the key. Ranges are expanded without validation; decoders validate.
func (e Event) SourceEventSeqs() ([]int64, bool) {
	v, ok := e.Row.Get("sourceEventSeqs")
	if !ok {
		return nil, false
	}
	return ExpandSeqRanges(v), true
}

// SurfaceOp returns the row's surface operation.
func (e Event) SurfaceOp() SurfaceOp {
	return ParseSurfaceOp(e.Row.Field("surfaceOp"), e.Row.Has("surfaceOp"))
}

// With returns e with the row member key set to v; envelope fields are kept
// in sync when key is type, seq or time.
func (e Event) With(key string, v jsonv.Value) Event {
	e.Row = e.Row.With(key, v)
	return e.synced(key, v)
}

// Set is With for an event whose row the caller owns (see jsonv.Value.Set):
// a member the row has is changed in place.
func (e Event) Set(key string, v jsonv.Value) Event {
	e.Row = e.Row.Set(key, v)
	return e.synced(key, v)
}

// synced returns e with the envelope field that row member key holds, if
// any, set from v.
func (e Event) synced(key string, v jsonv.Value) Event {
	switch key {
	case "type":
		e.Type = v.Text()
	case "seq":
		e.Seq, _ = v.SafeInt()
	case "time":
		e.Time, _ = v.SafeInt()
	}
	return e
}

// WithData returns e with its data member replaced.
func (e Event) WithData(data jsonv.Value) Event { return e.With("data", data) }

// OpKind says what a surface operation does.
type OpKind uint8

// Surface operation kinds.
const (
	OpNone    OpKind = iota // no surfaceOp: a log-only event
	OpAppend                // "append"
	OpReplace               // {"op":"replace","startSeq":a,"endSeq":b}
	OpInvalid               // present but not one of the shapes above
)

// SurfaceOp is an event's surfaceOp member.
type SurfaceOp struct {
	Kind     OpKind
	StartSeq int64 // first node of a replaced span (OpReplace)
	EndSeq   int64 // last node of a replaced span (OpReplace)
}

// ParseSurfaceOp reads a surfaceOp value; present says whether the row had
// the key at all. Only the exact v3/v4 shapes are recognized.
func ParseSurfaceOp(v jsonv.Value, present bool) SurfaceOp {
	if !present {
		return SurfaceOp{}
	}
	if s, ok := v.Str(); ok {
		if s == "append" {
			return SurfaceOp{Kind: OpAppend}
		}
		return SurfaceOp{Kind: OpInvalid}
	}
	if v.Kind() != jsonv.Object || v.Len() != 3 || v.Field("op").Text() != "replace" {
		return SurfaceOp{Kind: OpInvalid}
	}
	start, ok1 := v.Field("startSeq").Count()
	end, ok2 := v.Field("endSeq").Count()
	if !ok1 || !ok2 {
		return SurfaceOp{Kind: OpInvalid}
	}
	return SurfaceOp{Kind: OpReplace, StartSeq: start, EndSeq: end}
}

// Value returns the surfaceOp as dsh writes it (key order op, startSeq,
// endSeq), or null for OpNone.
func (op SurfaceOp) Value() jsonv.Value {
	switch op.Kind {
	case OpAppend:
		return jsonv.StringValue("append")
	case OpReplace:
		return jsonv.ObjectValue(
			jsonv.M("op", jsonv.StringValue("replace")),
			jsonv.M("startSeq", jsonv.IntValue(op.StartSeq)),
			jsonv.M("endSeq", jsonv.IntValue(op.EndSeq)),
		)
	}
	return jsonv.NullValue()
}
