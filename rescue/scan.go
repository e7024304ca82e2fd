package rescue

import (
	"fmt"
	"io"

	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate"
)

// sourceRow is what rescue keeps of a source row: where it is and what it
// claims to be, never its content.
type sourceRow struct {
	line  int
	bytes int
	seq   int64 // -1 when the row names none
	typ   string
	// damage says why the row is no event at all ("" for a sound row).
	damage string
}

// history is one writer's rows: lines[i] holds the event with seq i.
type history struct{ lines []int }

// maxWriters bounds the histories followed; rows of further writers are set
// aside.
const maxWriters = 8

// scan reads the source once and returns its header line, its rows and the
// writers' histories, the one with most rows first.
func scan(path string) (header []byte, rows []sourceRow, writers []history, err error) {
	text, err := migrate.OpenText(path, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	defer text.Close()
	lines := jsonl.NewReader(text, path)
	for {
		line, err := lines.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, nil, err
		}
		if line.Num == 1 {
			if line.Torn {
				return nil, nil, nil, fmt.Errorf("%s: the header line is torn; there is no session to rescue", path)
			}
			header = line.Text
			if err := checkHeader(path, header); err != nil {
				return nil, nil, nil, err
			}
			continue
		}
		row := describe(line)
		if len(rows) == 0 && row.damage == "no seq" {
			return nil, nil, nil, fmt.Errorf("%s: a normalized snapshot (rows without seq and time) is no log dsh writes; there is nothing to rescue", path)
		}
		rows = append(rows, row)
	}
	if header == nil {
		return nil, nil, nil, fmt.Errorf("%s: empty file; there is no session to rescue", path)
	}
	return header, rows, follow(rows), nil
}

// checkHeader requires a current-format (v4) header: the rewrites are v4
// rows, and an older log is migrated, not rescued.
func checkHeader(path string, header []byte) error {
	v, err := jsonv.Parse(header)
	if err != nil || v.Kind() != jsonv.Object {
		return fmt.Errorf("%s:1: the header line is not a JSON object; there is no session to rescue", path)
	}
	if version, ok := v.Field("version").Count(); !ok || version != 4 {
		return fmt.Errorf("%s:1: rescue mends current-format (v4) logs; this header says version %s (migrate an older log first)", path, v.Field("version").String())
	}
	return nil
}

// describe reads what a row claims: its seq and type.
func describe(line jsonl.Line) sourceRow {
	r := sourceRow{line: line.Num, bytes: len(line.Text), seq: -1}
	if line.Torn {
		r.damage = "torn last line (no final newline)"
		return r
	}
	v, err := jsonv.Parse(line.Text)
	if err != nil {
		r.damage = "not valid JSON"
		return r
	}
	if v.Kind() != jsonv.Object {
		r.damage = "not a JSON object"
		return r
	}
	r.typ = v.Field("type").Text()
	seq, ok := v.Field("seq").Count()
	if !ok {
		r.damage = "no seq"
		return r
	}
	r.seq = seq
	return r
}

// follow sorts the sound rows into writers' histories: a row joins the
// first history its seq continues; a seq that repeats one already written
// starts a new history sharing the first history's earlier rows.
func follow(rows []sourceRow) []history {
	writers := []history{{}}
	for _, r := range rows {
		if r.damage != "" {
			continue
		}
		joined := false
		for i := range writers {
			if int64(len(writers[i].lines)) == r.seq {
				writers[i].lines = append(writers[i].lines, r.line)
				joined = true
				break
			}
		}
		if joined || len(writers) == maxWriters || r.seq >= int64(len(writers[0].lines)) {
			continue
		}
		shared := append([]int(nil), writers[0].lines[:r.seq]...)
		writers = append(writers, history{lines: append(shared, r.line)})
	}
	longestFirst(writers)
	return writers
}

// longestFirst orders the histories by length, longest first, keeping the
// file order among equals.
func longestFirst(writers []history) {
	for i := 1; i < len(writers); i++ {
		for j := i; j > 0 && len(writers[j].lines) > len(writers[j-1].lines); j-- {
			writers[j], writers[j-1] = writers[j-1], writers[j]
		}
	}
}
