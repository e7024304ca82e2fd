package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// vocabularyFlags choose the vocabulary a verb reads sessions with: the dsh
// build that wrote them (--dsh) and the files declaring a fork's own types
// (--vocabulary, and DSHLOG_VOCABULARY).
type vocabularyFlags struct {
	dsh   string
	files []string
}

// vocabularyEnv names the environment variable that adds declaration
// files, separated as in PATH, for CI where flags are awkward.
const vocabularyEnv = "DSHLOG_VOCABULARY"

// addVocabularyFlags adds --dsh and --vocabulary to a verb that reads
// sessions.
func addVocabularyFlags(flags *pflag.FlagSet, v *vocabularyFlags) {
	flags.StringVar(&v.dsh, "dsh", vocab.Official.Name, "the dsh build that wrote the sessions (see dshlog vocabulary --list)")
	flags.StringArrayVar(&v.files, "vocabulary", nil, "add the event types a dsh build declares in FILE: its known-event-types.ts, a persistence schema (.json) or a list of names (repeatable; also $"+vocabularyEnv+")")
}

// resolve builds the vocabulary the flags and the environment choose.
func (v vocabularyFlags) resolve() (*vocab.Vocabulary, error) {
	build, ok := vocab.FindBuild(v.dsh)
	if !ok {
		return nil, usageErrorf("unknown dsh build %q (known: %s)", v.dsh, buildNames())
	}
	result := build.Vocabulary()
	for _, file := range v.declarationFiles() {
		d, err := vocab.Load(file)
		if err != nil {
			return nil, withHint(fmt.Errorf("vocabulary: %w", err),
				"--vocabulary reads a dsh build's known-event-types.ts, its docs/persistence-schema.json, a persistence change's .schema.json, or a list of event type names, one a line")
		}
		result = result.With(d)
	}
	return result, nil
}

// declarationFiles are the flag's files after those of the environment.
func (v vocabularyFlags) declarationFiles() []string {
	var files []string
	for _, f := range filepath.SplitList(os.Getenv(vocabularyEnv)) {
		if f != "" {
			files = append(files, f)
		}
	}
	return append(files, v.files...)
}

func buildNames() string {
	var names []string
	for _, b := range vocab.Builds {
		names = append(names, b.Name)
	}
	return strings.Join(names, ", ")
}

// vocabularyOptions are the inputs of dshlog vocabulary.
type vocabularyOptions struct {
	list  bool
	vocab vocabularyFlags
}

func init() { addVerb(newVocabularyCommand) }

// newVocabularyCommand returns dshlog vocabulary, which prints the event
// types sessions are judged by.
func newVocabularyCommand(s *streams) *cobra.Command {
	var opts vocabularyOptions
	cmd := &cobra.Command{
		Use:   "vocabulary",
		Short: "Print the event types sessions are read with, and where each came from",
		Long: `Print the effective v4 event vocabulary: every event type dshlog accepts in a
session, whether it is a surface type (its events produce a message the model
sees), whether its payload is checked against a schema, and where it came from:
the built-in dsh build chosen with --dsh, or a file given with --vocabulary.

dsh keeps its format at v4 while the types it writes grow, and a build refuses
a log holding a type it does not know. The default build is the current
official line; --list prints the builds dshlog has built in. Every verb that
reads sessions takes the same --dsh and --vocabulary flags, and the files in
$DSHLOG_VOCABULARY (separated as in PATH) are added before those of the flag.

A --vocabulary file is a dsh build's packages/core/session/src/known-event-types.ts,
its docs/persistence-schema.json, a persistence change's <date>-<name>.schema.json
(whose schemas dshlog checks payloads against), or a plain list of type names,
one a line ('#' starts a comment).`,
		Example: `  dshlog vocabulary --list
  dshlog vocabulary --dsh zdsh
  dshlog vocabulary --vocabulary fork/packages/core/session/src/known-event-types.ts`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVocabulary(opts, s)
		},
	}
	cmd.Flags().BoolVar(&opts.list, "list", false, "list the built-in dsh builds")
	addVocabularyFlags(cmd.Flags(), &opts.vocab)
	return cmd
}

func runVocabulary(opts vocabularyOptions, s *streams) error {
	if opts.list {
		return printBuilds(s.out)
	}
	v, err := opts.vocab.resolve()
	if err != nil {
		return err
	}
	var rows [][]string
	for _, t := range v.Types() {
		kind := "log-only"
		switch {
		case t.Surface && !t.Derivable:
			kind = "surface (refused: dshlog cannot derive its message)"
		case t.Surface:
			kind = "surface"
		}
		payload := ""
		if t.Schema != nil {
			payload = "schema"
		}
		rows = append(rows, []string{t.Name, kind, payload, t.Origin})
	}
	if _, err := fmt.Fprintf(s.out, "dsh %s: %d event types\n", v.Build().Name, v.Len()); err != nil {
		return err
	}
	return writeTable(s.out, []string{"TYPE", "KIND", "PAYLOAD", "FROM"}, []bool{false, false, false, false}, rows)
}

// printBuilds lists the built-in builds, the default first.
func printBuilds(w io.Writer) error {
	var rows [][]string
	for i, b := range vocab.Builds {
		note := ""
		if i == 0 {
			note = "default"
		}
		rows = append(rows, []string{b.Name, fmt.Sprint(b.Vocabulary().Len()), b.Source, note})
	}
	return writeTable(w, []string{"DSH", "TYPES", "SOURCE", ""}, []bool{false, true, false, false}, rows)
}

// explainUnknownType adds to the refusal of an unknown event type the hint
// that names a build declaring it, or how to declare it.
func explainUnknownType(err error, v *vocab.Vocabulary) error {
	var unknown *v4.UnknownTypeError
	if !errors.As(err, &unknown) {
		return err
	}
	if hint, ok := v.Hint(unknown.Type); ok {
		return withHint(err, hint)
	}
	return withHint(err, fmt.Sprintf("dsh %s does not know %q; if a fork of dsh wrote this log, pass its known-event-types.ts or persistence schema with --vocabulary", v.Build().Name, unknown.Type))
}

// suggestAllowUnknown adds fold's way past an unknown event type.
func suggestAllowUnknown(err error) error {
	var unknown *v4.UnknownTypeError
	if !errors.As(err, &unknown) {
		return err
	}
	return withHint(err, "--allow-unknown folds the log anyway, keeping unknown log-only events opaque")
}

// unknownWarner warns once per type about the events --allow-unknown
// keeps opaque.
type unknownWarner struct {
	s     *streams
	file  string
	vocab *vocab.Vocabulary
	seen  map[string]bool
}

// see warns about ev when its type is unknown and it is not ignorable.
func (u *unknownWarner) see(ev session.Event) {
	if u.vocab == nil || !u.vocab.AllowsUnknown() || u.vocab.Has(ev.Type) || ev.Ignorable() || u.seen[ev.Type] {
		return
	}
	if u.seen == nil {
		u.seen = map[string]bool{}
	}
	u.seen[ev.Type] = true
	fmt.Fprintf(u.s.err, "dshlog: warning: %s: seq %d: unknown event type %q kept opaque; dsh %s refuses this log\n",
		u.file, ev.Seq, ev.Type, u.vocab.Build().Name)
}
