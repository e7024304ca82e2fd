package rescue

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// Step kinds of a format v0 log brought to today's dsh.
const (
	// StepLift: a row the build that wrote the log reads differently from
	// today's migrator (see migrate/lift), read as that build reads it.
	StepLift = "lift"
	// StepSeries: a series header added where a compaction broke the
	// request chain and the log's writer opened no new series (the v0
	// line's writer never does; today's dsh writes one).
	StepSeries = "series"
)

// readsV0AsLine reports whether the file at path is a format v0 or v1 log,
// which rescue brings to today's dsh through the line that wrote it.
func readsV0AsLine(path string) bool {
	text, err := migrate.OpenText(path, nil)
	if err != nil {
		return false
	}
	defer text.Close()
	line, err := jsonl.NewReader(text, path).Next()
	if err != nil {
		return false
	}
	hv, err := jsonv.Parse(line.Text)
	version, ok := hv.Field("version").Count()
	return err == nil && ok && version <= 1
}

// lineAndToday splits the vocabulary a rescue was given into the one the
// source is read by (its own line's: the v0 line unless a build of that
// line was chosen) and the one the result is judged by (today's dsh).
func lineAndToday(v *vocab.Vocabulary) (line, today *vocab.Vocabulary) {
	if v == nil {
		v = vocab.Default()
	}
	if v.Build().V0 != nil {
		return v, vocab.Default()
	}
	return vocab.V0Line.Vocabulary(), v
}

// liftToV4 reads the format v0 log at path as the v0 line reads it and
// writes it, migrated to v4, into a new file in dir, with a series header
// after every compaction that breaks the request chain unmarked. It
// returns the file and the steps taken, in source order.
func liftToV4(path, dir string, line *vocab.Vocabulary) (string, []Step, error) {
	src, err := migrate.Open(path, nil, migrate.OpenOptions{Options: migrate.Options{Recovery: v2.Recoverable, Vocabulary: line, ListLifted: true}})
	if err != nil {
		return "", nil, lineRefuses(path, err)
	}
	defer src.Close()
	migrated, err := os.CreateTemp(dir, ".rescue-v4-*.jsonl.tmp")
	if err != nil {
		return "", nil, err
	}
	w := bufio.NewWriter(migrated)
	_, err = migrate.Encode(w, src.Reader)
	if err == nil {
		err = w.Flush()
	}
	if cerr := migrated.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(migrated.Name())
		return "", nil, lineRefuses(path, err)
	}
	var steps []Step
	for _, c := range src.Lifted() {
		steps = append(steps, Step{Kind: StepLift, Line: c.Line, Seq: c.Seq, To: -1, Rule: c.Rule, Detail: c.What, SetAside: c.SetAside})
	}
	marked, series, err := markSeries(migrated.Name(), dir)
	os.Remove(migrated.Name())
	if err != nil {
		return "", nil, err
	}
	return marked, append(steps, series...), nil
}

// lineRefuses words a refusal of the log by its own line.
func lineRefuses(path string, err error) error {
	var refusal *session.Refusal
	if errors.As(err, &refusal) {
		return fmt.Errorf("%s: even read as its own line reads it, the log cannot be carried to today's format: %w", path, err)
	}
	return err
}

// markSeries copies the v4 log at path into a new file in dir, adding
// before each request that follows a closed compaction bracket with no
// request/header since a series header: the header in force, reason
// "series", as today's writer puts one there. Every later seq, and every
// reference to one, moves up by the headers added before it.
func markSeries(path, dir string) (string, []Step, error) {
	in, err := os.Open(path)
	if err != nil {
		return "", nil, err
	}
	defer in.Close()
	out, err := os.CreateTemp(dir, ".rescue-series-*.jsonl.tmp")
	if err != nil {
		return "", nil, err
	}
	m := seriesMarker{w: bufio.NewWriter(out)}
	err = m.copy(jsonl.NewReader(bufio.NewReader(in), path))
	if err == nil {
		err = m.w.Flush()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(out.Name())
		return "", nil, err
	}
	return out.Name(), m.steps, nil
}

// seriesMarker is markSeries' pass over one log.
type seriesMarker struct {
	w       *bufio.Writer
	steps   []Step
	added   []int64     // source seqs before which a series header was added
	header  jsonv.Value // the header data of the last request/header
	pending bool        // a compaction/end since the last request/header
}

// to is the seq in the result of source seq old.
func (m *seriesMarker) to(old int64) int64 {
	n := int64(0)
	for _, at := range m.added {
		if at <= old {
			n++
		}
	}
	return old + n
}

func (m *seriesMarker) copy(lines *jsonl.Reader) error {
	first := true
	for {
		line, err := lines.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if first {
			first = false
			m.writeLine(line.Text)
			continue
		}
		row, err := jsonv.Parse(line.Text)
		if err != nil {
			return err
		}
		seq, _ := row.Field("seq").Count()
		typ := row.Field("type").Text()
		if m.pending && fold.IsSettlement(typ) && !m.header.IsNull() {
			m.added = append(m.added, seq)
			series := jsonv.ObjectValue(
				jsonv.M("type", jsonv.StringValue("request/header")),
				jsonv.M("seq", jsonv.IntValue(m.to(seq)-1)),
				jsonv.M("time", row.Field("time")),
				jsonv.M("data", jsonv.ObjectValue(jsonv.M("header", m.header), jsonv.M("reason", jsonv.StringValue("series")))))
			m.w.Write(v4.AppendEvent(nil, session.Event{Row: series}))
			m.steps = append(m.steps, Step{Kind: StepSeries, Seq: -1, To: m.to(seq) - 1, Type: "request/header",
				Detail: fmt.Sprintf("series header added before the request settled at seq %d: the compaction before it broke the request chain, and the v0 line's writer opens no series after one", seq)})
			m.pending = false
		}
		switch typ {
		case "request/header":
			m.header, m.pending = jsonv.Detach(row.Field("data").Field("header")), false
		case "compaction/end":
			m.pending = true
		}
		if len(m.added) == 0 {
			m.writeLine(line.Text)
			continue
		}
		out, _ := remapped(row, m.to(seq), m.to)
		m.w.Write(v4.AppendEvent(nil, session.Event{Row: out}))
	}
}

// writeLine writes one line of text and its newline.
func (m *seriesMarker) writeLine(text []byte) {
	m.w.Write(text)
	m.w.WriteByte('\n')
}
