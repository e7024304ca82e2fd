package cli

import (
	"bufio"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	v2 "github.com/dshlog/dshlog/codec/v2"
	v4 "github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/session"
)

// forkOptions are the inputs of dshlog fork.
type forkOptions struct {
	vocab     vocabularyFlags
	file      string
	at        int64
	output    string
	id        string
	createdAt int64
}

func init() { addVerb(newForkCommand) }

// newForkCommand returns dshlog fork, which writes a child session seeded
// with a prefix of its parent, as dsh's store forks.
func newForkCommand(s *streams) *cobra.Command {
	var opts forkOptions
	cmd := &cobra.Command{
		Use:   "fork FILE --at SEQ -o CHILD",
		Short: "Write a child session seeded with the parent's events up to a seq",
		Long: `Fork a session the way dsh's store does (buildForkSeed): the child inherits the
parent's events up to and including --at, then owns a tagged marker
session/end-seed {"inherited":true} at the next seq (with the boundary
event's time) and, when the cut is inside a turn, the forked closers: an
error tool/result for each call of the open step without a result (worded
for a branch: "The history inherited by this branch ..."), step/end, and
turn/end {"kind":"forked"}.

The child is a current-format (v4) file: its header names the parent
(parentSession), is seeded (isSeeded) and keeps the parent's cwd; its
inherited cut is SEQ+1. CHILD is never overwritten; "-o -" writes the child
to standard output. A CHILD named *.zstd (or *.zst) is written as dsh writes
a Zstandard generation: the header line as its own frame, then the events.
Older parent formats are migrated in memory.`,
		Example: `  dshlog fork testdata/seed-vectors/loop-events.v4.jsonl --at 15 -o child.v4.jsonl
  dshlog fork session.v4.jsonl --at 9 --id 3f0c… -o ../3f0c…/session.v4.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.file = args[0]
			if !cmd.Flags().Changed("created-at") {
				opts.createdAt = time.Now().UnixMilli()
			}
			return runFork(opts, s)
		},
	}
	flags := cmd.Flags()
	flags.Int64Var(&opts.at, "at", 0, "the last inherited seq (inclusive)")
	flags.StringVarP(&opts.output, "output", "o", "", `the child session file to create ("-" for standard output)`)
	flags.StringVar(&opts.id, "id", "", "the child session id (default: a random UUID)")
	flags.Int64Var(&opts.createdAt, "created-at", 0, "the child's createdAt, in Unix milliseconds (default: now)")
	addVocabularyFlags(flags, &opts.vocab)
	cmd.MarkFlagRequired("at")
	cmd.MarkFlagRequired("output")
	return cmd
}

func runFork(opts forkOptions, s *streams) error {
	if opts.createdAt < 0 {
		return usageErrorf("--created-at must be a non-negative number of milliseconds, got %d", opts.createdAt)
	}
	if opts.id == "" {
		opts.id = randomUUID()
	}
	if opts.output != "-" {
		if _, err := os.Lstat(opts.output); err == nil {
			return withHint(fmt.Errorf("%s: already exists; fork never overwrites a session", opts.output),
				"choose another -o path")
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	v, err := opts.vocab.resolve()
	if err != nil {
		return err
	}
	events, err := openSession(opts.file, s, migrate.Options{Recovery: v2.Recoverable, Vocabulary: v})
	if err != nil {
		return err
	}
	defer events.Close()
	if opts.output == "-" {
		return writeFork(s.out, events, opts, s.err)
	}
	return publishFork(events, opts, s)
}

// publishFork writes the child to a new file at CHILD, published whole or
// not at all (publishNew).
func publishFork(events *sessionEvents, opts forkOptions, s *streams) error {
	return publishNew(opts.output, "fork never overwrites a session", func(w io.Writer) error {
		return writeFork(w, events, opts, s.out)
	})
}

// writeFork streams the child session to w: its header, the inherited
// events and the child-owned tail, then reports the fork on report.
func writeFork(w io.Writer, events *sessionEvents, opts forkOptions, report io.Writer) error {
	compressed := strings.HasSuffix(opts.output, ".zstd") || strings.HasSuffix(opts.output, ".zst")
	generation := migrate.NewGenerationWriter(w, compressed)
	out := bufio.NewWriterSize(generation, 1<<20)
	cut := opts.at + 1
	header := fold.ChildHeader(events.Header, opts.id, opts.createdAt)
	buf, err := v4.AppendHeader(nil, header, cut)
	if err != nil {
		return err
	}
	if _, err := out.Write(buf); err != nil {
		return err
	}
	tail, err := fold.ForkSeed(events.Header.ID, events, opts.at, func(ev session.Event) error {
		buf = v4.AppendEvent(buf[:0], ev)
		_, err := out.Write(buf)
		return err
	})
	if err != nil {
		return forkError(err, events)
	}
	for _, ev := range tail {
		if _, err := out.Write(v4.AppendEvent(buf[:0], ev)); err != nil {
			return err
		}
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if err := generation.Close(); err != nil {
		return err
	}
	fmt.Fprintf(report, "forked %s at seq %d into %s (session %s): %d inherited events, marker @%d, %d closers\n",
		events.Header.ID, opts.at, opts.output, opts.id, cut, cut, len(tail)-1)
	return printEvents(report, tail)
}

// forkError explains a refused boundary, naming a read problem that hid the
// rest of the log when there was one.
func forkError(err error, events *sessionEvents) error {
	var refused *fold.ForkError
	if !errors.As(err, &refused) {
		return err
	}
	err = fmt.Errorf("%s: %w", events.name, err)
	if issue := events.Issue(); issue != nil {
		return withHint(err, "the log was read only up to a problem: "+issue.Error())
	}
	return withHint(err, "--at must name an event of the parent: 0 to its last seq")
}

// randomUUID returns a random (version 4) UUID, the form of dsh's session ids.
func randomUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
