package cli

import (
	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/migrate/lift"
	"github.com/dshlog/dshlog/verify"
	"github.com/dshlog/dshlog/verify/batch"
	"github.com/dshlog/dshlog/verify/report"
	"github.com/dshlog/dshlog/vocab"
)

// verifyFollowed judges one session as dsh appends to it: each finding is
// reported when the event that causes it arrives, the findings about the
// log's end and the verdict when following ends (Ctrl-C or --idle).
func verifyFollowed(opts verifyOptions, run *verifyRun, vocabulary *vocab.Vocabulary) error {
	switch {
	case len(opts.inputs) > 1:
		return usageErrorf("--follow judges one session: give one FILE or DIR, not %d", len(opts.inputs))
	case opts.junit != "" || opts.writeBaseline != "" || opts.shard != "" || opts.allGenerations:
		return usageErrorf("--follow judges one session as it grows; --junit, --write-baseline, --shard and --all-generations are for finished files")
	}
	s := run.s
	ctx, stop := followContext()
	defer stop()
	arg := ""
	if len(opts.inputs) == 1 {
		arg = opts.inputs[0]
	}
	path, err := followTarget(arg, s)
	if err != nil {
		return err
	}
	run.oneFile = true
	run.build = vocabulary.Build()
	result := batch.Result{Target: batch.Target{Path: path, Size: -1}, SourceVersion: -1}
	reportFinding := func(f verify.Finding) {
		result.Findings = append(result.Findings, f)
		if run.err == nil && !run.judgement.Baseline.Covers(batch.DisplayName(path), f) {
			run.err = run.writer.Finding(batch.DisplayName(path), f)
		}
	}
	events, err := openFollowed(ctx, path, s, migrate.Options{Recovery: v2.Recoverable, Vocabulary: vocabulary}, opts.follow,
		func() { run.out.Flush() })
	if refused, ok := migrate.HeaderRefusal(err); ok {
		// As on a finished file: the log was read, and dsh refuses it.
		if version, ok := migrate.StoredVersion(path); ok {
			result.SourceVersion = version
			run.noteFormat(result)
		}
		reportFinding(verify.Finding{Code: verify.CodeCodecRefused, Severity: verify.Error, Seq: -1, Line: 1, Message: refused.Text()})
	} else if err != nil {
		return err
	} else {
		defer events.Close()
		if err := judgeFollowed(events, run, &result, reportFinding); err != nil {
			return err
		}
	}
	f := report.NewFile(result, run.judgement)
	run.summary.Add(f)
	f.Findings = nil // reported as they came
	if run.err == nil {
		run.err = run.writer.File(f)
	}
	if err := run.out.Flush(); run.err == nil {
		run.err = err
	}
	if run.err != nil {
		return run.err
	}
	return verifyOutcome(run.summary, []batch.Target{result.Target})
}

// judgeFollowed judges the events of a followed session into result,
// handing each finding to report as it is found, with the notes a
// finished file gets.
func judgeFollowed(events *followedSession, run *verifyRun, result *batch.Result, report func(verify.Finding)) error {
	s := run.s
	if events.Unframed {
		note(s, "%s: Zstandard stream not in dsh's framing (the header line is not alone in the first frame); read as plain text, though dsh itself would refuse this file", events.name)
	}
	result.SourceVersion = events.SourceVersion
	var err error
	result.Chain, err = verify.Check(events.Reader, report)
	events.noteEnd(s)
	run.noteFormat(*result)
	if lifted := events.LiftCounts().Summary(lift.BuildRules...); lifted != "" {
		note(s, "%s: read as the build that wrote it reads it, where today's migrator refuses: %s", events.name, lifted)
	}
	if err != nil {
		run.out.Flush()
	}
	return err
}
