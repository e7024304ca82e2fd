package jsonv

import "testing"

func TestPeek(t *testing.T) {
	tests := []struct {
		name, in, key string
		want          string // the value's JSON, "" when absent
	}{
		{"first member", `{"type":"text","text":"long"}`, "type", `"text"`},
		{"later member", `{"type":"text","text":"long"}`, "text", `"long"`},
		{"absent", `{"type":"text"}`, "text", ""},
		{"empty object", `{}`, "a", ""},
		{"steps over containers", `{"a":[1,{"b":2}],"c":{"d":[3]},"e":4}`, "e", `4`},
		{"a container after containers", `{"a":[1,{"b":2}],"c":{"d":[3]},"e":4}`, "c", `{"d":[3]}`},
		{"an array member", `{"a":[1,{"b":2}],"c":{"d":[3]}}`, "a", `[1,{"b":2}]`},
		{"repeated key: last value", `{"a":1,"b":2,"a":3}`, "a", `3`},
		{"repeated container key", `{"a":{"x":1},"a":{"y":2},"b":[]}`, "a", `{"y":2}`},
		{"index keys", `{"b":1,"2":"two","1":"one"}`, "1", `"one"`},
		{"escaped key", `{"a\u0062":1,"c":2}`, "ab", `1`},
		{"escaped key does not match its raw text", `{"a\nb":1}`, `a\nb`, ""},
		{"escaped key matches its decoded text", `{"a\nb":1}`, "a\nb", `1`},
		{"white space", ` { "a" : 1 , "b" : [ 2 ] } `, "b", `[2]`},
		{"escaped string value", `{"a":"x\"y"}`, "a", `"x\"y"`},
		{"not an object", `[1,2]`, "a", ""},
		{"a scalar", `"a"`, "a", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := mustParse(t, tt.in)
			got, ok := v.Peek(tt.key)
			want, wantOK := v.Get(tt.key) // decodes v: Get is the reference
			if ok != wantOK || got.String() != want.String() {
				t.Fatalf("Peek(%q) = %s, %v; Get gives %s, %v", tt.key, got, ok, want, wantOK)
			}
			if (tt.want != "") != ok || (ok && got.String() != tt.want) {
				t.Errorf("Peek(%q) = %s, %v; want %s", tt.key, got, ok, tt.want)
			}
			again, ok := v.Peek(tt.key) // on the decoded object
			if (tt.want != "") != ok || (ok && again.String() != tt.want) {
				t.Errorf("Peek(%q) after Get = %s, %v; want %s", tt.key, again, ok, tt.want)
			}
		})
	}
}

func TestPeekPath(t *testing.T) {
	const in = `{"type":"chunk","time":1,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"long"}},"n":{},"a":[{"x":1}]}`
	tests := []struct {
		keys []string
		want string // "" when absent
	}{
		{nil, in},
		{[]string{"type"}, `"chunk"`},
		{[]string{"chunk", "type"}, `"block-end"`},
		{[]string{"chunk", "block", "type"}, `"text"`},
		{[]string{"chunk", "block"}, `{"type":"text","text":"long"}`},
		{[]string{"chunk", "block", "missing"}, ""},
		{[]string{"chunk", "missing", "type"}, ""},
		{[]string{"type", "x"}, ""},      // through a string
		{[]string{"a", "x"}, ""},         // through an array
		{[]string{"n", "x"}, ""},         // through an empty object
		{[]string{"time", "x", "y"}, ""}, // through a number
	}
	for _, decoded := range []bool{false, true} {
		for _, tt := range tests {
			v := mustParse(t, in)
			if decoded {
				v.Field("chunk").Field("block").Members()
			}
			got, ok := v.PeekPath(tt.keys...)
			if (tt.want != "") != ok || (ok && got.String() != tt.want) {
				t.Errorf("decoded %v: PeekPath(%q) = %s, %v; want %s", decoded, tt.keys, got, ok, tt.want)
			}
		}
	}
}

func TestPeekBuiltAndChanged(t *testing.T) {
	v := ObjectValue(M("a", IntValue(1)))
	if got, ok := v.Peek("a"); !ok || got.String() != "1" {
		t.Errorf("Peek on a built object = %s, %v", got, ok)
	}
	w := mustParse(t, `{"a":1,"b":{"c":2}}`).With("a", StringValue("x"))
	if got, ok := w.Peek("a"); !ok || got.String() != `"x"` {
		t.Errorf("Peek on a changed object = %s, %v", got, ok)
	}
	if got, ok := w.Field("b").Peek("c"); !ok || got.String() != "2" {
		t.Errorf("Peek into a kept subtree = %s, %v", got, ok)
	}
}

func TestPeekDoesNotDecode(t *testing.T) {
	v := mustParse(t, `{"type":"text","text":"a long text"}`)
	if _, ok := v.Peek("type"); !ok || !undecoded(v) {
		t.Errorf("Peek decoded the object (or found nothing)")
	}
}

func BenchmarkPeek(b *testing.B) {
	row := []byte(`{"type":"text","text":"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua."}`)
	b.Run("Peek", func(b *testing.B) {
		for b.Loop() {
			v, _ := Parse(row)
			v.Peek("type")
		}
	})
	b.Run("Get", func(b *testing.B) {
		for b.Loop() {
			v, _ := Parse(row)
			v.Get("type")
		}
	})
}

func TestMayHoldString(t *testing.T) {
	tests := []struct {
		in, s string
		want  bool
	}{
		{`[{"type":"text","text":"a"},{"type":"tool-result"}]`, "tool-result", true},
		{`[{"type":"text","text":"a tool-result"}]`, "tool-result", false}, // not a whole string
		{`[{"type":"text","text":"a"}]`, "tool-result", false},
		{`{"tool-result":1}`, "tool-result", true},    // a key counts
		{`[ {"type":"text"} ]`, "tool-result", true},  // not canonical: cannot tell
		{`["\u0074ool-result"]`, "tool-result", true}, // not canonical either
		{`["x\ny"]`, "x\ny", true},                    // quoted as JSON.stringify does
		{`"tool-result"`, "tool-result", true},        // a string
		{`"text"`, "tool-result", false},
		{`1`, "1", false},
	}
	for _, tt := range tests {
		if got := mustParse(t, tt.in).MayHoldString(tt.s); got != tt.want {
			t.Errorf("%s.MayHoldString(%q) = %v, want %v", tt.in, tt.s, got, tt.want)
		}
	}
	if !ArrayValue(StringValue("tool-result")).MayHoldString("tool-result") {
		t.Errorf("a built array may hold anything")
	}
}

func TestContainsQuoted(t *testing.T) {
	tests := []struct {
		text, quoted string
		want         bool
	}{
		{`["a","tool-result"]`, `"tool-result"`, true},
		{`["tool-result"]`, `"tool-result"`, true},
		{`["tool-results","-"]`, `"tool-result"`, false},
		{`["x-tool-result"]`, `"tool-result"`, false},
		{`-"tool-result"`, `"tool-result"`, true},
		{`"tool-resul`, `"tool-result"`, false},
		{`["text"]`, `"text"`, true}, // letters only
		{`["texts"]`, `"text"`, false},
		{``, `"a-b"`, false},
	}
	for _, tt := range tests {
		if got := containsQuoted([]byte(tt.text), []byte(tt.quoted)); got != tt.want {
			t.Errorf("containsQuoted(%s, %s) = %v, want %v", tt.text, tt.quoted, got, tt.want)
		}
	}
}

// containsPlain is containsQuoted for a string that needs no quoting, with
// the quotes checked around each candidate: both must agree.
func TestContainsPlainAgrees(t *testing.T) {
	texts := []string{
		`["a","tool-result"]`, `["tool-result"]`, `"tool-result"`, `tool-result"`, `"tool-result`,
		`["tool-results","-"]`, `["x-tool-result"]`, `-"tool-result"`, `"tool-resul`, ``, `-`,
		`{"tool-call":1,"x":"tool-call-chunks"}`, `["a-b","a-b-c","-a-b-"]`, `"a-b""a-b"`,
		`[{"type":"block-end","x":"tool-addition"},"tool-removal"]`, `"a b-c d"`,
	}
	strs := []string{"tool-result", "tool-call", "tool-addition", "tool-removal", "a-b", "-", "-a-b-", "a b-c d", "b-c", "block-end"}
	for _, text := range texts {
		for _, s := range strs {
			pivot := plainPivot(s)
			if pivot < 0 {
				t.Fatalf("plainPivot(%q) < 0", s)
			}
			want := containsQuoted([]byte(text), AppendString(nil, s))
			if got := containsPlain([]byte(text), s, pivot); got != want {
				t.Errorf("containsPlain(%s, %q) = %v, containsQuoted says %v", text, s, got, want)
			}
		}
	}
	for _, s := range []string{"text", "a\"-b", "a\\-b", "a\n-b", "é-b", "\x7f-"} {
		if pivot := plainPivot(s); pivot >= 0 {
			t.Errorf("plainPivot(%q) = %d, want -1: letters only or needs quoting", s, pivot)
		}
	}
}

// TestPeekStringPrefix pins where PeekStringPrefix cuts: never inside an
// escape, a surrogate pair of escapes or a UTF-8 sequence.
func TestPeekStringPrefix(t *testing.T) {
	for _, tc := range []struct {
		text  string
		max   int
		want  string
		whole bool
	}{
		{`{"t":"abc"}`, 3, "abc", true},
		{`{"t":"abcd"}`, 3, "abc", false},
		{`{"t":"ab\ncd"}`, 3, "ab", false},                     // the escape is cut out whole
		{`{"t":"ab\ncd"}`, 4, "ab\n", false},                   // and kept whole
		{`{"t":"a\u00e9b"}`, 6, "a", false},                    // \u00e9 ends at byte 7
		{`{"t":"a\u00e9b"}`, 7, "aé", false},                   //
		{`{"t":"a\ud83d\ude00b"}`, 7, "a", false},              // not the high half alone
		{`{"t":"a\ud83d\ude00b"}`, 13, "a😀", false},            //
		{`{"t":"a\ud800b"}`, 7, "a\xed\xa0\x80", false},        // a lone surrogate is a character
		{`{"t":"aé日b"}`, 2, "a", false},                        // é is two bytes
		{`{"t":"aé日b"}`, 5, "aé", false},                       // 日 is three
		{`{"t":"aé日b"}`, 6, "aé日", false},                      //
		{`{"t":1}`, 10, "", false},                             // not a string: ok is false
		{`{"t":"x","t":"longer than four"}`, 4, "long", false}, // the last of a repeated key
	} {
		v, err := Parse([]byte(tc.text))
		if err != nil {
			t.Fatal(err)
		}
		got, whole, _ := v.PeekStringPrefix("t", tc.max)
		if got != tc.want || whole != tc.whole {
			t.Errorf("%s max %d: %q whole %v, want %q whole %v", tc.text, tc.max, got, whole, tc.want, tc.whole)
		}
	}
}
