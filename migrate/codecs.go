package migrate

import (
	"github.com/dshlog/dshlog/codec/v0"
	"github.com/dshlog/dshlog/codec/v1"
	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/codec/v3"
	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// currentVersion is the format dshlog writes, as dsh's v4 build does.
const currentVersion = v4.Version

// eventDecoder is a codec decoder that turns each row into at most one
// event (every format from v2 on).
type eventDecoder interface {
	Decode(row jsonv.Value) (session.Event, bool, error)
	Finish() (int64, error)
	Issue() error
}

// eventRows adapts an eventDecoder to the chain's item-based rowDecoder.
type eventRows struct {
	header session.Header
	dec    eventDecoder
}

func (r eventRows) Header() session.Header { return r.header }
func (r eventRows) HeaderCut() int64       { return -1 }
func (r eventRows) Issue() error           { return r.dec.Issue() }

func (r eventRows) Decode(row jsonv.Value, emit session.Emit) error {
	ev, ok, err := r.dec.Decode(row)
	if err != nil || !ok {
		return err
	}
	return emit(session.Item{Event: ev})
}

func (r eventRows) Finish(session.Emit) (int64, error) { return r.dec.Finish() }

// rowChecker is a rowDecoder whose checks of a row that depend on the row
// alone can run ahead, on the read-ahead goroutine: CheckRow computes them
// and DecodeChecked then takes the row with their result.
type rowChecker interface {
	CheckRow(row jsonv.Value) rowCheck
	DecodeChecked(row jsonv.Value, c rowCheck, emit session.Emit) error
}

// rowCheck is a codec's checks of one row alone, in the codec's own type:
// family for the v2 row family (v2, v3, v4), layout for the v0 row layout
// (v0 and v1), whose rows are not v2 rows.
type rowCheck struct {
	family v2.RowCheck
	layout v0.RowCheck
}

// checkedRows is the rowDecoder of a v2-family codec, a rowChecker.
type checkedRows struct {
	eventRows
	check  func(jsonv.Value) v2.RowCheck
	decode func(jsonv.Value, v2.RowCheck) (session.Event, bool, error)
}

func (r checkedRows) CheckRow(row jsonv.Value) rowCheck { return rowCheck{family: r.check(row)} }

func (r checkedRows) DecodeChecked(row jsonv.Value, c rowCheck, emit session.Emit) error {
	ev, ok, err := r.decode(row, c.family)
	if err != nil || !ok {
		return err
	}
	return emit(session.Item{Event: ev})
}

// v2Codec reads released format v2.
var v2Codec = codec{
	version:      2,
	decodeHeader: v2.DecodeHeader,
	newDecoder: func(hv jsonv.Value, recovery v2.Recovery) (rowDecoder, error) {
		h, err := v2.DecodeHeader(hv)
		if err != nil {
			return nil, err
		}
		dec := v2.NewDecoder(h, recovery)
		return checkedRows{eventRows{h, dec}, v2.CheckRow, dec.DecodeChecked}, nil
	},
}

// v3Codec reads released format v3.
var v3Codec = codec{
	version:      3,
	decodeHeader: v3.DecodeHeader,
	newDecoder: func(hv jsonv.Value, recovery v2.Recovery) (rowDecoder, error) {
		h, err := v3.DecodeHeader(hv)
		if err != nil {
			return nil, err
		}
		dec := v3.NewDecoder(h, recovery)
		return checkedRows{eventRows{h, dec}, v3.CheckRow, dec.DecodeChecked}, nil
	},
}

// v4Codec reads the current format v4.
var v4Codec = codec{
	version:      4,
	decodeHeader: v4.DecodeHeader,
	newDecoder: func(hv jsonv.Value, recovery v2.Recovery) (rowDecoder, error) {
		h, err := v4.DecodeHeader(hv)
		if err != nil {
			return nil, err
		}
		dec := v4.NewDecoder(h, recovery)
		return checkedRows{eventRows{h, dec}, v4.CheckRow, dec.DecodeChecked}, nil
	},
}

// layoutRows is the rowDecoder of the v0 row layout, a rowChecker.
type layoutRows struct{ *v0.Decoder }

func (r layoutRows) CheckRow(row jsonv.Value) rowCheck {
	return rowCheck{layout: r.Decoder.CheckRow(row)}
}

func (r layoutRows) DecodeChecked(row jsonv.Value, c rowCheck, emit session.Emit) error {
	return r.Decoder.DecodeChecked(row, c.layout, emit)
}

// asLayoutRows returns what a v0-layout codec's NewDecoder returned as a
// rowDecoder.
func asLayoutRows(dec *v0.Decoder, err error) (rowDecoder, error) {
	if err != nil {
		return nil, err
	}
	return layoutRows{dec}, nil
}

// releasedV0Codec reads the v0 layout with a header of the given version.
func releasedV0Codec(version int) codec {
	return codec{
		version: version,
		decodeHeader: func(hv jsonv.Value) (session.Header, error) {
			h, _, err := v0.DecodeHeader(hv, version)
			return h, err
		},
		newDecoder: func(hv jsonv.Value, recovery v2.Recovery) (rowDecoder, error) {
			return asLayoutRows(v0.NewDecoder(hv, version, recovery))
		},
	}
}

// v0Codec reads released format v0.
var v0Codec = releasedV0Codec(0)

// v1Codec reads released format v1, whose rows share v0's layout.
var v1Codec = codec{
	version: v1.Version,
	decodeHeader: func(hv jsonv.Value) (session.Header, error) {
		h, _, err := v1.DecodeHeader(hv)
		return h, err
	},
	newDecoder: func(hv jsonv.Value, recovery v2.Recovery) (rowDecoder, error) {
		return asLayoutRows(v1.NewDecoder(hv, recovery))
	},
}
