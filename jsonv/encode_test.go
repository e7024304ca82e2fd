package jsonv

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestStrings(t *testing.T) {
	tests := []struct {
		name string
		in   string // a JSON string literal
		str  string // the decoded string, lone surrogates in generalized UTF-8
		want string // JSON.stringify of it
	}{
		{"plain", `"abc"`, "abc", `"abc"`},
		{"empty", `""`, "", `""`},
		{"lone high surrogate", `"\ud800"`, "\xed\xa0\x80", `"\ud800"`},
		{"lone high surrogate, upper-case hex", `"\uD800"`, "\xed\xa0\x80", `"\ud800"`},
		{"lone low surrogate", `"\udc00"`, "\xed\xb0\x80", `"\udc00"`},
		{"last surrogate", `"\uDFFF"`, "\xed\xbf\xbf", `"\udfff"`},
		{"escaped pair becomes raw UTF-8", `"\ud83d\ude00"`, "😀", `"😀"`},
		{"escaped pair, upper-case hex", `"\uD83D\uDE00"`, "😀", `"😀"`},
		{"high, then a pair", `"\ud83d\ud83d\ude00"`, "\xed\xa0\xbd😀", `"\ud83d😀"`},
		{"low before high is no pair", `"\ude00\ud83d"`, "\xed\xb8\x80\xed\xa0\xbd", `"\ude00\ud83d"`},
		{"high before a letter", `"\ud800x"`, "\xed\xa0\x80x", `"\ud800x"`},
		{"high before an escaped letter", `"\ud800\u0041"`, "\xed\xa0\x80A", `"\ud800A"`},
		{"raw supplementary character", `"😀"`, "😀", `"😀"`},
		{"quote and backslash", `"\"\\"`, `"\`, `"\"\\"`},
		{"short escapes", `"\b\f\n\r\t"`, "\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"control characters as \\u00XX, lower-case", `"\u0000\u0001\u001F\u000b"`, "\x00\x01\x1f\x0b", `"\u0000\u0001\u001f\u000b"`},
		{"\\u escapes of short-escape characters", `"\u0008\u000C\u000a\u000D\u0009\u0022\u005c"`, "\b\f\n\r\t\"\\", `"\b\f\n\r\t\"\\"`},
		{"solidus unescaped", `"\/a/b"`, "/a/b", `"/a/b"`},
		{"HTML characters raw", `"<>&\u003c\u003e\u0026"`, "<>&<>&", `"<>&<>&"`},
		{"U+2028 and U+2029 raw", `"\u2028 \u2029"`, "\u2028 \u2029", "\"\u2028 \u2029\""},
		{"DEL raw", `"\u007f"`, "\x7f", "\"\x7f\""},
		{"non-ASCII raw", `"\u00e9 é 日本"`, "é é 日本", `"é é 日本"`},
		{"U+FFFD and U+FFFF raw", `"\ufffd\uffff"`, "\ufffd\uffff", "\"\ufffd\uffff\""},
		{"invalid UTF-8, WHATWG maximal subparts", "\"\xff\xc3(\xe2\x82\"", "\ufffd\ufffd(\ufffd", "\"\ufffd\ufffd(\ufffd\""},
		{"raw encoded surrogate is invalid UTF-8", "\"\xed\xa0\x80\"", "\ufffd\ufffd\ufffd", "\"\ufffd\ufffd\ufffd\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if s, ok := v.Str(); !ok || s != tt.str {
				t.Errorf("Str() = %q, %v; want %q", s, ok, tt.str)
			}
			if got := v.String(); got != tt.want {
				t.Errorf("encoded %s, want %s", got, tt.want)
			}
			if got := string(AppendString(nil, tt.str)); got != tt.want {
				t.Errorf("AppendString(%q) = %s, want %s", tt.str, got, tt.want)
			}
		})
	}
}

func TestAppendStringGeneralized(t *testing.T) {
	// Strings built in Go rather than parsed: generalized UTF-8 surrogates
	// that happen to form a pair (as when two JavaScript strings are
	// concatenated) are one character to JSON.stringify.
	tests := []struct{ name, in, want string }{
		{"a pair of encoded surrogates", "\xed\xa0\xbd\xed\xb8\x80", `"😀"`},
		{"high, high, low", "\xed\xa0\xbd\xed\xa0\xbd\xed\xb8\x80", `"\ud83d😀"`},
		{"low, high", "\xed\xb8\x80\xed\xa0\xbd", `"\ude00\ud83d"`},
		{"high at the end", "ab\xed\xa0\xbd", `"ab\ud83d"`},
		{"U+D7FF is no surrogate", "\xed\x9f\xbf", "\"\xed\x9f\xbf\""},
		{"ED before a non-continuation byte is no surrogate", "\xed\xfb0", "\"\xed\xfb0\""},
		{"ED A0 before a non-continuation byte is no surrogate", "\xed\xa0A", "\"\xed\xa0A\""},
		{"NUL", "a\x00b", `"a\u0000b"`},
		{"unit separator", "\x1f", `"\u001f"`},
	}
	for _, tt := range tests {
		if got := string(AppendString(nil, tt.in)); got != tt.want {
			t.Errorf("%s: AppendString(%q) = %s, want %s", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestNumbers(t *testing.T) {
	tests := []struct{ in, want string }{
		{"0", "0"},
		{"-0", "0"},
		{"-0.0", "0"},
		{"-0e5", "0"},
		{"0e-10", "0"},
		{"1", "1"},
		{"-1", "-1"},
		{"1.50", "1.5"},
		{"1.0", "1"},
		{"2E3", "2000"},
		{"1E2", "100"},
		{"2e+3", "2000"},
		{"0.1", "0.1"},
		{"0.30000000000000004", "0.30000000000000004"},
		{"123456789012345", "123456789012345"},
		{"999999999999999", "999999999999999"},
		{"1e15", "1000000000000000"},
		{"9007199254740991", "9007199254740991"},
		{"9007199254740993", "9007199254740992"},
		{"-9007199254740993", "-9007199254740992"},
		{"1e20", "100000000000000000000"},
		{"999999999999999999999", "1e+21"},
		{"1e21", "1e+21"},
		{"1.5e21", "1.5e+21"},
		{"123456789012345678901234", "1.2345678901234569e+23"},
		{"1e308", "1e+308"},
		{"1.7976931348623157e308", "1.7976931348623157e+308"},
		{"1e400", "null"},
		{"-1e400", "null"},
		{"0.000001", "0.000001"},
		{"0.0000015", "0.0000015"},
		{"1e-6", "0.000001"},
		{"1e-7", "1e-7"},
		{"1.5e-7", "1.5e-7"},
		{"0.00000012345", "1.2345e-7"},
		{"-1.25e-10", "-1.25e-10"},
		{"123e-20", "1.23e-18"},
		{"5e-324", "5e-324"},
		{"1e-400", "0"},
		{"-1e-400", "0"},
	}
	for _, tt := range tests {
		if got := roundTrip(t, tt.in); got != tt.want {
			t.Errorf("%s encoded as %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestAppendNumberNonFinite(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got := string(AppendNumber(nil, f)); got != "null" {
			t.Errorf("AppendNumber(%v) = %s, want null", f, got)
		}
	}
	if got := string(AppendNumber(nil, math.Copysign(0, -1))); got != "0" {
		t.Errorf("AppendNumber(-0) = %s, want 0", got)
	}
}

// TestNodeNumberFixture checks parsing and Number::toString against values
// Node computed (testdata/numbers/README.md).
func TestNodeNumberFixture(t *testing.T) {
	f, err := os.Open("testdata/numbers/numbers.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	rows := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 3 {
			t.Fatalf("bad fixture line %q", line)
		}
		bits, err := strconv.ParseUint(cols[0], 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		rows++
		v, err := Parse([]byte(cols[1]))
		if err != nil {
			t.Errorf("Parse(%s): %v", cols[1], err)
			continue
		}
		if n, _ := v.Number(); math.Float64bits(n) != bits {
			t.Errorf("Parse(%s) = %016x, Node read %s", cols[1], math.Float64bits(n), cols[0])
		}
		if got := string(AppendNumber(nil, math.Float64frombits(bits))); got != cols[2] {
			t.Errorf("AppendNumber(%s) = %s, Node wrote %s", cols[1], got, cols[2])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if rows < 10000 {
		t.Fatalf("fixture has %d rows, want at least 10000", rows)
	}
}

func TestNumberAccessors(t *testing.T) {
	tests := []struct {
		in      string
		negZero bool
		safe    bool
		safeInt int64
		count   bool
	}{
		{"0", false, true, 0, true},
		{"-0", true, false, 0, false},
		{"-0.0", true, false, 0, false},
		{"7", false, true, 7, true},
		{"7.0", false, true, 7, true},
		{"-7", false, true, -7, false},
		{"7.5", false, false, 0, false},
		{"9007199254740991", false, true, 9007199254740991, true},
		{"-9007199254740991", false, true, -9007199254740991, false},
		{"9007199254740992", false, false, 0, false},
		{"1e400", false, false, 0, false},
		{`"7"`, false, false, 0, false},
		{"null", false, false, 0, false},
	}
	for _, tt := range tests {
		v, err := Parse([]byte(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		if v.IsNegZero() != tt.negZero {
			t.Errorf("%s: IsNegZero() = %v", tt.in, v.IsNegZero())
		}
		if n, ok := v.SafeInt(); ok != tt.safe || n != tt.safeInt {
			t.Errorf("%s: SafeInt() = %d, %v; want %d, %v", tt.in, n, ok, tt.safeInt, tt.safe)
		}
		if _, ok := v.Count(); ok != tt.count {
			t.Errorf("%s: Count() ok = %v, want %v", tt.in, ok, tt.count)
		}
	}
}
