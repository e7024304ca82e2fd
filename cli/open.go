package cli

import (
	"errors"
	"io"
	"strings"

	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/migrate/lift"
	"github.com/dshlog/dshlog/session"
)

// sessionEvents is an opened session file read as current-format events.
type sessionEvents struct {
	*migrate.Source
	// name is the file as messages name it: its path, or "<stdin>".
	name string
}

// openSession opens the session file at path ("-" for s.in; plain, zstd or
// gzip) and reads its header, ready to stream v4 events in memory. Subagent
// children beside a historical session are found and read as dsh does; a
// child that gives no evidence is a note.
func openSession(path string, s *streams, opts migrate.Options) (*sessionEvents, error) {
	return openSessionWith(path, s, migrate.OpenOptions{Options: opts, AnyZstdFraming: true})
}

// openSessionWith is openSession with every option of migrate.Open.
func openSessionWith(path string, s *streams, opts migrate.OpenOptions) (*sessionEvents, error) {
	src, err := migrate.Open(path, s.in, opts)
	if err != nil {
		return nil, explainRefusal(err)
	}
	events := &sessionEvents{Source: src, name: path}
	if path == "-" {
		events.name = "<stdin>"
	}
	if src.Unframed {
		note(s, "%s: Zstandard stream not in dsh's framing (the header line is not alone in the first frame); read as plain text, though dsh itself would refuse this file", events.name)
	}
	for _, warning := range src.Warnings {
		note(s, "%s", warning)
	}
	return events, nil
}

// each calls visit for every event of the session, then reports, as notes on
// s.err, what the reader did that dsh also does silently: migrating an older
// format in memory, restoring a normalized snapshot's seq and time, dropping
// a torn last line. A problem
// that made dsh's recoverable reader drop rows is returned as an error.
func (e *sessionEvents) each(s *streams, visit func(session.Event) error) error {
	namedTools := false // a snapshot header gives tool names or {{tools}}, not schemas
	for {
		ev, err := e.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var refusal *session.Refusal
			if errors.As(err, &refusal) {
				err = &refusedLog{err: err}
			}
			return explainUnknownType(explainRefusal(err), e.Vocabulary())
		}
		namedTools = namedTools || ev.Type == "request/header" && toolsWithoutSchemas(ev.Data().Field("header").Field("tools"))
		if err := visit(ev); err != nil {
			return err
		}
	}
	name := e.name
	if e.SourceVersion != v4.Version {
		note(s, "%s: format v%d, read as v%d (migrated in memory; the file is unchanged)", name, e.SourceVersion, v4.Version)
	}
	if lifted := e.LiftCounts().Summary(lift.BuildRules...); lifted != "" {
		note(s, "%s: read as the build that wrote it reads it (dsh %s), where today's migrator refuses: %s", name, e.Vocabulary().Build().Name, lifted)
	}
	if e.Snapshot {
		note(s, "%s: normalized snapshot: seq and time restored (seq by row, time as createdAt+seq)", name)
	}
	if namedTools {
		note(s, "%s: request/header tools given as \"{{tools}}\" or by name (normalized snapshot): rules needing the tool schemas were skipped", name)
	}
	if e.TornTail() {
		note(s, "%s: torn last line (no final newline) dropped, as dsh does", name)
	}
	if issue := e.Issue(); issue != nil {
		return withHint(issue, "dsh's recoverable reader drops this row and every row after it; the events before it were read")
	}
	return nil
}

// refusedLog is dsh's refusal of the whole log, met while reading it: dsh
// loads nothing of such a log, so a verb prints nothing that reads like a
// result of it.
type refusedLog struct{ err error }

func (e *refusedLog) Error() string { return e.err.Error() }

func (e *refusedLog) Unwrap() error { return e.err }

// explainRefusal adds a hint to the refusals a person can act on.
func explainRefusal(err error) error {
	var refusal *session.Refusal
	if !errors.As(err, &refusal) {
		return err
	}
	if strings.HasPrefix(refusal.Msg, "stored Session uses newer format v5;") {
		return withHint(err, "the official dsh has no format v5: its newest is v4 (v0.2.1-alpha.2). Several forks of dsh wrote a \"v5\" of their own, and those formats differ from each other (each its own vocabulary), so no reader can take \"v5\" as one format; read the log with the fork that wrote it")
	}
	if strings.HasSuffix(refusal.Msg, "first frame is not exactly one header line") {
		return withHint(err, "dsh writes the header line in a Zstandard frame of its own and refuses a file compressed whole by the zstd tool; to migrate one, decompress it first: zstd -dc FILE > session.jsonl")
	}
	return err
}

// toolsWithoutSchemas reports whether a request/header's tools are in dsh's
// snapshot form: the "{{tools}}" placeholder or a list of tool names.
func toolsWithoutSchemas(tools jsonv.Value) bool {
	if tools.Kind() == jsonv.String {
		return true
	}
	return tools.Kind() == jsonv.Array && tools.Len() > 0 && tools.Index(0).Kind() == jsonv.String
}
