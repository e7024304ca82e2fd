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
	flags.StringVar(&v.dsh, "dsh", "", "the dsh build that wrote the sessions (see dshlog vocabulary --list; default "+vocab.Official.Name+", or v0-line when a --vocabulary file is of the v0 line)")
	flags.StringArrayVar(&v.files, "vocabulary", nil, "add the event types a dsh build declares in FILE: its known-event-types.ts, a persistence schema (.json), a plugin's .ts declaring SessionEventMap members or a list of names, or in a DIR: a checkout of a dsh build or a plugin's source tree (repeatable; also $"+vocabularyEnv+")")
}

// checkoutDeclarations are where a checkout of a dsh build declares its
// vocabulary, relative to its root, the generated list first.
var checkoutDeclarations = []string{
	"packages/core/session/src/known-event-types.ts",
	"docs/persistence-schema.json",
}

// resolve builds the vocabulary the flags and the environment choose. A
// declaration of the v0 line (it lists assistant/chunk and no
// assistant/attempt) picks that line when --dsh is not given, and is
// refused with a build of another line: it cannot apply to that build's
// logs. A declaration that tells no line (a plugin's or a list's few
// types) adds to a build of either.
func (v vocabularyFlags) resolve() (*vocab.Vocabulary, error) {
	var decls []*vocab.Declaration
	for _, file := range v.declarationFiles() {
		found, err := loadDeclarations(file)
		if err != nil {
			return nil, err
		}
		decls = append(decls, found...)
	}
	build := vocab.Official
	if v.dsh != "" {
		var ok bool
		if build, ok = vocab.FindBuild(v.dsh); !ok {
			return nil, usageErrorf("unknown dsh build %q (known: %s)", v.dsh, buildNames())
		}
	}
	for _, d := range decls {
		line := d.Line()
		switch {
		case line == build.Format, line == vocab.AnyLine:
		case v.dsh == "" && line == vocab.V0Line.Format:
			build = vocab.V0Line
		default:
			return nil, usageErrorf("vocabulary: %s declares the event types of a format v%d build (%s), which cannot apply to logs of dsh %s (format v%d)",
				d.File, line, lineEvidence(line), build.Name, build.Format)
		}
	}
	result := build.Vocabulary()
	for _, d := range decls {
		result = result.With(d)
	}
	return result, nil
}

// lineEvidence says why a declaration is of its line.
func lineEvidence(line int) string {
	if line == 0 {
		return "it lists assistant/chunk and no assistant/attempt"
	}
	return "it lists assistant/attempt"
}

// loadDeclarations reads a --vocabulary argument: a declaration file, a
// checkout of a dsh build, whose files that declare its vocabulary are
// read, or else a plugin's source tree, whose sources' SessionEventMap
// members are.
func loadDeclarations(path string) ([]*vocab.Declaration, error) {
	paths := []string{path}
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		paths = paths[:0]
		for _, rel := range checkoutDeclarations {
			if _, err := os.Stat(filepath.Join(path, rel)); err == nil {
				paths = append(paths, filepath.Join(path, rel))
			}
		}
		if len(paths) == 0 {
			return pluginDeclarations(path)
		}
	}
	var decls []*vocab.Declaration
	for _, p := range paths {
		d, err := vocab.Load(p)
		if err != nil {
			return nil, withHint(fmt.Errorf("vocabulary: %w", err),
				"--vocabulary reads a dsh build's known-event-types.ts, its docs/persistence-schema.json, a persistence change's .schema.json, a plugin's .ts file declaring SessionEventMap members, or a list of event type names, one a line")
		}
		decls = append(decls, d)
	}
	return decls, nil
}

// pluginDeclarations reads a directory that is no checkout of a dsh build
// as a plugin's source tree.
func pluginDeclarations(dir string) ([]*vocab.Declaration, error) {
	decls, err := vocab.LoadSourceTree(dir)
	if err != nil {
		return nil, fmt.Errorf("vocabulary: %w", err)
	}
	if len(decls) == 0 {
		return nil, fmt.Errorf("vocabulary: %s: a directory given to --vocabulary must be a checkout of a dsh build, with %s, or a plugin's source tree declaring SessionEventMap members in its src", dir, strings.Join(checkoutDeclarations, " or "))
	}
	return decls, nil
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
	if v.Build().V0 != nil {
		if _, err := fmt.Fprintf(s.out, "(format v0 is its own: a log's rows are read by the released v0 rules and the line's own, then judged as the v4 types below, which they become once migrated in memory)\n"); err != nil {
			return err
		}
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
		rows = append(rows, []string{b.Name, fmt.Sprintf("v%d", b.Format), fmt.Sprint(b.Vocabulary().Len()), b.Source, note})
	}
	return writeTable(w, []string{"DSH", "FORMAT", "TYPES", "SOURCE", ""}, []bool{false, false, true, false, false}, rows)
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
	return withHint(err, fmt.Sprintf("dsh %s does not know %q; if a fork of dsh or a plugin wrote this log, pass the fork's known-event-types.ts or persistence schema, or the plugin's .ts declaring the type, with --vocabulary", v.Build().Name, unknown.Type))
}

// suggestAllowUnknown adds fold's way past an unknown event type of a v4
// log (the v3→v4 migration refuses one before the vocabulary is asked).
func suggestAllowUnknown(err error) error {
	var unknown *v4.UnknownTypeError
	if !errors.As(err, &unknown) || unknown.Version != v4.Version {
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
