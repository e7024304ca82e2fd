package snapshot

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/jsonv"
)

// Difference is the first row where a log and its snapshot differ.
type Difference struct {
	// Line, Seq and Type are the log's row (Line 0 when the log ended
	// before the snapshot; Seq -1 when the row has none).
	Line int
	Seq  int64
	Type string
	// SnapshotLine is the snapshot's row (0 when the snapshot ended first).
	SnapshotLine int
	// Path is where in the row the first difference is, such as
	// data.message.content[0].text; empty for the row as a whole.
	Path string
	// Log and Snapshot are the differing values as JSON, cut short.
	Log, Snapshot string
}

// Check normalizes the log read from log (reading it twice) and compares
// it, row by row, with the snapshot read from snap. It returns the first
// difference, or nil when the log matches the snapshot.
func Check(log io.ReadSeeker, logName string, snap io.Reader, snapName string, opts NormalizeOptions) (*Difference, error) {
	n, err := NewNormalizer(log, logName, opts)
	if err != nil {
		return nil, err
	}
	stored := jsonl.NewReader(snap, snapName)
	var got, want []byte
	for {
		row, logErr := n.Next()
		if logErr != nil && logErr != io.EOF {
			return nil, logErr
		}
		line, expected, snapErr := nextSnapshotRow(stored, snapName)
		if snapErr != nil && snapErr != io.EOF {
			return nil, snapErr
		}
		switch {
		case logErr == io.EOF && snapErr == io.EOF:
			return nil, nil
		case logErr == io.EOF:
			return &Difference{Seq: -1, Type: expected.Field("type").Text(), SnapshotLine: line,
				Log: "(the log ends)", Snapshot: clipJSON(expected)}, nil
		case snapErr == io.EOF:
			return &Difference{Line: row.Line, Seq: row.Seq, Type: row.Type,
				Log: clipJSON(row.Value), Snapshot: "(the snapshot ends)"}, nil
		}
		got, want = row.Value.Append(got[:0]), expected.Append(want[:0])
		if !bytes.Equal(got, want) {
			path, a, b := firstDifference(row.Value, expected, "")
			logText, snapText := excerpts(a.String(), b.String())
			return &Difference{Line: row.Line, Seq: row.Seq, Type: row.Type, SnapshotLine: line,
				Path: path, Log: logText, Snapshot: snapText}, nil
		}
	}
}

// nextSnapshotRow reads the snapshot's next non-blank row.
func nextSnapshotRow(r *jsonl.Reader, name string) (int, jsonv.Value, error) {
	line, err := nextLine(r)
	if err != nil {
		return 0, jsonv.Value{}, err
	}
	v, err := jsonv.Parse(line.Text)
	if err != nil {
		return 0, v, &jsonl.Error{File: name, Line: line.Num, Err: errors.New("not valid JSON: " + err.Error())}
	}
	return line.Num, v, nil
}

// firstDifference walks a and b in step and returns the path of the first
// place where they differ, with the two values there.
func firstDifference(a, b jsonv.Value, path string) (string, jsonv.Value, jsonv.Value) {
	if a.Kind() != b.Kind() {
		return path, a, b
	}
	switch a.Kind() {
	case jsonv.Object:
		am, bm := a.Members(), b.Members()
		for i := range min(len(am), len(bm)) {
			if am[i].Key != bm[i].Key {
				return join(path, am[i].Key), am[i].Value, bm[i].Value
			}
			if !jsonv.Equal(am[i].Value, bm[i].Value) {
				return firstDifference(am[i].Value, bm[i].Value, join(path, am[i].Key))
			}
		}
		if len(am) != len(bm) {
			return path, a, b
		}
	case jsonv.Array:
		ae, be := a.Elements(), b.Elements()
		for i := range min(len(ae), len(be)) {
			if !jsonv.Equal(ae[i], be[i]) {
				return firstDifference(ae[i], be[i], path+"["+strconv.Itoa(i)+"]")
			}
		}
	}
	return path, a, b
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// excerpts cuts two differing JSON texts to the part around where they
// first differ.
func excerpts(a, b string) (string, string) {
	common := 0
	for common < len(a) && common < len(b) && a[common] == b[common] {
		common++
	}
	start := max(common-40, 0)
	for start > 0 && !utf8.RuneStart(a[start]) {
		start--
	}
	cut := func(s string) string {
		s = clip(s[start:])
		if start > 0 {
			return "…" + s
		}
		return s
	}
	return cut(a), cut(b)
}

// clipJSON is v as JSON, cut to 120 bytes.
func clipJSON(v jsonv.Value) string {
	return clip(v.String())
}

// clip cuts s to about 120 bytes, at a character boundary.
func clip(s string) string {
	if len(s) <= 120 {
		return s
	}
	cut := 120
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
