package inspect

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
)

// cutLine reads only the start of a text but must cut it exactly as
// collapsing the whole text and then truncating it does.
func TestCutLineIsTruncatedOneLine(t *testing.T) {
	oneLine := func(text string) string { return strings.Join(strings.FieldsFunc(text, unicode.IsSpace), " ") }
	texts := []string{
		"", " ", "a", "  a  b  ", "a\n\n\tb", strings.Repeat("x", 39), strings.Repeat("x", 40),
		strings.Repeat("x", 41), strings.Repeat("x", 40) + "   ", strings.Repeat("x", 40) + " y",
		strings.Repeat("x", 39) + " y", strings.Repeat("x", 38) + " y z", strings.Repeat("é", 45),
		strings.Repeat("ab ", 30), "\u00a0lead\u2028sep\u3000", "bad \xff\xfe bytes " + strings.Repeat("\xed\xa0\x80", 20),
		strings.Repeat("\xe2 ", 50), strings.Repeat("\ufffd", 41),
	}
	pieces := []string{"a", "bc", " ", "\n", "\t\t", "é", "\u00a0", "\xff", "\xed\xa0\x80", "\xe2", "世界", "\ufffd"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		var b strings.Builder
		for range rng.IntN(60) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	for _, text := range texts {
		for _, n := range []int{1, 2, 5, previewRunes} {
			if got, want := cutLine(text, n), truncate([]byte(oneLine(text)), n); got != want {
				t.Errorf("cutLine(%q, %d) = %q, want %q", text, n, got, want)
			}
		}
	}
}

// cutJoined cuts texts as cutLine cuts them joined by spaces.
func TestCutJoinedIsCutLineOfTheJoin(t *testing.T) {
	pieces := []string{"", "a", "bc", " ", "\n", "é", "\u00a0", "\xff", "\xed\xa0\x80", "\xe2", "世界", strings.Repeat("x", 39), strings.Repeat("y ", 25)}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		texts := make([]string, 1+rng.IntN(6))
		for i := range texts {
			var b strings.Builder
			for range rng.IntN(4) {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
			texts[i] = b.String()
		}
		for _, n := range []int{1, 2, 5, previewRunes} {
			if got, want := cutJoined(texts, n), cutLine(strings.Join(texts, " "), n); got != want {
				t.Fatalf("cutJoined(%q, %d) = %q, want %q", texts, n, got, want)
			}
		}
	}
}

// isSpace is unicode.IsSpace.
func TestIsSpace(t *testing.T) {
	for r := rune(0); r <= 0x3000; r++ {
		if isSpace(r) != unicode.IsSpace(r) {
			t.Errorf("isSpace(%U) = %v", r, isSpace(r))
		}
	}
}
