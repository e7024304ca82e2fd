package v2to3

import (
	"github.com/dshlog/dshlog/codec/v3"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// canonicalize gives a transformed row (target seq, v3 names) its canonical
// v3 envelope: a replacement surfaceOp {op, start, end} becomes a new
// {op, startSeq, endSeq} in place, a request/header drops an empty tools
// list and an empty adapterDefaults, and the result must pass v3's canonical
// event check.
func canonicalize(row jsonv.Value, typ string) (jsonv.Value, error) {
	subject := func() string { return "format v2 " + typ + " at seq " + row.Field("seq").String() }
	target := row
	if op, ok := row.Get("surfaceOp"); ok && op.Text() != "append" {
		if op.Kind() != jsonv.Object {
			_, err := v3.Record(op, subject()+" surfaceOp")
			return row, err
		}
		replace := op
		if replace.Len() != 3 || replace.Field("op").Text() != "replace" || !replace.Has("start") || !replace.Has("end") {
			return row, session.FormatErrorf("%s requires exact replace fields op/start/end", subject())
		}
		start, ok := replace.Field("start").Count()
		if !ok {
			return row, session.FormatErrorf("%s replace start must be a non-negative safe integer", subject())
		}
		end, ok := replace.Field("end").Count()
		if !ok {
			return row, session.FormatErrorf("%s replace end must be a non-negative safe integer", subject())
		}
		target = target.With("surfaceOp", session.SurfaceOp{Kind: session.OpReplace, StartSeq: start, EndSeq: end}.Value())
	}
	if typ == "request/header" {
		data, err := v3.Record(row.Field("data"), "format v2 request/header at seq "+row.Field("seq").String()+" data")
		if err != nil {
			return row, err
		}
		header, err := v3.Record(data.Field("header"), "format v2 request/header at seq "+row.Field("seq").String()+" header")
		if err != nil {
			return row, err
		}
		var empty []string
		if tools, ok := header.Get("tools"); ok && tools.Kind() == jsonv.Array && tools.Len() == 0 {
			empty = append(empty, "tools")
		}
		if defaults, ok := header.Get("adapterDefaults"); ok && defaults.Kind() == jsonv.Object && defaults.Len() == 0 {
			empty = append(empty, "adapterDefaults")
		}
		if len(empty) > 0 {
			target = target.With("data", data.With("header", header.Without(empty...)))
		}
	}
	if err := v3.CheckEvent(target, nil); err != nil {
		return row, err
	}
	return target, nil
}
