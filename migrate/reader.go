// Package migrate carries a dsh session of any released format to the
// current one (v4) the way dsh's own catalog does: a codec decodes rows, a
// chain of adjacent stateful stages (v0→v1→v2→v3→v4) transforms them one at a
// time, and the v4 writer encodes the result. It also publishes the migrated
// generation beside its source with dsh's file protocol.
//
// Memory and goroutines: lines are read and parsed a little ahead of the
// codec on goroutines of their own (about a megabyte of text and its
// parses). Encode checks, encodes and writes the events a few batches
// behind the migration on another; otherwise a Source's Reader restores
// its events a few batches ahead of Next on another (eventsAhead). Either
// hand-off holds the events of at most about a megabyte of source text;
// besides that, a session holds its longest row and what its stages
// remember.
package migrate

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/dshlog/dshlog/codec/v0"
	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate/lift"
	"github.com/dshlog/dshlog/migrate/v3to4"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// Options say how a session is read.
type Options struct {
	// Recovery is the codec's policy for damaged rows (dsh's default is
	// recoverable).
	Recovery v2.Recovery
	// Children is the evidence of the session's subagent children that the
	// v3→v4 edge completes the parent's catalog from; nil means none (dsh's
	// empty evidence list). Open fills it from the files it finds.
	Children []v3to4.ChildFact
	// Vocabulary is the event vocabulary of the dsh build that wrote the
	// session, which the v4 restore judges its events by; nil means the
	// default build's (vocab.Default).
	Vocabulary *vocab.Vocabulary
	// AsMigrator reads an older log exactly as dsh's own migrator does,
	// refusing what it refuses, for a migration dsh would publish. Without
	// it a log in snapshot form, of the v0 line when the vocabulary's build
	// is one, or holding types the vocabulary declares, is read as its own
	// build reads it (see migrate/lift).
	AsMigrator bool
	// ListLifted keeps every change the reading of an older log made that
	// today's migrator would not (Reader.Lifted), as a rescue reports them;
	// otherwise only their counts are kept (Reader.LiftCounts).
	ListLifted bool
}

// Reader streams the current-format (v4) events of a session file of any
// supported version, migrating in memory as it goes; it never writes. Memory
// stays bounded by the longest row plus what the stages remember.
type Reader struct {
	// Header is the session's current (v4) logical header.
	Header session.Header
	// SourceVersion is the format version the file was written in.
	SourceVersion int
	// Snapshot is true when the file is in dsh's normalized snapshot form
	// (no seq or time in rows): seq is restored by counting rows and time
	// as createdAt + seq, as the corpus restore rules do.
	Snapshot bool

	vocab   *vocab.Vocabulary
	lift    *lift.Lifter // an older log's rows, lifted to released form
	lines   *jsonl.Reader
	ahead   *readAhead // reads and parses lines from lines once the body is read
	restore *restore
	pending []session.Event
	next    int   // index of the next pending event to hand out
	issue   error // the first unparsable row, fatal if a turn/end follows
	torn    bool
	// live says lines arrive as a writer appends them (OpenOptions.Growing):
	// each is decoded as it comes, and a last line without its newline is
	// unfinished, its unfinished bytes, rather than torn.
	live       bool
	unfinished int
	cut        int64
	done       bool
	rows       int64 // body rows seen
	// snapshotSeq is the seq a normalized snapshot's next row is given.
	snapshotSeq int64
	// chunksOnly says every body row so far of a v0 or v1 log is a stream
	// chunk: a provider's recording, not a session, if it stays so.
	chunksOnly bool
	text       int64 // bytes of body text read
	// snapshot is Snapshot as the restore knows it; Next publishes it.
	snapshot bool
	// mayRunAhead says Next may run the restore ahead on a goroutine of its
	// own (the Reader of a Source, which close stops); events is that
	// goroutine once started.
	mayRunAhead bool
	events      *eventsAhead
}

// NewReader reads the header of the session in lines and returns a Reader of
// its events. The header is checked as dsh's JSONL backend does before any
// row is read; a file named like a dsh generation must hold that version.
func NewReader(lines *jsonl.Reader, opts Options) (*Reader, error) {
	hv, version, err := readHeaderLine(lines)
	if err != nil {
		return nil, err
	}
	return startReader(lines, hv, version, opts)
}

// startReader starts restoring a session whose header line was read.
func startReader(lines *jsonl.Reader, hv jsonv.Value, version int, opts Options) (*Reader, error) {
	if named, ok := GenerationOf(filepath.Base(lines.Name())); ok && named != version {
		return nil, lineError(lines, 1, session.Plainf("resolved JSONL source filename identifies v%d, but its header identifies v%d", named, version))
	}
	r := &Reader{lines: lines, SourceVersion: version, vocab: opts.Vocabulary, chunksOnly: version <= 1}
	if r.vocab == nil {
		r.vocab = vocab.Default()
	}
	validation := Transformed
	if version == currentVersion {
		validation = Current
	}
	// A v2 or v3 log has nothing to lift but a fork's declared types.
	if version < currentVersion && !opts.AsMigrator && (version <= 1 || r.vocab.DeclaresTypes()) {
		r.lift = lift.New(r.vocab, version, opts.ListLifted)
		hv = r.lift.Header(hv)
	}
	var err error
	r.restore, err = newCatalog(opts.Children, r.vocab).newRestore(hv, opts.Recovery, validation, r.collect)
	if err != nil {
		return nil, lineError(lines, 1, err)
	}
	if r.lift != nil {
		r.restore.putBack = r.lift.PutBack
	}
	r.Header = r.restore.Header
	return r, nil
}

// ErrNotSessionLog is why a file that holds no dsh session is refused: its
// first line is not a session header, or its rows are a provider's recorded
// stream alone. It is not dsh refusing a log but a file of another kind.
var ErrNotSessionLog = errors.New("not a session log")

// readHeaderLine reads and parses the first line with the JSONL backend's
// own checks and messages, and returns it with its version.
func readHeaderLine(lines *jsonl.Reader) (jsonv.Value, int, error) {
	line, err := lines.Next()
	if err == io.EOF || (err == nil && line.Torn) {
		return jsonv.Value{}, 0, lineError(lines, 1, session.Plainf("empty or header-less session log"))
	}
	if err != nil {
		return jsonv.Value{}, 0, err
	}
	hv, err := jsonv.Parse(line.Text)
	if err != nil {
		return hv, 0, &jsonl.Error{File: lines.Name(), Line: 1, Column: syntaxColumn(err),
			Err: session.Plainf("corrupt session log: header line is not valid JSON")}
	}
	if hv.Kind() != jsonv.Object {
		return hv, 0, lineError(lines, 1, session.Plainf("corrupt session log: first line is not a JSON object"))
	}
	if typ, ok := hv.Field("type").Str(); ok && typ != "session" {
		return hv, 0, lineError(lines, 1, fmt.Errorf("%w: its first line is not a session header but a %q row (a dsh session log starts with {\"type\":\"session\",\"version\":…})", ErrNotSessionLog, typ))
	}
	version, ok := hv.Field("version").Count()
	if !ok {
		reason := "corrupt session log: header version is not a non-negative safe integer"
		if !hv.Has("version") {
			reason += " (the header has no version member)"
		}
		return hv, 0, lineError(lines, 1, session.Plainf("%s", reason))
	}
	return restoreSnapshotCwd(hv), int(version), nil
}

// snapshotCwd is the absolute path a normalized snapshot's {{cwd}} stands
// for: the one the corpus restore rules (R1) use.
const snapshotCwd = "/workspace/demo"

// restoreSnapshotCwd replaces a header cwd starting with the {{cwd}}
// placeholder of dsh's normalized snapshots by an absolute path, as dsh's
// fixture loader does before decoding; any other header is returned as is.
func restoreSnapshotCwd(hv jsonv.Value) jsonv.Value {
	cwd, ok := hv.Field("cwd").Str()
	rest, placeholder := strings.CutPrefix(cwd, "{{cwd}}")
	if !ok || !placeholder {
		return hv
	}
	return hv.With("cwd", jsonv.StringValue(snapshotCwd+rest))
}

// collect receives each current event from the restore.
func (r *Reader) collect(ev session.Event) error {
	r.pending = append(r.pending, ev)
	return nil
}

// Next returns the next event, or io.EOF after the last one. Errors carry
// the file and line. An event is handed out before the checks that need the
// whole session have run: a refusal of the artifact comes instead of io.EOF.
//
// The Reader of a Source restores its events a few batches ahead of Next on
// a goroutine of its own (see eventsAhead); the events and the error are
// the same.
func (r *Reader) Next() (session.Event, error) {
	if r.events == nil && r.mayRunAhead && !r.restore.checkElsewhere && r.ahead == nil && !r.done {
		r.events = startEventsAhead(r)
	}
	if r.events != nil {
		return r.events.nextEvent(r)
	}
	ev, err := r.nextInline()
	r.Snapshot = r.snapshot
	return ev, err
}

// nextInline is Next on the caller's goroutine.
func (r *Reader) nextInline() (session.Event, error) {
	for r.next == len(r.pending) {
		if r.done {
			return session.Event{}, io.EOF
		}
		r.pending, r.next = r.pending[:0], 0
		if err := r.fill(); err != nil {
			r.done = true
			r.pending = r.pending[:0]
			r.closeLines()
			return session.Event{}, err
		}
		if r.done {
			r.closeLines()
		}
	}
	ev := r.pending[r.next]
	r.pending[r.next] = session.Event{}
	r.next++
	return ev, nil
}

// fill reads rows until one yields events or the file ends, with the rules
// of dsh's JSONL row reader: a torn last line is dropped, an unparsable row
// withholds every later one and is fatal if a turn/end follows.
func (r *Reader) fill() error {
	line, err := r.nextLine()
	if err == io.EOF {
		return r.finish()
	}
	if err != nil {
		return err
	}
	if line.Torn && r.live {
		r.unfinished = len(line.Text)
		return r.finish()
	}
	if line.Torn {
		r.torn = true
		return r.finish()
	}
	r.text += int64(len(line.Text))
	row, err := line.row, line.err
	if err != nil {
		if r.issue == nil {
			r.issue = &jsonl.Error{File: r.lines.Name(), Line: line.Num, Column: syntaxColumn(err),
				Err: session.Plainf("corrupt session log: row %d is not valid JSON", line.Num-1)}
		}
		return nil
	}
	if r.issue != nil {
		if row.Kind() == jsonv.Object && row.Field("type").Text() == "turn/end" {
			return r.issue
		}
		return nil
	}
	if r.rows == 0 && row.Kind() == jsonv.Object && !row.Has("seq") && !row.Has("time") {
		r.snapshot = true
	}
	r.rows++
	lifted := false
	if r.snapshot {
		row, r.snapshotSeq = restoreSnapshotRow(row, r.snapshotSeq, r.restore.Header.CreatedAt)
	}
	if r.chunksOnly && !isChunkRow(row) {
		r.chunksOnly = false
	}
	if r.lift != nil {
		row, lifted = r.lift.Row(row, line.Num)
	}
	switch {
	case r.snapshot || lifted:
		// The checks made ahead were of the row as stored.
		err = r.restore.decodeRow(row)
	case line.checked:
		err = r.restore.decodeChecked(row, line.check)
	default:
		err = r.restore.decodeRow(row)
	}
	if err != nil {
		return rowError(row, lineError(r.lines, line.Num, err))
	}
	return nil
}

// RowError is an error (located in the file) met while the row of seq Seq
// was decoded: the event
// a refusal's message names, as "<type> <seq>", is that row's in all but the
// rarest case (a stage refusing an earlier event on seeing a later one).
type RowError struct {
	Seq int64
	Err error
}

func (e *RowError) Error() string { return e.Err.Error() }

func (e *RowError) Unwrap() error { return e.Err }

// rowError wraps err with the seq of the row it was met at, when the row
// states one (seq, or seq0 for a packed row).
func rowError(row jsonv.Value, err error) error {
	seq, ok := row.Field("seq").Count()
	if !ok {
		seq, ok = row.Field("seq0").Count()
	}
	if !ok {
		return err
	}
	return &RowError{Seq: seq, Err: err}
}

// nextLine returns the next line and its parse: read and parsed ahead, or,
// for a live reader, which must decode each row as soon as its line
// arrives, read and parsed now.
func (r *Reader) nextLine() (parsedLine, error) {
	if r.live {
		line, err := r.lines.Next()
		if err != nil || line.Torn {
			return parsedLine{Line: line}, err
		}
		row, err := jsonv.Parse(line.Text)
		return parsedLine{Line: line, row: row, err: err}, nil
	}
	if r.ahead == nil {
		r.ahead = startReadAhead(r.lines, r.restore.checkRow())
	}
	return r.ahead.line()
}

func (r *Reader) finish() error {
	r.done = true
	if r.chunksOnly && r.rows > 0 {
		return lineError(r.lines, 0, fmt.Errorf("%w: its %d rows are all assistant/chunk rows, a provider's recorded stream with no turn, step or message of a session", ErrNotSessionLog, r.rows))
	}
	cut, err := r.restore.finish()
	if err != nil {
		return lineError(r.lines, 0, err)
	}
	r.cut = cut
	return nil
}

// takeCheck takes the artifact check over from a Reader that has not
// handed out any event yet (and so does not run ahead): the caller must then give the check every event
// Next returns, in order, and call judge once Next has returned io.EOF and
// the check has seen them all. It reports false, and keeps the check,
// otherwise. An event Next returns may be looked into on another goroutine
// at once: no codec or stage looks into an event, or keeps one, after
// emitting it.
func (r *Reader) takeCheck() (validator, bool) {
	if r.ahead != nil || r.done || r.events != nil {
		return nil, false
	}
	r.restore.checkElsewhere = true
	return r.restore.check, true
}

// judge returns the artifact check's verdict, after takeCheck, once Next has
// returned io.EOF: the refusal Next would have returned instead.
func (r *Reader) judge() error {
	if err := r.restore.judge(r.cut); err != nil {
		return lineError(r.lines, 0, err)
	}
	return nil
}

// close stops restoring and reading ahead; the Reader returns no further
// line.
func (r *Reader) close() {
	if r.events != nil {
		r.events.close()
	}
	r.closeLines()
}

// closeLines stops reading lines ahead.
func (r *Reader) closeLines() {
	if r.ahead != nil {
		r.ahead.close()
	}
}

// Cut returns the inherited event count; valid after Next returned io.EOF.
func (r *Reader) Cut() int64 { return r.cut }

// Lifted returns what was read differently from today's official
// migrator (see migrate/lift), in file order, when Options.ListLifted
// asked for them; complete after Next returned io.EOF.
func (r *Reader) Lifted() []lift.Change {
	if r.lift == nil {
		return nil
	}
	return r.lift.Changes()
}

// LiftCounts returns how many changes of each rule Lifted would list;
// complete after Next returned io.EOF.
func (r *Reader) LiftCounts() lift.Counts {
	if r.lift == nil {
		return nil
	}
	return r.lift.Counts()
}

// Vocabulary returns the event vocabulary the session is judged by.
func (r *Reader) Vocabulary() *vocab.Vocabulary { return r.vocab }

// TornTail reports whether a torn last line was dropped; valid after Next
// returned io.EOF.
func (r *Reader) TornTail() bool { return r.torn }

// Unfinished returns the bytes of a last line a live reader left unread
// because its newline had not come when the appends stopped (0 when none);
// valid after Next returned io.EOF.
func (r *Reader) Unfinished() int { return r.unfinished }

// Issue returns the problem that made recovery drop the rows after it, if
// any; valid after Next returned io.EOF.
func (r *Reader) Issue() error {
	if r.issue != nil {
		return r.issue
	}
	return r.restore.decoder.Issue()
}

// isChunkRow reports whether a v0 or v1 row is a provider's stream chunk:
// an assistant/chunk event or a packed chunk row.
func isChunkRow(row jsonv.Value) bool {
	if _, packed := v0.PackedWidth(row); packed {
		return true
	}
	return row.Field("type").Text() == "assistant/chunk"
}

// restoreSnapshotRow gives a normalized snapshot row its seq and time back,
// in the writer's key order: type, seq, time, then the rest as they were.
// A v0 packed row takes seq0 and time0, and a seq for each chunk it packs.
// It returns the row and the seq of the next one.
func restoreSnapshotRow(row jsonv.Value, seq, createdAt int64) (jsonv.Value, int64) {
	seqKey, timeKey, width := "seq", "time", int64(1)
	if n, packed := v0.PackedWidth(row); packed {
		seqKey, timeKey, width = "seq0", "time0", n
	}
	members := []jsonv.Member{
		jsonv.M("type", row.Field("type")),
		jsonv.M(seqKey, jsonv.IntValue(seq)),
		jsonv.M(timeKey, jsonv.IntValue(createdAt+seq)),
	}
	for _, m := range row.Members() {
		switch m.Key {
		case "type", "seq", "time", "seq0", "time0":
			continue
		}
		members = append(members, m)
	}
	return jsonv.ObjectValue(members...), seq + width
}

// syntaxColumn returns the 1-based byte column of a JSON syntax error, or 0.
func syntaxColumn(err error) int {
	var syntax *jsonv.SyntaxError
	if errors.As(err, &syntax) {
		return syntax.Offset + 1
	}
	return 0
}

func lineError(lines *jsonl.Reader, line int, err error) error {
	var located *jsonl.Error
	if errors.As(err, &located) {
		return err
	}
	return &jsonl.Error{File: lines.Name(), Line: line, Err: err}
}
