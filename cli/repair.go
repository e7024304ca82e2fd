package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/spf13/cobra"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/lease"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/verify"
)

// repairOptions are the inputs of dshlog repair.
type repairOptions struct {
	vocab  vocabularyFlags
	file   string
	json   bool
	append bool
}

func init() { addVerb(newRepairCommand) }

// newRepairCommand returns dshlog repair, which shows (and can append) the
// closers dsh's crash recovery adds to a log that ends inside a turn.
func newRepairCommand(s *streams) *cobra.Command {
	var opts repairOptions
	cmd := &cobra.Command{
		Use:   "repair FILE",
		Short: "Show or append the closers crash repair adds to an open tail",
		Long: `When dsh dies inside a turn, its log ends with the turn open. On the next
start dsh's crash recovery (interruptedTurnClosers) appends closers: an error
tool/result for each tool call of the open step that has no result
(TOOL_OUTCOME_UNKNOWN when its tool/call was logged, TOOL_NOT_STARTED when
not), step/end when a step is open, and turn/end {"kind":"interrupted"}.
repair prints exactly those events; a log whose turns are all closed needs
none, which repair says (exit 0).

--json prints the closers as v4 rows, one per line, byte for byte what
--append writes.

--append appends them to FILE the way dsh persists them: under the session
directory's session.lock, after checking that the file is a current-format
(v4) log whose last line is complete, then fsync. Bytes already in the file
are never rewritten. A zstd file gets one new checksummed frame.

When the open turn holds an open compaction bracket (compaction/start with
no compaction/end), the closers' turn/end would cross it and dsh would refuse
the log. There repair writes what dsh's crash resume persists: the closers,
then the resume marker session/end-seed {} stamped with the wall clock, after
which the open bracket belongs to a dead lifecycle.

--append never writes a log dsh would refuse: it first reads the file as it
would be with the closers (streamed, nothing written) and runs dshlog
verify's checks on it; on any error it refuses with the reason and the file
is unchanged.`,
		Example: `  dshlog repair testdata/seed-vectors/crash-persisted.v4.jsonl
  dshlog repair --json session.v4.jsonl
  dshlog repair --append ~/.dsh/sessions/--workspace--/ID/session.v4.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.file = args[0]
			return runRepair(opts, s)
		},
	}
	flags := cmd.Flags()
	flags.BoolVar(&opts.json, "json", false, "print the closers as v4 rows, one JSON object per line")
	flags.BoolVar(&opts.append, "append", false, "append the closers to FILE (under session.lock, fsynced)")
	addVocabularyFlags(flags, &opts.vocab)
	return cmd
}

func runRepair(opts repairOptions, s *streams) error {
	if opts.append && opts.file == "-" {
		return usageErrorf("--append needs a session file, not standard input")
	}
	if opts.append {
		held, err := lease.Acquire(filepath.Dir(opts.file), opts.file)
		if err != nil {
			return err
		}
		defer held.Release()
	}
	var before os.FileInfo
	if opts.append {
		info, err := os.Stat(opts.file)
		if err != nil {
			return err
		}
		before = info
	}
	v, err := opts.vocab.resolve()
	if err != nil {
		return err
	}
	read := migrate.Options{Recovery: v2.Recoverable, Vocabulary: v}
	events, err := openSession(opts.file, s, read)
	if err != nil {
		return err
	}
	defer events.Close()
	f := fold.New()
	var bracket openBracket
	readErr := events.each(s, func(ev session.Event) error {
		bracket.apply(ev)
		return applyEvent(f, ev, events.name)
	})
	if readErr != nil {
		if opts.append && jsonl.IsTruncatedStream(readErr) {
			return refuseAppend(opts.file, "its compressed stream ends inside a frame (a torn tail)")
		}
		return readErr
	}
	closers := f.InterruptedTurnClosers()
	if len(closers) > 0 && bracket.open {
		// dsh's resume persists the closers, then its restored Session
		// appends the resume marker: a compaction bracket left open before
		// a lifecycle marker belongs to a dead lifecycle, so the turn/end
		// that crosses it is accepted (semantics.md §5.2, §5.4).
		last := closers[len(closers)-1]
		closers = append(closers, fold.ResumeMarker(last.Seq+1, wallClock()))
	}
	if opts.append && len(closers) > 0 {
		if err := checkAppendable(events, opts.file); err != nil {
			return err
		}
		if err := checkRepaired(opts.file, encodeRows(closers), read); err != nil {
			return err
		}
	}
	if len(closers) == 0 {
		if opts.json {
			note(s, "%s: every turn is closed; no repair needed", opts.file)
			return nil
		}
		_, err := fmt.Fprintf(s.out, "%s: every turn is closed; no repair needed\n", opts.file)
		return err
	}
	rows := encodeRows(closers)
	if err := printClosers(s, opts, closers, rows); err != nil {
		return err
	}
	if !opts.append {
		return nil
	}
	written, err := appendRows(opts.file, events.Compression, rows, before)
	if err != nil {
		return err
	}
	if opts.json {
		note(s, "%s: appended %s (%d bytes)", opts.file, closerCount(closers), written)
		return nil
	}
	_, err = fmt.Fprintf(s.out, "appended %s (%d bytes) to %s\n", closerCount(closers), written, opts.file)
	return err
}

// checkAppendable refuses to append to a file dsh would not append to: a
// torn last line, a file in an older format or in the normalized snapshot
// form, a gzip file, a Zstandard file not in dsh's framing.
func checkAppendable(events *sessionEvents, path string) error {
	switch {
	case events.TornTail():
		return refuseAppend(path, "its last line is torn (no final newline)")
	case events.SourceVersion != v4.Version:
		return withHint(refuseAppend(path, fmt.Sprintf("it is a format v%d log and the closers are v4 rows", events.SourceVersion)),
			"migrate it to v4 first (dsh publishes session.v4.jsonl beside it), then repair that file")
	case events.Snapshot:
		return refuseAppend(path, "it is a normalized snapshot (rows without seq and time)")
	case events.Compression == jsonl.Gzip:
		return refuseAppend(path, "dsh never writes gzip session files")
	case events.Unframed:
		return refuseAppend(path, "its Zstandard stream is not in dsh's framing, which dsh refuses to read")
	}
	return nil
}

// openBracket follows the compaction bracket a log leaves open: opened by
// compaction/start, closed by compaction/end or by a lifecycle marker
// (session/end-seed), after which it belongs to a dead lifecycle.
type openBracket struct{ open bool }

func (b *openBracket) apply(ev session.Event) {
	switch ev.Type {
	case "compaction/start":
		b.open = true
	case "compaction/end", "session/end-seed":
		b.open = false
	}
}

// wallClock is the time dsh stamps a live append with, in milliseconds.
var wallClock = func() int64 { return time.Now().UnixMilli() }

// checkRepaired reads the file again as it would be with rows appended,
// streamed and without writing, and refuses when dshlog's verify finds an
// error in it: repair never makes a log dsh opens into one it refuses, nor
// leaves one it refuses behind its own closers.
func checkRepaired(path string, rows []byte, read migrate.Options) error {
	src, err := migrate.Open(path, nil, migrate.OpenOptions{Options: read, Extra: rows})
	if err != nil {
		return refuseAppend(path, "the repaired log would not open: "+errorText(err))
	}
	defer src.Close()
	problems, err := verify.Errors(src.Reader, nil)
	if err != nil || len(problems) == 0 {
		return err
	}
	first, where := problems[0], ""
	if first.Seq >= 0 {
		where = fmt.Sprintf(" at seq %d", first.Seq)
	}
	return refuseAppend(path, fmt.Sprintf("the repaired log would not verify%s: [%s] %s", where, first.Code, first.Message))
}

func refuseAppend(path, why string) error {
	return withHint(fmt.Errorf("%s: refusing to append: %s; the file is unchanged", path, why),
		"run dshlog repair without --append to see the closers dsh would add")
}

// encodeRows writes each closer as the v4 writer does, one line each.
func encodeRows(events []session.Event) []byte {
	var rows []byte
	for _, ev := range events {
		rows = v4.AppendEvent(rows, ev)
	}
	return rows
}

func printClosers(s *streams, opts repairOptions, closers []session.Event, rows []byte) error {
	if opts.json {
		_, err := s.out.Write(rows)
		return err
	}
	count, marker := len(closers), ""
	if closers[count-1].Type == "session/end-seed" {
		count--
		marker = " and the resume marker (a compaction is open; dsh's resume ends its lifecycle)"
	}
	turn := closers[count-1].Data().Field("turn")
	if _, err := fmt.Fprintf(s.out, "%s: turn %s is open; crash repair appends %d closers%s\n", opts.file, turn, count, marker); err != nil {
		return err
	}
	return printEvents(s.out, closers)
}

// closerCount says how many closers there are, and whether the resume
// marker follows them.
func closerCount(closers []session.Event) string {
	if n := len(closers); closers[n-1].Type == "session/end-seed" {
		return fmt.Sprintf("%d closers and the resume marker", n-1)
	}
	return fmt.Sprintf("%d closers", len(closers))
}

// appendRows appends rows to the file at path, which must still be what was
// read (before), fsyncs it and returns the number of bytes written. A zstd
// file gets the rows as one checksummed frame. On a failed write the file is
// cut back to its old length.
func appendRows(path string, compression jsonl.Compression, rows []byte, before os.FileInfo) (int, error) {
	data := rows
	if compression == jsonl.Zstd {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
		if err != nil {
			return 0, err
		}
		data = enc.EncodeAll(rows, nil)
		enc.Close()
	}
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return 0, err
	}
	defer file.Close()
	now, err := file.Stat()
	if err != nil {
		return 0, err
	}
	if !os.SameFile(now, before) || now.Size() != before.Size() || !now.ModTime().Equal(before.ModTime()) {
		return 0, fmt.Errorf("%s: refusing to append: the file changed while it was read; the file is unchanged", path)
	}
	n, err := io.Copy(file, bytes.NewReader(data))
	if err == nil {
		err = file.Sync()
	}
	if err != nil {
		cutErr := file.Truncate(before.Size())
		return 0, errors.Join(fmt.Errorf("%s: append failed: %w", path, err), cutErr)
	}
	return int(n), file.Close()
}
