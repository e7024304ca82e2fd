package jsonv

import (
	"sync"
	"testing"
)

func mustParse(t testing.TB, in string) Value {
	t.Helper()
	v, err := Parse([]byte(in))
	if err != nil {
		t.Fatalf("Parse(%q): %v", in, err)
	}
	return v
}

func TestWith(t *testing.T) {
	tests := []struct {
		name, in, key, val, want string
	}{
		{"existing key keeps its position", `{"a":1,"b":2,"c":3}`, "b", `"x"`, `{"a":1,"b":"x","c":3}`},
		{"new key is appended", `{"a":1,"b":2}`, "z", `true`, `{"a":1,"b":2,"z":true}`},
		{"new index key goes to its numeric place", `{"1":1,"5":5,"a":0}`, "3", `3`, `{"1":1,"3":3,"5":5,"a":0}`},
		{"index key smaller than all", `{"1":1,"a":0}`, "0", `0`, `{"0":0,"1":1,"a":0}`},
		{"index key larger than all", `{"1":1,"a":0}`, "4294967294", `2`, `{"1":1,"4294967294":2,"a":0}`},
		{"non-index numeric key is appended", `{"1":1,"a":0}`, "01", `2`, `{"1":1,"a":0,"01":2}`},
		{"existing index key keeps its place", `{"1":1,"2":2,"a":0}`, "1", `9`, `{"1":9,"2":2,"a":0}`},
		{"on an empty object", `{}`, "a", `1`, `{"a":1}`},
		{"on a non-object", `[1,2]`, "a", `1`, `{"a":1}`},
		{"on null", `null`, "a", `1`, `{"a":1}`},
		{"value may be a parsed subtree", `{"a":1}`, "b", `{"x":[1,{"y":2}]}`, `{"a":1,"b":{"x":[1,{"y":2}]}}`},
		{"on a non-canonical parse", `{ "b" : 1 , "a" : 2 }`, "b", `3`, `{"b":3,"a":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := mustParse(t, tt.in)
			before := v.String()
			got := v.With(tt.key, mustParse(t, tt.val))
			if got.String() != tt.want {
				t.Errorf("With(%q) = %s, want %s", tt.key, got, tt.want)
			}
			if v.String() != before {
				t.Errorf("With changed its receiver: %s, was %s", v, before)
			}
			if f, ok := got.Get(tt.key); !ok || f.String() != tt.val {
				t.Errorf("Get(%q) = %s, %v after With", tt.key, f, ok)
			}
		})
	}
}

func TestWithout(t *testing.T) {
	tests := []struct {
		in   string
		keys []string
		want string
	}{
		{`{"a":1,"b":2,"c":3}`, []string{"b"}, `{"a":1,"c":3}`},
		{`{"a":1,"b":2,"c":3}`, []string{"c", "a"}, `{"b":2}`},
		{`{"a":1}`, []string{"z"}, `{"a":1}`},
		{`{"1":1,"a":2}`, []string{"1"}, `{"a":2}`},
		{`{"a":1}`, nil, `{"a":1}`},
		{`{"a":1}`, []string{"a"}, `{}`},
		{`[1]`, []string{"a"}, `{}`},
	}
	for _, tt := range tests {
		v := mustParse(t, tt.in)
		if got := v.Without(tt.keys...).String(); got != tt.want {
			t.Errorf("%s.Without(%q) = %s, want %s", tt.in, tt.keys, got, tt.want)
		}
		if v.String() != tt.in {
			t.Errorf("Without changed its receiver to %s", v)
		}
	}
}

func TestSpreadSequence(t *testing.T) {
	// {...{...row, data: d}, surfaceOp} after removing a key and re-adding it:
	// JavaScript appends a removed-then-added key at the end.
	row := mustParse(t, `{"type":"t","seq":1,"surfaceOp":"append","data":{}}`)
	got := row.Without("surfaceOp").With("data", mustParse(t, `{"x":1}`)).With("surfaceOp", StringValue("append"))
	if want := `{"type":"t","seq":1,"data":{"x":1},"surfaceOp":"append"}`; got.String() != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestWithIndex(t *testing.T) {
	v := mustParse(t, `[1,2,3]`)
	tests := []struct {
		i    int
		want string
	}{
		{0, `["x",2,3]`},
		{2, `[1,2,"x"]`},
		{3, `[1,2,3]`},
		{-1, `[1,2,3]`},
	}
	for _, tt := range tests {
		if got := v.WithIndex(tt.i, StringValue("x")).String(); got != tt.want {
			t.Errorf("WithIndex(%d) = %s, want %s", tt.i, got, tt.want)
		}
	}
	if v.String() != `[1,2,3]` {
		t.Errorf("WithIndex changed its receiver to %s", v)
	}
}

func TestConstructors(t *testing.T) {
	tests := []struct {
		name string
		v    Value
		want string
	}{
		{"zero value", Value{}, `null`},
		{"null", NullValue(), `null`},
		{"bools", ArrayValue(BoolValue(true), BoolValue(false)), `[true,false]`},
		{"numbers", ArrayValue(IntValue(-3), NumberValue(0.5), NumberValue(1e21)), `[-3,0.5,1e+21]`},
		{"empty array", ArrayValue(), `[]`},
		{"empty object", ObjectValue(), `{}`},
		{"object orders as JavaScript", ObjectValue(M("b", IntValue(1)), M("2", IntValue(2)), M("0", IntValue(0)), M("b", IntValue(3))), `{"0":0,"2":2,"b":3}`},
		{"string escapes", StringValue("a\"b\\c\nd\u2028"), "\"a\\\"b\\\\c\\nd\u2028\""},
		{"string pair halves are joined", StringValue("\xed\xa0\xbd\xed\xb8\x80"), `"😀"`},
	}
	for _, tt := range tests {
		if got := tt.v.String(); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
	if s := StringValue("\xed\xa0\xbd\xed\xb8\x80").Text(); s != "😀" {
		t.Errorf("StringValue keeps pair halves apart: %q", s)
	}
}

func TestAccessors(t *testing.T) {
	v := mustParse(t, `{"s":"x","n":2,"t":true,"f":false,"z":null,"a":[1,"b"],"o":{"k":"v"}}`)
	if v.Kind() != Object || v.Len() != 7 {
		t.Fatalf("kind %v len %d", v.Kind(), v.Len())
	}
	if s, ok := v.Field("s").Str(); !ok || s != "x" {
		t.Errorf("Str = %q, %v", s, ok)
	}
	if _, ok := v.Field("n").Str(); ok {
		t.Error("a number is a string")
	}
	if v.Field("n").Text() != "" {
		t.Error("Text of a number is not empty")
	}
	if n, ok := v.Field("n").Number(); !ok || n != 2 {
		t.Errorf("Number = %v, %v", n, ok)
	}
	if b, ok := v.Field("t").Bool(); !ok || !b || !v.Field("t").IsTrue() {
		t.Error("true is not true")
	}
	if b, ok := v.Field("f").Bool(); !ok || b || v.Field("f").IsTrue() {
		t.Error("false is not false")
	}
	if !v.Field("z").IsNull() || !v.Has("z") || v.Has("missing") || !v.Field("missing").IsNull() {
		t.Error("null and absent are confused")
	}
	a := v.Field("a")
	if a.Len() != 2 || a.Index(1).Text() != "b" || !a.Index(2).IsNull() || !a.Index(-1).IsNull() || len(a.Elements()) != 2 {
		t.Errorf("array accessors wrong on %s", a)
	}
	if a.Members() != nil || a.Keys() == nil && len(a.Keys()) != 0 {
		t.Error("an array has members")
	}
	if v.Elements() != nil || !v.Index(0).IsNull() {
		t.Error("an object has elements")
	}
	if got := v.Field("o").Members(); len(got) != 1 || got[0].Key != "k" || got[0].Value.Text() != "v" {
		t.Errorf("Members = %v", got)
	}
	if StringValue("x").Len() != 0 || StringValue("x").Has("x") {
		t.Error("a string has members")
	}
	for k, want := range map[Kind]string{Null: "null", Bool: "boolean", Number: "number", String: "string", Array: "array", Object: "object", Kind(9): "kind(9)"} {
		if k.String() != want {
			t.Errorf("Kind(%d).String() = %s, want %s", k, k, want)
		}
	}
}

func TestEqual(t *testing.T) {
	tests := []struct {
		a, b  string
		equal bool
	}{
		{`{"a":1,"b":[1,2]}`, `{ "a" : 1.0, "b" : [ 1, 2E0 ] }`, true},
		{`{"a":1,"b":2}`, `{"b":2,"a":1}`, false},
		{`{"1":1,"a":2}`, `{"a":2,"1":1}`, true},
		{`{"a":1,"a":2}`, `{"a":2}`, true},
		{`0`, `-0`, true},
		{`1`, `"1"`, false},
		{`null`, `false`, false},
		{`[1]`, `[1,1]`, false},
		{`{"a":1}`, `{"a":1,"b":1}`, false},
		{`"\ud83d\ude00"`, `"😀"`, true},
		{`"\ud800"`, `"\ufffd"`, false},
		{`[]`, `{}`, false},
		{`true`, `true`, true},
		{`{"a":{"b":[null]}}`, `{"a":{"b":[false]}}`, false},
	}
	for _, tt := range tests {
		a, b := mustParse(t, tt.a), mustParse(t, tt.b)
		if Equal(a, b) != tt.equal || Equal(b, a) != tt.equal {
			t.Errorf("Equal(%s, %s) = %v, want %v", tt.a, tt.b, !tt.equal, tt.equal)
		}
	}
	if !Equal(ArrayValue(IntValue(1), StringValue("x")), mustParse(t, `[1,"x"]`)) {
		t.Error("built and parsed arrays differ")
	}
}

// TestRawFastPath checks which parsed texts are copied back byte for byte
// and that the others are re-encoded.
func TestRawFastPath(t *testing.T) {
	tests := []struct {
		name, in  string
		canonical bool
		want      string // when not canonical
	}{
		{"dsh row", `{"type":"user/message","seq":8,"time":1783600629547,"data":{"content":[{"type":"text","text":"hi"}],"id":"m"},"surfaceOp":"append"}`, true, ""},
		{"empty containers", `{"a":{},"b":[],"c":[{}]}`, true, ""},
		{"index keys in order", `{"0":1,"7":2,"x":3}`, true, ""},
		{"escapes JSON.stringify writes", `["\"\\\b\f\n\r\t\u0000\u001f\udfff\ud800"]`, true, ""},
		{"raw non-ASCII", "[\"é\u2028\x7f<>&\"]", true, ""},
		{"numbers as written", `[0,-1,1.5,1e+21,1e-7,0.000001,9007199254740992,1.2345678901234569e+23,5e-324]`, true, ""},
		{"many keys", `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9}`, true, ""},
		{"space after colon", `{"a": 1}`, false, `{"a":1}`},
		{"space in array", `[1, 2]`, false, `[1,2]`},
		{"space inside empty", `[ ]`, false, `[]`},
		{"newline inside", "{\n\"a\":1\n}", false, `{"a":1}`},
		{"solidus escape", `["\/"]`, false, `["/"]`},
		{"needless letter escape", `["\u0041"]`, false, `["A"]`},
		{"upper-case control escape", `["\u001F"]`, false, `["\u001f"]`},
		{"control escape with a short form", `["\u000a"]`, false, `["\n"]`},
		{"upper-case surrogate escape", `["\uD800"]`, false, `["\ud800"]`},
		{"escaped pair", `["\ud83d\ude00"]`, false, `["😀"]`},
		{"escaped U+2028", `["\u2028"]`, false, "[\"\u2028\"]"},
		{"escaped DEL", `["\u007f"]`, false, "[\"\x7f\"]"},
		{"duplicate key", `{"a":1,"a":2}`, false, `{"a":2}`},
		{"duplicate after many keys", `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k0":9}`, false, `{"k0":9,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8}`},
		{"index key after a name", `{"x":1,"0":2}`, false, `{"0":2,"x":1}`},
		{"index keys descending", `{"2":1,"1":2}`, false, `{"1":2,"2":1}`},
		{"index key repeated", `{"1":1,"1":2}`, false, `{"1":2}`},
		{"negative zero", `[-0]`, false, `[0]`},
		{"trailing fraction zero", `[1.50]`, false, `[1.5]`},
		{"upper-case exponent", `[2E3]`, false, `[2000]`},
		{"exponent without sign", `[1e21]`, false, `[1e+21]`},
		{"imprecise integer", `[9007199254740993]`, false, `[9007199254740992]`},
		{"overflow", `[1e400]`, false, `[null]`},
		{"invalid UTF-8", "[\"\xff\"]", true, ""}, // replaced before scanning: the replacement is canonical
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.in)
			v, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			raw := v.Raw()
			if (raw != nil) != tt.canonical {
				t.Fatalf("Raw() = %q, want canonical %v", raw, tt.canonical)
			}
			want := tt.want
			if tt.canonical {
				want = string(ToWellFormed(data))
				if &raw[0] != &data[0] && tt.name != "invalid UTF-8" {
					t.Error("Raw() is a copy, not the parsed bytes")
				}
			}
			if got := v.String(); got != want {
				t.Errorf("encoded %s, want %s", got, want)
			}
			if got := referenceEncode(nil, v); string(got) != want {
				t.Errorf("member-by-member encoding %s, want %s", got, want)
			}
		})
	}
}

func TestRawOfChildren(t *testing.T) {
	// A canonical subtree inside a non-canonical parent is still copied.
	v := mustParse(t, `{ "a" : {"b":[1,2]}, "c" : [ 1 ] }`)
	if v.Raw() != nil {
		t.Fatal("outer object is canonical")
	}
	if got := string(v.Field("a").Raw()); got != `{"b":[1,2]}` {
		t.Errorf("Raw of a canonical child = %q", got)
	}
	if v.Field("c").Raw() != nil {
		t.Error("a non-canonical child has Raw")
	}
	if NumberValue(1).Raw() != nil || StringValue("x").Raw() != nil {
		t.Error("scalars have Raw")
	}
	if v.With("a", NullValue()).Raw() != nil {
		t.Error("a changed object has Raw")
	}
	// The copy made by With re-encodes; its untouched children stay raw.
	if got := v.With("z", NullValue()).String(); got != `{"a":{"b":[1,2]},"c":[1],"z":null}` {
		t.Errorf("With on a parsed object = %s", got)
	}
}

// referenceEncode writes v member by member, never using raw bytes: the
// slow path that the fast path must agree with.
func referenceEncode(dst []byte, v Value) []byte {
	switch v.Kind() {
	case Array:
		dst = append(dst, '[')
		for i, e := range v.Elements() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = referenceEncode(dst, e)
		}
		return append(dst, ']')
	case Object:
		dst = append(dst, '{')
		for i, m := range v.Members() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, m.Key)
			dst = append(dst, ':')
			dst = referenceEncode(dst, m.Value)
		}
		return append(dst, '}')
	}
	return v.Append(dst)
}

// TestDetach checks that a detached value shares no bytes with its source,
// reads and writes as the source does, and keeps only its own text.
func TestDetach(t *testing.T) {
	tests := []struct{ in, path, want string }{
		{`{"row":{"b":[1,{"c":"x\n\u0041"}],"a":-0}}`, "row", `{"b":[1,{"c":"x\nA"}],"a":0}`},
		{`{"row":{"2":1,"1":2}}`, "row", `{"1":2,"2":1}`}, // written in JavaScript order
		{`{"row":[]}`, "row", `[]`},
		{`{"row":{}}`, "row", `{}`},
		{`{"row":"s"}`, "row", `"s"`},
		{`{"row":"\ud800"}`, "row", `"\ud800"`},
		{`{"row":{"s":"\udc00x"}}`, "row", `{"s":"\udc00x"}`},
	}
	for _, tc := range tests {
		text := []byte(tc.in)
		src, err := Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		d := Detach(src.Field(tc.path))
		for i := range text {
			text[i] = ' ' // the detached value must not read the source's text
		}
		if got := d.String(); got != tc.want {
			t.Errorf("Detach(%s).String() = %s, want %s", tc.in, got, tc.want)
		}
		if d.Kind() >= Array && (d.onTape() || !undecoded(d)) {
			t.Errorf("Detach(%s) keeps more than its text", tc.in)
		}
		want := mustParse(t, tc.want)
		if !Equal(d, want) || d.Len() != want.Len() {
			t.Errorf("Detach(%s) does not read as %s", tc.in, tc.want)
		}
	}
}

// TestPeekDetached checks that Peek reads a detached value without
// decoding it, so that it stays as small as Detach made it.
func TestPeekDetached(t *testing.T) {
	d := Detach(mustParse(t, `{"role":"user","content":[{"type":"text","text":"hi"}]}`))
	if got, ok := d.PeekPath("role"); !ok || got.Text() != "user" {
		t.Errorf(`Peek("role") = %v, %v; want "user"`, got, ok)
	}
	if _, ok := d.Peek("missing"); ok {
		t.Error(`Peek("missing") found a member`)
	}
	if !undecoded(d) {
		t.Error("Peek decoded the detached value")
	}
	if got := d.Field("content").Index(0).Field("text").Text(); got != "hi" {
		t.Errorf("content[0].text = %q after Peek, want hi", got)
	}
}

// undecoded reports whether nothing of v, an array or an object, has been
// decoded yet.
func undecoded(v Value) bool {
	if v.onTape() {
		t, i, _ := v.tapeNode()
		return *t.slot(i) == nil
	}
	c := (*container)(v.p)
	return c.unscanned && c.first == nil
}

// TestLookIntoTwoContainersAtOnce checks the one concurrent use the package
// doc allows: two goroutines each looking into a different container of one
// parsed text for the first time (go test -race tells a data race), among
// the first nodes of the text, whose slots Parse makes, and after them,
// where the first look makes the slots.
func TestLookIntoTwoContainersAtOnce(t *testing.T) {
	const pair = `"a":{"x":[1,{"y":"p"}],"z":"q"},"b":{"x":[2,{"y":"r"}],"z":"s"}`
	for _, in := range []string{
		`{` + pair + `}`,
		`{"pad":[[1],[2],[3],[4],[5],[6],[7],[8]],` + pair + `}`,
	} {
		v := mustParse(t, in)
		want := map[string]string{"a": `1 p q`, "b": `2 r s`}
		got := make(map[string]string)
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, m := range v.Members() {
			if m.Key == "pad" {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				x := m.Value.Field("x")
				s := x.Index(0).String() + " " + x.Index(1).Field("y").Text() + " " + m.Value.Field("z").Text()
				mu.Lock()
				got[m.Key] = s
				mu.Unlock()
			}()
		}
		wg.Wait()
		for key, w := range want {
			if got[key] != w {
				t.Errorf("%s: %s read as %q, want %q", in, key, got[key], w)
			}
		}
		if got := v.Field("pad").Index(7).String(); v.Has("pad") && got != "[8]" {
			t.Errorf("%s: pad[7] = %s, want [8]", in, got)
		}
	}
}

func TestSet(t *testing.T) {
	built := func(t *testing.T, in string) Value {
		v := mustParse(t, in)
		return v.With("built", NullValue()).Without("built") // an owned copy
	}
	tests := []struct {
		name    string
		in      func(t *testing.T) Value
		key     string
		want    string
		inPlace bool
	}{
		{"built object with the key: in place", func(t *testing.T) Value { return built(t, `{"a":1,"b":2}`) }, "b", `{"a":1,"b":"x"}`, true},
		{"ObjectValue with the key: in place", func(t *testing.T) Value { return ObjectValue(M("a", IntValue(1)), M("b", IntValue(2))) }, "a", `{"a":"x","b":2}`, true},
		{"built object without the key: a copy", func(t *testing.T) Value { return built(t, `{"a":1}`) }, "b", `{"a":1,"b":"x"}`, false},
		{"built object, new index key: a copy in its place", func(t *testing.T) Value { return built(t, `{"1":1,"a":0}`) }, "0", `{"0":"x","1":1,"a":0}`, false},
		{"parsed object: a copy", func(t *testing.T) Value { return mustParse(t, `{"a":1,"b":2}`) }, "b", `{"a":1,"b":"x"}`, false},
		{"detached object: a copy", func(t *testing.T) Value { return Detach(mustParse(t, `{"a":1,"b":2}`)) }, "b", `{"a":1,"b":"x"}`, false},
		{"non-object: With's object", func(t *testing.T) Value { return mustParse(t, `[1]`) }, "a", `{"a":"x"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.in(t)
			before := v.String()
			got := v.Set(tt.key, StringValue("x"))
			if got.String() != tt.want {
				t.Errorf("Set(%q) = %s, want %s", tt.key, got, tt.want)
			}
			if tt.inPlace {
				if got != v || v.String() != tt.want {
					t.Errorf("Set(%q) did not change its receiver in place: %s", tt.key, v)
				}
				return
			}
			if v.String() != before {
				t.Errorf("Set(%q) changed a receiver it must copy: %s, was %s", tt.key, v, before)
			}
		})
	}
}
