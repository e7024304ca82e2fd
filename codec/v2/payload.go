package v2

import (
	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// CheckEventPayload is dsh's assertReleasedEventPayload for a v0 or v1 event
// (the v0→v1 edge and the decoded v1→v2 stage): the type must be in the
// frozen inventory, data must have exactly its members with opaque members
// lossless, and the nested payload must follow the released rules
// (CheckPayloadSemantics).
func CheckEventPayload(ev session.Event, version int) error {
	if eventPayload(ev, "", version) == nil {
		return nil
	}
	return eventPayload(ev, eventLabel(ev), version)
}

// eventLabel names an event in the released rules' refusals: "<type> <seq>".
func eventLabel(ev session.Event) string { return ev.Type + " " + itoa(ev.Seq) }

// eventPayload is CheckEventPayload with the event's label, or quietly
// with the empty label.
func eventPayload(ev session.Event, label string, version int) error {
	d, ok := V0Disposition(ev.Type)
	if !ok {
		return session.Unsupportedf("format v0 contains unknown historical event type %s at seq %d; migration refuses unknown historical events even when ignorable", jsform.Quote(ev.Type), ev.Seq)
	}
	data, err := ReleasedRecord(ev.Data(), sub(label, " data"))
	if err != nil {
		return err
	}
	if ev.Type == "subagent/descriptor" {
		if f, isNum := data.Field("version").Number(); !isNum || f != 3 {
			v, err := jsform.Count(data.Field("version"), sub(label, " version"))
			if err != nil {
				return err
			}
			if version == 0 {
				return session.Unsupportedf("%s uses unsupported descriptor version %d", label, v)
			}
			return nil
		}
	}
	optional := d.Optional
	if version == 1 && ev.Type == "session-log-deepseek/delivery-accepted" {
		optional = append(append([]string(nil), optional...), "sessionFormatVersion")
	}
	if err := checkInventoryMembers(data, label, d, optional); err != nil {
		return err
	}
	return payloadSemantics(ev, label, version)
}

// CheckTypeFormPayload is assertReleasedEventPayload for an event whose type
// member (typ, present as read) is not a string. JavaScript looks the type
// up by its string form, so a type like ["turn/end"] finds an inventory
// entry: its data members are checked, and then no payload rule matches the
// type itself, which dsh refuses as a missing validator. known is false when
// the string form names no entry, a refusal each caller words itself.
func CheckTypeFormPayload(typ jsonv.Value, present bool, seq int64, data jsonv.Value) (known bool, err error) {
	form := jsform.String(typ, present)
	d, known := V0Disposition(form)
	if !known {
		return false, nil
	}
	label := form + " " + itoa(seq)
	if _, err := ReleasedRecord(data, sub(label, " data")); err != nil {
		return true, err
	}
	if err := checkInventoryMembers(data, label, d, d.Optional); err != nil {
		return true, err
	}
	return true, session.FormatErrorf("released payload validator is missing event %s", jsform.Stringify(typ, present))
}

// checkInventoryMembers checks the data of an inventory entry d: exactly its
// members (optional standing for d.Optional), opaque members lossless.
func checkInventoryMembers(data jsonv.Value, label string, d Disposition, optional []string) error {
	if d.Inherited {
		// dsh spreads the undefined member lists of Object.prototype's property.
		return session.FormatErrorf("required is not iterable (cannot read property Symbol(Symbol.iterator))")
	}
	if err := ReleasedMembers(data, sub(label, " data"), d.Required, optional); err != nil {
		return err
	}
	for _, key := range d.Opaque {
		if v, ok := data.Get(key); ok && !IsLossless(v) {
			return session.FormatErrorf("%s opaque %s is not lossless JSON", label, key)
		}
	}
	return nil
}

// CheckPayloadSemantics is dsh's assertReleasedPayloadSemantics: the nested
// rules of every released event type's data, for payload generation version
// (0, 1, 2, or 3 where v3 reuses them). Member sets are the caller's check.
func CheckPayloadSemantics(ev session.Event, version int) error {
	if payloadSemantics(ev, "", version) == nil {
		return nil
	}
	return payloadSemantics(ev, eventLabel(ev), version)
}

// payloadSemantics is CheckPayloadSemantics with the event's label, or
// quietly with the empty label.
func payloadSemantics(ev session.Event, label string, version int) error {
	data, err := ReleasedRecord(ev.Data(), sub(label, " data"))
	if err != nil {
		return err
	}
	f := func(key string) jsonv.Value { return data.Field(key) }
	switch ev.Type {
	case "agent-preset/selected":
		return stringValue(f("agentPreset"), sub(label, " agentPreset"))
	case "agent/inbox/spliced":
		return all(
			func() error { return oneOf(f("target"), sub(label, " target"), "next-turn", "next-step") },
			func() error { _, err := jsform.Count(f("start"), sub(label, " start")); return err },
			func() error { return ifPresent(data, "removedCount", sub(label, " removedCount"), countCheck) },
			func() error {
				_, err := arrayValue(f("inserted"), sub(label, " inserted"), func(v jsonv.Value, _ string) error {
					return messageValue(v, sub(label, " inserted message"), version, roleUser)
				})
				return err
			},
			func() error {
				return ifPresent(data, "outcome", sub(label, " outcome"), func(v jsonv.Value, l string) error { return oneOf(v, l, "canceled") })
			},
		)
	case "approval/asked":
		return all(
			func() error { return nonEmptyString(f("id"), sub(label, " id")) },
			func() error { return nonEmptyString(f("toolName"), sub(label, " toolName")) },
			func() error { return ifPresent(data, "callId", sub(label, " callId"), nonEmptyString) },
			func() error { return ifPresent(data, "reason", sub(label, " reason"), stringValue) },
		)
	case "approval/decided":
		return all(
			func() error { return nonEmptyString(f("id"), sub(label, " id")) },
			func() error {
				return oneOf(f("outcome"), sub(label, " outcome"), "allowed-once", "rejected", "cancelled", "unavailable")
			},
		)
	case "approval/policy":
		return all(
			func() error { return oneOf(f("policy"), sub(label, " policy"), "ask", "never") },
			func() error {
				return ifPresent(data, "source", sub(label, " source"), func(v jsonv.Value, l string) error { return oneOf(v, l, "delegation") })
			},
		)
	case "assistant/chunk":
		return all(
			func() error { return coordinatePair(data, label) },
			func() error { return streamChunkValue(f("chunk"), sub(label, " chunk")) },
		)
	case "assistant/message":
		return all(
			func() error { return coordinatePair(data, label) },
			func() error { return messageValue(f("message"), sub(label, " message"), version, roleAssistant) },
			func() error { return ifPresent(data, "usage", sub(label, " usage"), tokenUsageValue) },
			func() error { return ifPresent(data, "interrupted", sub(label, " interrupted"), isTrueLiteral) },
		)
	case "command/done":
		return all(
			func() error { return nonEmptyString(f("commandId"), sub(label, " commandId")) },
			func() error { return oneOf(f("kind"), sub(label, " kind"), "success", "error") },
			func() error { return ifPresent(data, "text", sub(label, " text"), stringValue) },
			func() error {
				return ifPresent(data, "sourceEventSeq", sub(label, " sourceEventSeq"), func(v jsonv.Value, l string) error {
					_, err := earlierSeq(v, ev.Seq, l)
					return err
				})
			},
		)
	case "command/run":
		return all(
			func() error { return nonEmptyString(f("commandId"), sub(label, " commandId")) },
			func() error { return nonEmptyString(f("name"), sub(label, " name")) },
			func() error { return ifPresent(data, "args", sub(label, " args"), stringValue) },
			func() error {
				source, err := exactRecord(f("source"), sub(label, " source"), names("kind"))
				if err != nil {
					return err
				}
				return oneOf(source.Field("kind"), sub(label, " source kind"), "user")
			},
		)
	case "compaction/start", "compaction/end":
		return all(
			func() error { return nonEmptyString(f("compactionId"), sub(label, " compactionId")) },
			func() error {
				return ifPresent(data, "sourceCommandId", sub(label, " sourceCommandId"), nonEmptyString)
			},
			func() error {
				if turn, ok := data.Get("turn"); ok && turn.IsNull() {
					return nil
				}
				_, err := jsform.Count(f("turn"), sub(label, " turn"))
				return err
			},
			func() error { return ifPresent(data, "error", sub(label, " error"), stringValue) },
		)
	case "compaction/prune":
		return shadowedValue(data, ev.Seq, label)
	case "compaction/summary":
		return all(
			func() error {
				if f("llmStreamCall").IsTrue() && !data.Has("rawOutput") {
					return session.FormatErrorf("%s llmStreamCall requires rawOutput", label)
				}
				return nil
			},
			func() error { return nonEmptyString(f("compactionId"), sub(label, " compactionId")) },
			func() error {
				return ifPresent(data, "sourceCommandId", sub(label, " sourceCommandId"), nonEmptyString)
			},
			func() error { return contentBlocksValue(f("summary"), sub(label, " summary"), version) },
			func() error { return shadowedValue(data, ev.Seq, label) },
			func() error { return nonEmptyString(f("provider"), sub(label, " provider")) },
			func() error { return nonEmptyString(f("model"), sub(label, " model")) },
			func() error { return ifPresent(data, "maxTokens", sub(label, " maxTokens"), countCheck) },
			func() error { return ifPresent(data, "usage", sub(label, " usage"), tokenUsageValue) },
			func() error {
				return ifPresent(data, "rawOutput", sub(label, " rawOutput"), func(v jsonv.Value, l string) error { return contentBlocksValue(v, l, version) })
			},
			func() error { return ifPresent(data, "llmStreamCall", sub(label, " llmStreamCall"), isTrueLiteral) },
		)
	case "feedback/record":
		return nonEmptyString(f("text"), sub(label, " text"))
	case "goal/change":
		return goalChangeValue(data, label)
	case "hook/invoked":
		return all(
			func() error { _, err := jsform.Count(f("turn"), sub(label, " turn")); return err },
			func() error { return nonEmptyString(f("point"), sub(label, " point")) },
			func() error { return oneOf(f("dialect"), sub(label, " dialect"), "claude-code", "codex") },
			func() error { return ifPresent(data, "matcher", sub(label, " matcher"), stringValue) },
			func() error { return nonEmptyString(f("handlerId"), sub(label, " handlerId")) },
		)
	case "hook/result":
		return all(
			func() error { _, err := jsform.Count(f("turn"), sub(label, " turn")); return err },
			func() error { return nonEmptyString(f("point"), sub(label, " point")) },
			func() error { return nonEmptyString(f("handlerId"), sub(label, " handlerId")) },
			func() error { return nonEmptyString(f("decision"), sub(label, " decision")) },
			func() error {
				return ifPresent(data, "exitCode", sub(label, " exitCode"), func(v jsonv.Value, l string) error {
					_, err := jsform.SafeInteger(v, l)
					return err
				})
			},
			func() error { return ifPresent(data, "stderrSummary", sub(label, " stderrSummary"), stringValue) },
			func() error {
				d, err := finiteNumberValue(f("durationMs"), sub(label, " durationMs"))
				if err == nil && d < 0 {
					return session.FormatErrorf("%s durationMs must be non-negative", label)
				}
				return err
			},
		)
	case "llm/retry":
		return llmRetryValue(data, label)
	case "llm/retry-started":
		return all(
			func() error { return nonEmptyString(f("retryId"), sub(label, " retryId")) },
			func() error { return coordinatePair(data, label) },
			func() error { _, err := positiveIntegerValue(f("retry"), sub(label, " retry")); return err },
		)
	case "model/selection":
		return all(
			func() error { return nonEmptyString(f("provider"), sub(label, " provider")) },
			func() error { return nonEmptyString(f("model"), sub(label, " model")) },
			func() error {
				return ifPresent(data, "reasoningEffort", sub(label, " reasoningEffort"), nonEmptyString)
			},
		)
	case "permission/preset":
		return nonEmptyString(f("preset"), sub(label, " preset"))
	case "plan/mode":
		return booleanValue(f("active"), sub(label, " active"))
	case "request/context":
		return all(
			func() error { return nonEmptyString(f("provider"), sub(label, " provider")) },
			func() error { return nonEmptyString(f("model"), sub(label, " model")) },
			func() error { return ifPresent(data, "contextWindow", sub(label, " contextWindow"), positiveCheck) },
		)
	case "request/header":
		return all(
			func() error { return requestHeaderValue(f("header"), sub(label, " header")) },
			func() error {
				return oneOf(f("reason"), sub(label, " reason"), "initial", "resume", "change", "series")
			},
			func() error { return ifPresent(data, "startsSeries", sub(label, " startsSeries"), isTrueLiteral) },
		)
	case "sandbox/mode":
		return all(
			func() error {
				return oneOf(f("mode"), sub(label, " mode"), "read-only", "workspace-write", "danger-full-access")
			},
			func() error {
				return ifPresent(data, "source", sub(label, " source"), func(v jsonv.Value, l string) error { return oneOf(v, l, "delegation") })
			},
		)
	case "schedule/change":
		return scheduleChangeValue(data, label)
	case "session-log-deepseek/delivery-accepted":
		accepted := int64(0)
		if v, ok := data.Get("sessionFormatVersion"); ok {
			n, err := jsform.Count(v, sub(label, " sessionFormatVersion"))
			if err != nil {
				return err
			}
			accepted = n
		}
		if accepted != int64(version) {
			return nil
		}
		return all(
			func() error { return nonEmptyString(f("sessionId"), sub(label, " sessionId")) },
			func() error { _, err := earlierSeq(f("throughSeq"), ev.Seq, sub(label, " throughSeq")); return err },
		)
	case "session/end-seed":
		return nil
	case "session/title":
		return all(
			func() error { return nonEmptyString(f("title"), sub(label, " title")) },
			func() error {
				_, err := seqArray(f("messageSeqs"), ev.Seq, sub(label, " messageSeqs"), false)
				return err
			},
			func() error { return titleSourceValue(f("source"), sub(label, " source")) },
		)
	case "session/title-llm-request":
		return all(
			func() error { return nonEmptyString(f("titleProvider"), sub(label, " titleProvider")) },
			func() error {
				_, err := seqArray(f("messageSeqs"), ev.Seq, sub(label, " messageSeqs"), true)
				return err
			},
			func() error { return modelRouteValue(f("route"), sub(label, " route")) },
			func() error { return stringValue(f("system"), sub(label, " system")) },
			func() error {
				_, err := arrayValue(f("messages"), sub(label, " messages"), func(v jsonv.Value, _ string) error {
					return messageValue(v, sub(label, " message"), version, roleAny)
				})
				return err
			},
			func() error { _, err := positiveIntegerValue(f("maxTokens"), sub(label, " maxTokens")); return err },
		)
	case "step/end", "step/start":
		return coordinatePair(data, label)
	case "subagent/descriptor":
		return subagentDescriptorValue(data, label)
	case "subagent/model-selection-policy":
		return allowedModelsValue(f("allowedModels"), sub(label, " allowedModels"))
	case "team/member":
		return all(
			func() error { return teamSelector(data, label) },
			func() error { return teamMemberValue(f("member"), sub(label, " member")) },
		)
	case "team/message/delivered":
		return all(
			func() error { return teamSelector(data, label) },
			func() error { return nonEmptyString(f("messageId"), sub(label, " messageId")) },
			func() error { return nonEmptyString(f("targetId"), sub(label, " targetId")) },
		)
	case "team/message/queued":
		return all(
			func() error { return teamSelector(data, label) },
			func() error { return teamMessageValue(f("message"), sub(label, " message"), version) },
		)
	case "team/task":
		return all(
			func() error { return teamSelector(data, label) },
			func() error { return teamTaskValue(f("task"), sub(label, " task")) },
		)
	case "todo/write":
		_, err := arrayValue(f("todos"), sub(label, " todos"), func(v jsonv.Value, l string) error {
			item, err := exactRecord(v, l, names("content", "status"))
			if err != nil {
				return err
			}
			if err := stringValue(item.Field("content"), sub(l, " content")); err != nil {
				return err
			}
			return oneOf(item.Field("status"), sub(l, " status"), "pending", "in_progress", "completed")
		})
		return err
	case "tool-workflow/agent-end":
		return all(
			func() error { return workflowIdentity(data, label) },
			func() error { return oneOf(f("outcome"), sub(label, " outcome"), "completed", "failed", "cancelled") },
		)
	case "tool-workflow/agent-start":
		return all(
			func() error { return workflowIdentity(data, label) },
			func() error { return stringValue(f("label"), sub(label, " label")) },
			func() error { return ifPresent(data, "phase", sub(label, " phase"), stringValue) },
			func() error { return nonEmptyString(f("childId"), sub(label, " childId")) },
		)
	case "tool-workflow/run-end":
		return all(
			func() error { return nonEmptyString(f("runId"), sub(label, " runId")) },
			func() error {
				return oneOf(f("stopReason"), sub(label, " stopReason"), "completed", "cancelled", "error")
			},
		)
	case "tool-workflow/run-start":
		return all(
			func() error { return nonEmptyString(f("runId"), sub(label, " runId")) },
			func() error { return nonEmptyString(f("name"), sub(label, " name")) },
		)
	case "tool/call":
		return all(
			func() error { return coordinatePair(data, label) },
			func() error { return nonEmptyString(f("callId"), sub(label, " callId")) },
			func() error { return nonEmptyString(f("name"), sub(label, " name")) },
			func() error { return stringValue(f("arguments"), sub(label, " arguments")) },
		)
	case "tool/code-dispatch", "tool/code-dispatch-start":
		return all(
			func() error { return nonEmptyString(f("rootCallId"), sub(label, " rootCallId")) },
			func() error { return nonEmptyString(f("parentCallId"), sub(label, " parentCallId")) },
			func() error { return nonEmptyString(f("subCallId"), sub(label, " subCallId")) },
			func() error { return nonEmptyString(f("name"), sub(label, " name")) },
			func() error {
				if ev.Type != "tool/code-dispatch" {
					return nil
				}
				if err := booleanValue(f("isError"), sub(label, " isError")); err != nil {
					return err
				}
				return contentBlocksValue(f("content"), sub(label, " content"), version)
			},
		)
	case "tool/result":
		return all(
			func() error { return coordinatePair(data, label) },
			func() error { return messageValue(f("message"), sub(label, " message"), version, roleTool) },
			func() error {
				return ifPresent(data, "error", sub(label, " error"), func(v jsonv.Value, l string) error {
					e, err := exactRecord(v, l, names("name", "code"))
					if err != nil {
						return err
					}
					if err := nonEmptyString(e.Field("name"), sub(l, " name")); err != nil {
						return err
					}
					return nonEmptyString(e.Field("code"), sub(l, " code"))
				})
			},
		)
	case "turn/end":
		return all(
			func() error { _, err := jsform.Count(f("turn"), sub(label, " turn")); return err },
			func() error { return turnEndReasonValue(f("reason"), sub(label, " reason")) },
		)
	case "turn/start":
		_, err := jsform.Count(f("turn"), sub(label, " turn"))
		return err
	case "user/message":
		return messageValue(data, label, version, roleUser)
	case "web/deepseek-search-llm-request":
		return all(
			func() error { return nonEmptyString(f("endpoint"), sub(label, " endpoint")) },
			func() error { return nonEmptyString(f("apiVersion"), sub(label, " apiVersion")) },
			func() error { return deepSeekSearchBodyValue(f("body"), sub(label, " body")) },
		)
	}
	return session.FormatErrorf("released payload validator is missing event %s", jsform.Quote(ev.Type))
}

// all runs checks in order and returns the first refusal, so each case reads
// in dsh's order of checks.
func all(checks ...func() error) error {
	for _, c := range checks {
		if err := c(); err != nil {
			return err
		}
	}
	return nil
}

func countCheck(v jsonv.Value, label string) error {
	_, err := jsform.Count(v, label)
	return err
}

func positiveCheck(v jsonv.Value, label string) error {
	_, err := positiveIntegerValue(v, label)
	return err
}

// IsLossless reports whether v survives dsh's lossless-JSON snapshot: no -0
// and no non-finite number (an overflowing literal such as 1e400) anywhere.
//
// An array or object whose text is canonical (v.Raw() is not nil) is
// lossless without a walk: canonical text is what JSON.stringify writes, and
// JSON.stringify writes a non-finite number as null and -0 as 0, so neither
// is in it.
func IsLossless(v jsonv.Value) bool {
	if v.Raw() != nil {
		return true
	}
	return isLosslessWalk(v)
}

// isLosslessWalk is IsLossless looking into every member and element.
func isLosslessWalk(v jsonv.Value) bool {
	switch v.Kind() {
	case jsonv.Number:
		f, _ := v.Number()
		return !v.IsNegZero() && f-f == 0
	case jsonv.Array:
		for _, e := range v.Elements() {
			if !IsLossless(e) {
				return false
			}
		}
	case jsonv.Object:
		for _, m := range v.Members() {
			if !IsLossless(m.Value) {
				return false
			}
		}
	}
	return true
}
