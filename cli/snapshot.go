package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/snapshot"
)

func init() { addVerb(newSnapshotCommand) }

// newSnapshotCommand returns dshlog snapshot, the parent of the verbs that
// convert between real logs and dsh's normalized snapshot form.
func newSnapshotCommand(s *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "snapshot",
		Short: "Convert between session logs and dsh's normalized snapshot form, and compare them",
		Long: `dsh keeps regression sessions as normalized snapshots: rows without seq and
time, sourceEventSeqs written out, and placeholders for what changes from run
to run ({{cwd}}, {{session:N}}, {{message:N}}, {{id:N}}, {{workflow:N}},
{{system}}, {{tools}}). These verbs convert a log to that form (normalize),
back (restore), and compare a log with a stored snapshot (check).

Files may be plain JSONL, Zstandard or gzip (known by their content), as
for every other verb; "-" reads standard input.`,
	}
	cmd.AddCommand(newSnapshotNormalizeCommand(s), newSnapshotRestoreCommand(s), newSnapshotCheckCommand(s))
	return cmd
}

// idOptions are the id flags normalize and check share.
type idOptions struct {
	sessions  []string
	idFormats []string
}

func (o *idOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&o.sessions, "session", nil, "a session id known in advance, in order: the first is {{session:1}} (repeatable)")
	cmd.Flags().StringArrayVar(&o.idFormats, "id-format", nil, "KIND=FORMAT: ids spelled FORMAT (one %d) keep their own ordinal; replaces the default of KIND (repeatable)")
}

// normalizeOptions builds the package options from the flags.
func (o *idOptions) normalizeOptions() (snapshot.NormalizeOptions, error) {
	formats, err := idFormats(o.idFormats)
	return snapshot.NormalizeOptions{IDFormats: formats, Sessions: o.sessions}, err
}

// idFormats is R1's id formats with the --id-format flags applied.
func idFormats(flags []string) (map[string]string, error) {
	formats := snapshot.Defaults().IDFormats
	for _, f := range flags {
		kind, format, ok := strings.Cut(f, "=")
		if !ok || kind == "" || snapshot.CheckIDFormat(format) != nil {
			return nil, usageErrorf("--id-format %q: want KIND=FORMAT with one %%d, such as message=msg-%%d", f)
		}
		formats[kind] = format
	}
	return formats, nil
}

// snapshotNormalizeOptions are the inputs of dshlog snapshot normalize.
type snapshotNormalizeOptions struct {
	file, output string
	valuesOut    string
	ids          idOptions
}

func newSnapshotNormalizeCommand(s *streams) *cobra.Command {
	var opts snapshotNormalizeOptions
	cmd := &cobra.Command{
		Use:   "normalize FILE",
		Short: "Write a session log in dsh's normalized snapshot form",
		Long: `Write FILE in the form dsh's snapshot harness commits, as its normalizer does:
the header keeps its keys (cwd becomes {{cwd}}, the id {{session:N}}); body
rows lose seq, time, seq0 and time0; sourceEventSeqs are written out one by
one; the text of each system/message becomes {{system}} and the tools of each
request/header {{tools}} (their names when the log has developer messages);
the cwd becomes {{cwd}} wherever it stands in text; and ids become typed
placeholders numbered by first sight ({{message:N}}, {{session:N}},
{{id:N}}, {{workflow:N}}, …), the same id always the same placeholder.

Ids already spelled as restore spells them (R1: message-3, id-2, workflow-1,
00000000-0000-4000-8000-000000000002) keep their ordinal, so restore after
normalize gives a log back byte for byte when the same values are supplied;
--id-format KIND=FORMAT names other spellings. A child normalized alone is
numbered after its parent (its header's parentSession); name earlier siblings
with --session in order. --values-out writes what the placeholders stood for
(cwd, ids, system prompts, tool lists, clock) as JSON; "restore --values"
takes it and gives the log back byte for byte.

FILE is read twice (the first pass learns the ids), never held whole; a
compressed FILE or standard input is first decompressed to a private
temporary file.`,
		Example: `  dshlog snapshot normalize session.v4.jsonl -o snapshots/scenario/session.v4.jsonl
  dshlog snapshot normalize --session PARENT --session CHILD1 session.2.v4.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.file = args[0]
			return runSnapshotNormalize(opts, s)
		},
	}
	cmd.Flags().StringVarP(&opts.output, "output", "o", "-", `write to this file instead of standard output (never overwritten)`)
	cmd.Flags().StringVar(&opts.valuesOut, "values-out", "", "also write what the placeholders stood for to this JSON file (never overwritten)")
	opts.ids.addFlags(cmd)
	return cmd
}

func runSnapshotNormalize(opts snapshotNormalizeOptions, s *streams) error {
	normalizeOpts, err := opts.ids.normalizeOptions()
	if err != nil {
		return err
	}
	if opts.valuesOut != "" {
		if _, err := os.Lstat(opts.valuesOut); err == nil {
			return fmt.Errorf("%s: already exists; dshlog never overwrites a file", opts.valuesOut)
		}
	}
	src, name, closeSrc, err := openSeekable(opts.file, s)
	if err != nil {
		return err
	}
	defer closeSrc()
	var recorded snapshot.Recorded
	err = writeNewOutput(opts.output, s, func(w io.Writer) error {
		var err error
		recorded, err = snapshot.NormalizeRecorded(w, src, name, normalizeOpts)
		return err
	})
	if err != nil || opts.valuesOut == "" {
		return err
	}
	return writeNewOutput(opts.valuesOut, s, func(w io.Writer) error {
		_, err := w.Write(recorded.Encode())
		return err
	})
}

// snapshotRestoreOptions are the inputs of dshlog snapshot restore.
type snapshotRestoreOptions struct {
	file, output string
	cwd          string
	idFormats    []string
	systemFile   string
	toolsFile    string
	replace      []string
	timeStep     int64
	noExpected   bool
	values       string
	placeholders []string
}

func newSnapshotRestoreCommand(s *streams) *cobra.Command {
	var opts snapshotRestoreOptions
	cmd := &cobra.Command{
		Use:   "restore FILE",
		Short: "Write the session log a normalized snapshot stands for",
		Long: `Restore a normalized snapshot to a log dsh reads, by the corpus's restore
rules (testdata/corpus/golden/README.md):

  R1  placeholders get values: {{cwd}} /workspace/demo (--cwd), {{session:N}}
      00000000-0000-4000-8000-<N in 12 digits>, {{message:N}} message-N,
      {{id:N}} id-N, {{workflow:N}} workflow-N (--id-format KIND=FORMAT),
      {{system}} a one-line prompt (--system-file)
  R2  text rewrites, only when asked: --replace OLD=NEW (the corpus's
      primary variant uses --replace @x1a0f3n9/=@deepseek-ai/
      --replace @xfcodeai/=@deepseek-ai/)
  R3  {{tools}} in a request/header becomes a bash and a read tool
      (--tools-file, a JSON array)
  R4  seq counts rows from 0 (a v0 packed row takes one per chunk, as seq0)
  R5  time is createdAt + seq (×--time-step)
  R6  keys in the writer's order: type, seq, time, then the rest
  R7  sourceEventSeqs re-encoded with dsh's ranges

The named placeholders of dsh's pre-v1 snapshots get values too. S is the
log's session number: 1 for session.jsonl, K+1 for child K (session.K.jsonl),
2 for another log whose header names a parent. By R1's spelling:

  {{sessionId}}     the log's own id, session:S (00000000-0000-4000-8000-<S
                    in 12 digits>); as the header's parentSession the
                    parent's id, session:1; as a message's id a message id
                    (below)
  {{parent}}        the parent's id, session:1 (what the parent's restore
                    gives its own {{sessionId}} or {{parent}})
  {{child-N}}       child N's id, session:N+1
  {{messageId}}     a new id for each message, S-0000-4000-9000-<N in 12
                    digits> (S in 8 digits); a message an
                    agent/inbox/spliced row inserted keeps its id when a later
                    row delivers the same message
  {{rpcId}}         one RPC id per turn, S-0000-4000-a000-<N in 12 digits>
  {{workflow-run}}  workflow:1 (workflow-1)
  {{messagePrefix}} as an element of a request/header's messagePrefix, a
                    user message saying the snapshot did not keep its text
  {{KIND:N}}        KIND-N for a kind without a format (--id-format)

--placeholder NAME=VALUE gives {{NAME}} the value VALUE wherever it stands,
before these rules. A placeholder restore has no value for, or one standing
where its rule gives none (such as {{messagePrefix}} inside a text), fails
the restore (exit 3) naming it, its line and its place in the row; none is
ever left in the output.

When FILE's folder keeps what its placeholders stand for, as dsh's snapshot
folders do (system-prompt.expected.md and tool-schemas.expected.json for the
parent session, system-prompt.K.expected.md and tool-schemas.K.expected.json
for child K, session.K.v4.jsonl), restore puts them in as dsh's snapshot
harness does on replay and gives back the log dsh recorded; --no-expected
ignores them. A system prompt or tool list those files do not hold (the
folder keeps one prompt, the log has two) gets R1's prompt (--system-file)
or R3's tools (--tools-file) instead, with a warning naming its line.

--values FILE takes every value from what "normalize --values-out" wrote
(cwd, ids, prompts, tool lists, clock), so that restore gives back the log
that was normalized, byte for byte.`,
		Example: `  dshlog snapshot restore testdata/corpus/dsh/provider-cwd/session.v4.jsonl -o session.v4.jsonl
  dshlog snapshot restore --replace @x1a0f3n9/=@deepseek-ai/ snapshot.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.file = args[0]
			return runSnapshotRestore(opts, s)
		},
	}
	defaults := snapshot.Defaults()
	cmd.Flags().StringVarP(&opts.output, "output", "o", "-", `write to this file instead of standard output (never overwritten)`)
	cmd.Flags().StringVar(&opts.cwd, "cwd", defaults.Cwd, "the path {{cwd}} stands for")
	cmd.Flags().StringArrayVar(&opts.idFormats, "id-format", nil, "KIND=FORMAT: {{KIND:N}} becomes FORMAT with N for its one %d (repeatable)")
	cmd.Flags().StringVar(&opts.systemFile, "system-file", "", "a file holding the text {{system}} stands for")
	cmd.Flags().StringVar(&opts.toolsFile, "tools-file", "", "a file holding the JSON tool list {{tools}} stands for")
	cmd.Flags().StringArrayVar(&opts.replace, "replace", nil, "OLD=NEW: rewrite OLD to NEW in every row (rule R2; repeatable)")
	cmd.Flags().Int64Var(&opts.timeStep, "time-step", 1, "milliseconds per seq of the restored clock")
	cmd.Flags().BoolVar(&opts.noExpected, "no-expected", false, "ignore expectation files beside FILE")
	cmd.Flags().StringVar(&opts.values, "values", "", `the values "normalize --values-out" wrote`)
	cmd.Flags().StringArrayVar(&opts.placeholders, "placeholder", nil, "NAME=VALUE: {{NAME}} becomes VALUE wherever it stands (repeatable)")
	cmd.MarkFlagsMutuallyExclusive("values", "cwd")
	cmd.MarkFlagsMutuallyExclusive("values", "id-format")
	cmd.MarkFlagsMutuallyExclusive("values", "system-file")
	cmd.MarkFlagsMutuallyExclusive("values", "tools-file")
	cmd.MarkFlagsMutuallyExclusive("values", "time-step")
	return cmd
}

func runSnapshotRestore(opts snapshotRestoreOptions, s *streams) error {
	restoreOpts, err := opts.restoreOptions()
	if err != nil {
		return err
	}
	if opts.values != "" {
		text, err := os.ReadFile(opts.values)
		if err != nil {
			return err
		}
		recorded, err := snapshot.ParseRecorded(text)
		if err != nil {
			return fmt.Errorf("%s: %v", opts.values, err)
		}
		flagged := restoreOpts
		restoreOpts = recorded.RestoreOptions()
		restoreOpts.Replace, restoreOpts.Placeholders = flagged.Replace, flagged.Placeholders
	} else if opts.file != "-" && !opts.noExpected {
		if restoreOpts.Expected, err = snapshot.LoadExpected(opts.file); err != nil {
			return err
		}
		if restoreOpts.Expected != nil {
			prompts, tools := snapshot.ExpectedFiles(opts.file)
			var used []string
			if restoreOpts.Expected.Prompts != nil {
				used = append(used, filepath.Base(prompts))
			}
			if restoreOpts.Expected.Tools != nil {
				used = append(used, filepath.Base(tools))
			}
			note(s, "%s: placeholders filled from %s", opts.file, strings.Join(used, " and "))
		}
	}
	if opts.file != "-" {
		restoreOpts.Child = snapshot.ChildNumber(opts.file)
	}
	restoreOpts.Warn = func(w snapshot.Warning) {
		fmt.Fprintf(s.err, "dshlog: warning: %s\n", w)
	}
	in, name, closeIn, err := openText(opts.file, s)
	if err != nil {
		return err
	}
	defer closeIn()
	err = writeNewOutput(opts.output, s, func(w io.Writer) error {
		return snapshot.Restore(w, in, name, restoreOpts)
	})
	var unfilled *snapshot.UnfilledError
	if errors.As(err, &unfilled) {
		return withHint(err, fmt.Sprintf("give it a value with --placeholder '%s=VALUE'", unfilled.Name))
	}
	return err
}

// restoreOptions builds the package options from the flags.
func (o snapshotRestoreOptions) restoreOptions() (snapshot.RestoreOptions, error) {
	values := snapshot.Defaults()
	values.Cwd = o.cwd
	if o.timeStep < 1 {
		return snapshot.RestoreOptions{}, usageErrorf("--time-step %d: want a positive number of milliseconds", o.timeStep)
	}
	values.TimeStep = o.timeStep
	formats, err := idFormats(o.idFormats)
	if err != nil {
		return snapshot.RestoreOptions{}, err
	}
	values.IDFormats = formats
	if o.systemFile != "" {
		text, err := os.ReadFile(o.systemFile)
		if err != nil {
			return snapshot.RestoreOptions{}, err
		}
		values.System = snapshot.ParseSystemPrompts(string(text))[0]
	}
	if o.toolsFile != "" {
		text, err := os.ReadFile(o.toolsFile)
		if err != nil {
			return snapshot.RestoreOptions{}, err
		}
		tools, err := jsonv.Parse(text)
		if err != nil || tools.Kind() != jsonv.Array {
			return snapshot.RestoreOptions{}, fmt.Errorf("%s: not a JSON array of tools", o.toolsFile)
		}
		values.Tools = tools
	}
	opts := snapshot.RestoreOptions{Values: values}
	for _, p := range o.placeholders {
		name, value, ok := strings.Cut(p, "=")
		if !ok || name == "" || strings.ContainsAny(name, "{}") {
			return opts, usageErrorf("--placeholder %q: want NAME=VALUE, such as agent-1=agent-1", p)
		}
		if opts.Placeholders == nil {
			opts.Placeholders = map[string]string{}
		}
		opts.Placeholders[name] = value
	}
	for _, r := range o.replace {
		old, new, ok := strings.Cut(r, "=")
		if !ok || old == "" {
			return opts, usageErrorf("--replace %q: want OLD=NEW", r)
		}
		opts.Replace = append(opts.Replace, snapshot.Replacement{Old: old, New: new})
	}
	return opts, nil
}

// snapshotCheckOptions are the inputs of dshlog snapshot check.
type snapshotCheckOptions struct {
	log, snapshot string
	ids           idOptions
}

func newSnapshotCheckCommand(s *streams) *cobra.Command {
	var opts snapshotCheckOptions
	cmd := &cobra.Command{
		Use:   "check LOG SNAPSHOT",
		Short: "Compare a session log with a stored snapshot",
		Long: `Normalize LOG as "dshlog snapshot normalize" does and compare it with SNAPSHOT
row by row, so that what normalization removes (seq, time, ids, the cwd, the
system prompt and tool schemas) does not count. On the first difference print
the log's row (line, seq, type), where in the row it differs and both values,
and exit 1. The flags are normalize's.`,
		Example: `  dshlog snapshot check session.v4.jsonl testdata/snapshots/scenario/session.v4.jsonl`,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.log, opts.snapshot = args[0], args[1]
			return runSnapshotCheck(opts, s)
		},
	}
	opts.ids.addFlags(cmd)
	return cmd
}

func runSnapshotCheck(opts snapshotCheckOptions, s *streams) error {
	normalizeOpts, err := opts.ids.normalizeOptions()
	if err != nil {
		return err
	}
	if opts.log == "-" && opts.snapshot == "-" {
		return usageErrorf("only one of LOG and SNAPSHOT can be standard input")
	}
	log, logName, closeLog, err := openSeekable(opts.log, s)
	if err != nil {
		return err
	}
	defer closeLog()
	snap, snapName, closeSnap, err := openText(opts.snapshot, s)
	if err != nil {
		return err
	}
	defer closeSnap()
	diff, err := snapshot.Check(log, logName, snap, snapName, normalizeOpts)
	if err != nil {
		return err
	}
	out := bufio.NewWriter(s.out)
	defer out.Flush()
	if diff == nil {
		fmt.Fprintf(out, "%s matches %s\n", logName, snapName)
		return nil
	}
	fmt.Fprintf(out, "%s\n  snapshot: %s\n  log:      %s\n", describeDifference(diff, logName, snapName), diff.Snapshot, diff.Log)
	return &ProblemsError{File: logName, Count: 1}
}

// describeDifference is the first line check prints for a difference.
func describeDifference(d *snapshot.Difference, logName, snapName string) string {
	var b strings.Builder
	if d.Line > 0 {
		fmt.Fprintf(&b, "%s:%d: ", logName, d.Line)
	} else {
		fmt.Fprintf(&b, "%s: ", logName)
	}
	if d.Seq >= 0 {
		fmt.Fprintf(&b, "seq %d: ", d.Seq)
	}
	fmt.Fprintf(&b, "%s: ", d.Type)
	switch {
	case d.Line == 0:
		fmt.Fprintf(&b, "the log ends before %s:%d", snapName, d.SnapshotLine)
	case d.SnapshotLine == 0:
		fmt.Fprintf(&b, "the snapshot %s ends before this row", snapName)
	case d.Path == "":
		fmt.Fprintf(&b, "differs from %s:%d", snapName, d.SnapshotLine)
	default:
		fmt.Fprintf(&b, "differs from %s:%d at %s", snapName, d.SnapshotLine, d.Path)
	}
	return b.String()
}

// openSeekable opens the session file at path for reading twice, as
// plaintext. A plain regular file is read in place; a compressed one (zstd
// or gzip, known by content), a pipe or standard input ("-") is first
// spooled, decompressed, to a private unlinked temporary file.
func openSeekable(path string, s *streams) (io.ReadSeeker, string, func(), error) {
	text, name, closeText, err := openText(path, s)
	if err != nil {
		return nil, "", nil, err
	}
	if f, ok := text.(*os.File); ok {
		return f, name, closeText, nil
	}
	defer closeText()
	tmp, err := os.CreateTemp("", "dshlog-snapshot-*")
	if err != nil {
		return nil, "", nil, err
	}
	os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, text); err != nil {
		tmp.Close()
		return nil, "", nil, &jsonl.Error{File: name, Err: err}
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		tmp.Close()
		return nil, "", nil, err
	}
	return tmp, name, func() { tmp.Close() }, nil
}

// openText opens the session file at path ("-" for standard input) for
// reading once, as plaintext: a zstd or gzip file is decompressed as every
// other verb reads it. A plain regular file is returned as the *os.File
// itself, which can be read again.
func openText(path string, s *streams) (io.Reader, string, func(), error) {
	name := path
	if path == "-" {
		name = "<stdin>"
	}
	text, err := migrate.OpenText(path, s.in)
	if err != nil {
		return nil, "", nil, err
	}
	if text.Compression != jsonl.None || path == "-" || !isRegularFile(path) {
		return text, name, func() { text.Close() }, nil
	}
	text.Close()
	f, err := os.Open(path)
	if err != nil {
		return nil, "", nil, err
	}
	return f, name, func() { f.Close() }, nil
}

// isRegularFile reports whether path names a regular file, which can be
// opened and read again (a pipe cannot).
func isRegularFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}

// writeNewOutput writes a snapshot verb's output through write: to
// standard output ("-") once it is complete, else as a new file at output
// (publishNew). A failure leaves no partial output.
func writeNewOutput(output string, s *streams, write func(io.Writer) error) error {
	if output == "-" {
		return spoolToStdout(s.out, write)
	}
	return publishNew(output, "dshlog never overwrites a file", write)
}
