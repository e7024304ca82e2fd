package v2

import (
	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// AssistantSources says whether a generation lets assistant/message carry
// sourceEventSeqs (v0/v1 chunk citations, possibly empty) or forbids them
// (v2, whose assistant messages embed their stream).
type AssistantSources int

// The two policies of assertReleasedSurfaceMetadata.
const (
	AllowEmptyAssistant AssistantSources = iota
	ForbidAssistant
)

// CheckSurfaceMetadata is dsh's assertReleasedSurfaceMetadata for the row of
// a surface event at seq: sourceEventSeqs (in logical, expanded form) must be
// unique earlier seqs and non-empty, and surfaceOp must be "append" or exactly
// {op:"replace", start, end} over earlier seqs.
func CheckSurfaceMetadata(row jsonv.Value, seq int64, eventType string, assistant AssistantSources) error {
	if surfaceMetadata(row, seq, eventType, "", assistant) == nil {
		return nil
	}
	return surfaceMetadata(row, seq, eventType, eventType+" "+itoa(seq), assistant)
}

// surfaceMetadata is CheckSurfaceMetadata with the event's label, or
// quietly with the empty label.
func surfaceMetadata(row jsonv.Value, seq int64, eventType, label string, assistant AssistantSources) error {
	sources, hasSources := row.Get("sourceEventSeqs")
	if eventType == "assistant/message" && hasSources && assistant == ForbidAssistant {
		return session.FormatErrorf("assistant/message %d retains obsolete chunk references", seq)
	}
	if hasSources {
		if sources.Kind() != jsonv.Array {
			return session.FormatErrorf("%s sourceEventSeqs must be an array", label)
		}
		seen := map[int64]bool{}
		for _, source := range sources.Elements() {
			current, err := jsform.Count(source, sub(label, " sourceEventSeqs member"))
			if err != nil {
				return err
			}
			if current >= seq || seen[current] {
				return session.FormatErrorf("%s sourceEventSeqs must be unique earlier seqs", label)
			}
			seen[current] = true
		}
		if sources.Len() == 0 && eventType != "assistant/message" {
			return session.FormatErrorf("%s sourceEventSeqs must be non-empty", label)
		}
	}
	op, ok := row.Get("surfaceOp")
	if !ok || op.Text() == "append" {
		return nil
	}
	replacement, err := ReleasedRecord(op, sub(label, " surfaceOp"))
	if err != nil {
		return err
	}
	if err := ReleasedMembers(replacement, sub(label, " surfaceOp"), names("op", "start", "end"), nil); err != nil {
		return err
	}
	if replacement.Field("op").Text() != "replace" {
		return session.FormatErrorf("%s surfaceOp must replace", label)
	}
	start, err := jsform.Count(replacement.Field("start"), sub(label, " surface start"))
	if err != nil {
		return err
	}
	end, err := jsform.Count(replacement.Field("end"), sub(label, " surface end"))
	if err != nil {
		return err
	}
	if start >= seq || end >= seq {
		return session.FormatErrorf("%s has an invalid surface replacement", label)
	}
	return nil
}
