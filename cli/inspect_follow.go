package cli

import (
	"bufio"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter/pkg/twwidth"

	"github.com/dshlog/dshlog/inspect"
	"github.com/dshlog/dshlog/session"
)

// inspectFollowed lists the events of a session as dsh appends them, until
// Ctrl-C or --idle.
func inspectFollowed(opts inspectOptions, s *streams) error {
	ctx, stop := followContext()
	defer stop()
	path, err := followTarget(opts.file, s)
	if err != nil {
		return err
	}
	opts.file = path
	var sink liveInspectSink
	if opts.json {
		sink = newInspectJSON(s.out)
	} else {
		sized := newInspectTable(io.Discard, path)
		if err := sizeColumns(opts, s, sized); err != nil {
			return err
		}
		sink = &inspectLiveTable{out: bufio.NewWriterSize(s.out, outputBuffer), widths: sized.widths}
	}
	events, err := openFollowed(ctx, path, s, opts.read, opts.follow, func() { sink.show() })
	if err != nil {
		return err
	}
	defer events.Close()
	err = listEvents(events.sessionEvents, opts, s, sink)
	events.noteEnd(s)
	return err
}

// liveInspectSink is an inspectSink that can show what it was given so far
// while more is to come.
type liveInspectSink interface {
	inspectSink
	// show writes out the events added so far; an error is kept by the
	// writer for the next add or flush to return.
	show()
}

func (j *inspectJSON) show() { j.out.Flush() }

// inspectLiveTable prints the table of a followed session, a row as each
// event comes: its columns are sized by a first reading of the file as it
// was, and a later cell wider than its column widens the column from its
// row on. Its rows are laid out as inspectTable's.
type inspectLiveTable struct {
	out     *bufio.Writer
	widths  []int
	started bool // the header is printed
	line    strings.Builder
}

func (t *inspectLiveTable) wants(int64) bool { return true }

func (t *inspectLiveTable) add(d inspect.Description, _ session.Event) error {
	if !t.started {
		t.row(inspectColumns, false)
		t.started = true
	}
	return t.row(inspectCells(d), true)
}

// row prints cells padded to their columns, the first aligned right when
// alignSeq (a row, not the header).
func (t *inspectLiveTable) row(cells []string, alignSeq bool) error {
	t.line.Reset()
	for col, cell := range cells {
		width := twwidth.Width(cell)
		t.widths[col] = max(t.widths[col], width)
		pad := strings.Repeat(" ", t.widths[col]-width)
		if col == 0 && alignSeq {
			t.line.WriteString(pad + cell)
		} else {
			t.line.WriteString(cell + pad)
		}
		t.line.WriteString("  ")
	}
	_, err := t.out.WriteString(strings.TrimRight(t.line.String(), " ") + "\n")
	return err
}

func (t *inspectLiveTable) show() { t.out.Flush() }

func (t *inspectLiveTable) flush() error {
	if !t.started {
		t.row(inspectColumns, false)
		t.started = true
	}
	return t.out.Flush()
}
