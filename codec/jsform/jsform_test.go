package jsform

import (
	"testing"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

func parse(t *testing.T, text string) jsonv.Value {
	t.Helper()
	v, err := jsonv.Parse([]byte(text))
	if err != nil {
		t.Fatalf("parse %s: %v", text, err)
	}
	return v
}

// refusalText gives the refusal as dsh prints it, or "" for nil.
func refusalText(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	r, ok := err.(*session.Refusal)
	if !ok {
		t.Fatalf("error %v is not a *session.Refusal", err)
	}
	return r.Text()
}

func TestCountAndSafeInteger(t *testing.T) {
	for _, tc := range []struct {
		in         string
		count      string // refusal of Count, "" when accepted
		safe       string // refusal of SafeInteger, "" when accepted
		wantNumber int64
	}{
		{"0", "", "", 0},
		{"7", "", "", 7},
		{"9007199254740991", "", "", 9007199254740991},
		{"-3", "SessionFormatError: seq must be a non-negative safe integer", "", -3},
		{"-0", "SessionFormatError: seq must be a non-negative safe integer", "SessionFormatError: seq must be a safe integer", 0},
		{"1.5", "SessionFormatError: seq must be a non-negative safe integer", "SessionFormatError: seq must be a safe integer", 0},
		{"9007199254740992", "SessionFormatError: seq must be a non-negative safe integer", "SessionFormatError: seq must be a safe integer", 0},
		{`"1"`, "SessionFormatError: seq must be a non-negative safe integer", "SessionFormatError: seq must be a safe integer", 0},
		{"null", "SessionFormatError: seq must be a non-negative safe integer", "SessionFormatError: seq must be a safe integer", 0},
	} {
		v := parse(t, tc.in)
		n, err := Count(v, "seq")
		if got := refusalText(t, err); got != tc.count || (err == nil && n != tc.wantNumber) {
			t.Errorf("Count(%s) = %d, %q; want %d, %q", tc.in, n, got, tc.wantNumber, tc.count)
		}
		n, err = SafeInteger(v, "seq")
		if got := refusalText(t, err); got != tc.safe || (err == nil && n != tc.wantNumber) {
			t.Errorf("SafeInteger(%s) = %d, %q; want %d, %q", tc.in, n, got, tc.wantNumber, tc.safe)
		}
	}
}

func TestRecord(t *testing.T) {
	for _, tc := range []struct {
		in, format, want string
	}{
		{`{}`, "%s must be a JSON object", ""},
		{`{"a":1}`, "%s must be an object", ""},
		{`[]`, "%s must be a JSON object", "SessionFormatError: data must be a JSON object"},
		{`null`, "%s must be an object", "SessionFormatError: data must be an object"},
		{`"x"`, "format v4 %s requires an object", "SessionFormatError: format v4 data requires an object"},
	} {
		v := parse(t, tc.in)
		got, err := Record(v, tc.format, "data")
		if text := refusalText(t, err); text != tc.want {
			t.Errorf("Record(%s, %q) refused %q, want %q", tc.in, tc.format, text, tc.want)
		}
		if !jsonv.Equal(got, v) {
			t.Errorf("Record(%s) returned %s", tc.in, got)
		}
	}
}

func TestKeys(t *testing.T) {
	required, optional := []string{"type", "seq"}, []string{"ignorable"}
	for _, tc := range []struct {
		in                  string
		missing, unexpected string // "" when none
		exact               string // the refusal ExactKeys builds
	}{
		{`{"type":"a","seq":1}`, "", "", ""},
		{`{"seq":1,"ignorable":true,"type":"a"}`, "", "", ""},
		{`{"type":"a"}`, "seq", "", "missing seq"},
		{`{"type":"a","seq":1,"x":0,"y":0}`, "", "x", "unexpected x"},
		{`{"x":0}`, "type", "x", "missing type"},
		{`{"seq":1}`, "type", "", "missing type"}, // in required's order
		{`{"z":0,"seq":1,"type":"a","x":0}`, "", "z", "unexpected z"},
		{`{"type":"a","seq":1,"type":"b"}`, "", "", ""},
		{`[1]`, "type", "", "missing type"},
	} {
		v := parse(t, tc.in)
		if k, ok := MissingKey(v, required); k != tc.missing || ok != (tc.missing != "") {
			t.Errorf("MissingKey(%s) = %q, %v; want %q", tc.in, k, ok, tc.missing)
		}
		if k, ok := UnexpectedKey(v, required, optional); k != tc.unexpected || ok != (tc.unexpected != "") {
			t.Errorf("UnexpectedKey(%s) = %q, %v; want %q", tc.in, k, ok, tc.unexpected)
		}
		err := ExactKeys(v, required, optional, func(key string, missing bool) error {
			if missing {
				return session.FormatErrorf("missing %s", key)
			}
			return session.FormatErrorf("unexpected %s", key)
		})
		got := ""
		if err != nil {
			got = err.(*session.Refusal).Msg
		}
		if got != tc.exact {
			t.Errorf("ExactKeys(%s) refused %q, want %q", tc.in, got, tc.exact)
		}
	}
}

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"tool/call", `"tool/call"`},
		{`a"b\c`, `"a\"b\\c"`},
		{"line\nbreak\u0001", `"line\nbreak\u0001"`},
		{"", `""`},
	} {
		if got := Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestString(t *testing.T) {
	for _, tc := range []struct {
		in   string // "" for an absent member
		want string
	}{
		{"", "undefined"},
		{`"text"`, "text"},
		{`""`, ""},
		{"null", "null"},
		{"true", "true"},
		{"12", "12"},
		{"-0", "0"},
		{"1e21", "1e+21"},
		{"0.000001", "0.000001"},
		{`{"a":1}`, "[object Object]"},
		{"[]", ""},
		{`[1,null,"x",[2,[3]],{}]`, "1,,x,2,3,[object Object]"},
	} {
		var v jsonv.Value
		if tc.in != "" {
			v = parse(t, tc.in)
		}
		if got := String(v, tc.in != ""); got != tc.want {
			t.Errorf("String(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestStringify(t *testing.T) {
	for _, tc := range []struct {
		in   string // "" for an absent member
		want string
	}{
		{"", "undefined"},
		{`"turn/end"`, `"turn/end"`},
		{"null", "null"},
		{"-0", "0"},
		{`["turn/end",{"a":[1]}]`, `["turn/end",{"a":[1]}]`},
	} {
		var v jsonv.Value
		if tc.in != "" {
			v = parse(t, tc.in)
		}
		if got := Stringify(v, tc.in != ""); got != tc.want {
			t.Errorf("Stringify(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestDeepEqual(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1}`, true},
		{`0`, `-0`, true},
		{`[{"x":-0}]`, `[{"x":0}]`, true},
		{`[1,2]`, `[2,1]`, false},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`{"a":1,"b":2}`, `{"a":1,"c":2}`, false},
		{`"1"`, `1`, false},
		{`null`, `{}`, false},
		{`"x"`, `"x"`, true},
		{`true`, `false`, false},
	} {
		if got := DeepEqual(parse(t, tc.a), parse(t, tc.b)); got != tc.want {
			t.Errorf("DeepEqual(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
