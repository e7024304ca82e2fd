package report

import (
	"io"
	"strconv"
	"strings"

	"github.com/dshlog/dshlog/verify"
)

// GitHub is the report for GitHub Actions: each finding as a workflow
// command (::error, ::warning or ::notice with file, line and the code as
// title) that GitHub shows on the file's line in a pull request, then the
// text report's verdict and theorem lines and its summary table.
type GitHub struct {
	w      io.Writer
	text   *Text
	strict bool
}

// NewGitHub returns the GitHub report writing to w; under strict a warning
// is annotated as an error, as it fails the run.
func NewGitHub(w io.Writer, strict bool) *GitHub {
	return &GitHub{w: w, text: NewText(w), strict: strict}
}

// File writes a file's annotations, then its verdict and theorem.
func (g *GitHub) File(f File) error {
	var b []byte
	for _, finding := range f.Findings {
		b = g.appendCommand(b, f.Name, finding)
	}
	if f.Verdict == Unreadable {
		b = appendCommand(b, "error", f.Name, 0, "unreadable", Reason(f.Err))
	}
	if err := writeAll(g.w, b); err != nil {
		return err
	}
	f.Findings = nil
	return g.text.File(f)
}

// Finding writes one finding's annotation as it is found.
func (g *GitHub) Finding(file string, f verify.Finding) error {
	return writeAll(g.w, g.appendCommand(nil, file, f))
}

// Summary writes the text summary table.
func (g *GitHub) Summary(s *Summary) error { return g.text.Summary(s) }

func (g *GitHub) appendCommand(b []byte, file string, f verify.Finding) []byte {
	command := "notice"
	switch {
	case fails(f.Severity, g.strict):
		command = "error"
	case f.Severity == verify.Warning:
		command = "warning"
	}
	message := f.Message
	if f.Seq >= 0 {
		message = "seq " + strconv.FormatInt(f.Seq, 10) + ": " + message
	}
	if f.Hint != "" {
		message += "\nhint: " + f.Hint
	}
	return appendCommand(b, command, file, f.Line, f.Code, message)
}

// appendCommand appends "::COMMAND file=F,line=L,title=T::MESSAGE", with
// the escapes GitHub's workflow command parser undoes.
func appendCommand(b []byte, command, file string, line int, title, message string) []byte {
	b = append(b, "::"...)
	b = append(b, command...)
	b = append(b, " file="...)
	b = append(b, propertyEscaper.Replace(file)...)
	if line > 0 {
		b = append(b, ",line="...)
		b = strconv.AppendInt(b, int64(line), 10)
	}
	b = append(b, ",title="...)
	b = append(b, propertyEscaper.Replace(title)...)
	b = append(b, "::"...)
	b = append(b, dataEscaper.Replace(message)...)
	return append(b, '\n')
}

// The escapes of workflow commands: data escapes %, CR and LF; a property
// value also ":" and ",".
var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)
