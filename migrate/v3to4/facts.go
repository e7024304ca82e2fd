package v3to4

import (
	"slices"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// ChildFact is the evidence a subagent child session gives its parent's
// catalog completion (dsh's historical child catalog source).
type ChildFact struct {
	ChildID        string
	ChildCreatedAt int64
	// DescriptorCount is the number of the child's own subagent/descriptor
	// events (those at or after its inherited cut).
	DescriptorCount int64
	// Descriptor is the data of the first own descriptor, or null.
	Descriptor jsonv.Value
	// SourcePath names the child's raw log in refusals; empty when unknown.
	SourcePath string
}

// subject names the child in refusals: "Session <id>", with " (raw log:
// <path>)" when its path is known.
func (c ChildFact) subject() string {
	if c.SourcePath == "" {
		return "Session " + c.ChildID
	}
	return "Session " + c.ChildID + " (raw log: " + c.SourcePath + ")"
}

// check validates supplied evidence as dsh's childCatalogSource does.
func (c ChildFact) check() error {
	if _, ok := jsonv.IntValue(c.ChildCreatedAt).Count(); !ok {
		return session.FormatErrorf("catalog child creation time must be a non-negative safe integer")
	}
	if _, ok := jsonv.IntValue(c.DescriptorCount).Count(); !ok {
		return session.FormatErrorf("child descriptor count must be a non-negative safe integer")
	}
	return nil
}

// catalogFact interprets the discovery fields of the child's one own
// descriptor of version 1, 2 or 3 (dsh's childCatalogFact). Without exactly
// one such descriptor there is no fact (ok false): the child's mode is
// unknown.
func (c ChildFact) catalogFact() (data jsonv.Value, entry v4.CatalogEntry, ok bool, err error) {
	d := c.Descriptor
	version := d.Field("version")
	known := d.Kind() == jsonv.Object && (isNumber(version, 1) || isNumber(version, 2) || isNumber(version, 3))
	if c.DescriptorCount != 1 || !known {
		return data, entry, false, nil
	}
	if d.Field("provider").Kind() != jsonv.String {
		return data, entry, false, session.Unsupportedf("%s has an invalid subagent descriptor provider", c.subject())
	}
	mode := d.Field("mode")
	if !isNumber(version, 1) && !isString(mode, "continuable") && !isString(mode, "one-shot") {
		return data, entry, false, session.Unsupportedf("%s has an invalid subagent descriptor mode", c.subject())
	}
	if isNumber(version, 1) {
		mode = jsonv.StringValue("continuable") // v1 described only continuable children
	}
	members := []jsonv.Member{
		jsonv.M("version", jsonv.IntValue(0)),
		jsonv.M("childId", jsonv.StringValue(c.ChildID)),
		jsonv.M("childCreatedAt", jsonv.IntValue(c.ChildCreatedAt)),
		jsonv.M("mode", mode),
	}
	if label, hasLabel := d.Get("label"); hasLabel {
		members = append(members, jsonv.M("label", label))
	}
	data = jsonv.ObjectValue(members...)
	if entry, err = v4.CatalogFact(data, c.subject()); err != nil {
		return data, entry, false, err
	}
	return data, entry, true, nil
}

// unknownEntry is the catalog entry of a child whose mode is unknown.
func (c ChildFact) unknownEntry() (jsonv.Value, v4.CatalogEntry) {
	data := jsonv.ObjectValue(
		jsonv.M("version", jsonv.IntValue(1)),
		jsonv.M("childId", jsonv.StringValue(c.ChildID)),
		jsonv.M("childCreatedAt", jsonv.IntValue(c.ChildCreatedAt)),
		jsonv.M("mode", jsonv.StringValue("unknown")),
	)
	return data, v4.CatalogEntry{ChildID: c.ChildID, ChildCreatedAt: c.ChildCreatedAt, Mode: "unknown"}
}

// CheckChildFact validates a child's evidence as dsh does when it reduces a
// child artifact (historicalChildCatalogSource): a supported own descriptor
// must name a provider and a mode and give a supported catalog fact.
func CheckChildFact(c ChildFact) error {
	if err := c.check(); err != nil {
		return err
	}
	_, _, _, err := c.catalogFact()
	return err
}

// ChildReducer reduces a child session's restored artifact to its
// ChildFact (dsh's historicalChildCatalogSource), fed one event at a time.
// It keeps only the child's subagent/descriptor events, as the inherited cut
// that decides which are its own is known at the end.
type ChildReducer struct {
	header      session.Header
	descriptors []descriptor
}

type descriptor struct {
	seq  int64
	data jsonv.Value
}

// NewChildReducer starts reducing the child with header h; the child must
// be a subagent with a direct parent.
func NewChildReducer(h session.Header) (*ChildReducer, error) {
	if h.Origin == nil || *h.Origin != "subagent" || h.ParentSession == nil {
		return nil, session.Unsupportedf("catalog migration requires a subagent child with a direct parent")
	}
	return &ChildReducer{header: h}, nil
}

// Add takes the child's next event.
func (r *ChildReducer) Add(ev session.Event) {
	if ev.Type == "subagent/descriptor" {
		r.descriptors = append(r.descriptors, descriptor{ev.Seq, ev.Data()})
	}
}

// Finish returns the child's evidence given its inherited cut, checked as
// CheckChildFact does.
func (r *ChildReducer) Finish(cut int64) (ChildFact, error) {
	fact := ChildFact{ChildID: r.header.ID, ChildCreatedAt: r.header.CreatedAt}
	for _, d := range r.descriptors {
		if d.seq < cut {
			continue
		}
		if fact.DescriptorCount == 0 {
			fact.Descriptor = d.data
		}
		fact.DescriptorCount++
	}
	return fact, CheckChildFact(fact)
}

func isNumber(v jsonv.Value, want float64) bool {
	n, ok := v.Number()
	return ok && n == want
}

// compareUTF16 orders strings as JavaScript's < does, by UTF-16 code units
// (not by UTF-8 bytes, which order U+E000–U+FFFF after the astral planes).
// Lone surrogates, kept in generalized UTF-8, are single code units.
func compareUTF16(a, b string) int {
	return slices.Compare(utf16Units(a), utf16Units(b))
}

func utf16Units(s string) []uint16 {
	units := make([]uint16, 0, len(s))
	for s != "" {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1 && len(s) >= 3 && s[0] == 0xED && s[1]&0xE0 == 0xA0 && s[2]&0xC0 == 0x80:
			units = append(units, 0xD000|uint16(s[1]&0x3F)<<6|uint16(s[2]&0x3F))
			n = 3
		case r >= 0x10000:
			hi, lo := utf16.EncodeRune(r)
			units = append(units, uint16(hi), uint16(lo))
		default:
			units = append(units, uint16(r))
		}
		s = s[n:]
	}
	return units
}
