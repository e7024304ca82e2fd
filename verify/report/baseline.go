package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/verify"
)

// Baseline is a set of known findings that do not fail a run, matched by
// file path, code and seq, never by message text, so a reworded message
// or a moved line still matches. A nil Baseline covers nothing.
type Baseline struct {
	known map[BaselineEntry]bool
}

// BaselineEntry is one known finding: the file as reported (with forward
// slashes), the code, and the seq (-1 for a finding about the whole file).
type BaselineEntry struct {
	File string
	Code string
	Seq  int64
}

// baselineFile is the JSON form of a baseline.
type baselineFile struct {
	Format   string          `json:"format"`
	Findings []baselineEntry `json:"findings"`
}

type baselineEntry struct {
	File string `json:"file"`
	Code string `json:"code"`
	Seq  *int64 `json:"seq"`
}

// baselineFormat names the format in the file, so a later one can differ.
const baselineFormat = "dshlog-verify-baseline/1"

// ReadBaseline reads a baseline written by WriteBaseline.
func ReadBaseline(r io.Reader) (*Baseline, error) {
	var file baselineFile
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&file); err != nil {
		return nil, fmt.Errorf("not a dshlog verify baseline: %w", err)
	}
	if file.Format != baselineFormat {
		return nil, fmt.Errorf("not a dshlog verify baseline: format %q, want %q", file.Format, baselineFormat)
	}
	b := &Baseline{known: map[BaselineEntry]bool{}}
	for _, e := range file.Findings {
		seq := int64(-1) // null: a finding about the whole file
		if e.Seq != nil && *e.Seq >= 0 {
			seq = *e.Seq
		}
		b.known[BaselineEntry{File: e.File, Code: e.Code, Seq: seq}] = true
	}
	return b, nil
}

// Covers reports whether the finding f of file is a known one.
func (b *Baseline) Covers(file string, f verify.Finding) bool {
	if b == nil {
		return false
	}
	return b.known[EntryOf(file, f)]
}

// Len is the number of known findings.
func (b *Baseline) Len() int {
	if b == nil {
		return 0
	}
	return len(b.known)
}

// EntryOf is the baseline entry that matches finding f of file.
func EntryOf(file string, f verify.Finding) BaselineEntry {
	return BaselineEntry{File: filepath.ToSlash(file), Code: f.Code, Seq: max(f.Seq, -1)}
}

// WriteBaseline writes entries as a baseline, sorted and each once, one
// finding a line so that a change to it reads well in a diff.
func WriteBaseline(w io.Writer, entries []BaselineEntry) error {
	entries = slices.Clone(entries)
	slices.SortFunc(entries, func(a, b BaselineEntry) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Code, b.Code), cmp.Compare(a.Seq, b.Seq))
	})
	entries = slices.Compact(entries)
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\"format\":%q,\"findings\":[", baselineFormat)
	for i, e := range entries {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n{\"file\":")
		b.Write(jsonv.AppendString(nil, e.File))
		b.WriteString(",\"code\":")
		b.Write(jsonv.AppendString(nil, e.Code))
		b.WriteString(",\"seq\":")
		if e.Seq < 0 {
			b.WriteString("null")
		} else {
			b.WriteString(strconv.FormatInt(e.Seq, 10))
		}
		b.WriteByte('}')
	}
	b.WriteString("\n]}\n")
	_, err := w.Write(b.Bytes())
	return err
}
