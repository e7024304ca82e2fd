package fold

import (
	"strconv"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// Load folds the next event the way dsh's Session loads a stored log (a
// constructor seed or a restore): CheckSeedEvent first, then Apply, whose
// refusals are worded "invalid seed event at index N: ...".
func (f *Fold) Load(ev session.Event) error {
	if err := CheckSeedEvent(ev, f.next); err != nil {
		return err
	}
	if err := f.Apply(ev); err != nil {
		return SeedError(ev.Seq, err)
	}
	return nil
}

// headerReasons are the reasons a request/header may give.
var headerReasons = map[string]bool{"initial": true, "resume": true, "change": true, "series": true}

// messageRole returns the role a message-carrying event type must give its
// message, and false for the other types.
func messageRole(typ string) (string, bool) {
	switch typ {
	case typeSystem:
		return "system", true
	case typeDeveloper:
		return "developer", true
	case typeUser:
		return "user", true
	case typeAssistant:
		return "assistant", true
	case typeToolResult:
		return "tool", true
	}
	return "", false
}

// CheckSeedEvent applies the checks dsh's Session runs on each event of a
// stored log it restores, before its surface fold (assertSessionEventEnvelope,
// index.ts@f0cc89ab): the envelope, dense seqs, the payload rules, and the
// current LLM shapes of headers, messages and settlements. (A constructor
// seed is also checked for lossless JSON; the codecs refuse -0 in a file.)
func CheckSeedEvent(ev session.Event, index int64) error {
	if !validEnvelope(ev.Row) {
		return refusef("seed event at index %d has an invalid event envelope", index)
	}
	if ev.Seq != index {
		return refusef("seed event at index %d has seq %d (expected %d); seed must be contiguous from 0", index, ev.Seq, index)
	}
	if err := checkEventData(ev, subject{typ: ev.Type, n: index, seed: true}); err != nil {
		return err
	}
	return checkLLMShape(ev, index)
}

// subject names the event a refusal is about, as dsh starts the message:
// "seed user/message at index 4" or "developer/message at seq 9". It is a
// value, worded only when a refusal is.
type subject struct {
	typ  string
	n    int64 // the index of a seed event, else the seq
	seed bool
}

func (s subject) String() string {
	if s.seed {
		return "seed " + s.typ + " at index " + strconv.FormatInt(s.n, 10)
	}
	return s.typ + " at seq " + strconv.FormatInt(s.n, 10)
}

// validEnvelope reports whether a row has only envelope keys, a string
// type, a seq, a safe-integer time, data, and ignorable absent or true.
func validEnvelope(row jsonv.Value) bool {
	if row.Kind() != jsonv.Object {
		return false
	}
	typeOK, seqOK, timeOK, hasData := false, false, false, false
	for _, m := range row.Members() { // one pass: an object's keys are unique
		switch m.Key {
		case "type":
			typeOK = m.Value.Kind() == jsonv.String
		case "seq":
			_, seqOK = m.Value.Count()
		case "time":
			_, timeOK = m.Value.SafeInt()
		case "data":
			hasData = true
		case "ignorable":
			if !m.Value.IsTrue() {
				return false
			}
		case "surfaceOp", "sourceEventSeqs":
		default:
			return false
		}
	}
	return typeOK && seqOK && timeOK && hasData
}

// checkLLMShape refuses obsolete request headers and malformed messages and
// settlements (assertCurrentLlmShape).
func checkLLMShape(ev session.Event, index int64) error {
	data := ev.Data()
	subject := subject{typ: ev.Type, n: index, seed: true}
	switch ev.Type {
	case typeHeader:
		return checkHeaderShape(data, index)
	case typeAttempt:
		return checkSettlementShape(data, subject)
	}
	if _, isMessage := messageRole(ev.Type); !isMessage {
		return nil
	}
	if err := checkMessageShape(ev.Type, data, subject); err != nil {
		return err
	}
	if ev.Type == typeAssistant {
		return checkSettlementShape(data, subject)
	}
	return nil
}

// checkHeaderShape checks a request/header's config, adapter defaults,
// reason and series marker.
func checkHeaderShape(data jsonv.Value, index int64) error {
	header := data.Field("header")
	config := header.Field("config")
	if !hasProviderModel(config) {
		return refusef("seed request/header at index %d lacks provider/model", index)
	}
	if effort, ok := config.Get("reasoningEffort"); ok {
		if s, isString := effort.Str(); !isString || s == "" {
			return refusef("seed request/header at index %d has an invalid reasoningEffort", index)
		}
	}
	if defaults, ok := header.Get("adapterDefaults"); ok && !validAdapterDefaults(defaults, config) {
		return refusef("seed request/header at index %d has invalid adapterDefaults", index)
	}
	if reason := data.Field("reason"); reason.Kind() != jsonv.String || !headerReasons[reason.Text()] {
		return refusef("seed request/header at index %d has an invalid reason", index)
	}
	if marker, ok := data.Get("startsSeries"); ok && !marker.IsTrue() {
		return refusef("seed request/header at index %d has an invalid startsSeries marker", index)
	}
	return nil
}

// validAdapterDefaults reports whether adapterDefaults marks only
// reasoningEffort and maxTokens, each exactly true and present in config.
func validAdapterDefaults(defaults, config jsonv.Value) bool {
	if defaults.Kind() != jsonv.Object {
		return false
	}
	for _, m := range defaults.Members() {
		if m.Key != "reasoningEffort" && m.Key != "maxTokens" || !m.Value.IsTrue() || !config.Has(m.Key) {
			return false
		}
	}
	return true
}

// checkSettlementShape checks the fields the Session reads from a
// settlement: its turn and step, and its embedded stream.
func checkSettlementShape(data jsonv.Value, subject subject) error {
	_, turnOK := data.Field("turn").Count()
	_, stepOK := data.Field("step").Count()
	if !turnOK || !stepOK || data.Field("stream").Kind() != jsonv.Array {
		return refusef("%s has invalid settlement fields", subject)
	}
	return nil
}

// checkMessageShape checks a message-carrying event's message: an id, the
// role its type implies, a source with a kind, a content list, and the
// source each role requires (assertMessageEventShape).
func checkMessageShape(typ string, data jsonv.Value, subject subject) error {
	message := data.Field("message")
	if typ == typeUser {
		message = data
	}
	if id, ok := message.Field("id").Str(); !ok || id == "" {
		return refusef("%s lacks an identified message", subject)
	}
	role, _ := messageRole(typ)
	if r := message.Field("role"); r.Kind() != jsonv.String || r.Text() != role {
		return refusef(`%s message must have role "%s"`, subject, role)
	}
	// The source is small and looked at once: read in its text, not decoded.
	source, _ := message.Peek("source")
	kindValue, _ := source.Peek("kind")
	kind, kindOK := kindValue.Str()
	if !kindOK || kind == "" {
		return refusef("%s message has invalid source", subject)
	}
	if message.Field("content").Kind() != jsonv.Array {
		return refusef("%s message has invalid content", subject)
	}
	switch typ {
	case typeSystem:
		if kind != "system-prompt" {
			return refusef("%s message must have system-prompt source", subject)
		}
	case typeAssistant:
		if kind != "model" || !hasProviderModel(source) {
			return refusef("%s message must have model source", subject)
		}
	case typeToolResult:
		callIDValue, _ := source.Peek("callId")
		callID, ok := callIDValue.Str()
		if kind != "tool" || !ok || callID == "" {
			return refusef("%s message must have tool source", subject)
		}
		if !jsonv.Equal(message.Field("toolCallId"), callIDValue) {
			return refusef("%s message has mismatched tool call ids", subject)
		}
	}
	return nil
}

// hasProviderModel reports whether v names a non-empty provider and model.
// It peeks: v (a message's source, a header's config) is looked at once.
func hasProviderModel(v jsonv.Value) bool {
	providerValue, _ := v.Peek("provider")
	modelValue, _ := v.Peek("model")
	provider, ok1 := providerValue.Str()
	model, ok2 := modelValue.Str()
	return ok1 && ok2 && provider != "" && model != ""
}
