// Package vocab holds the v4 event vocabulary a reader judges a session by:
// which event types the dsh build that wrote the log knows, which of them
// are surface types (their events produce a model-visible message), and the
// payload rules dshlog knows for each.
//
// dsh keeps its format number at 4 while the set of event types grows
// "same-version", and a build refuses a log holding a non-ignorable type it
// does not know; so the vocabulary is chosen per build. Two builds are built
// in: the current official line (v0.2.1-alpha.2, the default) and zDSH, the
// build the corpus goldens were made with. A fork's own types are added from
// the files the fork already has (see Load).
//
// A Vocabulary is an immutable value built once (by the command line) and
// passed explicitly to the reader, codec, fold and verifier; looking a type
// up is one map access and allocates nothing. Memory: one entry per type,
// plus the structural schemas read from declaration files.
package vocab

import (
	"maps"
	"slices"
)

// Type is one event type of a vocabulary.
type Type struct {
	// Name is the event type, such as "working-directory/change".
	Name string
	// Surface is true for a type whose events produce a model-visible
	// message (dsh's surface: true) or otherwise change what the model
	// sees (MESSAGE_PROJECTION_EVENT_TYPES).
	Surface bool
	// Derivable is true when dshlog knows how to derive the model's view
	// from events of the type: every built-in type. A surface type a file
	// declares that dshlog does not know is refused when an event holds it.
	Derivable bool
	// Schema is the structural schema of the payload (the event's data)
	// when a declaration carries one, else nil. Built-in types that have
	// one (working-directory/change) are checked against it as well.
	Schema *Schema
	// Origin says where the type came from: "built in (NAME)" or the file
	// that declared it.
	Origin string
}

// Vocabulary is the set of event types a reader interprets, with the build
// it stands for. The zero value is not usable; start from a Build.
type Vocabulary struct {
	build   *Build
	types   map[string]*Type
	unknown bool // keep unknown non-ignorable events opaque instead of refusing
}

// Build returns the built-in build the vocabulary starts from.
func (v *Vocabulary) Build() *Build { return v.build }

// Lookup returns the type named name, or nil when the vocabulary does not
// know it.
func (v *Vocabulary) Lookup(name string) *Type { return v.types[name] }

// Has reports whether the vocabulary knows the event type name.
func (v *Vocabulary) Has(name string) bool {
	_, ok := v.types[name]
	return ok
}

// Types returns every type, sorted by name.
func (v *Vocabulary) Types() []*Type {
	return slices.SortedFunc(maps.Values(v.types), func(a, b *Type) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
}

// Len returns the number of types.
func (v *Vocabulary) Len() int { return len(v.types) }

// AllowsUnknown reports whether events of a type outside the vocabulary
// are kept opaque (as if ignorable) instead of refused.
func (v *Vocabulary) AllowsUnknown() bool { return v.unknown }

// ExternalCatalog reports whether subagent/catalog facts of version 2
// (mode "external", children with no local Session) are valid.
func (v *Vocabulary) ExternalCatalog() bool { return v.build.ExternalCatalog }

// WithUnknownAllowed returns a copy of v that keeps events of unknown types
// opaque, as dsh keeps an ignorable one, instead of refusing the log.
func (v *Vocabulary) WithUnknownAllowed() *Vocabulary {
	c := *v
	c.unknown = true
	return &c
}

// With returns a copy of v with the types of d added. A built-in type keeps
// its rules and origin; a type known only from declarations is known by all
// of them (the first schema given, surface if any says so).
func (v *Vocabulary) With(d *Declaration) *Vocabulary {
	c := *v
	c.types = maps.Clone(v.types)
	for _, t := range d.Types {
		if c.build.V0 != nil && releasedV0Types[t.Name] {
			continue // read by the migrator's rules, judged as the v4 types it becomes
		}
		known := c.types[t.Name]
		if known == nil {
			added := t
			added.Origin = d.File
			c.types[t.Name] = &added
			continue
		}
		if known.Derivable {
			continue
		}
		merged := *known
		merged.Surface = merged.Surface || t.Surface
		if merged.Schema == nil {
			merged.Schema = t.Schema
		}
		merged.Origin += ", " + d.File
		c.types[t.Name] = &merged
	}
	return &c
}
