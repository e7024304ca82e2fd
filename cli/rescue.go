package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/lease"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/rescue"
	"github.com/dshlog/dshlog/store"
	"github.com/dshlog/dshlog/vocab"
)

// rescueOptions are the inputs of dshlog rescue.
type rescueOptions struct {
	file   string
	out    string
	json   bool
	dryRun bool
	vocab  vocabularyFlags
}

func init() { addVerb(newRescueCommand) }

// newRescueCommand returns dshlog rescue, which writes a log dsh opens from
// one it refuses.
func newRescueCommand(s *streams) *cobra.Command {
	var opts rescueOptions
	cmd := &cobra.Command{
		Use:   "rescue FILE|DIR",
		Short: "Write a log dsh opens from one it refuses, saying what was changed",
		Long: `rescue says why dsh refuses a v4 session log (verify's errors) and writes a
new log that dsh opens, by the rewrites known from the field:

  - a compaction/start written too early, so that a turn boundary crosses
    its bracket ("turn/end crosses an open compaction", "turn/start crosses
    an open compaction"): the start moves to just before its
    compaction/summary and takes the owner turn its compaction/end records;
    every seq reference in the log is renumbered (sourceEventSeqs, surfaceOp
    ranges, shadowedRange and shadowedSeqs, messageSeqs, headerSeq,
    sourceEventSeq, image/offload targets, throughSeq);
  - rows of two writers on one log (repeated or out-of-order seqs): the
    longest history is kept, the other writer's rows are set aside;
  - a damaged row or a torn last line: the longest prefix dsh accepts is
    kept and closed with dsh's crash closers.

A format v0 (or v1) log is first read as the build that wrote it reads it:
the v0 line, the pre-v1 dsh most forks still run, unless --dsh or a fork's
--vocabulary names another build of that line. What that build reads and
today's migrator refuses is read as the build does, each change listed: a
header without delegationDepth gets 0; a subagent/descriptor of payload
version 2 becomes version 3 (the same payload); a tool/result's data.artifact
(a spilled output's locator, never model-visible) is set aside, its JSON
printed; an event of the fork's own type is kept as an ignorable event,
which today's dsh skips. The log is then migrated to v4, and a series header
is added before each request after a compaction that broke the request
chain (the v0 line's writer opens no series; today's writer does). The
result is written as the session's current generation beside it
(session.v4.jsonl for session.jsonl), which today's dsh opens; the requests
rebuilt from it carry the same messages as the original read by its line.

Given a directory, rescue walks it as a dsh store and rescues each session
dsh refuses (the generation dsh would open); with --dry-run it only plans,
as an upgrading user checks a whole store first.

Each step is printed event by event: rows set aside with their line, bytes
and seq, starts moved (seq a → b), references rewritten, the history cut,
closers added. The result must pass dshlog verify with no error before it is
written. FILE itself is never modified.

The result goes to -o OUT, or beside FILE as <name>.rescued.jsonl (for
session.v4.jsonl: session.v4.rescued.jsonl), published as dsh's write open
publishes a generation: under the session directory's session.lock, staged
in a private file, synced, then linked into place; an existing file is never
replaced. --dry-run plans and verifies the result but writes nothing. --json
prints one JSON object per line: diagnosis findings, steps, and a result.

A v0 log's rescue keeps what the log holds: where verify still finds an error
dsh does not refuse the log for (a writer's guarantee the log broke as its own
line wrote it, such as a request with no request/header before it), the result
is written all the same and the errors are listed after it ("still:"; JSON:
remainingErrors), rather than cutting the history before them.`,
		Example: `  dshlog rescue ~/.dsh/sessions/--workspace--/ID/session.v4.jsonl
  dshlog rescue --dry-run ~/.dsh/sessions
  dshlog rescue --dry-run --json session.v4.jsonl
  dshlog rescue -o fixed.jsonl session.v4.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.file = args[0]
			return runRescue(opts, s)
		},
	}
	flags := cmd.Flags()
	flags.StringVarP(&opts.out, "output", "o", "", "write the rescued log to `OUT` (never replaced if it exists)")
	flags.BoolVar(&opts.json, "json", false, "print findings, steps and the result as JSON objects, one per line")
	flags.BoolVar(&opts.dryRun, "dry-run", false, "show the plan and verify its result, but write nothing")
	addVocabularyFlags(flags, &opts.vocab)
	return cmd
}

func runRescue(opts rescueOptions, s *streams) error {
	if opts.file == "-" {
		return usageErrorf("rescue needs a session file, not standard input")
	}
	vocabulary, err := opts.vocab.resolve()
	if err != nil {
		return err
	}
	before, err := os.Stat(opts.file)
	if err != nil {
		return err
	}
	if before.IsDir() {
		if opts.out != "" {
			return usageErrorf("-o names one file; a store's rescues are written beside each session")
		}
		return rescueStore(opts, vocabulary, s)
	}
	return rescueFile(opts, before, vocabulary, s)
}

// rescueStore rescues (or, with --dry-run, plans the rescue of) every
// session of the store under opts.file that dsh refuses: of each session
// the generation dsh would open. It goes on past a session it cannot
// rescue and fails at the end if there was one.
func rescueStore(opts rescueOptions, vocabulary *vocab.Vocabulary, s *streams) error {
	var logs []string
	walkErr := store.Walk(opts.file, func(d store.Dir) error {
		for _, l := range d.Current() {
			logs = append(logs, l.Path)
		}
		return nil
	}, nil)
	if walkErr != nil {
		return walkErr
	}
	if len(logs) == 0 {
		return fmt.Errorf("%s: no session log found under it", opts.file)
	}
	failed := 0
	for _, path := range logs {
		one := opts
		one.file = path
		info, err := os.Stat(path)
		if err == nil {
			err = rescueFile(one, info, vocabulary, s)
		}
		if err != nil {
			failed++
			printError(s.err, err)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%s: %d of %d sessions could not be rescued", opts.file, failed, len(logs))
	}
	return nil
}

// rescueFile rescues one session file, whose stat before reading is before.
func rescueFile(opts rescueOptions, before os.FileInfo, vocabulary *vocab.Vocabulary, s *streams) error {
	var err error
	target := opts.out
	if target == "" {
		target = filepath.Join(filepath.Dir(opts.file), rescuedName(filepath.Base(opts.file)))
		if version, ok := migrate.GenerationOf(filepath.Base(opts.file)); ok && version < 4 {
			// An older log's rescue is its current generation, the file
			// today's dsh opens beside it, as migrate would publish it.
			target = filepath.Join(filepath.Dir(opts.file), plainName(migrate.PublishedName(filepath.Base(opts.file))))
		}
	}
	stage := filepath.Dir(target)
	if opts.dryRun {
		if stage, err = os.MkdirTemp("", "dshlog-rescue-"); err != nil {
			return err
		}
		defer os.RemoveAll(stage)
	} else if sameDir(filepath.Dir(target), filepath.Dir(opts.file)) {
		// Publishing into the session's directory is a write open.
		held, err := lease.Acquire(filepath.Dir(opts.file), opts.file)
		if err != nil {
			return err
		}
		defer held.Release()
	}
	if _, err := os.Lstat(target); err == nil && !opts.dryRun {
		return targetExistsError(target)
	}
	res, staged, err := rescue.Rescue(opts.file, stage, rescue.Options{Now: wallClock, Read: migrate.Options{Vocabulary: vocabulary}})
	if err != nil {
		return err
	}
	if staged != "" {
		defer os.Remove(staged)
	}
	p := rescuePrinter{s: s, opts: opts}
	p.diagnosis(res)
	if res.Healthy {
		return p.healthy()
	}
	for _, step := range res.Steps {
		p.step(step)
	}
	if !opts.dryRun {
		if err := publishRescued(opts.file, before, staged, target); err != nil {
			return err
		}
	}
	if err := p.result(res, target); err != nil {
		return err
	}
	if _, generation := migrate.GenerationOf(filepath.Base(target)); !opts.dryRun && opts.out == "" && !generation {
		note(s, "dsh reads only its own generation names: to resume the rescued session, stop dsh and move %s over %s (keep a copy of the original)", target, opts.file)
	}
	return nil
}

// rescuedName is the name of a rescued log beside its source:
// session.v4.jsonl → session.v4.rescued.jsonl.
func rescuedName(base string) string {
	for _, ext := range []string{".jsonl.zstd", ".jsonl.zst", ".jsonl.gz", ".jsonl"} {
		if stem, ok := strings.CutSuffix(base, ext); ok && stem != "" {
			return stem + ".rescued.jsonl"
		}
	}
	return base + ".rescued.jsonl"
}

// plainName is a generation's name without a compression suffix: rescue
// writes plain text.
func plainName(base string) string {
	stem, _ := strings.CutSuffix(base, ".zstd")
	return stem
}

func sameDir(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(ia, ib)
}

// publishRescued links the verified staging file to target once the
// source is proven unchanged, never replacing a file, as migrate publishes
// a generation.
func publishRescued(source string, before os.FileInfo, staged, target string) error {
	err := migrate.PublishStaged(staged, target, func() error {
		same, err := migrate.StillSame(source, before)
		if err == nil && !same {
			err = fmt.Errorf("%s: changed while it was rescued; nothing written", source)
		}
		return err
	})
	if errors.Is(err, os.ErrExist) {
		return targetExistsError(target)
	}
	return err
}

// targetExistsError refuses a target that exists, found before rescuing or
// when linking the result into place.
func targetExistsError(target string) error {
	return fmt.Errorf("%s: refusing to write the rescued log: the file exists (rescue never replaces a file)", target)
}

// rescuePrinter prints a rescue for people, or as JSON lines.
type rescuePrinter struct {
	s    *streams
	opts rescueOptions
}

func (p rescuePrinter) json(members ...jsonv.Member) {
	fmt.Fprintf(p.s.out, "%s\n", jsonv.ObjectValue(members...).Encode())
}

func optionalInt(n int64) jsonv.Value {
	if n < 0 {
		return jsonv.NullValue()
	}
	return jsonv.IntValue(n)
}

func (p rescuePrinter) diagnosis(res rescue.Result) {
	if !p.opts.json && !res.Healthy {
		fmt.Fprintf(p.s.out, "%s: dsh refuses this log or verify finds errors:\n", p.opts.file)
	}
	for _, f := range res.Diagnosis {
		if p.opts.json {
			line := jsonv.NullValue()
			if f.Line > 0 {
				line = jsonv.IntValue(int64(f.Line))
			}
			p.json(jsonv.M("kind", jsonv.StringValue("diagnosis")), jsonv.M("line", line),
				jsonv.M("seq", optionalInt(f.Seq)), jsonv.M("code", jsonv.StringValue(f.Code)),
				jsonv.M("severity", jsonv.StringValue(f.Severity.String())), jsonv.M("message", jsonv.StringValue(f.Message)))
			continue
		}
		var where bytes.Buffer
		if f.Line > 0 {
			fmt.Fprintf(&where, "line %d: ", f.Line)
		}
		if f.Seq >= 0 {
			fmt.Fprintf(&where, "seq %d: ", f.Seq)
		}
		fmt.Fprintf(p.s.out, "  %s%s: [%s] %s\n", where.String(), f.Severity, f.Code, f.Message)
	}
}

func (p rescuePrinter) healthy() error {
	if p.opts.json {
		p.json(jsonv.M("kind", jsonv.StringValue("result")), jsonv.M("file", jsonv.NullValue()),
			jsonv.M("written", jsonv.BoolValue(false)), jsonv.M("events", jsonv.NullValue()), jsonv.M("bytes", jsonv.NullValue()))
		return nil
	}
	_, err := fmt.Fprintf(p.s.out, "%s: dsh opens this log and verify finds no error; nothing to rescue\n", p.opts.file)
	return err
}

// stepVerbs are the words the table uses for each kind of step.
var stepVerbs = map[string]string{
	rescue.StepSetAside:  "set aside",
	rescue.StepCut:       "cut",
	rescue.StepMove:      "moved",
	rescue.StepOwner:     "owner",
	rescue.StepReference: "rewrote",
	rescue.StepClose:     "closed",
	rescue.StepLift:      "read",
	rescue.StepSeries:    "added",
}

func (p rescuePrinter) step(st rescue.Step) {
	if p.opts.json {
		line, size := jsonv.NullValue(), jsonv.NullValue()
		if st.Line > 0 {
			line = jsonv.IntValue(int64(st.Line))
		}
		if st.Kind == rescue.StepSetAside {
			size = jsonv.IntValue(int64(st.Bytes))
		}
		members := []jsonv.Member{jsonv.M("kind", jsonv.StringValue(st.Kind)), jsonv.M("line", line), jsonv.M("bytes", size), jsonv.M("seq", optionalInt(st.Seq)), jsonv.M("to", optionalInt(st.To)),
			jsonv.M("type", jsonv.StringValue(st.Type)), jsonv.M("detail", jsonv.StringValue(st.Detail))}
		if st.Rule != "" {
			members = append(members, jsonv.M("rule", jsonv.StringValue(st.Rule)))
		}
		if st.SetAside != nil {
			members = append(members, jsonv.M("setAside", jsonv.StringValue(string(st.SetAside))))
		}
		if st.Migrated {
			members = append(members, jsonv.M("migrated", jsonv.BoolValue(true)))
		}
		p.json(members...)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  %-9s ", stepVerbs[st.Kind])
	switch {
	case st.Kind == rescue.StepSetAside:
		fmt.Fprintf(&b, "line %d", st.Line)
		if st.Migrated {
			b.WriteString(" of the migrated log")
		}
		fmt.Fprintf(&b, " (%d bytes", st.Bytes)
		if st.Seq >= 0 {
			fmt.Fprintf(&b, ", seq %d", st.Seq)
		}
		if st.Type != "" {
			fmt.Fprintf(&b, ", %s", st.Type)
		}
		b.WriteString(")")
	case st.Kind == rescue.StepCut && st.Migrated:
		fmt.Fprintf(&b, "at seq %d of the migrated log", st.Seq)
	case st.Kind == rescue.StepCut:
		fmt.Fprintf(&b, "at seq %d (line %d)", st.Seq, st.Line)
	case st.Kind == rescue.StepLift && st.Seq < 0:
		fmt.Fprintf(&b, "line %d header", st.Line)
	case st.Kind == rescue.StepLift:
		fmt.Fprintf(&b, "line %d seq %d", st.Line, st.Seq)
	case st.Seq >= 0 && st.To != st.Seq:
		fmt.Fprintf(&b, "seq %d → %d %s", st.Seq, st.To, st.Type)
	case st.Seq >= 0:
		fmt.Fprintf(&b, "seq %d %s", st.Seq, st.Type)
	default:
		fmt.Fprintf(&b, "seq %d %s", st.To, st.Type)
	}
	fmt.Fprintf(p.s.out, "%s: %s\n", b.String(), st.Detail)
	if st.SetAside != nil {
		fmt.Fprintf(p.s.out, "            set aside: %s\n", st.SetAside)
	}
}

func (p rescuePrinter) result(res rescue.Result, target string) error {
	if p.opts.json {
		members := []jsonv.Member{jsonv.M("kind", jsonv.StringValue("result")), jsonv.M("file", jsonv.StringValue(target)),
			jsonv.M("written", jsonv.BoolValue(!p.opts.dryRun)), jsonv.M("events", jsonv.IntValue(res.Events)),
			jsonv.M("bytes", jsonv.IntValue(res.Bytes))}
		if len(res.Remaining) > 0 {
			members = append(members, jsonv.M("remainingErrors", jsonv.IntValue(int64(len(res.Remaining)))))
		}
		p.json(members...)
		return nil
	}
	verb := "wrote"
	if p.opts.dryRun {
		verb = "would write"
	}
	verdict := "it verifies with no error"
	if len(res.Remaining) > 0 {
		verdict = fmt.Sprintf("dsh opens it, and verify still finds %d %s the log had as its own line wrote it", len(res.Remaining), plural(len(res.Remaining), "error", "errors"))
	}
	_, err := fmt.Fprintf(p.s.out, "%s %s (%d events, %d bytes); %s; %s is unchanged\n",
		verb, target, res.Events, res.Bytes, verdict, p.opts.file)
	for _, f := range res.Remaining {
		fmt.Fprintf(p.s.out, "  still: [%s] %s\n", f.Code, f.Message)
	}
	return err
}
