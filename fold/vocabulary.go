package fold

// The event types the fold gives meaning to.
const (
	typeSystem       = "system/message"
	typeDeveloper    = "developer/message"
	typeUser         = "user/message"
	typeAssistant    = "assistant/message"
	typeAttempt      = "assistant/attempt"
	typeToolResult   = "tool/result"
	typeToolCall     = "tool/call"
	typeHeader       = "request/header"
	typeTurnStart    = "turn/start"
	typeTurnEnd      = "turn/end"
	typeStepStart    = "step/start"
	typeStepEnd      = "step/end"
	typeEndSeed      = "session/end-seed"
	typeImageOffload = "image/offload"
)

// IsSurfaceEligible reports whether events of the type may join the surface:
// the five message-producing types.
func IsSurfaceEligible(typ string) bool {
	switch typ {
	case typeSystem, typeDeveloper, typeUser, typeAssistant, typeToolResult:
		return true
	}
	return false
}

// IsSettlement reports whether an event of the type settles a model request
// (assistant/message or assistant/attempt): request k is the k-th settlement.
func IsSettlement(typ string) bool { return typ == typeAssistant || typ == typeAttempt }
