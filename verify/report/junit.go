package report

import (
	"encoding/xml"
	"io"
	"strings"
)

// JUnit is the JUnit XML report CI systems render as test results: one
// test case per session file, a failure per finding that fails it, an
// error for a file that could not be read, and the other findings as the
// case's output. It holds the cases until it is written.
type JUnit struct {
	strict bool
	suite  junitSuite
}

// NewJUnit returns an empty JUnit report; under strict a warning fails
// its file's case.
func NewJUnit(strict bool) *JUnit {
	return &JUnit{strict: strict, suite: junitSuite{Name: junitName}}
}

const junitName = "dshlog verify"

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string         `xml:"name,attr"`
	Classname string         `xml:"classname,attr"`
	Failures  []junitProblem `xml:"failure"`
	Error     *junitProblem  `xml:"error"`
	SystemOut string         `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Type    string `xml:"type,attr"`
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// File adds a file's test case.
func (j *JUnit) File(f File) error {
	c := junitCase{Name: f.Name, Classname: junitName}
	var out strings.Builder
	for _, finding := range f.Findings {
		line := string(AppendFinding(nil, f.Name, finding))
		if fails(finding.Severity, j.strict) {
			c.Failures = append(c.Failures, junitProblem{Type: finding.Code, Message: finding.Message, Text: line})
		} else {
			out.WriteString(line)
		}
	}
	if f.Verdict == Unreadable {
		c.Error = &junitProblem{Type: "unreadable", Message: Reason(f.Err)}
		j.suite.Errors++
	}
	if f.Verdict != Unreadable && f.Chain.Complete {
		out.WriteString("theorem: " + Theorem(f.Chain) + "\n")
	}
	c.SystemOut = out.String()
	if len(c.Failures) > 0 {
		j.suite.Failures++
	}
	j.suite.Tests++
	j.suite.Cases = append(j.suite.Cases, c)
	return nil
}

// Summary adds nothing: the counts are the cases'.
func (j *JUnit) Summary(*Summary) error { return nil }

// WriteTo writes the XML document.
func (j *JUnit) WriteTo(w io.Writer) (int64, error) {
	doc := junitSuites{Name: junitName, Tests: j.suite.Tests, Failures: j.suite.Failures, Errors: j.suite.Errors,
		Suites: []junitSuite{j.suite}}
	text, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return 0, err
	}
	n, err := io.WriteString(w, xml.Header+string(text)+"\n")
	return int64(n), err
}
