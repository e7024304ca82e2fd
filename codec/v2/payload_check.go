package v2

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dshlog/dshlog/codec/jsform"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// The primitive checks of dsh's released payload validator, each refusing
// with "<label> must …" exactly as dsh words it.
//
// A label only words a refusal, so the exported checks run quietly first,
// with the empty label, which sub, subKey and indexLabel keep empty: a
// payload that passes costs no label at all, and one that fails is checked
// again with its labels to word the refusal, which, the checks never
// looking at a label, is the same first refusal.

// sub extends label by part ("<label> id"), keeping a quiet check's empty
// label empty.
func sub(label, part string) string {
	if label == "" {
		return ""
	}
	return label + part
}

// subKey names member key of what label names ("<label> <key>").
func subKey(label, key string) string {
	if label == "" {
		return ""
	}
	return label + " " + key
}

// indexLabel names element i of the array label names ("<label>[i]").
func indexLabel(label string, i int) string {
	if label == "" {
		return ""
	}
	return label + "[" + strconv.Itoa(i) + "]"
}

// ReleasedRecord requires a JSON object, refusing with "<label> must be a
// JSON object" (dsh's releasedV0Record); it returns v.
func ReleasedRecord(v jsonv.Value, label string) (jsonv.Value, error) {
	return jsform.Record(v, "%s must be a JSON object", label)
}

// ReleasedMembers requires every required member of object v and nothing
// outside required and optional, reporting an unexpected member before a
// missing one (dsh's assertReleasedV0Keys).
func ReleasedMembers(v jsonv.Value, label string, required, optional []string) error {
	present := 0 // required keys among the members, each counted once
	for _, m := range v.Members() {
		switch {
		case slices.Contains(required, m.Key):
			present++
		case !slices.Contains(optional, m.Key):
			return session.FormatErrorf("%s has unexpected member %s", label, jsform.Quote(m.Key))
		}
	}
	if present == len(required) {
		return nil // an object's keys are distinct: every required key is there
	}
	if k, ok := jsform.MissingKey(v, required); ok {
		return session.FormatErrorf("%s lacks required member %s", label, jsform.Quote(k))
	}
	return nil
}

// exactRecord requires an object with exactly the named members.
func exactRecord(v jsonv.Value, label string, required []string, optional ...string) (jsonv.Value, error) {
	if _, err := ReleasedRecord(v, label); err != nil {
		return v, err
	}
	return v, ReleasedMembers(v, label, required, optional)
}

func stringValue(v jsonv.Value, label string) error {
	if v.Kind() != jsonv.String {
		return session.FormatErrorf("%s must be a string", label)
	}
	return nil
}

func nonEmptyString(v jsonv.Value, label string) error {
	if s, ok := v.Str(); !ok || s == "" {
		return session.FormatErrorf("%s must be a non-empty string", label)
	}
	return nil
}

func booleanValue(v jsonv.Value, label string) error {
	if v.Kind() != jsonv.Bool {
		return session.FormatErrorf("%s must be a boolean", label)
	}
	return nil
}

func positiveIntegerValue(v jsonv.Value, label string) (int64, error) {
	n, err := jsform.Count(v, label)
	if err == nil && n == 0 {
		return 0, session.FormatErrorf("%s must be positive", label)
	}
	return n, err
}

func finiteNumberValue(v jsonv.Value, label string) (float64, error) {
	f, ok := v.Number()
	if !ok || math.IsInf(f, 0) || math.IsNaN(f) || v.IsNegZero() {
		return 0, session.FormatErrorf("%s must be a finite number", label)
	}
	return f, nil
}

// oneOf requires one of the given strings (literalValue over strings).
func oneOf(v jsonv.Value, label string, allowed ...string) error {
	if s, ok := v.Str(); ok && slices.Contains(allowed, s) {
		return nil
	}
	return session.FormatErrorf("%s must be one of %s", label, strings.Join(allowed, ", "))
}

// isTrueLiteral requires the boolean true (literalValue(v, [true])).
func isTrueLiteral(v jsonv.Value, label string) error {
	if !v.IsTrue() {
		return session.FormatErrorf("%s must be one of true", label)
	}
	return nil
}

// isNumberLiteral requires the number n (literalValue(v, [n])).
func isNumberLiteral(v jsonv.Value, label string, n float64) error {
	if f, ok := v.Number(); !ok || f != n {
		return session.FormatErrorf("%s must be one of %s", label, jsonv.NumberValue(n).String())
	}
	return nil
}

// arrayValue requires an array and checks each member with label[i].
func arrayValue(v jsonv.Value, label string, each func(jsonv.Value, string) error) ([]jsonv.Value, error) {
	if v.Kind() != jsonv.Array {
		return nil, session.FormatErrorf("%s must be an array", label)
	}
	elems := v.Elements()
	for i, e := range elems {
		if err := each(e, indexLabel(label, i)); err != nil {
			return nil, err
		}
	}
	return elems, nil
}

func coordinatePair(data jsonv.Value, label string) error {
	if _, err := jsform.Count(data.Field("turn"), sub(label, " turn")); err != nil {
		return err
	}
	_, err := jsform.Count(data.Field("step"), sub(label, " step"))
	return err
}

func earlierSeq(v jsonv.Value, eventSeq int64, label string) (int64, error) {
	seq, err := jsform.Count(v, label)
	if err != nil {
		return 0, err
	}
	if seq >= eventSeq {
		return 0, session.FormatErrorf("%s must identify an earlier event", label)
	}
	return seq, nil
}

// seqArray requires unique earlier seqs, non-empty when asked.
func seqArray(v jsonv.Value, eventSeq int64, label string, requireNonEmpty bool) ([]int64, error) {
	var seqs []int64
	seen := map[int64]bool{}
	_, err := arrayValue(v, label, func(member jsonv.Value, memberLabel string) error {
		seq, err := earlierSeq(member, eventSeq, memberLabel)
		if err != nil {
			return err
		}
		if seen[seq] {
			return session.FormatErrorf("%s repeats seq %d", label, seq)
		}
		seen[seq] = true
		seqs = append(seqs, seq)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if requireNonEmpty && len(seqs) == 0 {
		return nil, session.FormatErrorf("%s must be non-empty", label)
	}
	return seqs, nil
}

// ifPresent runs check on member key of obj when the member exists (dsh's
// `if (data[key] !== undefined)`).
func ifPresent(obj jsonv.Value, key, label string, check func(jsonv.Value, string) error) error {
	if v, ok := obj.Get(key); ok {
		return check(v, label)
	}
	return nil
}

// isJSWhitespace reports whether r is removed by JavaScript's String.trim.
func isJSWhitespace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}
