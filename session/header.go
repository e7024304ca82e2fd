package session

import (
	"github.com/dshlog/dshlog/jsonv"
)

// Header is the logical header of a v2, v3 or v4 session: the first line of
// the file. Optional string fields are nil when absent.
type Header struct {
	Version         int
	ID              string
	CreatedAt       int64
	Cwd             *string
	ParentSession   *string
	IsSeeded        bool
	Origin          *string
	DelegationDepth int64
	AgentPreset     *string
}

// Value returns the header as dsh's v2-family encoder writes it, with its
// fixed key order: type, version, id, createdAt, [cwd], [parentSession],
// isSeeded, [origin], delegationDepth, [agentPreset].
func (h Header) Value() jsonv.Value {
	members := []jsonv.Member{
		jsonv.M("type", jsonv.StringValue("session")),
		jsonv.M("version", jsonv.IntValue(int64(h.Version))),
		jsonv.M("id", jsonv.StringValue(h.ID)),
		jsonv.M("createdAt", jsonv.IntValue(h.CreatedAt)),
	}
	optional := func(key string, s *string) {
		if s != nil {
			members = append(members, jsonv.M(key, jsonv.StringValue(*s)))
		}
	}
	optional("cwd", h.Cwd)
	optional("parentSession", h.ParentSession)
	members = append(members, jsonv.M("isSeeded", jsonv.BoolValue(h.IsSeeded)))
	optional("origin", h.Origin)
	members = append(members, jsonv.M("delegationDepth", jsonv.IntValue(h.DelegationDepth)))
	optional("agentPreset", h.AgentPreset)
	return jsonv.ObjectValue(members...)
}

// IsSubagentOf reports whether h is the header of a subagent child of the
// session with the given id.
func (h Header) IsSubagentOf(parentID string) bool {
	return h.Origin != nil && *h.Origin == "subagent" && h.ParentSession != nil && *h.ParentSession == parentID
}

// Str returns a pointer to s, for the optional header fields.
func Str(s string) *string { return &s }
