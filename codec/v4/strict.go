package v4

import (
	"math"
	"slices"
	"strings"

	"github.com/dshlog/dshlog/jsonv"
)

// scalar is a JSON member reduced to what JavaScript's === compares: a
// primitive's value, or the fact that it is an object or array (which is
// never === to a value read from another event) or missing (undefined).
// Scalars are comparable and usable as map keys.
type scalar struct {
	kind    jsonv.Kind
	present bool
	s       string
	n       float64
	b       bool
}

func scalarOf(v jsonv.Value, present bool) scalar {
	if !present {
		return scalar{}
	}
	s := scalar{kind: v.Kind(), present: true}
	switch v.Kind() {
	case jsonv.String:
		s.s = v.Text()
	case jsonv.Number:
		s.n, _ = v.Number()
		if s.n == 0 {
			s.n = 0 // -0 === 0
		}
	case jsonv.Bool:
		s.b = v.IsTrue()
	}
	return s
}

// member returns the scalar of v[key].
func member(v jsonv.Value, key string) scalar { return scalarOf(v.Get(key)) }

// composite reports whether the scalar stands for an object or array.
func (s scalar) composite() bool {
	return s.present && (s.kind == jsonv.Object || s.kind == jsonv.Array)
}

// same is JavaScript's a === b for members of distinct events.
func (s scalar) same(t scalar) bool { return s == t && !s.composite() }

// deepKey returns a canonical text of a member that is equal for two members
// exactly when Node's isDeepStrictEqual holds between them: object key order
// is ignored and -0 differs from 0. A missing member yields "".
func deepKey(v jsonv.Value, present bool) string {
	if !present {
		return ""
	}
	var b strings.Builder
	writeDeepKey(&b, v)
	return b.String()
}

func writeDeepKey(b *strings.Builder, v jsonv.Value) {
	switch v.Kind() {
	case jsonv.Number:
		switch n, _ := v.Number(); {
		case n == 0 && math.Signbit(n):
			b.WriteString("-0")
		case math.IsInf(n, 0):
			b.WriteString(infinityText(n))
		default:
			b.Write(v.Append(nil))
		}
	case jsonv.Array:
		b.WriteByte('[')
		for i, e := range v.Elements() {
			if i > 0 {
				b.WriteByte(',')
			}
			writeDeepKey(b, e)
		}
		b.WriteByte(']')
	case jsonv.Object:
		members := slices.Clone(v.Members())
		slices.SortFunc(members, func(x, y jsonv.Member) int { return strings.Compare(x.Key, y.Key) })
		b.WriteByte('{')
		for i, m := range members {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(jsonv.AppendString(nil, m.Key))
			b.WriteByte(':')
			writeDeepKey(b, m.Value)
		}
		b.WriteByte('}')
	default:
		b.Write(v.Append(nil))
	}
}

func infinityText(n float64) string {
	if n > 0 {
		return "Infinity"
	}
	return "-Infinity"
}
