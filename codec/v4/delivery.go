package v4

import (
	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// DeliveryType is the event type of dsh's delivery watermark.
const DeliveryType = "session-log-deepseek/delivery-accepted"

// ValidateDelivery is dsh's validateDeliveryAccepted: for a delivery marker
// of the active generation current it checks the watermark (throughSeq a
// count earlier than the marker, a nonempty Session id) and returns that id
// with active true. Markers of other generations (an absent
// sessionFormatVersion is generation 0) stay inactive and unchecked, and
// other events are ignored.
func ValidateDelivery(ev session.Event, current int64) (id string, active bool, err error) {
	if ev.Type != DeliveryType {
		return "", false, nil
	}
	data := ev.Data()
	if !isObject(data) {
		return "", false, session.FormatErrorf("delivery-accepted data must be an object")
	}
	version := jsonv.IntValue(0)
	if v, ok := data.Get("sessionFormatVersion"); ok {
		version = v
	}
	generation, err := jsform.Count(version, "delivery sessionFormatVersion")
	if err != nil || generation != current {
		return "", false, err
	}
	through, err := jsform.Count(data.Field("throughSeq"), "delivery throughSeq")
	if err != nil {
		return "", false, err
	}
	if through >= ev.Seq {
		return "", false, session.FormatErrorf("delivery throughSeq must precede its marker")
	}
	id, ok := data.Field("sessionId").Str()
	if !ok || id == "" {
		return "", false, session.FormatErrorf("delivery requires a nonempty Session id")
	}
	return id, true, nil
}

// CatalogEntry is the part of a subagent/catalog fact that catalog
// membership compares.
type CatalogEntry struct {
	ChildID        string
	ChildCreatedAt int64
	Mode           string
	Label          *string // nil when the fact has no label
}

// CatalogFact is dsh's catalogFact: the payload must be a supported versioned
// catalog fact — version 0 (mode continuable or one-shot) or 1 (also
// unknown), a string childId, a string label (required when continuable) and
// a count childCreatedAt. subject names the payload in the refusal
// ("subagent/catalog" for an event). These are the versions of the build the
// goldens were made with; the official line adds version 2 (see
// catalogFact).
func CatalogFact(v jsonv.Value, subject string) (CatalogEntry, error) {
	return catalogFact(v, subject, false)
}

// catalogFact is CatalogFact, also admitting the official line's version 2
// (mode external, label optional: a child with no local Session) when
// external is true (persistence change 2026-09-19-external-subagent-catalog).
func catalogFact(v jsonv.Value, subject string, external bool) (CatalogEntry, error) {
	version := v.Field("version")
	childID, idOK := v.Field("childId").Str()
	mode, _ := v.Field("mode").Str()
	isMode := v.Field("mode").Kind() == jsonv.String
	label, hasLabel := v.Get("label")
	labelText, labelOK := label.Str()
	var versionOK bool
	switch {
	case isNumber(version, 0):
		versionOK = isMode && (mode == "continuable" || mode == "one-shot")
	case isNumber(version, 1):
		versionOK = isMode && (mode == "continuable" || mode == "one-shot" || mode == "unknown")
	case isNumber(version, 2):
		versionOK = external && isMode && mode == "external"
	}
	if !isObject(v) || !versionOK || !idOK ||
		(mode == "continuable" && !labelOK) ||
		(hasLabel && !labelOK) {
		return CatalogEntry{}, session.FormatErrorf("%s requires a supported versioned catalog fact", subject)
	}
	createdAt, err := jsform.Count(v.Field("childCreatedAt"), "catalog child creation time")
	if err != nil {
		return CatalogEntry{}, err
	}
	entry := CatalogEntry{ChildID: childID, ChildCreatedAt: createdAt, Mode: mode}
	if hasLabel {
		entry.Label = &labelText
	}
	return entry, nil
}
