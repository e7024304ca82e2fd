package search

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// matcher finds a pattern in decoded text: a fixed string compared byte
// for byte, or a Go regular expression (a fixed string with IgnoreCase is
// one too, with Unicode's simple case folding).
type matcher struct {
	fixed string
	re    *regexp.Regexp
	// pre, when set, is the prefilter of a literal every match contains.
	pre *prefilter
}

// newMatcher compiles the pattern of q.
func newMatcher(q Query) (*matcher, error) {
	if q.Pattern == "" {
		return nil, fmt.Errorf("the pattern is empty")
	}
	if q.Fixed && !q.IgnoreCase {
		return &matcher{fixed: q.Pattern, pre: newPrefilter(q.Pattern, false)}, nil
	}
	expr := q.Pattern
	if q.Fixed {
		expr = regexp.QuoteMeta(expr)
	}
	if q.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	m := &matcher{re: re}
	switch {
	case q.Fixed: // and IgnoreCase
		m.pre = newPrefilter(q.Pattern, true)
	default:
		// The literal every match starts with; none under (?i), which
		// LiteralPrefix leaves out.
		if prefix, _ := re.LiteralPrefix(); prefix != "" {
			m.pre = newPrefilter(prefix, false)
		}
	}
	return m, nil
}

// each calls visit with the byte offsets of each match in text, left to
// right and not overlapping, until visit returns false.
func (m *matcher) each(text string, visit func(start, end int) bool) {
	if m.re == nil {
		for i := 0; ; {
			j := strings.Index(text[i:], m.fixed)
			if j < 0 {
				return
			}
			start := i + j
			if !visit(start, start+len(m.fixed)) {
				return
			}
			i = start + len(m.fixed)
		}
	}
	for _, loc := range m.re.FindAllStringIndex(text, -1) {
		if !visit(loc[0], loc[1]) {
			return
		}
	}
}

// Bytes of context a hit keeps around its match, and of the match itself.
const (
	contextBytes = 160
	matchBytes   = 240
)

// context cuts the text before and after a match at text[start:end] to
// contextBytes each, and the match to matchBytes, each on a whole
// character; the parts are copies, so a hit does not keep a long text.
func context(text string, start, end int) (before, match, after string) {
	from := start - contextBytes
	if from <= 0 {
		from = 0
	} else {
		for from < start && !utf8.RuneStart(text[from]) {
			from++
		}
	}
	to := end + contextBytes
	if to >= len(text) {
		to = len(text)
	} else {
		for to > end && !utf8.RuneStart(text[to]) {
			to--
		}
	}
	matchEnd := end
	if end-start > matchBytes {
		matchEnd = start + matchBytes
		for matchEnd > start && !utf8.RuneStart(text[matchEnd]) {
			matchEnd--
		}
	}
	return strings.Clone(text[from:start]), strings.Clone(text[start:matchEnd]), strings.Clone(text[end:to])
}
