package v2

import (
	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// messageRole is the context a message is validated in (dsh's expected role).
type messageRole int

const (
	roleAny       messageRole = iota // system, user or assistant
	roleUser                         // a user message
	roleAssistant                    // an assistant message: model source
	roleTool                         // a v0–v3 tool result: user role, tool source
)

func messageValue(v jsonv.Value, label string, version int, expected messageRole) error {
	message, err := exactRecord(v, label, names("id", "role", "content", "source"))
	if err != nil {
		return err
	}
	if err := nonEmptyString(message.Field("id"), sub(label, " id")); err != nil {
		return err
	}
	switch expected {
	case roleAssistant:
		err = oneOf(message.Field("role"), sub(label, " role"), "assistant")
	case roleUser, roleTool:
		err = oneOf(message.Field("role"), sub(label, " role"), "user")
	default:
		err = oneOf(message.Field("role"), sub(label, " role"), "system", "user", "assistant")
	}
	if err != nil {
		return err
	}
	if err := contentBlocksValue(message.Field("content"), sub(label, " content"), version); err != nil {
		return err
	}
	source, err := ReleasedRecord(message.Field("source"), sub(label, " source"))
	if err != nil {
		return err
	}
	if version < 2 && expected == roleUser && source.Field("kind").Text() == "goal" && source.Has("change") {
		err = legacyGoalMessageValue(message, source, label)
	} else {
		err = messageSourceValue(source, sub(label, " source"), version, expected)
	}
	if err != nil || expected != roleTool {
		return err
	}
	content := message.Field("content")
	var block jsonv.Value
	if content.Len() == 1 {
		if block, err = ReleasedRecord(content.Index(0), sub(label, " tool result")); err != nil {
			return err
		}
	}
	if block.Field("type").Text() != "tool-result" ||
		!strictEqual(block.Field("toolCallId"), source.Field("callId"), block.Has("toolCallId"), source.Has("callId")) {
		return session.FormatErrorf("%s must contain exactly one tool-result block", label)
	}
	return nil
}

// strictEqual is JavaScript's === for two members that may be absent.
func strictEqual(a, b jsonv.Value, aPresent, bPresent bool) bool {
	if !aPresent || !bPresent {
		return aPresent == bPresent
	}
	switch a.Kind() {
	case jsonv.Object, jsonv.Array:
		return false // distinct objects are never ===
	case jsonv.Number:
		x, _ := a.Number()
		y, ok := b.Number()
		return ok && x == y
	}
	return jsonv.Equal(a, b)
}

func legacyGoalMessageValue(message, source jsonv.Value, label string) error {
	if err := ReleasedMembers(source, sub(label, " source"), names("kind", "goalId", "revision", "round", "change"), nil); err != nil {
		return err
	}
	if err := nonEmptyString(source.Field("goalId"), sub(label, " source goalId")); err != nil {
		return err
	}
	if _, err := positiveIntegerValue(source.Field("revision"), sub(label, " source revision")); err != nil {
		return err
	}
	if round, ok := source.Field("round").Number(); !ok || round != 0 {
		return session.FormatErrorf("%s legacy goal source round must be 0", label)
	}
	change, err := ReleasedRecord(source.Field("change"), sub(label, " source change"))
	if err != nil {
		return err
	}
	if err := goalChangeValue(change, sub(label, " source change")); err != nil {
		return err
	}
	clear := change.Field("operation").Text() == "clear"
	refValue := change.Field("goal")
	if clear {
		refValue = change.Field("cleared")
	}
	ref, err := ReleasedRecord(refValue, sub(label, " source change ref"))
	if err != nil {
		return err
	}
	if !strictEqual(source.Field("goalId"), ref.Field("id"), true, ref.Has("id")) ||
		!strictEqual(source.Field("revision"), ref.Field("revision"), true, ref.Has("revision")) {
		return session.FormatErrorf("%s legacy goal source does not match its change", label)
	}
	var payload jsonv.Value
	if clear {
		payload = jsonv.ObjectValue(
			jsonv.M("cleared", change.Field("cleared")),
			jsonv.M("clearedAt", change.Field("clearedAt")))
	} else {
		payload = jsonv.ObjectValue(
			jsonv.M("goal", change.Field("goal")),
			jsonv.M("roundsStarted", change.Field("roundsStarted")),
			jsonv.M("createdAt", change.Field("createdAt")),
			jsonv.M("updatedAt", change.Field("updatedAt")))
	}
	expected := jsonv.ArrayValue(jsonv.ObjectValue(
		jsonv.M("type", jsonv.StringValue("text")),
		jsonv.M("text", jsonv.StringValue("<goal_state>"+payload.String()+"</goal_state>"))))
	if !jsform.DeepEqual(message.Field("content"), expected) {
		return session.FormatErrorf("%s legacy goal content does not match its change", label)
	}
	return nil
}

func messageSourceValue(source jsonv.Value, label string, version int, expected messageRole) error {
	kind := source.Field("kind")
	if expected == roleAssistant && kind.Text() != "model" {
		return session.FormatErrorf("%s must be model source", label)
	}
	if expected == roleTool && kind.Text() != "tool" {
		return session.FormatErrorf("%s must be tool source", label)
	}
	if kind.Kind() != jsonv.String {
		return nonEmptyString(kind, sub(label, " kind"))
	}
	f := source.Field
	switch kind.Text() {
	case "user":
		return all(
			func() error { return ReleasedMembers(source, label, names("kind"), names("rpcId", "clientTimeZone")) },
			func() error { return ifPresent(source, "rpcId", sub(label, " rpcId"), nonEmptyString) },
			func() error {
				return ifPresent(source, "clientTimeZone", sub(label, " clientTimeZone"), nonEmptyString)
			},
		)
	case "plugin":
		return pluginSourceValue(source, label)
	case "model":
		return all(
			func() error {
				return ReleasedMembers(source, label, names("kind", "provider", "model"), names("replayState"))
			},
			func() error { return nonEmptyString(f("provider"), sub(label, " provider")) },
			func() error { return nonEmptyString(f("model"), sub(label, " model")) },
		)
	case "tool":
		return all(
			func() error { return ReleasedMembers(source, label, names("kind", "callId"), nil) },
			func() error { return nonEmptyString(f("callId"), sub(label, " callId")) },
		)
	case "agent-instructions":
		return all(
			func() error {
				return ReleasedMembers(source, label, names("kind", "form", "changes"), names("baseline", "baselineIdentity"))
			},
			func() error { return oneOf(f("form"), sub(label, " form"), "instructions") },
			func() error { return ifPresent(source, "baseline", sub(label, " baseline"), isTrueLiteral) },
			func() error {
				return ifPresent(source, "baselineIdentity", sub(label, " baselineIdentity"), nonEmptyString)
			},
			func() error {
				_, err := arrayValue(f("changes"), sub(label, " changes"), func(v jsonv.Value, l string) error {
					change, err := exactRecord(v, l, names("action", "scope", "path"), "digest")
					if err != nil {
						return err
					}
					return all(
						func() error { return oneOf(change.Field("action"), sub(l, " action"), "set", "replace", "remove") },
						func() error { return stringValue(change.Field("scope"), sub(l, " scope")) },
						func() error { return stringValue(change.Field("path"), sub(l, " path")) },
						func() error { return ifPresent(change, "digest", sub(l, " digest"), stringValue) },
					)
				})
				return err
			},
		)
	case "session-reference":
		return sessionReferenceSourceValue(source, label, version)
	case "team-message":
		return all(
			func() error {
				return ReleasedMembers(source, label, names("kind", "teamId", "messageId", "senderId", "senderName"), nil)
			},
			func() error { return nonEmptyString(f("teamId"), sub(label, " teamId")) },
			func() error { return nonEmptyString(f("messageId"), sub(label, " messageId")) },
			func() error { return nonEmptyString(f("senderId"), sub(label, " senderId")) },
			func() error { return stringValue(f("senderName"), sub(label, " senderName")) },
		)
	case "goal":
		return all(
			func() error { return ReleasedMembers(source, label, names("kind", "goalId", "revision", "round"), nil) },
			func() error { return nonEmptyString(f("goalId"), sub(label, " goalId")) },
			func() error { return positiveCheck(f("revision"), sub(label, " revision")) },
			func() error { return positiveCheck(f("round"), sub(label, " round")) },
		)
	case "skill-invocation":
		return all(
			func() error { return ReleasedMembers(source, label, names("kind", "name", "form"), nil) },
			func() error { return nonEmptyString(f("name"), sub(label, " name")) },
			func() error { return oneOf(f("form"), sub(label, " form"), "instructions") },
		)
	case "skill-catalog":
		return all(
			func() error { return ReleasedMembers(source, label, names("kind", "form", "entries"), names("update")) },
			func() error { return oneOf(f("form"), sub(label, " form"), "catalog") },
			func() error { return ifPresent(source, "update", sub(label, " update"), isTrueLiteral) },
			func() error {
				_, err := arrayValue(f("entries"), sub(label, " entries"), func(v jsonv.Value, l string) error {
					entry, err := exactRecord(v, l, names("name", "description"))
					if err != nil {
						return err
					}
					if err := nonEmptyString(entry.Field("name"), sub(l, " name")); err != nil {
						return err
					}
					return stringValue(entry.Field("description"), sub(l, " description"))
				})
				return err
			},
		)
	case "coordinator", "subagent-report":
		return all(
			func() error { return ReleasedMembers(source, label, names("kind", "form", "senderSessionId"), nil) },
			func() error { return oneOf(f("form"), sub(label, " form"), "relay") },
			func() error { return nonEmptyString(f("senderSessionId"), sub(label, " senderSessionId")) },
		)
	case "subagent-settled":
		return all(
			func() error {
				return ReleasedMembers(source, label, names("kind", "form", "summary", "senderSessionId"), nil)
			},
			func() error { return oneOf(f("form"), sub(label, " form"), "notice") },
			func() error { return stringValue(f("summary"), sub(label, " summary")) },
			func() error { return nonEmptyString(f("senderSessionId"), sub(label, " senderSessionId")) },
		)
	case "webhook":
		return all(
			func() error {
				return ReleasedMembers(source, label, names("kind", "provider", "source", "deliveryId", "ruleId", "form", "summary"), nil)
			},
			func() error { return nonEmptyString(f("provider"), sub(label, " provider")) },
			func() error { return nonEmptyString(f("source"), sub(label, " source")) },
			func() error { return nonEmptyString(f("deliveryId"), sub(label, " deliveryId")) },
			func() error { return nonEmptyString(f("ruleId"), sub(label, " ruleId")) },
			func() error { return oneOf(f("form"), sub(label, " form"), "notice") },
			func() error { return stringValue(f("summary"), sub(label, " summary")) },
		)
	}
	return nonEmptyString(kind, sub(label, " kind"))
}

func pluginSourceValue(source jsonv.Value, label string) error {
	optional := names("form", "sections", "summary")
	compact := source.Field("plugin").Text() == "compact"
	if compact {
		optional = append(optional, "compactionId", "sourceCommandId")
	}
	if err := ReleasedMembers(source, label, names("kind", "plugin"), optional); err != nil {
		return err
	}
	if err := nonEmptyString(source.Field("plugin"), sub(label, " plugin")); err != nil {
		return err
	}
	if compact {
		if err := nonEmptyString(source.Field("compactionId"), sub(label, " compactionId")); err != nil {
			return err
		}
		if err := ifPresent(source, "sourceCommandId", sub(label, " sourceCommandId"), nonEmptyString); err != nil {
			return err
		}
	}
	form, ok := source.Get("form")
	if !ok {
		return nil
	}
	if err := oneOf(form, sub(label, " form"), "instructions", "catalog", "snapshot", "notice", "relay", "recall"); err != nil {
		return err
	}
	if form.Text() == "snapshot" {
		_, err := arrayValue(source.Field("sections"), sub(label, " sections"), func(v jsonv.Value, l string) error {
			section, err := exactRecord(v, l, names("name", "text"))
			if err != nil {
				return err
			}
			if err := nonEmptyString(section.Field("name"), sub(l, " name")); err != nil {
				return err
			}
			return stringValue(section.Field("text"), sub(l, " text"))
		})
		if err != nil {
			return err
		}
	} else if source.Has("sections") {
		return session.FormatErrorf("%s sections require snapshot form", label)
	}
	if form.Text() == "notice" {
		return stringValue(source.Field("summary"), sub(label, " summary"))
	}
	if source.Has("summary") {
		return session.FormatErrorf("%s summary requires notice form", label)
	}
	return nil
}

func sessionReferenceSourceValue(source jsonv.Value, label string, version int) error {
	if err := ReleasedMembers(source, label, names("kind", "form", "version", "references"), nil); err != nil {
		return err
	}
	if err := oneOf(source.Field("form"), sub(label, " form"), "recall"); err != nil {
		return err
	}
	if err := isNumberLiteral(source.Field("version"), sub(label, " version"), 1); err != nil {
		return err
	}
	expectedIndex := int64(0)
	sessionIDs := map[string]bool{}
	var optional []string
	if version >= 1 {
		optional = names("capturedFormatVersion")
	}
	refs, err := arrayValue(source.Field("references"), sub(label, " references"), func(v jsonv.Value, l string) error {
		ref, err := exactRecord(v, l, names("sessionId", "label", "capturedThroughSeq", "compacted", "originalMessages",
			"retainedMessages", "omittedMessages", "omittedBytes", "truncated", "inputIndex"), optional...)
		if err != nil {
			return err
		}
		f := ref.Field
		if err := nonEmptyString(f("sessionId"), sub(l, " sessionId")); err != nil {
			return err
		}
		if err := stringValue(f("label"), sub(l, " label")); err != nil {
			return err
		}
		if !f("capturedThroughSeq").IsNull() {
			if _, err := jsform.Count(f("capturedThroughSeq"), sub(l, " capturedThroughSeq")); err != nil {
				return err
			}
		}
		if v, ok := ref.Get("capturedFormatVersion"); ok {
			captured, err := jsform.Count(v, sub(l, " capturedFormatVersion"))
			if err != nil {
				return err
			}
			if captured < 1 || captured > int64(version) {
				return session.FormatErrorf("%s capturedFormatVersion must be between 1 and %d", l, version)
			}
		}
		if err := booleanValue(f("compacted"), sub(l, " compacted")); err != nil {
			return err
		}
		counts := make([]int64, 5)
		for i, key := range names("originalMessages", "retainedMessages", "omittedMessages", "omittedBytes", "inputIndex") {
			if counts[i], err = jsform.Count(f(key), subKey(l, key)); err != nil {
				return err
			}
		}
		original, retained, omitted, omittedBytes, inputIndex := counts[0], counts[1], counts[2], counts[3], counts[4]
		if err := booleanValue(f("truncated"), sub(l, " truncated")); err != nil {
			return err
		}
		if retained > original || omitted != original-retained {
			return session.FormatErrorf("%s message counts are inconsistent", l)
		}
		if f("truncated").IsTrue() != (omitted > 0 || omittedBytes > 0) {
			return session.FormatErrorf("%s truncated disagrees with omitted content", l)
		}
		if inputIndex != expectedIndex {
			return session.FormatErrorf("%s inputIndex must match reference position", label)
		}
		expectedIndex++
		id := f("sessionId").Text()
		if sessionIDs[id] {
			return session.FormatErrorf("%s repeats sessionId %s", label, id)
		}
		sessionIDs[id] = true
		return nil
	})
	if err != nil {
		return err
	}
	if len(refs) == 0 {
		return session.FormatErrorf("%s references must be non-empty", label)
	}
	return nil
}

func contentBlocksValue(v jsonv.Value, label string, version int) error {
	_, err := arrayValue(v, label, func(block jsonv.Value, l string) error {
		return contentBlockValue(block, l, version)
	})
	return err
}

// CheckContentBlock applies the released rules of payload version to one
// content block labelled label: the refusal CheckPayloadSemantics gives a
// message whose content holds the block (at that label), when the rest of
// the message is valid.
func CheckContentBlock(block jsonv.Value, label string, version int) error {
	if contentBlockValue(block, "", version) == nil {
		return nil
	}
	return contentBlockValue(block, label, version)
}

func contentBlockValue(v jsonv.Value, label string, version int) error {
	block, err := ReleasedRecord(v, label)
	if err != nil {
		return err
	}
	typ := block.Field("type")
	f := block.Field
	switch typ.Text() {
	case "text", "reasoning":
		return all(
			func() error { return ReleasedMembers(block, label, names("type", "text"), nil) },
			func() error { return stringValue(f("text"), sub(label, " text")) },
		)
	case "image":
		return all(
			func() error { return ReleasedMembers(block, label, names("type", "attachment"), nil) },
			func() error { return imageAttachmentValue(f("attachment"), sub(label, " attachment")) },
		)
	case "tool-call":
		return all(
			func() error { return ReleasedMembers(block, label, names("type", "id", "name", "arguments"), nil) },
			func() error { return nonEmptyString(f("id"), sub(label, " id")) },
			func() error { return nonEmptyString(f("name"), sub(label, " name")) },
			func() error { return stringValue(f("arguments"), sub(label, " arguments")) },
		)
	case "tool-result":
		return all(
			func() error {
				return ReleasedMembers(block, label, names("type", "toolCallId", "content"), names("isError"))
			},
			func() error { return nonEmptyString(f("toolCallId"), sub(label, " toolCallId")) },
			func() error { return contentBlocksValue(f("content"), sub(label, " content"), version) },
			func() error { return ifPresent(block, "isError", sub(label, " isError"), booleanValue) },
		)
	}
	return nonEmptyString(typ, sub(label, " type"))
}

func imageAttachmentValue(v jsonv.Value, label string) error {
	attachment, err := exactRecord(v, label, names("attachmentId", "mediaType", "bytes", "width", "height"), "name", "originalDimensions")
	if err != nil {
		return err
	}
	f := attachment.Field
	return all(
		func() error { return nonEmptyString(f("attachmentId"), sub(label, " attachmentId")) },
		func() error {
			return oneOf(f("mediaType"), sub(label, " mediaType"), "image/png", "image/jpeg", "image/webp", "image/gif")
		},
		func() error { return countCheck(f("bytes"), sub(label, " bytes")) },
		func() error { return positiveCheck(f("width"), sub(label, " width")) },
		func() error { return positiveCheck(f("height"), sub(label, " height")) },
		func() error { return ifPresent(attachment, "name", sub(label, " name"), stringValue) },
		func() error {
			return ifPresent(attachment, "originalDimensions", sub(label, " originalDimensions"), func(v jsonv.Value, l string) error {
				dims, err := exactRecord(v, l, names("width", "height"))
				if err != nil {
					return err
				}
				if err := positiveCheck(dims.Field("width"), sub(label, " original width")); err != nil {
					return err
				}
				return positiveCheck(dims.Field("height"), sub(label, " original height"))
			})
		},
	)
}

func tokenUsageValue(v jsonv.Value, label string) error {
	usage, err := exactRecord(v, label, names("inputTokens", "outputTokens"),
		"totalTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens")
	if err != nil {
		return err
	}
	for _, m := range usage.Members() {
		if err := countCheck(m.Value, subKey(label, m.Key)); err != nil {
			return err
		}
	}
	return nil
}

func llmFailureValue(v jsonv.Value, label string) error {
	failure, err := exactRecord(v, label, names("message", "code"), "status", "providerRetryAfterMs", "requestId")
	if err != nil {
		return err
	}
	f := failure.Field
	return all(
		func() error { return nonEmptyString(f("message"), sub(label, " message")) },
		func() error { return nonEmptyString(f("code"), sub(label, " code")) },
		func() error {
			return ifPresent(failure, "status", sub(label, " status"), func(v jsonv.Value, l string) error {
				status, err := jsform.SafeInteger(v, l)
				if err == nil && (status < 100 || status > 599) {
					return session.FormatErrorf("%s status must be 100 through 599", label)
				}
				return err
			})
		},
		func() error {
			return ifPresent(failure, "providerRetryAfterMs", sub(label, " providerRetryAfterMs"), func(v jsonv.Value, l string) error {
				ms, err := finiteNumberValue(v, l)
				if err == nil && ms <= 0 {
					return session.FormatErrorf("%s providerRetryAfterMs must be positive", label)
				}
				return err
			})
		},
		func() error { return ifPresent(failure, "requestId", sub(label, " requestId"), nonEmptyString) },
	)
}

func streamChunkValue(v jsonv.Value, label string) error {
	chunk, err := ReleasedRecord(v, label)
	if err != nil {
		return err
	}
	f := chunk.Field
	typ := f("type")
	switch typ.Text() {
	case "block-start":
		return all(
			func() error { return ReleasedMembers(chunk, label, names("type", "index", "blockType"), nil) },
			func() error { return countCheck(f("index"), sub(label, " index")) },
			func() error { return nonEmptyString(f("blockType"), sub(label, " blockType")) },
		)
	case "text-delta", "reasoning-delta":
		return all(
			func() error { return ReleasedMembers(chunk, label, names("type", "index", "text"), nil) },
			func() error { return countCheck(f("index"), sub(label, " index")) },
			func() error { return stringValue(f("text"), sub(label, " text")) },
		)
	case "tool-call-delta":
		return all(
			func() error {
				return ReleasedMembers(chunk, label, names("type", "index", "id", "argumentsDelta"), names("name"))
			},
			func() error { return countCheck(f("index"), sub(label, " index")) },
			func() error { return nonEmptyString(f("id"), sub(label, " id")) },
			func() error { return ifPresent(chunk, "name", sub(label, " name"), stringValue) },
			func() error { return stringValue(f("argumentsDelta"), sub(label, " argumentsDelta")) },
		)
	case "block-end":
		return all(
			func() error { return ReleasedMembers(chunk, label, names("type", "index", "block"), nil) },
			func() error { return countCheck(f("index"), sub(label, " index")) },
			func() error { return contentBlockValue(f("block"), sub(label, " block"), 1) },
		)
	case "usage":
		return all(
			func() error { return ReleasedMembers(chunk, label, names("type", "usage"), nil) },
			func() error { return tokenUsageValue(f("usage"), sub(label, " usage")) },
		)
	case "finish":
		return all(
			func() error { return ReleasedMembers(chunk, label, names("type", "reason"), names("replayState")) },
			func() error { return finishReasonValue(f("reason"), sub(label, " reason")) },
			func() error {
				return ifPresent(chunk, "replayState", sub(label, " replayState"), func(v jsonv.Value, l string) error {
					replay, err := exactRecord(v, l, names("response"), "blocks")
					if err != nil {
						return err
					}
					if b, ok := replay.Get("blocks"); ok && b.Kind() != jsonv.Array {
						return session.FormatErrorf("%s blocks must be an array", l)
					}
					return nil
				})
			},
		)
	}
	return session.FormatErrorf("%s has unknown stream chunk type %s", label, jsStringify(typ, chunk.Has("type")))
}

// jsStringify renders JSON.stringify(v) for a member that may be absent
// (undefined, which a template literal shows as "undefined").
func jsStringify(v jsonv.Value, present bool) string {
	if !present {
		return "undefined"
	}
	return v.String()
}

func finishReasonValue(v jsonv.Value, label string) error {
	reason, err := ReleasedRecord(v, label)
	if err != nil {
		return err
	}
	kind := reason.Field("kind")
	switch {
	case kind.Text() == "aborted" || kind.Text() == "error":
		if err := ReleasedMembers(reason, label, names("kind", "failure"), nil); err != nil {
			return err
		}
		return llmFailureValue(reason.Field("failure"), sub(label, " failure"))
	case kind.Text() == "stop" || kind.Text() == "tool-calls" || kind.Text() == "max-tokens":
		if err := ReleasedMembers(reason, label, names("kind"), nil); err != nil {
			return err
		}
	}
	return nonEmptyString(kind, sub(label, " kind"))
}

func turnEndReasonValue(v jsonv.Value, label string) error {
	reason, err := ReleasedRecord(v, label)
	if err != nil {
		return err
	}
	kind := reason.Field("kind")
	if kind.Kind() != jsonv.String {
		return nonEmptyString(kind, sub(label, " kind"))
	}
	switch kind.Text() {
	case "completed", "blocked", "max-tokens", "interrupted":
		return ReleasedMembers(reason, label, names("kind"), nil)
	case "aborted":
		if err := ReleasedMembers(reason, label, names("kind", "reason"), nil); err != nil {
			return err
		}
		cause, err := ReleasedRecord(reason.Field("reason"), sub(label, " abort cause"))
		if err != nil {
			return err
		}
		if cause.Field("kind").Text() == "hook" {
			if err := ReleasedMembers(cause, sub(label, " abort cause"), names("kind", "reason"), nil); err != nil {
				return err
			}
			return stringValue(cause.Field("reason"), sub(label, " abort reason"))
		}
		if err := ReleasedMembers(cause, sub(label, " abort cause"), names("kind"), nil); err != nil {
			return err
		}
		return oneOf(cause.Field("kind"), sub(label, " abort kind"), "user", "parent", "disposed", "legacy")
	case "error":
		if err := ReleasedMembers(reason, label, names("kind", "error"), nil); err != nil {
			return err
		}
		return llmFailureValue(reason.Field("error"), sub(label, " error"))
	}
	return nonEmptyString(kind, sub(label, " kind"))
}
