package cli

import (
	"errors"
	"io"

	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/session"
)

// sessionEvents is an opened session file read as current-format events.
type sessionEvents struct {
	*migrate.Reader
	file *jsonl.File
}

// openSession opens the session file at path ("-" for s.in; plain, zstd or
// gzip) and reads its header, ready to stream v4 events in memory.
func openSession(path string, s *streams, opts migrate.Options) (*sessionEvents, error) {
	file, err := jsonl.Open(path, s.in)
	if err != nil {
		return nil, err
	}
	reader, err := migrate.NewReader(jsonl.NewReader(file, file.Name), opts)
	if err != nil {
		file.Close()
		return nil, explainRefusal(err)
	}
	return &sessionEvents{Reader: reader, file: file}, nil
}

// Close releases the file.
func (e *sessionEvents) Close() error { return e.file.Close() }

// each calls visit for every event of the session, then reports, as notes on
// s.err, what the reader did that dsh also does silently: migrating an older
// format in memory, restoring a normalized snapshot's seq and time, dropping
// a torn last line. A problem
// that made dsh's recoverable reader drop rows is returned as an error.
func (e *sessionEvents) each(s *streams, visit func(session.Event) error) error {
	for {
		ev, err := e.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return explainRefusal(err)
		}
		if err := visit(ev); err != nil {
			return err
		}
	}
	name := e.file.Name
	if e.SourceVersion != v4.Version {
		note(s, "%s: format v%d, read as v%d (migrated in memory; the file is unchanged)", name, e.SourceVersion, v4.Version)
	}
	if e.Snapshot {
		note(s, "%s: normalized snapshot: seq and time restored (seq by row, time as createdAt+seq)", name)
	}
	if e.TornTail() {
		note(s, "%s: torn last line (no final newline) dropped, as dsh does", name)
	}
	if issue := e.Issue(); issue != nil {
		return withHint(issue, "dsh's recoverable reader drops this row and every row after it; the events before it were read")
	}
	return nil
}

// explainRefusal adds a hint to the refusals a person can act on.
func explainRefusal(err error) error {
	var refusal *session.Refusal
	if errors.As(err, &refusal) && refusal.Class == session.ClassUnsupported {
		return withHint(err, "dsh refuses it too ("+refusal.Class+")")
	}
	return err
}
