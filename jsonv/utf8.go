package jsonv

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// ToWellFormed returns b with every ill-formed UTF-8 sequence replaced by
// U+FFFD, one per maximal subpart as the WHATWG decoder (and so Node's
// Buffer#toString) does it: "\xff\xc3(\xe2\x82" becomes "\uFFFD\uFFFD(\uFFFD".
// Go's own decoders replace byte by byte instead.
func ToWellFormed(b []byte) []byte {
	out := make([]byte, 0, len(b)+8)
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			out = append(out, c)
			i++
			continue
		}
		n := validPrefix(b[i:])
		if n > 0 && n == sequenceLength(c) {
			out = append(out, b[i:i+n]...)
			i += n
			continue
		}
		out = append(out, "\uFFFD"...)
		if n == 0 {
			n = 1
		}
		i += n
	}
	return out
}

// originalOffset maps an offset into ToWellFormed(b) back to b: an offset
// inside a replacement character maps to the start of what it replaced.
func originalOffset(b []byte, offset int) int {
	out := 0
	for i := 0; i < len(b); {
		n, width := 1, 1 // bytes read from b, bytes written
		if c := b[i]; c >= utf8.RuneSelf {
			n = validPrefix(b[i:])
			switch {
			case n > 0 && n == sequenceLength(c):
				width = n
			case n == 0:
				n, width = 1, len("\uFFFD")
			default:
				width = len("\uFFFD")
			}
		}
		if out+width > offset {
			return i
		}
		out += width
		i += n
	}
	return len(b)
}

// sequenceLength is the length a UTF-8 sequence led by c must have, or 0 when
// c cannot lead one.
func sequenceLength(c byte) int {
	switch {
	case c >= 0xc2 && c <= 0xdf:
		return 2
	case c >= 0xe0 && c <= 0xef:
		return 3
	case c >= 0xf0 && c <= 0xf4:
		return 4
	}
	return 0
}

// validPrefix returns how many bytes at the start of b form a valid UTF-8
// sequence or a valid beginning of one (the maximal subpart), 0 when b[0]
// cannot start a sequence.
func validPrefix(b []byte) int {
	need := sequenceLength(b[0])
	if need == 0 {
		return 0
	}
	lower, upper := byte(0x80), byte(0xbf)
	switch b[0] {
	case 0xe0:
		lower = 0xa0
	case 0xed:
		upper = 0x9f
	case 0xf0:
		lower = 0x90
	case 0xf4:
		upper = 0x8f
	}
	n := 1
	for n < need && n < len(b) {
		if b[n] < lower || b[n] > upper {
			break
		}
		lower, upper = 0x80, 0xbf
		n++
	}
	return n
}

// joinSurrogatePairs returns s with every high surrogate directly followed by
// a low one (both in generalized UTF-8) replaced by the UTF-8 of the pair.
func joinSurrogatePairs(s string) string {
	if strings.IndexByte(s, 0xed) < 0 {
		return s
	}
	var out []byte
	start := 0
	for i := 0; i < len(s); i++ {
		high, ok := surrogateAt(s, i)
		if !ok || !isHigh(high) {
			continue
		}
		low, ok := surrogateAt(s, i+3)
		if !ok || isHigh(low) {
			continue
		}
		out = append(out, s[start:i]...)
		out = utf8.AppendRune(out, utf16.DecodeRune(high, low))
		i += 5
		start = i + 1
	}
	if out == nil {
		return s
	}
	return string(append(out, s[start:]...))
}
