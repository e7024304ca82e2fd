package v2

import (
	"regexp"
	"strings"
	"time"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

func llmRetryValue(data jsonv.Value, label string) error {
	f := data.Field
	return all(
		func() error { return nonEmptyString(f("retryId"), sub(label, " retryId")) },
		func() error { return coordinatePair(data, label) },
		func() error { return nonEmptyString(f("provider"), sub(label, " provider")) },
		func() error { return oneOf(f("mode"), sub(label, " mode"), "normal", "always") },
		func() error { return nonEmptyString(f("policyKey"), sub(label, " policyKey")) },
		func() error { return positiveCheck(f("retry"), sub(label, " retry")) },
		func() error {
			if f("mode").Text() == "normal" {
				maxRetries, err := positiveIntegerValue(f("maxRetries"), sub(label, " maxRetries"))
				if err != nil {
					return err
				}
				if retry, _ := f("retry").Count(); retry > maxRetries {
					return session.FormatErrorf("%s retry exceeds maxRetries", label)
				}
			} else if data.Has("maxRetries") {
				return session.FormatErrorf("%s always mode must omit maxRetries", label)
			}
			return nil
		},
		func() error {
			delay, err := finiteNumberValue(f("delayMs"), sub(label, " delayMs"))
			switch {
			case err != nil:
				return err
			case delay < 0:
				return session.FormatErrorf("%s delayMs must be non-negative", label)
			case delay > 2_147_483_647:
				return session.FormatErrorf("%s delayMs exceeds the timer range", label)
			}
			return nil
		},
		func() error { return llmFailureValue(f("failure"), sub(label, " failure")) },
	)
}

func requestHeaderValue(v jsonv.Value, label string) error {
	header, err := exactRecord(v, label, names("config"), "adapterDefaults", "system", "tools")
	if err != nil {
		return err
	}
	config, err := exactRecord(header.Field("config"), sub(label, " config"), names("provider", "model"),
		"reasoningEffort", "temperature", "maxTokens", "stop")
	if err != nil {
		return err
	}
	return all(
		func() error { return nonEmptyString(config.Field("provider"), sub(label, " provider")) },
		func() error { return nonEmptyString(config.Field("model"), sub(label, " model")) },
		func() error {
			return ifPresent(config, "reasoningEffort", sub(label, " reasoningEffort"), nonEmptyString)
		},
		func() error {
			return ifPresent(config, "temperature", sub(label, " temperature"), func(v jsonv.Value, l string) error {
				_, err := finiteNumberValue(v, l)
				return err
			})
		},
		func() error { return ifPresent(config, "maxTokens", sub(label, " maxTokens"), positiveCheck) },
		func() error {
			return ifPresent(config, "stop", sub(label, " stop"), func(v jsonv.Value, l string) error {
				_, err := arrayValue(v, l, stringValue)
				return err
			})
		},
		func() error {
			return ifPresent(header, "adapterDefaults", sub(label, " adapterDefaults"), func(v jsonv.Value, l string) error {
				defaults, err := exactRecord(v, l, nil, "reasoningEffort", "maxTokens")
				if err != nil {
					return err
				}
				for _, m := range defaults.Members() {
					if err := isTrueLiteral(m.Value, subKey(l, m.Key)); err != nil {
						return err
					}
					if !config.Has(m.Key) {
						return session.FormatErrorf("%s adapter default %s lacks config value", label, m.Key)
					}
				}
				return nil
			})
		},
		func() error { return ifPresent(header, "system", sub(label, " system"), stringValue) },
		func() error {
			return ifPresent(header, "tools", sub(label, " tools"), func(v jsonv.Value, l string) error {
				_, err := arrayValue(v, l, toolSchemaValue)
				return err
			})
		},
	)
}

func toolSchemaValue(v jsonv.Value, label string) error {
	schema, err := exactRecord(v, label, names("name", "description", "parameters"))
	if err != nil {
		return err
	}
	if err := nonEmptyString(schema.Field("name"), sub(label, " name")); err != nil {
		return err
	}
	if err := stringValue(schema.Field("description"), sub(label, " description")); err != nil {
		return err
	}
	_, err = ReleasedRecord(schema.Field("parameters"), sub(label, " parameters"))
	return err
}

func shadowedValue(data jsonv.Value, eventSeq int64, label string) error {
	rng, err := exactRecord(data.Field("shadowedRange"), sub(label, " shadowedRange"), names("start", "end"))
	if err != nil {
		return err
	}
	start, err := earlierSeq(rng.Field("start"), eventSeq, sub(label, " shadowedRange start"))
	if err != nil {
		return err
	}
	end, err := earlierSeq(rng.Field("end"), eventSeq, sub(label, " shadowedRange end"))
	if err != nil {
		return err
	}
	seqs, err := seqArray(data.Field("shadowedSeqs"), eventSeq, sub(label, " shadowedSeqs"), true)
	if err != nil {
		return err
	}
	if seqs[0] != start || seqs[len(seqs)-1] != end {
		return session.FormatErrorf("%s shadowedRange must match shadowedSeqs endpoints", label)
	}
	return countCheck(data.Field("shadowedTokenCount"), sub(label, " shadowedTokenCount"))
}

func goalChangeValue(data jsonv.Value, label string) error {
	f := data.Field
	if err := oneOf(f("kind"), sub(label, " kind"), "goal/change"); err != nil {
		return err
	}
	if err := isNumberLiteral(f("version"), sub(label, " version"), 1); err != nil {
		return err
	}
	if f("operation").Text() == "clear" {
		return all(
			func() error {
				return ReleasedMembers(data, sub(label, " data"), names("kind", "version", "operation", "cleared", "clearedAt"), nil)
			},
			func() error { return goalRefValue(f("cleared"), sub(label, " cleared")) },
			func() error { return countCheck(f("clearedAt"), sub(label, " clearedAt")) },
		)
	}
	return all(
		func() error {
			return ReleasedMembers(data, sub(label, " data"), names("kind", "version", "operation", "goal", "roundsStarted", "createdAt", "updatedAt"), nil)
		},
		func() error {
			return oneOf(f("operation"), sub(label, " operation"), "create", "edit", "pause", "resume", "complete", "block")
		},
		func() error { return goalSnapshotValue(f("goal"), sub(label, " goal")) },
		func() error { return countCheck(f("roundsStarted"), sub(label, " roundsStarted")) },
		func() error { return countCheck(f("createdAt"), sub(label, " createdAt")) },
		func() error { return countCheck(f("updatedAt"), sub(label, " updatedAt")) },
	)
}

func goalRefValue(v jsonv.Value, label string) error {
	ref, err := exactRecord(v, label, names("id", "revision"))
	if err != nil {
		return err
	}
	if err := nonEmptyString(ref.Field("id"), sub(label, " id")); err != nil {
		return err
	}
	return positiveCheck(ref.Field("revision"), sub(label, " revision"))
}

func goalSnapshotValue(v jsonv.Value, label string) error {
	goal, err := exactRecord(v, label, names("id", "revision", "objective", "phase", "maxGoalRounds"), "blockedReason")
	if err != nil {
		return err
	}
	f := goal.Field
	return all(
		func() error { return nonEmptyString(f("id"), sub(label, " id")) },
		func() error { return positiveCheck(f("revision"), sub(label, " revision")) },
		func() error { return nonEmptyString(f("objective"), sub(label, " objective")) },
		func() error {
			return oneOf(f("phase"), sub(label, " phase"), "active", "paused", "blocked", "complete")
		},
		func() error { return positiveCheck(f("maxGoalRounds"), sub(label, " maxGoalRounds")) },
		func() error {
			if f("phase").Text() == "blocked" {
				reason, err := exactRecord(f("blockedReason"), sub(label, " blockedReason"), names("code", "message"))
				if err != nil {
					return err
				}
				if err := nonEmptyString(reason.Field("code"), sub(label, " blocked code")); err != nil {
					return err
				}
				return nonEmptyString(reason.Field("message"), sub(label, " blocked message"))
			}
			if goal.Has("blockedReason") {
				return session.FormatErrorf("%s blockedReason requires blocked phase", label)
			}
			return nil
		},
	)
}

func scheduleChangeValue(data jsonv.Value, label string) error {
	f := data.Field
	if err := isNumberLiteral(f("version"), sub(label, " version"), 1); err != nil {
		return err
	}
	if f("operation").Text() == "create" {
		if err := ReleasedMembers(data, sub(label, " data"), names("version", "operation", "schedule"), nil); err != nil {
			return err
		}
		return scheduleRecordValue(f("schedule"), sub(label, " schedule"))
	}
	var optional []string
	if f("operation").Text() == "dispatch" {
		optional = names("acceptedAt")
	}
	return all(
		func() error {
			return ReleasedMembers(data, sub(label, " data"), names("version", "operation", "id"), optional)
		},
		func() error { return oneOf(f("operation"), sub(label, " operation"), "delete", "dispatch") },
		func() error { return scheduleIDValue(f("id"), sub(label, " id")) },
		func() error { return ifPresent(data, "acceptedAt", sub(label, " acceptedAt"), instantValue) },
	)
}

func scheduleRecordValue(v jsonv.Value, label string) error {
	rec, err := ReleasedRecord(v, label)
	if err != nil {
		return err
	}
	f := rec.Field
	switch f("kind").Text() {
	case "after":
		if err := ReleasedMembers(rec, label, names("id", "kind", "prompt", "afterSeconds", "scheduledAt"), nil); err != nil {
			return err
		}
		if err := positiveCheck(f("afterSeconds"), sub(label, " afterSeconds")); err != nil {
			return err
		}
	case "at":
		if err := ReleasedMembers(rec, label, names("id", "kind", "prompt", "scheduledAt"), nil); err != nil {
			return err
		}
	case "every":
		if err := ReleasedMembers(rec, label, names("id", "kind", "prompt", "everySeconds", "scheduledAt"), nil); err != nil {
			return err
		}
		seconds, err := positiveIntegerValue(f("everySeconds"), sub(label, " everySeconds"))
		if err != nil {
			return err
		}
		if seconds < 300 {
			return session.FormatErrorf("%s everySeconds must be at least 300", label)
		}
	default:
		return session.FormatErrorf("%s has unknown schedule kind", label)
	}
	return all(
		func() error { return scheduleIDValue(f("id"), sub(label, " id")) },
		func() error { return nonEmptyString(f("prompt"), sub(label, " prompt")) },
		func() error { return instantValue(f("scheduledAt"), sub(label, " scheduledAt")) },
	)
}

func scheduleIDValue(v jsonv.Value, label string) error {
	if err := nonEmptyString(v, label); err != nil {
		return err
	}
	if s := v.Text(); strings.TrimFunc(s, isJSWhitespace) != s {
		return session.FormatErrorf("%s must not have surrounding whitespace", label)
	}
	return nil
}

var instantPattern = regexp.MustCompile(`^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$`)

// instantValue requires a canonical UTC instant that survives JavaScript's
// Date round trip (toISOString returns the same text).
func instantValue(v jsonv.Value, label string) error {
	s, ok := v.Str()
	if ok && instantPattern.MatchString(s) && !strings.HasPrefix(s, "0000") {
		if _, err := time.Parse("2006-01-02T15:04:05.000Z", s); err == nil {
			return nil
		}
	}
	return session.FormatErrorf("%s must be a canonical UTC instant", label)
}

func titleSourceValue(v jsonv.Value, label string) error {
	source, err := ReleasedRecord(v, label)
	if err != nil {
		return err
	}
	if source.Field("kind").Text() == "provider" {
		return all(
			func() error { return ReleasedMembers(source, label, names("kind", "provider"), names("model")) },
			func() error { return nonEmptyString(source.Field("provider"), sub(label, " provider")) },
			func() error { return ifPresent(source, "model", sub(label, " model"), modelRouteValue) },
		)
	}
	if err := ReleasedMembers(source, label, names("kind"), nil); err != nil {
		return err
	}
	return oneOf(source.Field("kind"), sub(label, " kind"), "fallback", "user")
}

func modelRouteValue(v jsonv.Value, label string) error {
	route, err := exactRecord(v, label, names("provider", "model"))
	if err != nil {
		return err
	}
	if err := nonEmptyString(route.Field("provider"), sub(label, " provider")); err != nil {
		return err
	}
	return nonEmptyString(route.Field("model"), sub(label, " model"))
}

func subagentDescriptorValue(data jsonv.Value, label string) error {
	f := data.Field
	if err := isNumberLiteral(f("version"), sub(label, " version"), 3); err != nil {
		return err
	}
	if err := nonEmptyString(f("provider"), sub(label, " provider")); err != nil {
		return err
	}
	if f("mode").Text() == "one-shot" {
		if err := ReleasedMembers(data, sub(label, " data"), names("mode", "version", "provider"), names("label")); err != nil {
			return err
		}
		return ifPresent(data, "label", sub(label, " label"), stringValue)
	}
	if err := oneOf(f("mode"), sub(label, " mode"), "continuable"); err != nil {
		return err
	}
	if err := nonEmptyString(f("label"), sub(label, " label")); err != nil {
		return err
	}
	for _, key := range names("agentProvider", "agentModel", "agentReasoningEffort", "persona") {
		if err := ifPresent(data, key, subKey(label, key), nonEmptyString); err != nil {
			return err
		}
	}
	if data.Has("agentProvider") != data.Has("agentModel") {
		return session.FormatErrorf("%s agentProvider and agentModel must be paired", label)
	}
	return ifPresent(data, "toolFilter", sub(label, " toolFilter"), func(v jsonv.Value, l string) error {
		filter, err := exactRecord(v, l, nil, "allow", "deny")
		if err != nil {
			return err
		}
		if !filter.Has("allow") && !filter.Has("deny") {
			return session.FormatErrorf("%s toolFilter requires allow or deny", label)
		}
		for _, key := range names("allow", "deny") {
			err := ifPresent(filter, key, subKey(label, key), func(v jsonv.Value, l string) error {
				_, err := arrayValue(v, l, nonEmptyString)
				return err
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
}

func allowedModelsValue(v jsonv.Value, label string) error {
	seen := map[string]bool{}
	routes, err := arrayValue(v, label, func(member jsonv.Value, l string) error {
		route, err := exactRecord(member, l, names("provider", "model"))
		if err != nil {
			return err
		}
		if err := nonEmptyString(route.Field("provider"), sub(l, " provider")); err != nil {
			return err
		}
		if err := nonEmptyString(route.Field("model"), sub(l, " model")); err != nil {
			return err
		}
		key := route.Field("provider").Text() + "\x00" + route.Field("model").Text()
		if seen[key] {
			return session.FormatErrorf("%s repeats route %s", label, key)
		}
		seen[key] = true
		return nil
	})
	if err != nil {
		return err
	}
	if len(routes) == 0 {
		return session.FormatErrorf("%s must be non-empty", label)
	}
	return nil
}

func teamSelector(data jsonv.Value, label string) error {
	if err := isNumberLiteral(data.Field("version"), sub(label, " version"), 1); err != nil {
		return err
	}
	return nonEmptyString(data.Field("teamId"), sub(label, " teamId"))
}

func teamMemberValue(v jsonv.Value, label string) error {
	member, err := exactRecord(v, label, names("id", "name", "description", "provider", "context", "phase"), "error")
	if err != nil {
		return err
	}
	f := member.Field
	return all(
		func() error { return nonEmptyString(f("id"), sub(label, " id")) },
		func() error { return stringValue(f("name"), sub(label, " name")) },
		func() error { return stringValue(f("description"), sub(label, " description")) },
		func() error { return stringValue(f("provider"), sub(label, " provider")) },
		func() error { return oneOf(f("context"), sub(label, " context"), "fresh", "fork") },
		func() error { return oneOf(f("phase"), sub(label, " phase"), "provisioning", "active", "failed") },
		func() error { return ifPresent(member, "error", sub(label, " error"), stringValue) },
	)
}

func teamTaskValue(v jsonv.Value, label string) error {
	task, err := exactRecord(v, label, names("id", "revision", "subject", "description", "status", "blockedBy", "writeScopes"), "ownerId")
	if err != nil {
		return err
	}
	f := task.Field
	return all(
		func() error { return nonEmptyString(f("id"), sub(label, " id")) },
		func() error { return positiveCheck(f("revision"), sub(label, " revision")) },
		func() error { return stringValue(f("subject"), sub(label, " subject")) },
		func() error { return stringValue(f("description"), sub(label, " description")) },
		func() error {
			return oneOf(f("status"), sub(label, " status"), "pending", "in_progress", "completed", "deleted")
		},
		func() error { return ifPresent(task, "ownerId", sub(label, " ownerId"), nonEmptyString) },
		func() error {
			_, err := arrayValue(f("blockedBy"), sub(label, " blockedBy"), nonEmptyString)
			return err
		},
		func() error {
			_, err := arrayValue(f("writeScopes"), sub(label, " writeScopes"), stringValue)
			return err
		},
	)
}

func teamMessageValue(v jsonv.Value, label string, version int) error {
	message, err := exactRecord(v, label, names("id", "senderId", "senderName", "targetId", "delivery", "content"))
	if err != nil {
		return err
	}
	f := message.Field
	return all(
		func() error { return nonEmptyString(f("id"), sub(label, " id")) },
		func() error { return nonEmptyString(f("senderId"), sub(label, " senderId")) },
		func() error { return nonEmptyString(f("targetId"), sub(label, " targetId")) },
		func() error { return stringValue(f("senderName"), sub(label, " senderName")) },
		func() error { return oneOf(f("delivery"), sub(label, " delivery"), "quiet", "wakeup") },
		func() error { return contentBlocksValue(f("content"), sub(label, " content"), version) },
	)
}

func workflowIdentity(data jsonv.Value, label string) error {
	if err := nonEmptyString(data.Field("runId"), sub(label, " runId")); err != nil {
		return err
	}
	return positiveCheck(data.Field("seq"), sub(label, " seq"))
}

func deepSeekSearchBodyValue(v jsonv.Value, label string) error {
	body, err := exactRecord(v, label, names("model", "max_tokens", "messages", "tools"))
	if err != nil {
		return err
	}
	if err := nonEmptyString(body.Field("model"), sub(label, " model")); err != nil {
		return err
	}
	if err := positiveCheck(body.Field("max_tokens"), sub(label, " max_tokens")); err != nil {
		return err
	}
	messages, err := arrayValue(body.Field("messages"), sub(label, " messages"), func(member jsonv.Value, l string) error {
		message, err := exactRecord(member, l, names("role", "content"))
		if err != nil {
			return err
		}
		if err := oneOf(message.Field("role"), sub(l, " role"), "user"); err != nil {
			return err
		}
		content, err := arrayValue(message.Field("content"), sub(l, " content"), func(block jsonv.Value, bl string) error {
			text, err := exactRecord(block, bl, names("type", "text"))
			if err != nil {
				return err
			}
			if err := oneOf(text.Field("type"), sub(bl, " type"), "text"); err != nil {
				return err
			}
			return stringValue(text.Field("text"), sub(bl, " text"))
		})
		if err != nil {
			return err
		}
		if len(content) != 1 {
			return session.FormatErrorf("%s content must contain one text block", l)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(messages) != 1 {
		return session.FormatErrorf("%s messages must contain one user message", label)
	}
	tools, err := arrayValue(body.Field("tools"), sub(label, " tools"), func(member jsonv.Value, l string) error {
		tool, err := exactRecord(member, l, names("type", "name", "max_uses"))
		if err != nil {
			return err
		}
		return all(
			func() error { return oneOf(tool.Field("type"), sub(l, " type"), "web_search_20250305") },
			func() error { return oneOf(tool.Field("name"), sub(l, " name"), "web_search") },
			func() error { return positiveCheck(tool.Field("max_uses"), sub(l, " max_uses")) },
		)
	})
	if err != nil {
		return err
	}
	if len(tools) != 1 {
		return session.FormatErrorf("%s tools must contain one web search tool", label)
	}
	return nil
}
