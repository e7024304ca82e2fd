package report

import (
	"strings"

	"github.com/dshlog/dshlog/verify"
)

// explainWidth is the width explanations are wrapped to.
const explainWidth = 78

// Explanation is the text of dshlog verify --explain: the code and its
// severity, then what it means, why dsh cares and how it arises, each a
// titled paragraph wrapped for a terminal.
func Explanation(e verify.Explanation) string {
	var b strings.Builder
	b.WriteString(e.Code + " (" + e.Severity.String() + ")\n")
	for _, p := range []struct{ title, text string }{
		{"What it means", e.Meaning},
		{"Why dsh cares", e.Why},
		{"How it arises", e.Arises},
	} {
		b.WriteString(p.title + ":\n")
		b.WriteString(wrap(p.text, "  ", explainWidth))
	}
	return b.String()
}

// wrap breaks text into lines of at most width bytes at spaces, each line
// starting with indent.
func wrap(text, indent string, width int) string {
	var b strings.Builder
	line := indent
	for _, word := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(word) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += word
	}
	b.WriteString(line + "\n")
	return b.String()
}
