package cli

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/verify"
	"github.com/dshlog/dshlog/verify/batch"
	"github.com/dshlog/dshlog/verify/report"
	"github.com/dshlog/dshlog/vocab"
)

// verifyOptions are the inputs of dshlog verify.
type verifyOptions struct {
	inputs         []string
	json           bool
	format         string
	strict         bool
	jobs           int
	shard          string
	allGenerations bool
	junit          string
	baseline       string
	writeBaseline  string
	explain        string
	vocab          vocabularyFlags
	follow         followFlags
}

func init() { addVerb(newVerifyCommand) }

// newVerifyCommand returns dshlog verify, the CI gate for recorded sessions.
func newVerifyCommand(s *streams) *cobra.Command {
	var opts verifyOptions
	cmd := &cobra.Command{
		Use:   "verify FILE|DIR...",
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
"dshlog verify --explain CODE" says what a finding code means.

Inputs are files, directories and "-" (standard input). A directory is walked
for dsh's session log names (session.jsonl, session.v<N>.jsonl,
session.<K>.jsonl, session.<K>.v<N>.jsonl, each possibly .zst, .zstd or .gz
compressed); of the generations in one directory, the one dsh would open is
judged, or every one with --all-generations. Subagent children beside a
historical session give it their catalog evidence as dsh's migration takes it.
Files are judged in parallel (-j) and reported sorted by path; --shard I/N
judges only the files whose path hash falls into shard I of N. A file in an
older format (v0 to v3) is judged as dsh migrates it, with a note on stderr;
over many files, one note per format counts them.

An event type the dsh build does not know (--dsh, default the current
official line) is an unknown-event-type error, as that dsh refuses the log;
when a build dshlog knows of declares the type, a hint line names it and the
flag that accepts it (--dsh NAME, or --vocabulary with the fork's files).

Findings are printed as "FILE:LINE: seq N: SEVERITY: [CODE] message" (the
line and seq are left out where there is none), then for each file its verdict
and, when it folds to its end, the request-reconstruction theorem in one line:
how many requests were rebuilt, how many extend the previous one, and each
break with its cause and what explains it. A summary table ends a run of more
than one file. With --json (or --format json), each finding is a JSON object
with the keys file, line, seq, code, severity and message (line and seq null
when there is none) and hint when the finding has one, and each file ends
with an object with the keys file, result ("ok", "problems" or
"unreadable"), errors, warnings, info, baselined and theorem (the request chain, null when the file does not fold to its end),
and reason (why) when the file is unreadable. A log dsh refuses (its header
or a row) is a codec-refused finding, exit 1; a file that cannot be read at
all, is not a session log or is in a newer format is unreadable, exit 3.
--format github prints GitHub Actions workflow commands, --junit FILE writes a
JUnit XML report, and --baseline FILE lets the findings listed in FILE (by
file, code and seq) pass; --write-baseline FILE writes the current findings
(errors and warnings) and passes unless a file could not be read.

Every file is checked even when an earlier one fails; the exit code is the
worst: 1 when a file has problems, 3 when a file could not be read.

` + followHelp + ` A finding is
reported when the event that causes it arrives; those only the log's end
can tell (open-tail, torn-tail, codec-dropped-rows, a fork's closers left
out) come when following ends, with the verdict. --follow judges one session:
--junit, --write-baseline, --shard and --all-generations are for finished
files.`,
		Example: `  dshlog verify testdata/seed-vectors/loop-events.v4.jsonl
  dshlog verify --strict sessions/
  dshlog verify --format github --junit verify.xml recorded-sessions/
  dshlog verify --shard 2/4 -j 8 ~/.dsh/sessions
  zstdcat session.v4.jsonl.zst | dshlog verify --json -
  dshlog verify --explain request-not-extending
  dshlog verify --follow --idle 10m ~/.dsh/sessions`,
		Args: func(cmd *cobra.Command, args []string) error {
			if opts.explain != "" {
				return cobra.NoArgs(cmd, args)
			}
			return followArgs(&opts.follow, cobra.MinimumNArgs(1))(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.inputs = args
			if opts.explain != "" {
				return runExplain(opts.explain, s)
			}
			return runVerify(opts, s)
		},
	}
	flags := cmd.Flags()
	flags.BoolVar(&opts.json, "json", false, "print one JSON object per finding and per file (--format json)")
	flags.StringVar(&opts.format, "format", "text", "report `FORMAT`: text, json or github (GitHub Actions workflow commands)")
	flags.BoolVar(&opts.strict, "strict", false, "fail a file on warnings too")
	flags.IntVarP(&opts.jobs, "jobs", "j", 0, "judge `N` files in parallel (0: one per CPU)")
	flags.StringVar(&opts.shard, "shard", "", "judge only shard `I/N` of the files (by path hash; I from 1 to N)")
	flags.BoolVar(&opts.allGenerations, "all-generations", false, "in a walked directory, judge every generation, not only the one dsh would open")
	flags.StringVar(&opts.junit, "junit", "", "also write a JUnit XML report to `FILE`")
	flags.StringVar(&opts.baseline, "baseline", "", "let the findings listed in `FILE` pass (matched by file, code and seq)")
	flags.StringVar(&opts.writeBaseline, "write-baseline", "", "write the findings of this run to `FILE` as a baseline, and pass unless a file is unreadable")
	flags.StringVar(&opts.explain, "explain", "", "say what finding `CODE` means, why dsh cares and how it arises")
	addVocabularyFlags(flags, &opts.vocab)
	addFollowFlags(flags, &opts.follow)
	return cmd
}

// runVerify judges every input and writes the reports.
func runVerify(opts verifyOptions, s *streams) error {
	defer tuneReadHeap()()
	run, err := newVerifyRun(opts, s)
	if err != nil {
		return err
	}
	vocabulary, err := opts.vocab.resolve()
	if err != nil {
		return err
	}
	if err := opts.follow.check(); err != nil {
		return err
	}
	if opts.follow.on {
		return verifyFollowed(opts, run, vocabulary)
	}
	targets, empty := batch.Expand(opts.inputs, batch.Selection{AllGenerations: opts.allGenerations})
	for _, dir := range empty {
		note(s, "%s: no session logs found", dir)
	}
	if len(targets) == 0 {
		return fmt.Errorf("no session logs to verify in %s", strings.Join(opts.inputs, ", "))
	}
	targets = run.shard.Filter(targets)
	run.oneFile = len(targets) == 1
	run.build = vocabulary.Build()
	run.progress = newVerifyProgress(s, targets)
	batch.Run(targets, batch.Options{Jobs: run.jobs, Stdin: s.in,
		Open: migrate.OpenOptions{Options: migrate.Options{Recovery: v2.Recoverable, Vocabulary: vocabulary}, AnyZstdFraming: true}}, run.file)
	if err := run.finish(opts); err != nil {
		return err
	}
	if opts.writeBaseline != "" && run.summary.Unreadable == 0 {
		return nil // every finding is in the baseline just written
	}
	return verifyOutcome(run.summary, targets)
}

// verifyRun is one run of dshlog verify: how it judges, the reports it
// writes as the files come, and what they add up to.
type verifyRun struct {
	s         *streams
	out       *bufio.Writer
	writer    report.Writer
	junit     *report.JUnit // nil without --junit
	judgement report.Judgement
	shard     batch.Shard
	jobs      int
	progress  *report.Progress // nil when stderr is not a terminal
	summary   report.Summary
	// known collects the findings for --write-baseline; nil without it.
	known []report.BaselineEntry
	// oneFile is true when a single file is judged: its format note is
	// printed with its other notes. Over many files, the files in each
	// older format are counted in migrated and said in one note at the end.
	oneFile  bool
	migrated map[int]*migratedFiles
	// build is the dsh build the files are judged as written by.
	build *vocab.Build
	// err is the first error writing the report; after it, nothing more
	// is written.
	err error
}

// newVerifyRun checks the options and reads the baseline.
func newVerifyRun(opts verifyOptions, s *streams) (*verifyRun, error) {
	run := &verifyRun{s: s, out: bufio.NewWriter(s.out), judgement: report.Judgement{Strict: opts.strict},
		shard: batch.Shard{Index: 1, Count: 1}, jobs: opts.jobs}
	format := opts.format
	if opts.json {
		format = "json"
	}
	switch format {
	case "text":
		run.writer = report.NewText(run.out)
	case "json":
		run.writer = report.NewJSON(run.out)
	case "github":
		run.writer = report.NewGitHub(run.out, opts.strict)
	default:
		return nil, usageErrorf("unknown --format %q (text, json or github)", opts.format)
	}
	if opts.shard != "" {
		var err error
		if run.shard, err = batch.ParseShard(opts.shard); err != nil {
			return nil, usageErrorf("%v", err)
		}
	}
	switch {
	case run.jobs < 0:
		return nil, usageErrorf("-j %d: the number of files judged in parallel cannot be negative", run.jobs)
	case run.jobs == 0:
		run.jobs = runtime.NumCPU()
	}
	if opts.junit != "" {
		run.junit = report.NewJUnit(opts.strict)
	}
	if opts.writeBaseline != "" {
		run.known = []report.BaselineEntry{}
	}
	if opts.baseline != "" {
		baseline, err := readBaseline(opts.baseline)
		if err != nil {
			return nil, err
		}
		run.judgement.Baseline = baseline
	}
	return run, nil
}

// file reports one judged file, in path order: its notes and any error on
// stderr, its findings and verdict in every report.
func (run *verifyRun) file(r batch.Result) {
	f := report.NewFile(r, run.judgement)
	run.summary.Add(f)
	if run.known != nil {
		for _, finding := range r.Findings {
			if finding.Severity != verify.Info {
				run.known = append(run.known, report.EntryOf(f.Name, finding))
			}
		}
	}
	if run.err != nil {
		return
	}
	if run.progress != nil {
		run.progress.Clear()
	}
	for _, n := range r.Notes {
		note(run.s, "%s", n)
	}
	run.noteFormat(r)
	if f.Verdict == report.Unreadable {
		run.out.Flush()
		printError(run.s.err, explainRefusal(f.Err))
	}
	run.err = run.writer.File(f)
	if run.junit != nil {
		run.junit.File(f)
	}
	if run.progress != nil {
		run.out.Flush()
		run.progress.Done(r.Size)
	}
}

// migratedFiles counts the judged files stored in one older format.
type migratedFiles struct {
	count int
	first string // the first such file's name
}

// noteFormat says that a file in an older format was judged as dsh
// migrates it: at once for a single file, else counted for finish.
func (run *verifyRun) noteFormat(r batch.Result) {
	if r.SourceVersion < 0 || r.SourceVersion == v4.Version {
		return
	}
	name := batch.DisplayName(r.Path)
	if run.oneFile {
		note(run.s, "%s: format v%d, %s", name, r.SourceVersion, run.howJudged(r.SourceVersion, "it"))
		return
	}
	if run.migrated == nil {
		run.migrated = map[int]*migratedFiles{}
	}
	if m := run.migrated[r.SourceVersion]; m != nil {
		m.count++
	} else {
		run.migrated[r.SourceVersion] = &migratedFiles{count: 1, first: name}
	}
}

// noteFormats says, one line per older format, how many of the judged files
// were in it.
func (run *verifyRun) noteFormats() {
	for _, version := range slices.Sorted(maps.Keys(run.migrated)) {
		m := run.migrated[version]
		if m.count == 1 {
			note(run.s, "1 file is format v%d (%s); %s", version, m.first, run.howJudged(version, "it"))
			continue
		}
		note(run.s, "%d files are format v%d; %s", m.count, version, run.howJudged(version, "them"))
	}
}

// howJudged says how files of an older format were judged: as their own
// build reads them when its format is theirs, else as dsh migrates them.
func (run *verifyRun) howJudged(version int, them string) string {
	if run.build != nil && run.build.Format == version {
		return fmt.Sprintf("checked as dsh %s reads its own format, migrated in memory to v%d to be judged", run.build.Name, v4.Version)
	}
	return fmt.Sprintf("checked as dsh migrates %s to v%d", them, v4.Version)
}

// finish writes the summary and the report files.
func (run *verifyRun) finish(opts verifyOptions) error {
	if run.progress != nil {
		run.progress.Clear()
	}
	run.noteFormats()
	if run.err == nil {
		run.err = run.writer.Summary(&run.summary)
	}
	if err := run.out.Flush(); run.err == nil {
		run.err = err
	}
	if run.err != nil {
		return run.err
	}
	if run.junit != nil {
		if err := publishFile(opts.junit, run.junit.WriteTo); err != nil {
			return err
		}
	}
	if run.known != nil {
		return publishFile(opts.writeBaseline, func(w io.Writer) (int64, error) {
			return 0, report.WriteBaseline(w, run.known)
		})
	}
	return nil
}

// verifyOutcome is the error the run ends with, the worst first: files
// that could not be read, then files with problems.
func verifyOutcome(summary report.Summary, targets []batch.Target) error {
	files := fmt.Sprintf("%d of %d %s", summary.Unreadable, summary.Files, plural(summary.Files, "file", "files"))
	switch {
	case summary.Unreadable > 0:
		return fmt.Errorf("%s could not be verified", files)
	case summary.Problems == 1 && summary.Files == 1:
		return &ProblemsError{File: batch.DisplayName(targets[0].Path), Count: summary.Failing}
	case summary.Problems > 0:
		return &ProblemsError{File: fmt.Sprintf("%d of %d files", summary.Problems, summary.Files), Count: summary.Failing}
	}
	return nil
}

// readBaseline reads the baseline file at path.
func readBaseline(path string) (*report.Baseline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	baseline, err := report.ReadBaseline(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return baseline, nil
}

// publishFile writes a report file through write: to a temporary file
// beside path, synced, then renamed over path, so path holds the whole
// report or what it held before.
func publishFile(path string, write func(io.Writer) (int64, error)) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	buffered := bufio.NewWriter(tmp)
	err = tmp.Chmod(0o644)
	if err == nil {
		_, err = write(buffered)
	}
	if err == nil {
		err = buffered.Flush()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if closeErr := tmp.Close(); err == nil {
		err = closeErr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	return err
}

// newVerifyProgress returns the progress of a run, or nil when standard
// error is not a terminal.
func newVerifyProgress(s *streams, targets []batch.Target) *report.Progress {
	f, ok := s.err.(*os.File)
	if !ok {
		return nil
	}
	if info, err := f.Stat(); err != nil || info.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	var size int64
	for _, t := range targets {
		size += max(t.Size, 0)
	}
	return report.NewProgress(s.err, len(targets), size)
}

// runExplain prints the explanation of a finding code.
func runExplain(code string, s *streams) error {
	e, ok := verify.Explain(code)
	if !ok {
		var codes []string
		for _, e := range verify.Explanations() {
			codes = append(codes, e.Code)
		}
		return withHint(usageErrorf("unknown finding code %q", code), "the codes are: "+strings.Join(codes, ", "))
	}
	_, err := io.WriteString(s.out, report.Explanation(e))
	return err
}

// plural picks the word that goes with n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
