package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/verify"
)

// JSON is the report for programs, JSON lines with stable keys: an object
// per finding (file, line, seq, code, severity, message; line and seq null
// where there is none), then an object per file (file, result, errors,
// warnings, info, baselined, theorem: the request chain, or null when the
// file did not fold to its end; and reason, why, for an unreadable file).
type JSON struct{ w io.Writer }

// NewJSON returns the JSON report writing to w.
func NewJSON(w io.Writer) *JSON { return &JSON{w: w} }

// File writes a file's findings and its summary object.
func (j *JSON) File(f File) error {
	var b []byte
	for _, finding := range f.Findings {
		b = AppendFindingJSON(b, f.Name, finding)
	}
	b = append(b, `{"file":`...)
	b = jsonv.AppendString(b, f.Name)
	b = fmt.Appendf(b, `,"result":"%s","errors":%d,"warnings":%d,"info":%d,"baselined":%d,"theorem":`,
		f.Verdict, f.Counts[verify.Error], f.Counts[verify.Warning], f.Counts[verify.Info], f.Baselined)
	if f.Verdict == Unreadable || !f.Chain.Complete {
		b = append(b, "null"...)
		if f.Verdict == Unreadable {
			b = append(b, `,"reason":`...)
			b = jsonv.AppendString(b, Reason(f.Err))
		}
	} else {
		theorem, err := chainJSON(f.Chain)
		if err != nil {
			return err
		}
		b = append(b, theorem...)
	}
	b = append(b, "}\n"...)
	return writeAll(j.w, b)
}

// Summary writes nothing: the files' objects say it all.
func (j *JSON) Summary(*Summary) error { return nil }

// Finding writes one finding as it is found.
func (j *JSON) Finding(file string, f verify.Finding) error {
	return writeAll(j.w, AppendFindingJSON(nil, file, f))
}

// AppendFindingJSON appends a finding as a JSON object and a newline.
func AppendFindingJSON(b []byte, file string, f verify.Finding) []byte {
	b = append(b, `{"file":`...)
	b = jsonv.AppendString(b, file)
	b = append(b, `,"line":`...)
	b = appendOptional(b, int64(f.Line), f.Line > 0)
	b = append(b, `,"seq":`...)
	b = appendOptional(b, f.Seq, f.Seq >= 0)
	b = append(b, `,"code":`...)
	b = jsonv.AppendString(b, f.Code)
	b = append(b, `,"severity":`...)
	b = jsonv.AppendString(b, f.Severity.String())
	b = append(b, `,"message":`...)
	b = jsonv.AppendString(b, f.Message)
	if f.Hint != "" {
		b = append(b, `,"hint":`...)
		b = jsonv.AppendString(b, f.Hint)
	}
	return append(b, "}\n"...)
}

// appendOptional appends n, or null when it is not present.
func appendOptional(b []byte, n int64, present bool) []byte {
	if !present {
		return append(b, "null"...)
	}
	return fmt.Appendf(b, "%d", n)
}

// chainJSON is the chain as a JSON object, its breaks a list even when
// empty.
func chainJSON(c verify.Chain) ([]byte, error) {
	if c.Breaks == nil {
		c.Breaks = []verify.Break{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
