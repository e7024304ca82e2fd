// Package cli is the dshlog command: a cobra tree whose verbs are thin glue
// over packages that never import cobra, print or exit.
//
// # Adding a verb
//
// A verb lives in its own file, cli/<verb>.go, and has three parts:
//
//	// fooOptions are the inputs of dshlog foo, filled from flags and arguments.
//	type fooOptions struct{ file string; json bool }
//
//	func init() { addVerb(newFooCommand) }
//
//	// newFooCommand returns the cobra command that fills fooOptions.
//	func newFooCommand(s *streams) *cobra.Command {
//		var opts fooOptions
//		cmd := &cobra.Command{
//			Use:   "foo FILE",
//			Short: "One line, lowercase, no trailing period",
//			Args:  cobra.ExactArgs(1),
//			RunE: func(cmd *cobra.Command, args []string) error {
//				opts.file = args[0]
//				return runFoo(opts, s)
//			},
//		}
//		cmd.Flags().BoolVar(&opts.json, "json", false, "print JSON lines")
//		return cmd
//	}
//
//	// runFoo does the work with injected streams; tests call it through Run.
//	func runFoo(opts fooOptions, s *streams) error { ... }
//
// Rules the tree relies on:
//   - Write to s.out and s.err only, never to os.Stdout; read s.in for "-".
//     Open session files with openSession, which handles "-", zstd and gzip.
//   - Return errors, never print them or exit: Run prints every error once as
//     "dshlog: error: ..." and maps it to an exit code in exit.go. An error
//     cobra raises before RunE starts (flags, arguments, unknown verb) is a
//     usage error by construction; a usage problem found later (a bad flag
//     value) is returned as usageErrorf(...). Wrap an error withHint(err,
//     "...") to add "dshlog: hint:" lines.
//   - A verb that finds problems in a session (verification) prints its
//     findings and returns a *ProblemsError so the exit code is 1.
//   - Notes for people (what was normalized, what was dropped) go to s.err
//     with note(s, ...), lowercase and without a trailing period.
//   - Add a testscript under cli/testdata/script/<verb>*.txtar; it runs the
//     real command in-process as "dshlog".
package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// streams are the standard streams a verb reads and writes; Run injects them
// so tests drive the whole command in-process.
type streams struct {
	in  io.Reader
	out io.Writer
	err io.Writer
}

// note prints a line for people on stderr, prefixed "dshlog: note:".
func note(s *streams, format string, args ...any) {
	fmt.Fprintf(s.err, "dshlog: note: "+format+"\n", args...)
}

// verbs are the constructors of the top-level verbs. Each verb's file adds its
// own with addVerb in an init function, so adding a verb touches no other file.
var verbs []func(*streams) *cobra.Command

// addVerb registers a top-level verb; call it from the verb file's init.
func addVerb(newCommand func(*streams) *cobra.Command) {
	verbs = append(verbs, newCommand)
}

// Run executes dshlog with args (without the program name) and the given
// standard streams, prints any error on stderr and returns the exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	s := &streams{in: stdin, out: stdout, err: stderr}
	root := newRootCommand(s)
	started := false
	markStart(root, &started)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return ExitOK
	}
	var usage *UsageError
	switch {
	case !started:
		err = &UsageError{Err: err, Command: cmd.CommandPath()}
	case errors.As(err, &usage) && usage.Command == "":
		usage.Command = cmd.CommandPath()
	}
	printError(s.err, err)
	return ExitCode(err)
}

// CommandTree returns dshlog's whole command tree, as help shows it, for
// tools that document it (internal/mangen writes the man pages from it);
// its Long ends with the exit codes, which help shows in its usage
// template. The commands are not meant to be run.
func CommandTree() *cobra.Command {
	root := newRootCommand(&streams{in: strings.NewReader(""), out: io.Discard, err: io.Discard})
	root.Long += "\n" + exitCodeHelp
	return root
}

// newRootCommand builds the whole command tree around s.
func newRootCommand(s *streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "dshlog",
		Short: "Read, migrate, fold, repair, fork and verify dsh session logs",
		Long: `dshlog is an offline toolkit for the session logs of dsh (DeepSeek Harness).
It reads every released session format (v0..v4), migrates old files to the
current format (v4) byte for byte as dsh does, folds a log into the model's
view, repairs crashed tails, forks sessions and verifies logs for CI.

Session files may be plain JSONL, Zstandard (.jsonl.zst, .zstd) or gzip
(.jsonl.gz) compressed; "-" reads standard input.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       moduleVersion(),
	}
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.SetVersionTemplate("dshlog {{.Version}}\n")
	root.SetUsageTemplate(root.UsageTemplate() + exitCodeHelp) // every verb's help ends with them
	for _, newCommand := range verbs {
		root.AddCommand(newCommand(s))
	}
	return root
}

// markStart makes every runnable command in the tree set *started before its
// RunE, so Run can tell cobra's own errors (flags, arguments, unknown verbs:
// usage errors) from the errors a verb returns.
func markStart(cmd *cobra.Command, started *bool) {
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(c *cobra.Command, args []string) error {
			*started = true
			return run(c, args)
		}
	}
	for _, sub := range cmd.Commands() {
		markStart(sub, started)
	}
}
