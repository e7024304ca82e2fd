package jsonv

import (
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Append appends JSON.stringify(v) to dst and returns the extended slice.
// A non-finite number is written as null, as JavaScript does.
func (v Value) Append(dst []byte) []byte {
	switch v.Kind() {
	case Null:
		return append(dst, "null"...)
	case Bool:
		if v.IsTrue() {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case Number:
		return appendNumber(dst, v.num())
	case String:
		return AppendString(dst, v.str())
	case Array:
		if raw := v.Raw(); raw != nil {
			return append(dst, raw...)
		}
		dst = append(dst, '[')
		for i, e := range v.elements() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = e.Append(dst)
		}
		return append(dst, ']')
	}
	if raw := v.Raw(); raw != nil {
		return append(dst, raw...)
	}
	dst = append(dst, '{')
	for i, m := range v.objectMembers() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, m.Key)
		dst = append(dst, ':')
		dst = m.Value.Append(dst)
	}
	return append(dst, '}')
}

// Encode returns JSON.stringify(v).
func (v Value) Encode() []byte { return v.Append(nil) }

// String returns JSON.stringify(v), for printing and tests.
func (v Value) String() string { return string(v.Append(nil)) }

// Raw returns the text v was parsed from when that text is exactly what
// Append writes, and nil otherwise (changed values, non-canonical input,
// scalars).
func (v Value) Raw() []byte {
	switch {
	case v.Kind() < Array:
		return nil
	case v.onTape():
		t, i, start := v.tapeNode()
		return t.raw(i, start)
	}
	return (*container)(v.p).raw
}

const hexDigits = "0123456789abcdef"

// shortEscape returns the letter of the two-character escape JSON.stringify
// uses for r, or 0.
func shortEscape(r rune) byte {
	switch r {
	case '\b':
		return 'b'
	case '\f':
		return 'f'
	case '\n':
		return 'n'
	case '\r':
		return 'r'
	case '\t':
		return 't'
	case '"':
		return '"'
	case '\\':
		return '\\'
	}
	return 0
}

// AppendString appends s quoted as JSON.stringify quotes it: only '"', '\\'
// and control characters are escaped, plus lone surrogates (held in
// generalized UTF-8) as lowercase \udxxx; two that form a pair are written as
// the one character they make. Everything else, U+2028, U+2029 and '<', '>',
// '&' included, is written raw.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != 0xed {
			i++
			continue
		}
		if c == 0xed {
			unit, ok := surrogateAt(s, i)
			if !ok {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			if low, ok := surrogateAt(s, i+3); ok && isHigh(unit) && !isHigh(low) {
				// Two halves of a pair are one character to JavaScript.
				dst = utf8.AppendRune(dst, utf16.DecodeRune(unit, low))
				i += 6
			} else {
				dst = append(dst, '\\', 'u', hexDigits[unit>>12], hexDigits[unit>>8&0xf], hexDigits[unit>>4&0xf], hexDigits[unit&0xf])
				i += 3
			}
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		if e := shortEscape(rune(c)); e != 0 {
			dst = append(dst, '\\', e)
		} else {
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// surrogateAt returns the UTF-16 surrogate encoded in generalized UTF-8 at
// s[i:] (ED A0..BF xx), if there is one.
func surrogateAt(s string, i int) (rune, bool) {
	if i+2 >= len(s) || s[i] != 0xed || s[i+1] < 0xa0 || s[i+1] > 0xbf || s[i+2]&0xc0 != 0x80 {
		return 0, false
	}
	return rune(s[i]&0x0f)<<12 | rune(s[i+1]&0x3f)<<6 | rune(s[i+2]&0x3f), true
}

func isHigh(unit rune) bool { return unit < 0xdc00 }

// AppendNumber appends f as ECMAScript's Number::toString writes it, and
// null for NaN and ±Inf as JSON.stringify does.
func AppendNumber(dst []byte, f float64) []byte { return appendNumber(dst, f) }

func appendNumber(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	if f == 0 {
		return append(dst, '0') // -0 too
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.AppendInt(dst, int64(f), 10)
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	// Shortest round-trip digits d1..dk and exponent: f = 0.d1..dk × 10^n.
	var buf [32]byte
	sci := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	mant, exp := sci, 0
	for i, c := range sci {
		if c == 'e' {
			mant = sci[:i]
			exp, _ = strconv.Atoi(string(sci[i+1:]))
			break
		}
	}
	var digits [24]byte
	k := 0
	for _, c := range mant {
		if c != '.' {
			digits[k] = c
			k++
		}
	}
	n := exp + 1
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits[:k]...)
		for i := k; i < n; i++ {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:k]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for i := 0; i < -n; i++ {
			dst = append(dst, '0')
		}
		dst = append(dst, digits[:k]...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:k]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}
