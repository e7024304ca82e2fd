package search

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/jsonv"
)

// row is a v4-like row holding text as one string member, quoted as
// JSON.stringify quotes it.
func row(text string) []byte {
	b := []byte(`{"type":"user/message","data":{"content":[{"type":"text","text":`)
	b = jsonv.AppendString(b, text)
	return append(b, `}]}}`...)
}

// decoded returns the text member of a row as the reader decodes it.
func decoded(t testing.TB, line []byte) string {
	v, err := jsonv.Parse(line)
	if err != nil {
		t.Fatalf("row %s: %v", line, err)
	}
	s, _ := v.Field("data").Field("content").Index(0).Field("text").Str()
	return s
}

// mayMatch reports whether the prefilter of q passes line (true when q has
// no prefilter).
func mayMatch(t testing.TB, q Query, line []byte) bool {
	m, err := newMatcher(q)
	if err != nil {
		t.Fatal(err)
	}
	var scratch []byte
	return m.pre == nil || m.pre.candidate(line, &scratch)
}

// matches reports whether q matches text.
func matches(t testing.TB, q Query, text string) bool {
	m, err := newMatcher(q)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	m.each(text, func(int, int) bool { found = true; return false })
	return found
}

// TestPrefilter: a row whose decoded text holds the pattern always passes
// the prefilter, whatever the pattern holds (quotes, backslashes, line
// breaks, characters outside ASCII) and however the row escapes it; a row
// JSON.stringify wrote that lacks it does not.
func TestPrefilter(t *testing.T) {
	fixed := func(p string) Query { return Query{Pattern: p, Fixed: true} }
	folded := func(p string) Query { return Query{Pattern: p, Fixed: true, IgnoreCase: true} }
	tests := []struct {
		name  string
		q     Query
		line  []byte
		match bool // the decoded text holds the pattern
		pass  bool
	}{
		{"plain word", fixed("migration"), row("ran the migration twice"), true, true},
		{"absent word", fixed("migration"), row("ran the tests twice"), false, false},
		{"quote", fixed(`say "hi"`), row(`then say "hi" to them`), true, true},
		{"quote only in JSON syntax", fixed(`"type"`), row("no quotes here"), false, false},
		{"backslash", fixed(`C:\Users`), row(`path C:\Users\me`), true, true},
		{"line break", fixed("first\nsecond"), row("the first\nsecond line"), true, true},
		{"tab", fixed("a\tb"), row("a\tb"), true, true},
		{"control character", fixed("x\x01y"), row("x\x01y"), true, true},
		{"non-ASCII", fixed("权限：\n\nCurrent"), row("权限：\n\nCurrent working directory"), true, true},
		{"non-ASCII absent", fixed("权限"), row("permission"), false, false},
		{"escaped letter", fixed("Abc"), []byte(`{"type":"user/message","data":{"content":[{"type":"text","text":"\u0041bc"}]}}`), true, true},
		{"escaped slash", fixed("a/b"), []byte(`{"type":"user/message","data":{"content":[{"type":"text","text":"a\/b"}]}}`), true, true},
		{"escaped pair", fixed("😀"), []byte(`{"type":"user/message","data":{"content":[{"type":"text","text":"\ud83d\ude00"}]}}`), true, true},
		{"upper case hex", fixed("x\x01y"), []byte(`{"type":"user/message","data":{"content":[{"type":"text","text":"x\u0001y"}]}}`), true, true},
		{"long escape of a line break", fixed("a\nb"), []byte(`{"type":"user/message","data":{"content":[{"type":"text","text":"a\u000ab"}]}}`), true, true},
		{"escaped backslash before u", fixed("nothing"), row(`C:\users`), false, false},
		{"lone surrogate", fixed("zz"), row("\xed\xa0\x80 x"), false, false},
		{"fold ASCII", folded("MiGration"), row("ran the MIGRATION"), true, true},
		{"fold absent", folded("migration"), row("ran the tests"), false, false},
		{"fold Kelvin sign", folded("kelvin"), row("\u212aelvin"), true, true},
		{"fold long s", folded("sun"), row("\u017fun"), true, true},
		{"fold non-ASCII without case", folded("权限 ok"), row("权限 OK"), true, true},
		{"fold non-ASCII with case", folded("Straße"), row("STRASSE or straẞe"), true, true},
		{"regexp literal prefix", Query{Pattern: `fresh-agent \w+`}, row("a fresh-agent Ralph loop"), true, true},
		{"regexp literal prefix absent", Query{Pattern: `fresh-agent \w+`}, row("a Ralph loop"), false, false},
		{"regexp without a literal", Query{Pattern: `\d+ files`}, row("no number"), false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := matches(t, tt.q, decoded(t, tt.line)); got != tt.match {
				t.Fatalf("the decoded text %q holds the pattern: %v, want %v", decoded(t, tt.line), got, tt.match)
			}
			if got := mayMatch(t, tt.q, tt.line); got != tt.pass {
				t.Errorf("prefilter passes %s: %v, want %v", tt.line, got, tt.pass)
			}
		})
	}
}

// FuzzPrefilter: whenever a row's decoded text holds the pattern, the row
// passes the pattern's prefilter, for a fixed string with and without
// case folding and for a regular expression, whether the row is written
// as JSON.stringify writes it or as Go's encoding/json does (which escapes
// <, >, &, U+2028 and U+2029 and writes invalid UTF-8 as U+FFFD).
func FuzzPrefilter(f *testing.F) {
	f.Add("the first\nsecond line", "first\nsecond", uint8(0))
	f.Add(`say "hi" now`, `"hi"`, uint8(1))
	f.Add("\u212aelvin", "kel", uint8(1))
	f.Add("a <b> & c", "<b>", uint8(0))
	f.Add("权限：\n\nCurrent", "：\n", uint8(2))
	f.Fuzz(func(t *testing.T, text, pattern string, mode uint8) {
		q := Query{Pattern: pattern, Fixed: mode%3 != 2, IgnoreCase: mode%3 == 1}
		if q.Pattern == "" {
			return
		}
		if !q.Fixed {
			q.Pattern = "(" + q.Pattern + ")"
		}
		if _, err := newMatcher(q); err != nil {
			return
		}
		goJSON, err := json.Marshal(text)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range [][]byte{row(text), []byte(`{"type":"user/message","data":{"content":[{"type":"text","text":` + string(goJSON) + `}]}}`)} {
			if matches(t, q, decoded(t, line)) && !mayMatch(t, q, line) {
				t.Fatalf("%+v: row %s holds a match, but the prefilter passes it over", q, line)
			}
		}
	})
}

// TestFoldableRun picks the longest run that an ASCII case fold compares
// correctly.
func TestFoldableRun(t *testing.T) {
	tests := []struct{ in, want string }{
		{"migration", "migration"},
		{"Straße", "Stra"},
		{"权限 ok", "权限 ok"},
		{"éa", "a"},
		{"ÉÉ", ""},
	}
	for _, tt := range tests {
		if got := foldableRun(tt.in); got != tt.want {
			t.Errorf("foldableRun(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestBlockReader: the blocks are whole lines, in order, none lost, a line
// longer than a block included.
func TestBlockReader(t *testing.T) {
	var text bytes.Buffer
	for i := range 30000 {
		text.WriteString(strings.Repeat("x", i%97) + "\n")
	}
	text.WriteString(strings.Repeat("y", 3*blockSize) + "\n")
	text.WriteString("last line without a newline")
	blocks := newBlockReader(bytes.NewReader(text.Bytes()))
	var got []byte
	n := 0
	for {
		block, err := blocks.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		if !bytes.HasSuffix(block, []byte("\n")) && !bytes.HasSuffix(block, []byte("newline")) {
			t.Fatalf("block %d ends inside a line", n)
		}
		got = append(got, block...)
	}
	if !bytes.Equal(got, text.Bytes()) {
		t.Fatalf("the blocks hold %d bytes, want the %d of the text", len(got), text.Len())
	}
	if n < 3 {
		t.Fatalf("%d blocks; the text should take at least 3", n)
	}
}
