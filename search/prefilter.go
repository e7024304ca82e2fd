package search

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"github.com/dshlog/dshlog/jsonv"
)

// prefilter picks the lines of a v4 file's text that may hold a match,
// without decoding them. dsh writes each row with JSON.stringify, which
// escapes only '"', '\\', control characters and lone surrogates, and
// every field searched is one JSON string on one row: a decoded field
// holding the needle has the needle, quoted as JSON.stringify quotes it,
// among the row's bytes. A row written otherwise (an escape JSON.stringify
// never writes, such as \/ or \u0041) is a candidate too, so a file from
// another writer is still searched in full.
type prefilter struct {
	// needle is the pattern's required text as JSON.stringify quotes it,
	// without the quotes; lowercased in ASCII when fold is set.
	needle []byte
	// fold compares ASCII letters without case: the haystack is lowercased
	// into a scratch buffer before the needle is looked for.
	fold bool
	// triggers are characters outside ASCII that fold to a letter of the
	// needle (the Kelvin sign to "k", the long s to "s"): a line holding
	// one is a candidate.
	triggers [][]byte
}

// newPrefilter returns the prefilter for a literal text every match
// contains, or nil when the text gives none that is sound: it is empty,
// or it holds bytes a decoded string may hold in another form (a
// surrogate in generalized UTF-8, U+FFFD). With fold, only the longest
// run of characters whose case variants are all ASCII or none is looked
// for, folded.
func newPrefilter(literal string, fold bool) *prefilter {
	if fold {
		literal = foldableRun(literal)
	}
	if literal == "" || hasSurrogate(literal) || bytes.ContainsRune([]byte(literal), utf8.RuneError) {
		return nil
	}
	quoted := jsonv.AppendString(nil, literal)
	p := &prefilter{needle: quoted[1 : len(quoted)-1], fold: fold}
	if fold {
		p.needle = bytes.ToLower(p.needle) // the needle is ASCII where it has case
		seen := map[rune]bool{}
		for _, r := range literal {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				if f >= utf8.RuneSelf && !seen[f] {
					seen[f] = true
					p.triggers = append(p.triggers, utf8.AppendRune(nil, f))
				}
			}
		}
	}
	return p
}

// foldableRun returns the longest run of s whose characters an ASCII case
// fold compares correctly: ASCII ones, and others that have no case
// variant at all.
func foldableRun(s string) string {
	best, start := "", 0
	for i, r := range s {
		if r < utf8.RuneSelf || unicode.SimpleFold(r) == r {
			continue
		}
		if i-start > len(best) {
			best = s[start:i]
		}
		start = i + utf8.RuneLen(r)
	}
	if len(s)-start > len(best) {
		best = s[start:]
	}
	return best
}

// hasSurrogate reports whether s holds a UTF-16 surrogate in generalized
// UTF-8 (ED A0..BF xx), which a row holds escaped.
func hasSurrogate(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		if s[i] == 0xed && s[i+1] >= 0xa0 && s[i+1] <= 0xbf {
			return true
		}
	}
	return false
}

// find returns the offset in text of the first place that makes its line
// a candidate (the needle, a fold trigger, an escape JSON.stringify does
// not write), or -1. text is whole lines; scratch is reused for folding.
func (p *prefilter) find(text []byte, scratch *[]byte) int {
	hay := text
	if p.fold {
		*scratch = foldASCII((*scratch)[:0], text)
		hay = *scratch
	}
	first := bytes.Index(hay, p.needle)
	limit := len(text)
	if first >= 0 {
		limit = first
	}
	for _, t := range p.triggers {
		if i := bytes.Index(text[:limit], t); i >= 0 {
			first, limit = i, i
		}
	}
	if i := foreignEscape(text[:limit]); i >= 0 {
		first = i
	}
	return first
}

// candidate reports whether a line may hold a match.
func (p *prefilter) candidate(line []byte, scratch *[]byte) bool {
	return p.find(line, scratch) >= 0
}

// foldASCII appends text to dst with ASCII letters lowercased.
func foldASCII(dst, text []byte) []byte {
	dst = append(dst, text...)
	for i, c := range dst {
		if c-'A' < 26 {
			dst[i] = c + ('a' - 'A')
		}
	}
	return dst
}

// foreignEscape returns the offset of the first escape in text that
// JSON.stringify would not have written, or -1: \/, a \u escape of a
// character it writes raw or with a short escape, upper case hex digits,
// a surrogate pair written as two escapes. text is whole lines, so a run
// of backslashes never starts before it.
func foreignEscape(text []byte) int {
	first := -1
	for _, pattern := range [...]string{`\u`, `\/`} {
		for i := 0; i < len(text); {
			j := bytes.Index(text[i:], []byte(pattern))
			if j < 0 {
				break
			}
			at := i + j
			if first >= 0 && at >= first {
				break
			}
			if isEscape(text, at) && !stringifyWrites(text, at) {
				first = at
				break
			}
			i = at + 1
		}
	}
	return first
}

// isEscape reports whether the backslash at text[at] starts an escape:
// an even number of backslashes comes right before it.
func isEscape(text []byte, at int) bool {
	n := 0
	for k := at - 1; k >= 0 && text[k] == '\\'; k-- {
		n++
	}
	return n%2 == 0
}

// stringifyWrites reports whether the escape at text[at] is one
// JSON.stringify writes: \u00xx (lowercase) for a control character
// without a short escape, or a lone surrogate.
func stringifyWrites(text []byte, at int) bool {
	if text[at+1] != 'u' {
		return false
	}
	unit, ok := lowerHex4(text, at+2)
	switch {
	case !ok:
		return false
	case unit < 0x20:
		return unit != '\b' && unit != '\t' && unit != '\n' && unit != '\f' && unit != '\r'
	case unit < 0xd800 || unit > 0xdfff:
		return false
	case unit < 0xdc00: // a high surrogate: lone unless a low one follows
		low, ok := escapedUnit(text, at+6)
		return !ok || low < 0xdc00 || low > 0xdfff
	}
	// a low surrogate: lone unless an escaped high one comes right before
	if at < 6 {
		return true
	}
	high, ok := escapedUnit(text, at-6)
	return !ok || high < 0xd800 || high > 0xdbff || !isEscape(text, at-6)
}

// escapedUnit reads a \uxxxx escape at text[at], if there is one.
func escapedUnit(text []byte, at int) (uint16, bool) {
	if at+6 > len(text) || text[at] != '\\' || text[at+1] != 'u' {
		return 0, false
	}
	return lowerHex4(text, at+2)
}

// lowerHex4 reads four lowercase hex digits at text[at].
func lowerHex4(text []byte, at int) (uint16, bool) {
	if at+4 > len(text) {
		return 0, false
	}
	var unit uint16
	for _, c := range text[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			unit = unit<<4 | uint16(c-'0')
		case c >= 'a' && c <= 'f':
			unit = unit<<4 | uint16(c-'a'+10)
		default:
			return 0, false
		}
	}
	return unit, true
}
