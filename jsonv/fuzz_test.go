package jsonv

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// addCorpusLines seeds f with every line of the corpus's v3 and v4 session
// files and of the golden edge cases.
func addCorpusLines(f *testing.F) {
	var files []string
	for _, pattern := range []string{
		"../testdata/corpus/restored/*/*.v4.jsonl",
		"../testdata/corpus/golden/edge/*/*.jsonl",
	} {
		matches, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		files = append(files, matches...)
	}
	if len(files) == 0 {
		f.Fatal("no corpus files to seed from")
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			f.Add(line)
		}
	}
}

func FuzzParse(f *testing.F) {
	addCorpusLines(f)
	for _, s := range []string{
		`{"b":1,"2":2,"1":3,"01":4,"-1":5,"4294967295":6,"4294967294":7}`,
		`{"a":1,"b":2,"a":3}`,
		`["\ud800","\uDC00","\ud83d\ude00","\u0000\/\u2028"]`,
		"[\"\xff\xc3(\xe2\x82\"]",
		`[-0,1e21,1e-7,1.50,2E3,9007199254740993,1e400,-1e400,5e-324]`,
		` { "a" : [ 1 , 2 ] } `,
		`[[[[[[[[[[]]]]]]]]]]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		input := bytes.Clone(data)
		v, err := Parse(data)
		if !bytes.Equal(data, input) {
			t.Fatal("Parse changed its input")
		}
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(data) {
				t.Fatalf("error %v is not a SyntaxError inside the input", err)
			}
			return
		}
		encoded := v.Encode()
		if ref := referenceEncode(nil, v); !bytes.Equal(encoded, ref) {
			t.Fatalf("fast path %s differs from member-by-member %s", encoded, ref)
		}
		if v.Kind() == Array || v.Kind() == Object {
			text := bytes.Trim(ToWellFormed(data), " \t\r\n")
			if canonical := bytes.Equal(text, encoded); canonical != (v.Raw() != nil) {
				t.Fatalf("Raw() = %q for input %q encoded as %q", v.Raw(), text, encoded)
			}
		}
		again, err := Parse(encoded)
		if err != nil {
			t.Fatalf("Parse(Encode(v)) = %v for %q", err, encoded)
		}
		if got := again.Encode(); !bytes.Equal(got, encoded) {
			t.Fatalf("encoding is not stable: %q then %q", encoded, got)
		}
		if (again.Kind() == Array || again.Kind() == Object) && again.Raw() == nil {
			t.Fatalf("own output %q is not recognized as canonical", encoded)
		}
		if !Equal(finite(v), again) {
			t.Fatalf("Parse(Encode(v)) is not v for %q", encoded)
		}
		if v.Kind() == Array || v.Kind() == Object {
			detached := Detach(v)
			if got := detached.Encode(); !bytes.Equal(got, encoded) {
				t.Fatalf("Detach(v) encodes as %q, v as %q", got, encoded)
			}
			if !Equal(again, detached) {
				t.Fatalf("Detach(v) is not Parse(Encode(v)) for %q", encoded)
			}
		}
	})
}

// finite returns v with ±Inf (an overflowing number literal) replaced by
// null, which is what JSON.stringify writes for it. -0 needs no mapping:
// Equal compares numbers with ==, as JavaScript's === does.
func finite(v Value) Value {
	switch v.Kind() {
	case Number:
		if n, _ := v.Number(); math.IsInf(n, 0) {
			return NullValue()
		}
	case Array:
		elems := make([]Value, 0, v.Len())
		for _, e := range v.Elements() {
			elems = append(elems, finite(e))
		}
		return ArrayValue(elems...)
	case Object:
		members := make([]Member, 0, v.Len())
		for _, m := range v.Members() {
			members = append(members, M(m.Key, finite(m.Value)))
		}
		return ObjectValue(members...)
	}
	return v
}

func FuzzEncodeString(f *testing.F) {
	for _, s := range []string{
		"", "plain", "\"\\/", "\b\f\n\r\t\x00\x1f\x7f", "<>&\u2028\u2029é😀",
		"\xed\xa0\x80", "\xed\xb0\x80\xed\xa0\xbd", "\xed\xa0\xbd\xed\xb8\x80",
		"\xff\xc3(\xe2\x82", "\xed\xa0",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendString(nil, s)
		v, err := Parse(out)
		if err != nil {
			t.Fatalf("AppendString(%q) = %q does not parse: %v", s, out, err)
		}
		str, ok := v.Str()
		if !ok {
			t.Fatalf("AppendString(%q) parsed as a %v", s, v.Kind())
		}
		if validGeneralized(s) {
			if want := joinSurrogatePairs(s); str != want {
				t.Fatalf("AppendString(%q) read back as %q, want %q", s, str, want)
			}
			if !bytes.Equal(v.Encode(), out) {
				t.Fatalf("%q re-encoded as %q", out, v.Encode())
			}
			wrapped, err := Parse(append(append([]byte("["), out...), ']'))
			if err != nil || wrapped.Raw() == nil {
				t.Fatalf("AppendString(%q) = %q is not canonical (err %v)", s, out, err)
			}
		}
		if again := AppendString(nil, str); !bytes.Equal(again, v.Encode()) {
			t.Fatalf("AppendString(%q) = %q, Encode = %q", str, again, v.Encode())
		}
	})
}

// validGeneralized reports whether s is UTF-8 in which UTF-16 surrogates may
// also appear encoded as three bytes (generalized UTF-8, what Parse yields).
func validGeneralized(s string) bool {
	for i := 0; i < len(s); {
		if _, ok := surrogateAt(s, i); ok {
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return false
		}
		i += size
	}
	return true
}

// FuzzPeek checks Peek, which reads a member from the text of an object not
// yet decoded, against Get on the decoded object, on every object of the
// input: before and after the object is decoded, on its Detach copy, and
// two keys deep with PeekPath.
func FuzzPeek(f *testing.F) {
	addCorpusLines(f)
	for _, s := range []string{
		`{"a":1,"b":{"c":2},"a":{"d":3}}`,
		`{"b":1,"2":2,"1":{"x":[]},"01":4,"4294967295":6,"4294967294":7}`,
		`{"\u0061":1,"a\"":2,"\ud800":{"\udc00":3},"\ud83d\ude00":4,"\/":5}`,
		` { "a" : { "b" : [ 1 , { "c" : 2 } ] } , "a" : { "b" : 3 } } `,
		`[{"a":{"b":1}},[{"c":2}],{"a":{"b":2},"a":1}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ref, err := Parse(data)
		if err != nil {
			return
		}
		for _, path := range objectPaths(ref, nil, 64) {
			obj := follow(ref, path)
			keys := append(obj.Keys(), "", "missing", "0")
			for _, key := range keys {
				want, wantOK := obj.Get(key)
				fresh, _ := Parse(data)
				lazy := follow(fresh, path)
				samePeek(t, "Peek", true, data, key, want, wantOK)(lazy.Peek(key))
				// Detach re-encodes as JSON.stringify does (1e999 becomes
				// null), so its copy is checked against Get on a copy.
				copyWant, copyOK := Detach(obj).Get(key)
				samePeek(t, "Peek on the Detach copy", false, data, key, copyWant, copyOK)(Detach(lazy).Peek(key))
				for _, sub := range append(want.Keys(), "missing") {
					deep, deepOK := want.Get(sub)
					again, _ := Parse(data)
					samePeek(t, "PeekPath", true, data, key+"."+sub, deep, deepOK && wantOK)(follow(again, path).PeekPath(key, sub))
				}
				lazy.Members() // decoded now: Peek takes Get's way
				samePeek(t, "Peek after decoding", true, data, key, want, wantOK)(lazy.Peek(key))
			}
		}
	})
}

// objectPaths returns the paths (element indexes as numbers, member keys as
// strings) to at most limit objects in v.
func objectPaths(v Value, path []any, limit int) [][]any {
	var paths [][]any
	var visit func(v Value, path []any)
	visit = func(v Value, path []any) {
		if len(paths) >= limit {
			return
		}
		switch v.Kind() {
		case Object:
			paths = append(paths, slices.Clone(path))
			for _, m := range v.Members() {
				visit(m.Value, append(path, m.Key))
			}
		case Array:
			for i, e := range v.Elements() {
				visit(e, append(path, i))
			}
		}
	}
	visit(v, path)
	return paths
}

// follow returns the value at path in v, with Get and Index.
func follow(v Value, path []any) Value {
	for _, step := range path {
		if i, ok := step.(int); ok {
			v = v.Index(i)
		} else {
			v = v.Field(step.(string))
		}
	}
	return v
}

// samePeek returns a check that a Peek's result is Get's, with the same Raw
// when sameRaw is set (a Detach copy is canonical whatever its source).
func samePeek(t *testing.T, what string, sameRaw bool, data []byte, key string, want Value, wantOK bool) func(Value, bool) {
	return func(got Value, ok bool) {
		t.Helper()
		if ok != wantOK || !Equal(got, want) || !bytes.Equal(got.Encode(), want.Encode()) || sameRaw && !bytes.Equal(got.Raw(), want.Raw()) {
			t.Fatalf("%s(%q) on %q = %s, %v; Get found %s, %v", what, key, data, got, ok, want, wantOK)
		}
	}
}

// FuzzContainsPlain checks MayHoldString's fast path for a string that needs
// no quoting against the general search for its quoted form.
func FuzzContainsPlain(f *testing.F) {
	for _, tt := range []struct{ text, s string }{
		{`["a","tool-result"]`, "tool-result"},
		{`["x-tool-result"]`, "tool-result"},
		{`"tool-resul`, "tool-result"},
		{`"-"`, "-"},
		{`"a-b""a-b"`, "a-b"},
	} {
		f.Add([]byte(tt.text), tt.s)
	}
	f.Fuzz(func(t *testing.T, text []byte, s string) {
		pivot := plainPivot(s)
		if pivot < 0 {
			return
		}
		want := containsQuoted(text, AppendString(nil, s))
		if got := containsPlain(text, s, pivot); got != want {
			t.Fatalf("containsPlain(%q, %q) = %v, containsQuoted says %v", text, s, got, want)
		}
	})
}

// FuzzPeekStringPrefix checks PeekStringPrefix against Get on every object
// member of every object, at several lengths: the whole string when it says
// so, else a start of it within the length, never a part of a character
// (the start of a surrogate pair is not a start of the pair's character).
func FuzzPeekStringPrefix(f *testing.F) {
	addCorpusLines(f)
	for _, s := range []string{
		`{"text":"héllo wörld \ud83d\ude00 \u00e9\n\"quoted\" \\ tail"}`,
		`{"text":"\ud83d\ude00\ud83d\ude00\ud83d\ude00\ud83d\ude00","a":"\ud800x\udc00"}`,
		`{"text":"` + strings.Repeat("日本語 ", 40) + `","text":"last wins"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ref, err := Parse(data)
		if err != nil {
			return
		}
		for _, path := range objectPaths(ref, nil, 64) {
			obj := follow(ref, path)
			for _, key := range append(obj.Keys(), "missing") {
				member, present := obj.Get(key)
				want, wantOK := member.Str()
				wantOK = wantOK && present
				for _, max := range []int{0, 1, 2, 3, 5, 6, 7, 11, 12, 13, 40, 1 << 20} {
					fresh, _ := Parse(data)
					got, whole, ok := follow(fresh, path).PeekStringPrefix(key, max)
					switch {
					case ok != wantOK:
						t.Fatalf("%s key %q max %d: ok %v, want %v", data, key, max, ok, wantOK)
					case !ok:
					case whole && got != want:
						t.Fatalf("%s key %q max %d: whole %q, want %q", data, key, max, got, want)
					case !whole && (len(got) > max || !strings.HasPrefix(want, got)):
						t.Fatalf("%s key %q max %d: cut to %q, not a start of %q within %d bytes", data, key, max, got, want, max)
					case max >= 12 && want != "" && got == "":
						t.Fatalf("%s key %q max %d: cut to nothing", data, key, max)
					}
				}
			}
		}
	})
}
