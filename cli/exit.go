package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/dshlog/dshlog/lease"
)

// The exit codes of dshlog, the same for every verb.
const (
	// ExitOK: the verb did what it was asked.
	ExitOK = 0
	// ExitProblems: the input was read and judged, and problems were found.
	ExitProblems = 1
	// ExitUsage: the command line was wrong (unknown verb or flag, missing
	// argument, bad flag value).
	ExitUsage = 2
	// ExitInput: the input could not be read or is not supported (missing
	// file, malformed row, refused session, newer format), or the verb could
	// not finish.
	ExitInput = 3
)

// exitCodeHelp documents the exit codes at the end of every help text and in
// the man page of dshlog.
const exitCodeHelp = `
Exit codes:
  0  ok
  1  problems found (search: nothing matched)
  2  usage error
  3  unreadable or unsupported input
`

// ExitCode maps an error returned by a verb to dshlog's exit code.
func ExitCode(err error) int {
	var usage *UsageError
	var problems *ProblemsError
	var noHits *NoHitsError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &usage):
		return ExitUsage
	case errors.As(err, &problems), errors.As(err, &noHits):
		return ExitProblems
	}
	return ExitInput
}

// UsageError is a wrong command line.
type UsageError struct {
	Err error
	// Command is the path of the command whose usage was wrong, such as
	// "dshlog inspect"; it names the help to read.
	Command string
}

func (e *UsageError) Error() string { return e.Err.Error() }

func (e *UsageError) Unwrap() error { return e.Err }

// usageErrorf returns a usage error found by a verb itself, such as a bad
// flag value.
func usageErrorf(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// ProblemsError says a verb judged its input and found problems, which it has
// already printed.
type ProblemsError struct {
	File  string
	Count int
}

func (e *ProblemsError) Error() string {
	if e.Count == 1 {
		return e.File + ": 1 problem found"
	}
	return fmt.Sprintf("%s: %d problems found", e.File, e.Count)
}

// NoHitsError says a search read its input and found nothing: exit code
// 1, as grep's, and nothing printed.
type NoHitsError struct{}

func (e *NoHitsError) Error() string { return "no hits" }

// hintedError carries lines that suggest a likely fix.
type hintedError struct {
	err   error
	hints []string
}

func (e *hintedError) Error() string { return e.err.Error() }

func (e *hintedError) Unwrap() error { return e.err }

// withHint returns err with hint lines printed after it as "dshlog: hint:".
func withHint(err error, hints ...string) error {
	return &hintedError{err: err, hints: hints}
}

// printError writes err the way dshlog reports every error: one
// "dshlog: error: FILE:LINE: reason" line, then any hints. A search that
// found nothing says so by its exit code alone.
func printError(w io.Writer, err error) {
	var noHits *NoHitsError
	if errors.As(err, &noHits) {
		return
	}
	fmt.Fprintf(w, "dshlog: error: %s\n", errorText(err))
	for _, hint := range hints(err) {
		fmt.Fprintf(w, "dshlog: hint: %s\n", hint)
	}
}

// errorText is the reason an error gives a person: file errors name the
// file first, without Go's operation prefix.
func errorText(err error) string {
	var path *fs.PathError
	if errors.As(err, &path) && err.Error() == path.Error() {
		return path.Path + ": " + path.Err.Error()
	}
	return err.Error()
}

// hints collects the hint lines of err's chain, outermost first, and adds
// the help pointer of a usage error.
func hints(err error) []string {
	var out []string
	for e := err; e != nil; e = errors.Unwrap(e) {
		if h, ok := e.(*hintedError); ok {
			out = append(out, h.hints...)
		}
	}
	var owned *lease.AlreadyOwnedError
	if errors.As(err, &owned) {
		out = append(out, owned.Path+" is held: a running dsh (or another dshlog) is writing this session; close it and try again")
	}
	var usage *UsageError
	if errors.As(err, &usage) && usage.Command != "" {
		out = append(out, fmt.Sprintf("run '%s --help' for usage", usage.Command))
	}
	return out
}
