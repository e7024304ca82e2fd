// Package v0 is dsh's physical codec of the released format v0, whose row
// layout format v1 shares (codec/v1 holds v1's header rules and entry point
// and reads its rows with this package): the header with its numeric
// inherited cut (seedLength), event rows, packed Assistant chunk rows kept as
// compact runs, the v0/v1 sourceEventSeqs ranges and the recoverable row
// scan. Functions that serve both formats take the version.
//
// A Decoder holds only its counters and the first problem recovery met;
// what a row decodes to depends on the row alone but for its place, so
// CheckRow decodes rows (and checks their payloads) ahead, on other
// goroutines, and DecodeChecked places each in order.
package v0

import (
	"path"

	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

var (
	headerRequired = []string{"type", "version", "id", "createdAt", "delegationDepth"}
	headerOptional = []string{"cwd", "parentSession", "seedLength", "origin", "agentPreset"}
)

// DecodeHeader decodes the physical header of a v0 or v1 session (version
// says which) as dsh's released codec does, with its exact refusals, and
// returns the logical header and the inherited cut its seedLength states
// (0 without one). seedLength makes a session seeded even when it is 0.
func DecodeHeader(v jsonv.Value, version int) (session.Header, int64, error) {
	label := "released v" + itoa(int64(version)) + " physical header"
	if !v2.IsLossless(v) {
		return session.Header{}, 0, session.FormatErrorf("%s is not lossless JSON", label)
	}
	if _, err := v2.ReleasedRecord(v, label); err != nil {
		return session.Header{}, 0, err
	}
	if err := v2.ReleasedMembers(v, label, headerRequired, headerOptional); err != nil {
		return session.Header{}, 0, err
	}
	if v.Field("type").Text() != "session" || v.Field("type").Kind() != jsonv.String {
		return session.Header{}, 0, session.FormatErrorf("expected released v%d physical Session header", version)
	}
	if n, ok := v.Field("version").Number(); !ok || n != float64(version) {
		return session.Header{}, 0, session.FormatErrorf("expected released v%d physical Session header", version)
	}
	short := "released v" + itoa(int64(version)) + " header"
	h := session.Header{Version: version}
	id, ok := v.Field("id").Str()
	if !ok {
		return h, 0, session.FormatErrorf("%s id must be a string", short)
	}
	h.ID = id
	var err error
	if h.CreatedAt, err = jsform.Count(v.Field("createdAt"), short+" createdAt"); err != nil {
		return h, 0, err
	}
	if h.DelegationDepth, err = jsform.Count(v.Field("delegationDepth"), short+" delegationDepth"); err != nil {
		return h, 0, err
	}
	var cut int64
	if sv, seeded := v.Get("seedLength"); seeded {
		if cut, err = jsform.Count(sv, short+" seedLength"); err != nil {
			return h, 0, err
		}
		h.IsSeeded = true
	}
	for _, f := range []struct {
		key string
		dst **string
	}{{"cwd", &h.Cwd}, {"parentSession", &h.ParentSession}, {"agentPreset", &h.AgentPreset}} {
		if fv, present := v.Get(f.key); present {
			s, ok := fv.Str()
			if !ok {
				return h, 0, session.FormatErrorf("%s %s must be a string", short, f.key)
			}
			*f.dst = session.Str(s)
		}
	}
	if ov, present := v.Get("origin"); present {
		if s, ok := ov.Str(); !ok || s != "subagent" {
			return h, 0, session.FormatErrorf(`%s origin must be "subagent"`, short)
		}
		h.Origin = session.Str("subagent")
	}
	if err := CheckHeader(h, version); err != nil {
		return h, 0, err
	}
	return h, cut, nil
}

// CheckHeader is dsh's assertReleasedSessionFormatHeader for a logical v0
// or v1 header (assertReleasedV1Header with version 1): the exact version
// and an absolute cwd; the typed header cannot break its other rules.
func CheckHeader(h session.Header, version int) error {
	if h.Version != version {
		return session.FormatErrorf("expected format v%d header", version)
	}
	if h.Cwd != nil && !path.IsAbs(*h.Cwd) {
		return session.FormatErrorf("format v%d header cwd must be absolute", version)
	}
	return nil
}
