package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/session"
)

// migrateOptions are the inputs of dshlog migrate.
type migrateOptions struct {
	vocab    vocabularyFlags
	files    []string
	output   string
	check    bool
	recovery string
	json     bool
	children []string
}

func init() { addVerb(newMigrateCommand) }

// newMigrateCommand returns dshlog migrate, which carries old sessions to
// the current format byte for byte as dsh does.
func newMigrateCommand(s *streams) *cobra.Command {
	var opts migrateOptions
	cmd := &cobra.Command{
		Use:   "migrate FILE...",
		Short: "Migrate v0, v1, v2 and v3 sessions to the current format v4, as dsh does",
		Long: `migrate carries each session FILE to the current format (v4) exactly as dsh's
own migrator does: the same bytes, or dsh's own refusal.

By default it publishes the migrated generation beside its source the way
dsh's write open does: under the directory's session.lock, staged in a
private session.migration.<hex>.jsonl.tmp, checked that the source did not
change meanwhile, then linked as session.v4.jsonl (session.<K>.v4.jsonl in a
snapshot directory). The source is never modified, an existing file is never
replaced, and a refusal leaves nothing behind. Running it again finds its own
publication and writes nothing. A Zstandard source gets a Zstandard
generation (session.v4.jsonl.zstd). Like dsh, migrate reads a Zstandard
source only in dsh's own framing (the header line alone in the first
frame); decompress a file compressed whole by the zstd tool first.

-o OUT writes the migrated file to OUT instead ("-" for standard output) and
touches nothing else. --check migrates in memory only and says what would be
published. A file already in format v4 is current: migrate says so, and with
-o re-encodes it.

A historical parent session's subagent children complete its catalog, as in
dsh: they are found in dsh's store (sibling session directories) or beside
the file (session.<K>.jsonl with the same version); --child adds one.`,
		Example: `  dshlog migrate ~/.dsh/sessions/--workspace--/ID/session.v3.jsonl
  dshlog migrate --check session.v2.jsonl
  dshlog migrate -o - session.v3.jsonl | dshlog inspect -
  dshlog migrate --json */session.v3.jsonl`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.files = args
			return runMigrate(opts, s)
		},
	}
	flags := cmd.Flags()
	flags.StringVarP(&opts.output, "output", "o", "", `write the migrated file to `+"`OUT`"+` ("-" for standard output) instead of publishing beside the source`)
	flags.BoolVar(&opts.check, "check", false, "migrate in memory only and report what would be published")
	flags.StringVar(&opts.recovery, "recovery", "recoverable", "how damaged rows are treated: recoverable (dsh's default) or strict")
	flags.BoolVar(&opts.json, "json", false, "print one JSON report per file")
	flags.StringArrayVar(&opts.children, "child", nil, "take subagent catalog evidence from `FILE` too (repeatable)")
	addVocabularyFlags(flags, &opts.vocab)
	return cmd
}

// migrateReport is what migrate did with one file; --json prints it.
type migrateReport struct {
	File    string `json:"file"`
	Version int    `json:"version,omitempty"`
	// Status is published, already-published, would-publish, written,
	// checked (standard input with --check), current or refused.
	Status string `json:"status"`
	Target string `json:"target,omitempty"`
	Events int64  `json:"events,omitempty"`
	Bytes  int64  `json:"bytes,omitempty"`
	Cut    int64  `json:"inheritedEventCount,omitempty"`
	Error  string `json:"error,omitempty"`
	// Warnings say which children gave no catalog evidence.
	Warnings []string `json:"warnings,omitempty"`
}

// migrateMemoryLimit is the soft heap limit migrate runs under unless
// GOMEMLIMIT says otherwise: the chain keeps a few bytes per event, and the
// limit keeps the garbage of a large session from growing the process
// (peak RSS stays under 64 MiB at any size).
const migrateMemoryLimit = 40 << 20

// migrateGCPercent is the garbage collector's target migrate runs with
// unless GOGC says otherwise. What a migration keeps live is small (rows
// read ahead, a few bytes per event), so collecting at the default, when
// the heap has doubled, collects very often; at 4× it collects a quarter as
// often, and the memory limit above still bounds the process.
const migrateGCPercent = 400

func runMigrate(opts migrateOptions, s *streams) error {
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(migrateMemoryLimit))
	}
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(migrateGCPercent))
	}
	recovery, err := parseRecovery(opts.recovery)
	if err != nil {
		return err
	}
	if opts.output != "" && len(opts.files) > 1 {
		return usageErrorf("-o writes one migrated file; give one FILE")
	}
	if opts.output != "" && opts.check {
		return usageErrorf("--check writes nothing; drop -o or --check")
	}
	v, err := opts.vocab.resolve()
	if err != nil {
		return err
	}
	base := migrate.OpenOptions{Options: migrate.Options{Recovery: recovery, Vocabulary: v, AsMigrator: true}, ChildFiles: opts.children}
	var failed []error
	for _, file := range opts.files {
		fileOpts := base
		progress := newProgress(s, file)
		fileOpts.Progress = progress.update
		report, err := migrateFile(file, opts, fileOpts, s)
		progress.done()
		if err != nil {
			err = explainRefusal(withRefusalClass(err))
			report.Status, report.Error = "refused", err.Error()
			failed = append(failed, err)
		}
		if opts.json {
			if err := json.NewEncoder(s.out).Encode(report); err != nil {
				return err
			}
		} else if err == nil && opts.output != "-" {
			fmt.Fprintln(s.out, describe(report))
		}
		for _, w := range report.Warnings {
			note(s, "%s", w)
		}
		if err != nil && len(opts.files) > 1 {
			printError(s.err, err)
		}
	}
	switch {
	case len(failed) == 0:
		return nil
	case len(opts.files) == 1:
		return failed[0]
	}
	return &migrateFailures{failed: len(failed), total: len(opts.files)}
}

// migrateFailures says how many of several files were not migrated; each
// failure has been printed already.
type migrateFailures struct{ failed, total int }

func (e *migrateFailures) Error() string {
	return fmt.Sprintf("%d of %d files were not migrated", e.failed, e.total)
}

func parseRecovery(s string) (v2.Recovery, error) {
	switch s {
	case "recoverable":
		return v2.Recoverable, nil
	case "strict":
		return v2.Strict, nil
	}
	return 0, usageErrorf("--recovery must be recoverable or strict, not %q", s)
}

// migrateFile does what the options ask with one file.
func migrateFile(file string, opts migrateOptions, fileOpts migrate.OpenOptions, s *streams) (migrateReport, error) {
	report := migrateReport{File: file}
	if opts.output != "" {
		return writeOutput(file, opts.output, fileOpts, s, report)
	}
	if file == "-" && opts.check {
		return checkStream(fileOpts, s, report)
	}
	if file == "-" {
		return report, usageErrorf("standard input has no directory to publish beside: use -o OUT or --check")
	}
	publish := migrate.Publish
	if opts.check {
		publish = migrate.Check
	}
	done, err := publish(file, fileOpts)
	report.Version = done.SourceVersion
	if errors.Is(err, migrate.ErrCurrent) {
		return checkCurrent(file, opts.check, fileOpts, report)
	}
	report.Target, report.Events, report.Bytes, report.Cut = done.Target, done.Events, done.Bytes, done.Written.Cut
	report.Warnings = done.Warnings
	switch {
	case err != nil:
		return report, err
	case done.Existing:
		report.Status = "already-published"
	case opts.check:
		report.Status = "would-publish"
	default:
		report.Status = "published"
	}
	return report, nil
}

// checkCurrent reports a file already in the current format; --check reads
// it through dsh's current checks.
func checkCurrent(file string, check bool, fileOpts migrate.OpenOptions, report migrateReport) (migrateReport, error) {
	report.Status = "current"
	if !check {
		return report, nil
	}
	src, err := migrate.Open(file, nil, fileOpts)
	if err != nil {
		return report, err
	}
	defer src.Close()
	written, err := migrate.Encode(io.Discard, src.Reader)
	report.Events, report.Bytes, report.Cut = written.Events, written.Bytes, written.Cut
	return report, err
}

// checkStream migrates standard input in memory.
func checkStream(fileOpts migrate.OpenOptions, s *streams, report migrateReport) (migrateReport, error) {
	src, err := migrate.Open("-", s.in, fileOpts)
	if err != nil {
		return report, err
	}
	defer src.Close()
	report.Version, report.Warnings, report.Status = src.SourceVersion, src.Warnings, "checked"
	if src.SourceVersion == 4 {
		report.Status = "current"
	}
	written, err := migrate.Encode(io.Discard, src.Reader)
	report.Events, report.Bytes, report.Cut = written.Events, written.Bytes, written.Cut
	return report, err
}

// writeOutput migrates (or re-encodes) file into out; standard output gets
// the bytes only once the whole session has been migrated.
func writeOutput(file, out string, fileOpts migrate.OpenOptions, s *streams, report migrateReport) (migrateReport, error) {
	src, err := migrate.Open(file, s.in, fileOpts)
	if err != nil {
		return report, err
	}
	defer src.Close()
	report.Version, report.Warnings = src.SourceVersion, src.Warnings
	report.Status, report.Target = "written", out
	var written migrate.Written
	if out == "-" {
		err = spoolToStdout(s.out, func(w io.Writer) error {
			written, err = migrate.Encode(w, src.Reader)
			return err
		})
	} else {
		written, err = migrate.Save(src, out)
	}
	report.Events, report.Bytes, report.Cut = written.Events, written.Bytes, written.Cut
	return report, err
}

// describe is the line migrate prints for a file.
func describe(r migrateReport) string {
	target := filepath.Base(r.Target)
	switch r.Status {
	case "published":
		return fmt.Sprintf("%s: v%d → %s (%d events, %d bytes)", r.File, r.Version, target, r.Events, r.Bytes)
	case "already-published":
		return fmt.Sprintf("%s: already published as %s", r.File, target)
	case "would-publish":
		return fmt.Sprintf("%s: v%d → would publish %s (%d events, %d bytes)", r.File, r.Version, target, r.Events, r.Bytes)
	case "written":
		return fmt.Sprintf("%s: v%d → %s (%d events, %d bytes)", r.File, r.Version, r.Target, r.Events, r.Bytes)
	case "checked":
		return fmt.Sprintf("%s: v%d → migrates (%d events, %d bytes)", r.File, r.Version, r.Events, r.Bytes)
	}
	if r.Events > 0 {
		return fmt.Sprintf("%s: already current (v4, %d events): nothing to migrate", r.File, r.Events)
	}
	return fmt.Sprintf("%s: already current (v4): nothing to migrate", r.File)
}

// withRefusalClass makes a dsh refusal read as dsh prints it,
// "<Class>: <message>", after the file and line.
func withRefusalClass(err error) error {
	var refusal *session.Refusal
	if !errors.As(err, &refusal) {
		return err
	}
	// Only an error that says no more than the refusal (the refusal itself,
	// or a typed one such as v4.UnknownTypeError) takes its class.
	bare := func(e error) bool { return e.Error() == refusal.Error() }
	var located *jsonl.Error
	if errors.As(err, &located) && bare(located.Err) {
		copied := *located
		copied.Err = classed{located.Err, refusal}
		return &copied
	}
	if bare(err) {
		return classed{err, refusal}
	}
	return err
}

// classed prints a refusal with its class; err is the refusal or the
// error that carries it.
type classed struct {
	err     error
	refusal *session.Refusal
}

func (c classed) Error() string { return c.refusal.Text() }

func (c classed) Unwrap() error { return c.err }

// progress shows how far a large file has been read, on a terminal only.
type progress struct {
	s     *streams
	file  string
	last  time.Time
	shown bool
}

// progressMin is the size from which a file's progress is shown.
const progressMin = 16 << 20

func newProgress(s *streams, file string) *progress {
	f, ok := s.err.(*os.File)
	if !ok {
		return &progress{}
	}
	if info, err := f.Stat(); err != nil || info.Mode()&os.ModeCharDevice == 0 {
		return &progress{}
	}
	return &progress{s: s, file: file}
}

func (p *progress) update(read, size int64) {
	if p.s == nil || size < progressMin || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last, p.shown = time.Now(), true
	fmt.Fprintf(p.s.err, "\r%s: %3d%% (%d of %d MB)", p.file, read*100/size, read>>20, size>>20)
}

func (p *progress) done() {
	if p.shown {
		fmt.Fprint(p.s.err, "\r\033[K")
	}
}
