package cli

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/verify"
)

// verifyOptions are the inputs of dshlog verify.
type verifyOptions struct {
	files  []string
	json   bool
	strict bool
}

func init() { addVerb(newVerifyCommand) }

// newVerifyCommand returns dshlog verify, the CI gate for recorded sessions.
func newVerifyCommand(s *streams) *cobra.Command {
	var opts verifyOptions
	cmd := &cobra.Command{
		Use:   "verify FILE...",
		Short: "Check session logs as dsh would, and for what dsh's writer guarantees",
		Long: `Check each session file and report every finding, then a summary per file.

A file fails when dsh itself refuses it (its codec and v4 restore, or its
Session load; the message is dsh's own), or when it breaks what dsh guarantees
only by how it writes logs: a request must have a request/header before it,
each request must extend the previous one unless a series header or a
session/end-seed explains why not, header reasons must fit, a replace must not
part a tool result from its call, an interrupted message holds text only and
ends its turn aborted, one assistant/message settles a step, and an inherited
marker inside an open turn is followed by the forked closers, and crash and
fork closers appear only where dsh writes them. Warnings (an open tail turn, a
torn last line, an empty answer in a completed turn) fail a file only with
--strict; infos (an unknown ignorable event, which dsh keeps opaque) never do.

Findings are printed as "FILE:LINE: seq N: SEVERITY: [CODE] message" (the
line and seq are left out where there is none). With --json, each finding is
a JSON object with the keys file, line, seq, code, severity and message (line
and seq null when there is none), and each file ends with a summary object
with the keys file, result ("ok", "problems" or "unreadable"), errors,
warnings and info.

FILE may be "-" for standard input, and may be zstd or gzip compressed; older
formats are checked as dsh migrates them. Every file is checked even when an
earlier one fails; the exit code is the worst: 1 when a file has problems, 3
when a file could not be read.`,
		Example: `  dshlog verify testdata/seed-vectors/loop-events.v4.jsonl
  dshlog verify --strict sessions/*.jsonl
  zstdcat session.v4.jsonl.zst | dshlog verify --json -`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.files = args
			return runVerify(opts, s)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print one JSON object per finding and per file summary")
	cmd.Flags().BoolVar(&opts.strict, "strict", false, "fail a file on warnings too")
	return cmd
}

// fileTally counts one file's findings by severity.
type fileTally [3]int

func (t fileTally) problems(strict bool) int {
	if strict {
		return t[verify.Error] + t[verify.Warning]
	}
	return t[verify.Error]
}

func runVerify(opts verifyOptions, s *streams) error {
	out := bufio.NewWriter(s.out)
	defer out.Flush()
	problems, failed, unreadable := 0, 0, 0
	for _, file := range opts.files {
		tally, err := verifyFile(file, opts, s, out)
		if err != nil {
			unreadable++
			out.Flush()
			printError(s.err, err)
			writeSummary(out, opts.json, displayName(file), "unreadable", tally)
			continue
		}
		result := "ok"
		if n := tally.problems(opts.strict); n > 0 {
			result = "problems"
			problems += n
			failed++
		}
		writeSummary(out, opts.json, displayName(file), result, tally)
	}
	if err := out.Flush(); err != nil {
		return err
	}
	switch {
	case unreadable > 0:
		return fmt.Errorf("%d of %d %s could not be verified", unreadable, len(opts.files), plural(len(opts.files), "file", "files"))
	case failed == 1 && len(opts.files) == 1:
		return &ProblemsError{File: displayName(opts.files[0]), Count: problems}
	case failed > 0:
		return &ProblemsError{File: fmt.Sprintf("%d of %d files", failed, len(opts.files)), Count: problems}
	}
	return nil
}

// verifyFile checks one file and prints its findings as they come; the
// error says the file could not be read.
func verifyFile(file string, opts verifyOptions, s *streams, out *bufio.Writer) (fileTally, error) {
	var tally fileTally
	events, err := openSession(file, s, migrate.Options{Recovery: v2.Recoverable})
	if err != nil {
		return tally, err
	}
	defer events.Close()
	if events.SourceVersion != v4.Version {
		note(s, "%s: format v%d, checked as dsh migrates it to v%d", events.name, events.SourceVersion, v4.Version)
	}
	_, err = verify.Check(events.Reader, func(f verify.Finding) {
		tally[f.Severity]++
		writeFinding(out, opts.json, events.name, f)
	})
	return tally, err
}

// displayName is the name a file is reported under.
func displayName(file string) string {
	if file == "-" {
		return "<stdin>"
	}
	return file
}

// writeFinding prints one finding as a line for people or a JSON object.
func writeFinding(w io.Writer, asJSON bool, file string, f verify.Finding) {
	var b []byte
	if asJSON {
		b = append(b, `{"file":`...)
		b = jsonv.AppendString(b, file)
		b = append(b, `,"line":`...)
		b = appendOptional(b, int64(f.Line), f.Line > 0)
		b = append(b, `,"seq":`...)
		b = appendOptional(b, f.Seq, f.Seq >= 0)
		b = append(b, `,"code":`...)
		b = jsonv.AppendString(b, f.Code)
		b = append(b, `,"severity":`...)
		b = jsonv.AppendString(b, f.Severity.String())
		b = append(b, `,"message":`...)
		b = jsonv.AppendString(b, f.Message)
		b = append(b, "}\n"...)
		w.Write(b)
		return
	}
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
	w.Write(b)
}

// appendOptional appends n, or null when it is not present.
func appendOptional(b []byte, n int64, present bool) []byte {
	if !present {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, n, 10)
}

// writeSummary prints a file's verdict and its counts.
func writeSummary(w io.Writer, asJSON bool, file, result string, t fileTally) {
	if asJSON {
		b := append([]byte(`{"file":`), jsonv.AppendString(nil, file)...)
		b = fmt.Appendf(b, `,"result":"%s","errors":%d,"warnings":%d,"info":%d}`+"\n", result, t[verify.Error], t[verify.Warning], t[verify.Info])
		w.Write(b)
		return
	}
	counts := fmt.Sprintf("%d %s, %d %s, %d info", t[verify.Error], plural(t[verify.Error], "error", "errors"),
		t[verify.Warning], plural(t[verify.Warning], "warning", "warnings"), t[verify.Info])
	switch result {
	case "ok":
		fmt.Fprintf(w, "%s: ok (%s)\n", file, counts)
	case "problems":
		fmt.Fprintf(w, "%s: problems found (%s)\n", file, counts)
	default:
		fmt.Fprintf(w, "%s: not verified: unreadable or unsupported\n", file)
	}
}

// plural picks the word that goes with n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
