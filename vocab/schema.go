package vocab

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/dshlog/dshlog/jsonv"
)

// The node kinds of dsh's persistence schemas.
const (
	KindObject    = "object"
	KindPrimitive = "primitive"
	KindLiteral   = "literal"
	KindUnion     = "union"
	KindArray     = "array"
)

// Schema is the structural schema of an event's payload, in the node form
// of dsh's persistence-change records: a list of nodes that name each
// other by index, starting at Root.
type Schema struct {
	// Root is the index in Nodes of the payload's own node.
	Root int
	// Nodes are the schema's nodes; a node names another by its index.
	Nodes []Node
}

// Node is one node of a Schema.
type Node struct {
	// Kind is what the node is: one of the Kind constants.
	Kind string `json:"kind"`
	// Properties are an object's members; an object without Indices has
	// no others.
	Properties []Property `json:"properties"`
	// Indices are an object's index signatures: any other member must fit
	// one of them.
	Indices []Index `json:"indices"`
	// Primitive is a primitive node's type: string, number, boolean, null,
	// never, unknown.
	Primitive string `json:"type"`
	// Value is a literal node's value (string, float64, bool or nil).
	Value any `json:"value"`
	// Types are a union's alternatives.
	Types []int `json:"types"`
	// Element is an array's element type.
	Element int `json:"element"`
}

// Property is a member of an object node.
type Property struct {
	// Name is the member's key.
	Name string `json:"name"`
	// Type is the index of the node the member's value must fit.
	Type int `json:"type"`
	// Optional is true when the member may be absent.
	Optional bool `json:"optional"`
}

// Index is an index signature of an object node: members whose names fit
// Key hold values of type Value.
type Index struct {
	// Key is the index of the node a member's name must fit.
	Key int `json:"key"`
	// Value is the index of the node the member's value must fit.
	Value int `json:"value"`
}

// validate checks that every index a node names exists.
func (s *Schema) validate() error {
	ok := func(i int) bool { return i >= 0 && i < len(s.Nodes) }
	if !ok(s.Root) {
		return fmt.Errorf("schema root %d is not a node", s.Root)
	}
	for i, n := range s.Nodes {
		refs := refsOf(n)
		for _, r := range refs {
			if !ok(r) {
				return fmt.Errorf("schema node %d names node %d, which does not exist", i, r)
			}
		}
	}
	return nil
}

// refsOf lists the node indices n refers to.
func refsOf(n Node) []int {
	var refs []int
	for _, p := range n.Properties {
		refs = append(refs, p.Type)
	}
	for _, ix := range n.Indices {
		refs = append(refs, ix.Key, ix.Value)
	}
	refs = append(refs, n.Types...)
	if n.Kind == KindArray {
		refs = append(refs, n.Element)
	}
	return refs
}

// Check reports the first place where v does not fit the schema, as an
// error naming the path from label ("data.tools[2]: expected string").
func (s *Schema) Check(v jsonv.Value, label string) error {
	c := checker{Schema: s, budget: maxVisits}
	return c.check(s.Root, v, label, 0)
}

// maxDepth bounds the nesting a check follows, and maxVisits the nodes it
// visits, so that a recursive schema (a union that names itself) cannot
// make a check run without end.
const (
	maxDepth  = 200
	maxVisits = 1 << 18
)

// checker is one Check of a value: the schema and the visits left.
type checker struct {
	*Schema
	budget int
}

var errTooComplex = fmt.Errorf("too complex to check against its schema")

func (s *checker) check(at int, v jsonv.Value, path string, depth int) error {
	s.budget--
	if s.budget < 0 {
		return fmt.Errorf("%s: %w", path, errTooComplex)
	}
	if depth > maxDepth {
		return fmt.Errorf("%s: nested too deeply to check", path)
	}
	n := s.Nodes[at]
	switch n.Kind {
	case KindPrimitive:
		if !fitsPrimitive(n.Primitive, v) {
			return fmt.Errorf("%s: expected %s", path, n.Primitive)
		}
	case KindLiteral:
		if !equalsLiteral(n.Value, v) {
			return fmt.Errorf("%s: expected %s", path, literalText(n.Value))
		}
	case KindArray:
		if v.Kind() != jsonv.Array {
			return fmt.Errorf("%s: expected an array", path)
		}
		for i, e := range v.Elements() {
			if err := s.check(n.Element, e, path+"["+strconv.Itoa(i)+"]", depth+1); err != nil {
				return err
			}
		}
	case KindUnion:
		for _, alt := range n.Types {
			err := s.check(alt, v, path, depth+1)
			if err == nil || errors.Is(err, errTooComplex) {
				return err
			}
		}
		return fmt.Errorf("%s: fits none of the %d declared forms", path, len(n.Types))
	case KindObject:
		return s.checkObject(n, v, path, depth)
	}
	return nil // a node kind dshlog does not know is not checked
}

func (s *checker) checkObject(n Node, v jsonv.Value, path string, depth int) error {
	if v.Kind() != jsonv.Object {
		return fmt.Errorf("%s: expected an object", path)
	}
	for _, p := range n.Properties {
		member, ok := v.Get(p.Name)
		if !ok {
			if !p.Optional {
				return fmt.Errorf("%s: lacks the required member %q", path, p.Name)
			}
			continue
		}
		if err := s.check(p.Type, member, path+"."+p.Name, depth+1); err != nil {
			return err
		}
	}
	for _, m := range v.Members() {
		if declared(n, m.Key) {
			continue
		}
		if !s.fitsIndex(n, m, path, depth) {
			return fmt.Errorf("%s: has the undeclared member %q", path, m.Key)
		}
	}
	return nil
}

// fitsIndex reports whether an undeclared member fits an index signature.
func (s *checker) fitsIndex(n Node, m jsonv.Member, path string, depth int) bool {
	for _, ix := range n.Indices {
		if s.check(ix.Key, jsonv.StringValue(m.Key), path, depth+1) == nil &&
			s.check(ix.Value, m.Value, path+"."+m.Key, depth+1) == nil {
			return true
		}
	}
	return false
}

func declared(n Node, name string) bool {
	for _, p := range n.Properties {
		if p.Name == name {
			return true
		}
	}
	return false
}

func fitsPrimitive(typ string, v jsonv.Value) bool {
	switch typ {
	case "string":
		return v.Kind() == jsonv.String
	case "number":
		return v.Kind() == jsonv.Number
	case "boolean":
		return v.Kind() == jsonv.Bool
	case "null":
		return v.Kind() == jsonv.Null
	case "never":
		return false
	}
	return true // unknown, any, or a primitive dshlog does not know
}

func equalsLiteral(want any, v jsonv.Value) bool {
	switch w := want.(type) {
	case string:
		s, ok := v.Str()
		return ok && s == w
	case float64:
		f, ok := v.Number()
		return ok && f == w
	case bool:
		b, ok := v.Bool()
		return ok && b == w
	case nil:
		return v.Kind() == jsonv.Null
	}
	return false
}

func literalText(v any) string {
	switch w := v.(type) {
	case string:
		return strconv.Quote(w)
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}
