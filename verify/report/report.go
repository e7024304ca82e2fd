// Package report writes what dshlog verify found about many session files,
// in the formats people and CI systems read: text for people (a line per
// finding and per file, the request chain in a line, a summary table),
// JSON lines for programs, GitHub Actions workflow commands, and a JUnit
// XML report; and it keeps a baseline of known findings that do not fail
// a run.
//
// Memory: the writers stream, file by file, except the JUnit report, which
// holds the failures of the failing files until it is written (its counts
// come first in the XML); the summary holds a count per finding code.
package report

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"

	"github.com/dshlog/dshlog/verify"
	"github.com/dshlog/dshlog/verify/batch"
)

// Verdict is a file's result.
type Verdict string

// The verdicts, from best to worst.
const (
	OK         Verdict = "ok"
	Problems   Verdict = "problems"
	Unreadable Verdict = "unreadable"
)

// File is one judged file as it is reported.
type File struct {
	// Name is the file's path as found, or "<stdin>".
	Name string
	// Findings are the findings the baseline does not cover, in the order
	// found; Baselined counts the others.
	Findings  []verify.Finding
	Baselined int
	// Counts are Findings by severity.
	Counts [3]int
	// Failing counts the findings that fail the file: errors, and
	// warnings too when strict.
	Failing int
	// Chain is the file's request chain, for the theorem line.
	Chain verify.Chain
	// Verdict is the file's result: ok, problems or unreadable.
	Verdict Verdict
	// Err says why an unreadable file could not be judged.
	Err error
}

// Judgement says what fails a file.
type Judgement struct {
	// Strict fails a file on warnings too.
	Strict bool
	// Baseline, when not nil, lists findings that do not fail a file.
	Baseline *Baseline
}

// NewFile turns a result into the file to report under j.
func NewFile(r batch.Result, j Judgement) File {
	f := File{Name: batch.DisplayName(r.Path), Chain: r.Chain, Err: r.Err, Verdict: OK}
	if r.Err != nil {
		f.Verdict = Unreadable
		return f
	}
	for _, finding := range r.Findings {
		if j.Baseline.Covers(f.Name, finding) {
			f.Baselined++
			continue
		}
		f.Findings = append(f.Findings, finding)
		f.Counts[finding.Severity]++
		if fails(finding.Severity, j.Strict) {
			f.Failing++
		}
	}
	if f.Failing > 0 {
		f.Verdict = Problems
	}
	return f
}

// fails reports whether a finding of severity s fails its file.
func fails(s verify.Severity, strict bool) bool {
	return s == verify.Error || strict && s == verify.Warning
}

// Writer writes a report, file by file, in path order, then the summary.
type Writer interface {
	File(f File) error
	Summary(s *Summary) error
	// Finding writes one finding about file as soon as it is found, for a
	// file judged while it grows (dshlog verify --follow); File is then
	// given the file without its findings, for its verdict.
	Finding(file string, f verify.Finding) error
}

// Summary counts the files of a run and their findings.
type Summary struct {
	// Files counts the files judged, then those by verdict.
	Files, OK, Problems, Unreadable int
	// Failing counts the findings that fail their file.
	Failing int
	// ByCode counts the reported findings (those the baseline does not
	// cover) by code.
	ByCode map[string]int
	// Baselined counts the findings the baseline covers.
	Baselined int
}

// Add counts one file.
func (s *Summary) Add(f File) {
	s.Files++
	switch f.Verdict {
	case OK:
		s.OK++
	case Problems:
		s.Problems++
	case Unreadable:
		s.Unreadable++
	}
	s.Failing += f.Failing
	s.Baselined += f.Baselined
	for _, finding := range f.Findings {
		if s.ByCode == nil {
			s.ByCode = map[string]int{}
		}
		s.ByCode[finding.Code]++
	}
}

// Codes returns the codes found, sorted.
func (s *Summary) Codes() []string {
	codes := make([]string, 0, len(s.ByCode))
	for code := range s.ByCode {
		codes = append(codes, code)
	}
	slices.Sort(codes)
	return codes
}

// Reason is what an error says to a person: a file error names the file
// first, without Go's operation prefix.
func Reason(err error) string {
	var path *fs.PathError
	if errors.As(err, &path) && err.Error() == path.Error() {
		return path.Path + ": " + path.Err.Error()
	}
	return err.Error()
}

// plural picks the word that goes with n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// counted is "n word" with the word in the number n calls for.
func counted(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, plural(n, one, many))
}

// writeAll writes b, reporting only the first error.
func writeAll(w io.Writer, b []byte) error {
	_, err := w.Write(b)
	return err
}
