package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/dshlog/dshlog/verify"
)

// Text is the report for people: each finding as
// "FILE:LINE: seq N: SEVERITY: [CODE] message", each file's verdict and
// its request chain in a line, and a summary table when there was more
// than one file.
type Text struct{ w io.Writer }

// NewText returns the text report writing to w.
func NewText(w io.Writer) *Text { return &Text{w: w} }

// File writes a file's findings, verdict and theorem line.
func (t *Text) File(f File) error {
	var b []byte
	for _, finding := range f.Findings {
		b = AppendFinding(b, f.Name, finding)
	}
	b = appendVerdict(b, f)
	if f.Verdict != Unreadable && f.Chain.Complete {
		b = append(b, f.Name...)
		b = append(b, ": theorem: "...)
		b = append(b, Theorem(f.Chain)...)
		b = append(b, '\n')
	}
	return writeAll(t.w, b)
}

// Finding writes one finding as it is found.
func (t *Text) Finding(file string, f verify.Finding) error {
	return writeAll(t.w, AppendFinding(nil, file, f))
}

// AppendFinding appends a finding as a line for people, and its hint, when
// it has one, as a second line.
func AppendFinding(b []byte, file string, f verify.Finding) []byte {
	b = append(b, file...)
	if f.Line > 0 {
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(f.Line), 10)
	}
	b = append(b, ": "...)
	if f.Seq >= 0 {
		b = append(b, "seq "...)
		b = strconv.AppendInt(b, f.Seq, 10)
		b = append(b, ": "...)
	}
	b = fmt.Appendf(b, "%s: [%s] %s\n", f.Severity, f.Code, f.Message)
	if f.Hint != "" {
		b = fmt.Appendf(b, "%s: hint: %s\n", file, f.Hint)
	}
	return b
}

// appendVerdict appends a file's verdict line.
func appendVerdict(b []byte, f File) []byte {
	if f.Verdict == Unreadable {
		return fmt.Appendf(b, "%s: not verified: unreadable or unsupported\n", f.Name)
	}
	counts := fmt.Sprintf("%s, %s, %d info", counted(f.Counts[verify.Error], "error", "errors"),
		counted(f.Counts[verify.Warning], "warning", "warnings"), f.Counts[verify.Info])
	if f.Baselined > 0 {
		counts += fmt.Sprintf("; %d in the baseline", f.Baselined)
	}
	if f.Verdict == Problems {
		return fmt.Appendf(b, "%s: problems found (%s)\n", f.Name, counts)
	}
	return fmt.Appendf(b, "%s: ok (%s)\n", f.Name, counts)
}

// theoremBreaks bounds the breaks a theorem line names.
const theoremBreaks = 10

// Theorem is the request chain in one line: "6 requests rebuilt, 5 extend
// the previous one, 1 break: request 3 (seq 25) compaction, explained by
// the series header at seq 24".
func Theorem(c verify.Chain) string {
	var s strings.Builder
	fmt.Fprintf(&s, "%s rebuilt", counted(c.Requests, "request", "requests"))
	if c.Requests < 2 {
		return s.String()
	}
	fmt.Fprintf(&s, ", %d %s the previous one", c.Extending, plural(c.Extending, "extends", "extend"))
	if len(c.Breaks) == 0 {
		s.WriteString(", no break")
	}
	for i, b := range c.Breaks {
		switch {
		case i == 0:
			fmt.Fprintf(&s, ", %s: ", counted(len(c.Breaks), "break", "breaks"))
		case i == theoremBreaks:
			fmt.Fprintf(&s, "; and %d more", len(c.Breaks)-theoremBreaks)
		case i > theoremBreaks:
			continue
		default:
			s.WriteString("; ")
		}
		if i < theoremBreaks {
			s.WriteString(describeBreak(b))
		}
	}
	return s.String()
}

// describeBreak says what broke a request and what explains it.
func describeBreak(b verify.Break) string {
	s := fmt.Sprintf("request %d (seq %d) %s", b.Request, b.Seq, b.Cause)
	if !b.Explained() {
		if d := b.Diff; d != nil {
			s += fmt.Sprintf(", message %d differs (expected: %s; actual: %s)", d.Index, orNone(d.Expected), orNone(d.Actual))
		}
		return s
	}
	s += fmt.Sprintf(", explained by %s at seq %d", markerNames[b.ExplainedBy], b.MarkerSeq)
	if b.MessagesExtend {
		s += " (messages extend)"
	}
	return s
}

// markerNames say what each marker is.
var markerNames = map[verify.Marker]string{
	verify.MarkerSeries:  "the series header",
	verify.MarkerHeader:  "the header",
	verify.MarkerEndSeed: "the session/end-seed",
	verify.MarkerFork:    "the fork boundary",
	verify.MarkerBracket: "the compaction bracket closed",
}

func orNone(excerpt string) string {
	if excerpt == "" {
		return "no message"
	}
	return excerpt
}

// Summary writes the summary table when more than one file was judged.
func (t *Text) Summary(s *Summary) error {
	if s.Files < 2 {
		return nil
	}
	return WriteTable(t.w, s)
}

// WriteTable writes the summary as a table: the files by verdict, then the
// findings by [code], then those the baseline covers.
func WriteTable(w io.Writer, s *Summary) error {
	table := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: []tw.Align{tw.AlignLeft, tw.AlignRight}}),
	)
	table.Header("summary", "count")
	rows := [][]string{
		{"files", strconv.Itoa(s.Files)},
		{"ok", strconv.Itoa(s.OK)},
		{"with problems", strconv.Itoa(s.Problems)},
		{"unreadable", strconv.Itoa(s.Unreadable)},
	}
	for _, code := range s.Codes() {
		rows = append(rows, []string{"[" + code + "]", strconv.Itoa(s.ByCode[code])})
	}
	if s.Baselined > 0 {
		rows = append(rows, []string{"in the baseline", strconv.Itoa(s.Baselined)})
	}
	if err := table.Bulk(rows); err != nil {
		return err
	}
	return table.Render()
}
