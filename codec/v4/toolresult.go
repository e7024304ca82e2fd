package v4

import (
	"strconv"
	"strings"

	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// checkToolResult is dsh's assertV4ToolResultMessage for a tool/result row or
// event: a first-class tool-role message whose toolCallId matches its tool
// source, with array content free of released wrappers, an optional boolean
// isError, and error metadata only on an error result.
func checkToolResult(row jsonv.Value) error {
	subject := func() string {
		seq, hasSeq := row.Get("seq")
		return "format v4 tool/result at seq " + jsform.String(seq, hasSeq)
	}
	data := row.Field("data")
	if !isObject(data) {
		return session.FormatErrorf("%s data must be an object", subject())
	}
	message := data.Field("message")
	if !isObject(message) {
		return session.FormatErrorf("%s message must be an object", subject())
	}
	if !nonEmptyString(message.Field("id")) {
		return session.FormatErrorf("%s requires a first-class message with a string id", subject())
	}
	if !isString(message.Field("role"), "tool") {
		return session.FormatErrorf("%s requires a tool-role message", subject())
	}
	source := message.Field("source")
	toolCallID, ok := message.Field("toolCallId").Str()
	if !ok || toolCallID == "" || !isString(peek(source, "callId"), toolCallID) {
		return session.FormatErrorf("%s requires toolCallId matching its tool source", subject())
	}
	if !isObject(source) || !isString(peek(source, "kind"), "tool") {
		return session.FormatErrorf("%s requires a tool source", subject())
	}
	content := message.Field("content")
	if content.Kind() != jsonv.Array {
		return session.FormatErrorf("%s requires array content", subject())
	}
	if content.MayHoldString("tool-result") {
		for _, block := range content.Elements() {
			if isWrapper(block) {
				return session.FormatErrorf("%s content must not contain a released tool-result wrapper", subject())
			}
		}
	}
	isError, hasIsError := message.Get("isError")
	if hasIsError && isError.Kind() != jsonv.Bool {
		return session.FormatErrorf("%s isError must be boolean when present", subject())
	}
	if data.Has("error") && !isError.IsTrue() {
		return session.FormatErrorf("%s carries error metadata for a non-error tool result", subject())
	}
	return nil
}

// SeqList returns a row's sourceEventSeqs as the event carries them: the
// physical member of a parsed row, or the expanded list of a logical event.
type SeqList func() (jsonv.Value, bool)

var errForkResult = session.FormatErrorf("invalid V4 not-started fork result")

// checkForkResult is dsh's assertV4ForkResult: a not-started result whose id
// starts "forked-tool-result-" must be exactly the fork's append form
// (forked-tool-result-<callId>-<own seq>, surfaceOp "append", no
// sourceEventSeqs) or its replacement form (an earlier k cited as the only
// sourceEventSeqs member), with a ToolNotStartedError, an error tool message
// matching its tool source and exactly one text block.
func checkForkResult(row jsonv.Value, sourceSeqs SeqList) error {
	data := row.Field("data")
	errorValue := data.Field("error")
	message := data.Field("message")
	id, isStr := message.Field("id").Str()
	if !isObject(data) || !isObject(errorValue) || !isString(errorValue.Field("code"), "TOOL_NOT_STARTED") ||
		!isObject(message) || !isStr || !strings.HasPrefix(id, "forked-tool-result-") {
		return nil
	}
	source := message.Field("source")
	callIDValue, hasCallID := source.Get("callId")
	callID, callIDIsString := callIDValue.Str()
	prefix := "forked-tool-result-" + jsform.String(callIDValue, hasCallID && isObject(source)) + "-"
	var suffix string
	if len(prefix) <= len(id) {
		suffix = id[len(prefix):]
	}
	operation := row.Field("surfaceOp")
	replacement := isObject(operation) && isString(operation.Field("op"), "replace")
	sequence, canonical := canonicalDecimal(suffix)
	seq, seqIsNumber := row.Field("seq").Number()
	seqs, hasSeqs := sourceSeqs()
	content := message.Field("content")
	var text jsonv.Value
	if content.Kind() == jsonv.Array && content.Len() == 1 {
		text = content.Index(0)
	}
	switch {
	case !callIDIsString || !strings.HasPrefix(id, prefix) || !canonical,
		replacement && (!seqIsNumber || sequence >= seq),
		!replacement && (!seqIsNumber || sequence != seq),
		!isString(errorValue.Field("name"), "ToolNotStartedError"),
		!replacement && (hasSeqs || !isString(operation, "append")),
		replacement && (seqs.Kind() != jsonv.Array || seqs.Len() != 1 || !isNumber(seqs.Index(0), sequence)),
		!isString(message.Field("role"), "tool") || !message.Field("isError").IsTrue(),
		!isString(message.Field("toolCallId"), callID),
		!isObject(source) || !isString(source.Field("kind"), "tool"),
		!isObject(text) || !isString(text.Field("type"), "text") || text.Field("text").Kind() != jsonv.String:
		return errForkResult
	}
	return nil
}

// canonicalDecimal parses s when it matches /^(0|[1-9]\d*)$/ and is a safe
// integer.
func canonicalDecimal(s string) (float64, bool) {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseFloat(s, 64)
	return n, err == nil && n <= maxSafeInteger
}

func isNumber(v jsonv.Value, want float64) bool {
	n, ok := v.Number()
	return ok && n == want
}
