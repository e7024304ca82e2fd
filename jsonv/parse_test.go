package jsonv

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// roundTrip parses in and returns JSON.stringify of the result.
func roundTrip(t *testing.T, in string) string {
	t.Helper()
	v, err := Parse([]byte(in))
	if err != nil {
		t.Fatalf("Parse(%q): %v", in, err)
	}
	return v.String()
}

func TestKeyOrder(t *testing.T) {
	tests := []struct {
		name, in, want string
		keys           []string
	}{
		{"insertion order kept", `{"b":1,"a":2,"c":3}`, `{"b":1,"a":2,"c":3}`, []string{"b", "a", "c"}},
		{"index keys first, ascending", `{"b":1,"2":2,"1":3}`, `{"1":3,"2":2,"b":1}`, []string{"1", "2", "b"}},
		{"index keys compare as numbers", `{"10":1,"9":2,"100":3}`, `{"9":2,"10":1,"100":3}`, []string{"9", "10", "100"}},
		{"zero is an index", `{"x":1,"0":2}`, `{"0":2,"x":1}`, []string{"0", "x"}},
		{"leading zero is a name", `{"01":1,"1":2}`, `{"1":2,"01":1}`, []string{"1", "01"}},
		{"negative is a name", `{"-1":1,"0":2}`, `{"0":2,"-1":1}`, []string{"0", "-1"}},
		{"2^32-2 is the last index", `{"a":0,"4294967294":1}`, `{"4294967294":1,"a":0}`, []string{"4294967294", "a"}},
		{"2^32-1 is a name", `{"4294967295":1,"4294967294":2}`, `{"4294967294":2,"4294967295":1}`, []string{"4294967294", "4294967295"}},
		{"eleven digits is a name", `{"10000000000":1,"7":2}`, `{"7":2,"10000000000":1}`, []string{"7", "10000000000"}},
		{"sign, space, fraction and exponent are names", `{"+1":1," 1":2,"1.0":3,"1e2":4,"3":5}`, `{"3":5,"+1":1," 1":2,"1.0":3,"1e2":4}`, []string{"3", "+1", " 1", "1.0", "1e2"}},
		{"empty key is a name", `{"":1,"5":2}`, `{"5":2,"":1}`, []string{"5", ""}},
		{"escaped index key is an index", `{"b":1,"\u0031":2}`, `{"1":2,"b":1}`, []string{"1", "b"}},
		{"duplicate: first position, last value", `{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`, []string{"a", "b"}},
		{"duplicate repeated thrice", `{"a":1,"a":2,"a":3}`, `{"a":3}`, []string{"a"}},
		{"duplicate index key", `{"1":"x","b":0,"1":"y"}`, `{"1":"y","b":0}`, []string{"1", "b"}},
		{"duplicate spelled with an escape", `{"ab":1,"a\u0062":2}`, `{"ab":2}`, []string{"ab"}},
		{"duplicate after many keys", `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k3":33}`,
			`{"k0":0,"k1":1,"k2":2,"k3":33,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9}`,
			[]string{"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9"}},
		{"duplicate keeps the last value's subtree", `{"a":{"x":1},"a":[2]}`, `{"a":[2]}`, []string{"a"}},
		{"nested objects ordered too", `{"o":{"b":1,"0":2}}`, `{"o":{"0":2,"b":1}}`, []string{"o"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if got := v.String(); got != tt.want {
				t.Errorf("encoded %s, want %s", got, tt.want)
			}
			if got := v.Keys(); strings.Join(got, "|") != strings.Join(tt.keys, "|") {
				t.Errorf("keys %q, want %q", got, tt.keys)
			}
		})
	}
}

func TestArrayIndex(t *testing.T) {
	tests := []struct {
		key string
		idx uint32
		ok  bool
	}{
		{"0", 0, true},
		{"1", 1, true},
		{"4294967294", 4294967294, true},
		{"4294967295", 0, false},
		{"9999999999", 0, false},
		{"01", 0, false},
		{"00", 0, false},
		{"-1", 0, false},
		{"-0", 0, false},
		{"+1", 0, false},
		{"1.5", 0, false},
		{"", 0, false},
		{"1a", 0, false},
		{" 1", 0, false},
	}
	for _, tt := range tests {
		idx, ok := arrayIndex(tt.key)
		if idx != tt.idx || ok != tt.ok {
			t.Errorf("arrayIndex(%q) = %d, %v; want %d, %v", tt.key, idx, ok, tt.idx, tt.ok)
		}
		bidx, bok := arrayIndexBytes([]byte(tt.key))
		if bidx != tt.idx || bok != tt.ok {
			t.Errorf("arrayIndexBytes(%q) = %d, %v; want %d, %v", tt.key, bidx, bok, tt.idx, tt.ok)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in     string
		offset int
		msg    string
	}{
		{``, 0, "unexpected end of JSON input"},
		{`   `, 3, "unexpected end of JSON input"},
		{`{`, 1, "unexpected end of JSON input"},
		{`[1,]`, 3, "unexpected character ']'"},
		{`[1 2]`, 3, "unexpected character '2'"},
		{`{"a" 1}`, 5, "unexpected character '1'"},
		{`{"a":1,}`, 7, "unexpected character '}'"},
		{`{a:1}`, 1, "unexpected character 'a'"},
		{`{"a":1}x`, 7, "unexpected character 'x' after JSON value"},
		{`1 2`, 2, "unexpected character '2' after JSON value"},
		{`tru`, 3, "unexpected end of JSON input"},
		{`nul1`, 3, "unexpected character '1'"},
		{`True`, 0, "unexpected character 'T'"},
		{`NaN`, 0, "unexpected character 'N'"},
		{`Infinity`, 0, "unexpected character 'I'"},
		{`-Infinity`, 1, "unexpected character 'I'"},
		{`01`, 1, "unexpected character '1' after JSON value"},
		{`-`, 1, "unexpected end of JSON input"},
		{`--1`, 1, "unexpected character '-'"},
		{`+1`, 0, "unexpected character '+'"},
		{`.5`, 0, "unexpected character '.'"},
		{`1.`, 2, "unexpected end of JSON input"},
		{`1.e5`, 2, "unexpected character 'e'"},
		{`1e`, 2, "unexpected end of JSON input"},
		{`1e+`, 3, "unexpected end of JSON input"},
		{`0x10`, 1, "unexpected character 'x' after JSON value"},
		{`"abc`, 4, "unterminated string"},
		{`"a\`, 3, "unterminated string"},
		{"\"a\nb\"", 2, "bad control character in string"},
		{"\"\t\"", 1, "bad control character in string"},
		{`"\x"`, 1, "bad escape character"},
		{`"\'"`, 1, "bad escape character"},
		{`"\u12"`, 1, "bad unicode escape"},
		{`"\u12g4"`, 1, "bad unicode escape"},
		{`'a'`, 0, "unexpected character '\\''"},
		{"\x00", 0, "unexpected character 0x00"},
		{"\ufeff{}", 0, "unexpected character 0xef"},
		{"[1]\v", 3, "unexpected character 0x0b after JSON value"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.in))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) = %v, want a *SyntaxError", tt.in, err)
			continue
		}
		if se.Offset != tt.offset || se.Msg != tt.msg {
			t.Errorf("Parse(%q): offset %d %q; want offset %d %q", tt.in, se.Offset, se.Msg, tt.offset, tt.msg)
		}
		if Valid([]byte(tt.in)) {
			t.Errorf("Valid(%q) = true", tt.in)
		}
	}
}

func TestParseWhitespace(t *testing.T) {
	// JSON white space is exactly space, tab, LF and CR; a CR before the
	// newline of a CRLF file is harmless.
	for _, in := range []string{" \t\r\n{ \"a\" :\t[ 1 ,\r\n2 ] } \r", "{\"a\":[1,2]}\r"} {
		if got := roundTrip(t, in); got != `{"a":[1,2]}` {
			t.Errorf("Parse(%q) encoded %s", in, got)
		}
	}
}

func TestMaxDepth(t *testing.T) {
	tests := []struct {
		name   string
		in     []byte
		ok     bool
		offset int // of the first bracket too deep
	}{
		{"a million brackets", bytes.Repeat([]byte("["), 1_000_000), false, MaxDepth},
		{"a million objects", bytes.Repeat([]byte(`{"a":`), 1_000_000), false, 5 * MaxDepth},
		{"closed arrays one too deep", nest("[", "]", MaxDepth+1), false, MaxDepth},
		{"arrays at the limit", nest("[", "]", MaxDepth), true, 0},
		{"objects at the limit", nest(`{"a":`, "}", MaxDepth), true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Parse(tt.in)
			if !tt.ok {
				var se *SyntaxError
				if !errors.As(err, &se) || !strings.HasPrefix(se.Msg, "nesting deeper than") {
					t.Fatalf("err = %v, want a nesting SyntaxError", err)
				}
				if se.Offset != tt.offset {
					t.Errorf("offset %d, want %d", se.Offset, tt.offset)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// The deepest value is reachable and the whole encodes back.
			if !bytes.Equal(v.Encode(), tt.in) {
				t.Error("deep value does not encode back to its input")
			}
			if !Equal(v, v) {
				t.Error("deep value is not Equal to itself")
			}
		})
	}
}

func nest(open, close string, depth int) []byte {
	return []byte(strings.Repeat(open, depth) + "null" + strings.Repeat(close, depth))
}

func TestToWellFormed(t *testing.T) {
	// Expected values are what Node's Buffer#toString writes (WHATWG
	// maximal-subpart replacement).
	tests := []struct{ in, want string }{
		{"\xff\xc3(\xe2\x82", "\ufffd\ufffd(\ufffd"},
		{"\xed\xa0\x80", "\ufffd\ufffd\ufffd"}, // an encoded surrogate is not UTF-8
		{"\xf0\x90\x80", "\ufffd"},
		{"\xf0\x90\x80A", "\ufffdA"},
		{"\xc0\x80", "\ufffd\ufffd"},
		{"\xe0\x80", "\ufffd\ufffd"},
		{"\xe0\xa0", "\ufffd"},
		{"\xf4\x90", "\ufffd\ufffd"},
		{"\xf5", "\ufffd"},
		{"\xc3", "\ufffd"},
		{"\x80\x80", "\ufffd\ufffd"},
		{"\xc2A", "\ufffdA"},
		{"\xf8\x88\x80\x80\x80", "\ufffd\ufffd\ufffd\ufffd\ufffd"},
		{"\xef\xbf\xbf", "\uffff"},
		{"\xf4\x8f\xbf\xbf", "\U0010ffff"},
		{"plain é 😀", "plain é 😀"},
	}
	for _, tt := range tests {
		if got := string(ToWellFormed([]byte(tt.in))); got != tt.want {
			t.Errorf("ToWellFormed(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestConcurrentParse(t *testing.T) {
	// Values parsed separately may be decoded on different goroutines: the
	// shared string tables must stay consistent (run with -race).
	rows := []string{
		`{"type":"user/message","data":{"role":"user","id":"message-1","content":[{"type":"text","text":"a"}]}}`,
		`{"type":"tool/result","data":{"role":"tool","id":"message-2","toolCallId":"call-1"}}`,
		`{"kind":"plugin","plugin":"x","k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8}`,
	}
	done := make(chan error)
	for g := 0; g < 4; g++ {
		go func() {
			for i := 0; i < 200; i++ {
				in := rows[(g+i)%len(rows)]
				v, err := Parse([]byte(in))
				if err == nil && string(referenceEncode(nil, v)) != in {
					err = errors.New("decoded " + string(referenceEncode(nil, v)) + ", want " + in)
				}
				if err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestSyntaxErrorOffsetWithInvalidUTF8(t *testing.T) {
	// Offsets count the given bytes, not the text after U+FFFD replacement.
	tests := []struct {
		in     string
		offset int
	}{
		{"[\"\xff\", x]", 6},
		{"[\"\xf0\x90\x80\xff\", x]", 9},
		{"\"\xff\xff", 3},
		{"\xff", 0},
		{"[1,\xe2\x82]", 3},
		{"[\"é\xff\",]", 7},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.in))
		var se *SyntaxError
		if !errors.As(err, &se) || se.Offset != tt.offset {
			t.Errorf("Parse(%q) = %v, want offset %d", tt.in, err, tt.offset)
		}
	}
}

// Texts of every number of containers around the sizes Parse allocates
// tapes in decode in full to what they are.
func TestTapeSizes(t *testing.T) {
	for n := 1; n <= 12; n++ {
		var b strings.Builder
		b.WriteString(`{"a":[`)
		for i := 2; i < n; i++ {
			if i > 2 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"k%d":%d}`, i, i)
		}
		b.WriteString(`],"b":"x"}`)
		text := b.String()
		if n == 1 {
			text = `{"a":1,"b":"x"}`
		}
		v := mustParse(t, text)
		var walk func(Value) int
		walk = func(v Value) int {
			count := 0
			switch v.Kind() {
			case Array:
				count++
				for _, e := range v.Elements() {
					count += walk(e)
				}
			case Object:
				count++
				for _, m := range v.Members() {
					count += walk(m.Value)
				}
			}
			return count
		}
		if got := walk(v); got != n {
			t.Errorf("%s: %d containers, want %d", text, got, n)
		}
		if got := string(v.Append(nil)); got != text {
			t.Errorf("Append(Parse(%s)) = %s", text, got)
		}
		if v.Field("b").Text() != "x" {
			t.Errorf("%s: b = %v", text, v.Field("b"))
		}
	}
}
