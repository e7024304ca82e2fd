package v3

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// surfaceTypes are the v3 surface event names; every other known event is
// log-only.
var surfaceTypes = map[string]bool{
	"system/message": true, "user/message": true, "assistant/message": true, "tool/result": true,
}

// IsSurface reports whether eventType is a v3 surface event.
func IsSurface(eventType string) bool { return surfaceTypes[eventType] }

// isObsolete reports the v2 PTC names v3 no longer knows.
func isObsolete(eventType string) bool {
	return eventType == "tool/code-dispatch-start" || eventType == "tool/code-dispatch"
}

// AdmitRow is dsh's assertV3RowAdmission, run on every parsed row before
// framing and whatever the recovery policy: structural rows, then the
// retired PTC names.
func AdmitRow(row jsonv.Value) error {
	if err := CheckStructuralRow(row); err != nil {
		return err
	}
	if row.Kind() == jsonv.Object {
		return CheckAdmission(row)
	}
	return nil
}

// CheckAdmission is dsh's assertV3EventAdmission: a required (not ignorable)
// tool/code-dispatch-start or tool/code-dispatch is an unknown v3 type.
func CheckAdmission(row jsonv.Value) error {
	typ := row.Field("type")
	if t, ok := typ.Str(); ok && isObsolete(t) && !row.Field("ignorable").IsTrue() {
		seq, present := row.Get("seq")
		return session.Unsupportedf("format v3 contains unknown event type %s at seq %s", typ.String(), jsform.String(seq, present))
	}
	return nil
}

// CheckStructuralRow is dsh's assertV3StructuralRow: a request/header must
// not carry the retired header.system, and a system/message must have v3's
// exact system shape. Other rows, and non-objects, pass.
func CheckStructuralRow(row jsonv.Value) error {
	if row.Kind() != jsonv.Object {
		return nil
	}
	switch row.Field("type").Text() {
	case "request/header":
		data, err := Record(row.Field("data"), "request/header data")
		if err != nil {
			return err
		}
		header, err := Record(data.Field("header"), "request header")
		if err != nil {
			return err
		}
		if header.Has("system") {
			return session.Unsupportedf("format v3 request/header rejects retired header.system")
		}
	case "system/message":
		data, err := Record(row.Field("data"), "system/message data")
		if err != nil {
			return err
		}
		return checkSystem(data)
	}
	return nil
}

func checkSystem(data jsonv.Value) error {
	if err := Fields(data, []string{"turn", "step", "message"}, nil, Named("system/message data")); err != nil {
		return err
	}
	for _, coordinate := range []string{"turn", "step"} {
		n, ok := data.Field(coordinate).Count()
		if !ok {
			return session.FormatErrorf("%s must be a non-negative safe integer", coordinate)
		}
		if n == 0 {
			return session.FormatErrorf("%s must be positive", coordinate)
		}
	}
	message, err := Record(data.Field("message"), "system message")
	if err != nil {
		return err
	}
	if err := Fields(message, []string{"id", "role", "source", "content"}, nil, Named("system message")); err != nil {
		return err
	}
	if id, ok := message.Field("id").Str(); !ok || id == "" || message.Field("role").Text() != "system" {
		return session.FormatErrorf("system message requires an id and system role")
	}
	source, err := Record(message.Field("source"), "system source")
	if err != nil {
		return err
	}
	if plugin, ok := source.Field("plugin").Str(); source.Field("kind").Text() != "plugin" || !ok || plugin == "" {
		return session.FormatErrorf("system message requires plugin source")
	}
	probe := jsonv.ObjectValue(
		jsonv.M("type", jsonv.StringValue("user/message")),
		jsonv.M("seq", jsonv.IntValue(0)),
		jsonv.M("time", jsonv.IntValue(0)),
		jsonv.M("data", message.With("role", jsonv.StringValue("user"))))
	return v2.CheckPayloadSemantics(session.Event{Type: "user/message", Row: probe}, 3)
}

// CheckEvent is dsh's assertV3Event: the canonical v3 envelope of a decoded
// or migrated event, its surface metadata, its structural row and the
// canonical request/header and tool/result payload rules. known adds the
// installed event types whose envelopes are interpreted (nil for none). The
// row's sourceEventSeqs may be in compressed or expanded form.
func CheckEvent(row jsonv.Value, known func(string) bool) error {
	return checkEvent(row, known, false)
}

// checkEvent is CheckEvent; admitted says the row has passed
// CheckStructuralRow already, which need not run again.
func checkEvent(row jsonv.Value, known func(string) bool, admitted bool) error {
	value, err := Record(row, "format v3 event")
	if err != nil {
		return err
	}
	env := readEnvelope(value)
	typ := env.typ.Text()
	subject := func() string {
		return "format v3 " + jsform.String(env.typ, env.has&hasType != 0) + " at seq " + jsform.String(env.seq, env.has&hasSeq != 0)
	}
	surface := surfaceTypes[typ]
	if err := env.checkFields(surface || !isKnown(typ, known), subject); err != nil {
		return err
	}
	if env.typ.Kind() != jsonv.String {
		return session.FormatErrorf("%s type must be a string", subject())
	}
	seq, ok := env.seq.Count()
	if !ok {
		return session.FormatErrorf("%s seq must be a non-negative safe integer", subject())
	}
	if _, ok := env.time.SafeInt(); !ok {
		return session.FormatErrorf("%s time must be a safe integer", subject())
	}
	if env.has&hasIgnorable != 0 && !env.ignorable.IsTrue() {
		return session.FormatErrorf("%s ignorable must be true when present", subject())
	}
	if surface {
		if err := checkSurface(env, typ, seq, subject); err != nil {
			return err
		}
	}
	if !admitted {
		if err := CheckStructuralRow(value); err != nil {
			return err
		}
	}
	return checkCanonicalPayload(value, typ, subject)
}

// envelope is the members of an event row that checkEvent reads, found in
// one pass over the row.
type envelope struct {
	typ, seq, time, ignorable, surfaceOp, sources jsonv.Value
	has                                           uint8 // the hasType... bits of the members present
	// The positions of the first member outside the envelope's keys and
	// of the two members only surface and opaque events may have, or -1.
	otherAt, surfaceOpAt, sourcesAt int
	other                           string // the key at otherAt
}

// The bits of envelope.has.
const (
	hasType uint8 = 1 << iota
	hasSeq
	hasTime
	hasData
	hasIgnorable
)

// readEnvelope reads the envelope members of an event row, an object.
func readEnvelope(row jsonv.Value) envelope {
	env := envelope{otherAt: -1, surfaceOpAt: -1, sourcesAt: -1}
	for i, m := range row.Members() {
		switch m.Key {
		case "type":
			env.typ, env.has = m.Value, env.has|hasType
		case "seq":
			env.seq, env.has = m.Value, env.has|hasSeq
		case "time":
			env.time, env.has = m.Value, env.has|hasTime
		case "data":
			env.has |= hasData
		case "ignorable":
			env.ignorable, env.has = m.Value, env.has|hasIgnorable
		case "surfaceOp":
			env.surfaceOp, env.surfaceOpAt = m.Value, i
		case "sourceEventSeqs":
			env.sources, env.sourcesAt = m.Value, i
		default:
			if env.otherAt < 0 {
				env.other, env.otherAt = m.Key, i
			}
		}
	}
	return env
}

// checkFields is Fields on the envelope, with type, seq, time and data
// required, and ignorable optional, and surfaceOp and sourceEventSeqs too
// when extended: a missing member is reported first, in that order, then
// the first unexpected one.
func (env envelope) checkFields(extended bool, subject func() string) error {
	for i, key := range [...]string{"type", "seq", "time", "data"} {
		if env.has&(1<<i) == 0 {
			return session.FormatErrorf("%s lacks required field %s", subject(), key)
		}
	}
	unexpected, at := env.other, env.otherAt
	if !extended {
		if env.surfaceOpAt >= 0 && (at < 0 || env.surfaceOpAt < at) {
			unexpected, at = "surfaceOp", env.surfaceOpAt
		}
		if env.sourcesAt >= 0 && (at < 0 || env.sourcesAt < at) {
			unexpected, at = "sourceEventSeqs", env.sourcesAt
		}
	}
	if at >= 0 {
		return session.FormatErrorf("%s has unexpected field %s", subject(), unexpected)
	}
	return nil
}

func isKnown(typ string, known func(string) bool) bool {
	if isObsolete(typ) {
		return false
	}
	if _, inV2 := v2.V2Disposition(typ); inV2 || surfaceTypes[typ] {
		return true
	}
	switch typ {
	case "tool/ptc-dispatch-start", "tool/ptc-dispatch", "feedback/message-put", "feedback/message-delete":
		return true
	}
	return known != nil && known(typ)
}

func checkSurface(env envelope, typ string, seq int64, subject func() string) error {
	op := env.surfaceOp
	if env.surfaceOpAt < 0 {
		return session.FormatErrorf("%s requires a surfaceOp marker", subject())
	}
	if op.Text() != "append" {
		if op.Kind() != jsonv.Object {
			return session.FormatErrorf("%s surfaceOp must be an object", subject())
		}
		if op.Len() != 3 || op.Field("op").Text() != "replace" || !op.Has("startSeq") || !op.Has("endSeq") {
			return session.FormatErrorf("%s requires exact replace fields op/startSeq/endSeq", subject())
		}
		for _, key := range []string{"startSeq", "endSeq"} {
			n, ok := op.Field(key).Count()
			if !ok {
				return session.FormatErrorf("%s surfaceOp %s must be a non-negative safe integer", subject(), key)
			}
			if n >= seq {
				return session.FormatErrorf("%s replacement endpoints must reference earlier events", subject())
			}
		}
	}
	sources := env.sources
	if env.sourcesAt < 0 {
		return nil
	}
	if typ == "assistant/message" {
		return session.FormatErrorf("%s embeds its stream and cannot carry sourceEventSeqs", subject())
	}
	if sources.Kind() != jsonv.Array || sources.Len() == 0 {
		return session.FormatErrorf("%s sourceEventSeqs must be a non-empty array", subject())
	}
	return uniqueEarlierSeqs(sources, seq, subject)
}

// uniqueEarlierSeqs checks that the logical members of a non-empty
// sourceEventSeqs list are distinct counts below seq.
func uniqueEarlierSeqs(sources jsonv.Value, seq int64, subject func() string) error {
	var small [8]int64
	seen := small[:0]       // the members so far, while they are few
	var many map[int64]bool // then all of them
	for _, member := range logicalSeqs(sources) {
		n, ok := member.Count()
		if !ok {
			return session.FormatErrorf("%s sourceEventSeqs member must be a non-negative safe integer", subject())
		}
		if n >= seq || many[n] || (many == nil && slices.Contains(seen, n)) {
			return session.FormatErrorf("%s sourceEventSeqs must be unique earlier seqs", subject())
		}
		switch {
		case many != nil:
			many[n] = true
		case len(seen) < cap(seen):
			seen = append(seen, n)
		default:
			many = map[int64]bool{n: true}
			for _, s := range seen {
				many[s] = true
			}
		}
	}
	return nil
}

// logicalSeqs returns the members of a sourceEventSeqs list as dsh's decoder
// hands them on: a physical [start, end] range (already checked by the
// framing) expanded, every other member as it is.
func logicalSeqs(list jsonv.Value) []jsonv.Value {
	var out []jsonv.Value
	for _, member := range list.Elements() {
		if member.Kind() != jsonv.Array {
			out = append(out, member)
			continue
		}
		for _, s := range session.ExpandSeqRanges(jsonv.ArrayValue(member)) {
			out = append(out, jsonv.IntValue(s))
		}
	}
	return out
}

func checkCanonicalPayload(value jsonv.Value, typ string, subject func() string) error {
	switch typ {
	case "request/header":
		data := value.Field("data")
		if data.Kind() != jsonv.Object {
			return session.FormatErrorf("%s data must be an object", subject())
		}
		header := data.Field("header")
		if header.Kind() != jsonv.Object {
			return session.FormatErrorf("%s header must be an object", subject())
		}
		tools := header.Field("tools")
		defaults := header.Field("adapterDefaults")
		if (tools.Kind() == jsonv.Array && tools.Len() == 0) || (defaults.Kind() == jsonv.Object && defaults.Len() == 0) {
			return session.FormatErrorf("%s empty optional header fields must be omitted", subject())
		}
	case "tool/result":
		data := value.Field("data")
		if data.Kind() != jsonv.Object {
			return session.FormatErrorf("%s data must be an object", subject())
		}
		if !data.Has("error") {
			return nil
		}
		message := data.Field("message")
		if message.Kind() != jsonv.Object {
			return session.FormatErrorf("%s message must be an object", subject())
		}
		content := message.Field("content")
		block := content.Index(0)
		if content.Kind() != jsonv.Array || content.Len() != 1 || block.Kind() != jsonv.Object ||
			block.Field("type").Text() != "tool-result" || !block.Field("isError").IsTrue() {
			return session.FormatErrorf("%s carries error metadata for a non-error tool result", subject())
		}
	}
	return nil
}

// Record requires a JSON object, refusing with v3's "<label> must be an
// object"; it returns v.
func Record(v jsonv.Value, label string) (jsonv.Value, error) {
	return jsform.Record(v, "%s must be an object", label)
}

// Fields requires every required member (reported first) and nothing
// outside required and optional, with v3's wording; label names v and is
// called only for a refusal.
func Fields(v jsonv.Value, required, optional []string, label func() string) error {
	return jsform.ExactKeys(v, required, optional, func(key string, missing bool) error {
		if missing {
			return session.FormatErrorf("%s lacks required field %s", label(), key)
		}
		return session.FormatErrorf("%s has unexpected field %s", label(), key)
	})
}

// Named is the label of a part with a fixed name, for Fields.
func Named(name string) func() string { return func() string { return name } }

// IsRepairIdentity reports whether id is the canonical historical id of a
// TOOL_NOT_STARTED repair of callID: interrupted-tool-result-<callID>-<n>
// with n a decimal safe integer without leading zeros.
func IsRepairIdentity(id, callID jsonv.Value) bool {
	call, ok := callID.Str()
	if !ok {
		return false
	}
	prefix := "interrupted-tool-result-" + call + "-"
	s, ok := id.Str()
	if !ok || !strings.HasPrefix(s, prefix) {
		return false
	}
	suffix := s[len(prefix):]
	n, err := strconv.ParseFloat(suffix, 64)
	return decimal.MatchString(suffix) && err == nil && n <= maxSafeInteger
}

var decimal = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)

const maxSafeInteger = 1<<53 - 1
