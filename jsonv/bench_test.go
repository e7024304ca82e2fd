package jsonv

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// benchRows returns every row of the corpus's restored v4 sessions, as dsh
// wrote them (canonical), and the same rows with a space after every ':' and
// ',' (not canonical: what a pretty-printing tool would leave).
func benchRows(b *testing.B) (canonical, spaced [][]byte, size int64) {
	b.Helper()
	files, err := filepath.Glob("../testdata/corpus/restored/*/*.v4.jsonl")
	if err != nil || len(files) == 0 {
		b.Fatalf("no corpus files (%v)", err)
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		for _, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
			v, err := Parse(line)
			if err != nil {
				b.Fatal(err)
			}
			canonical = append(canonical, line)
			spaced = append(spaced, appendSpaced(nil, v))
			size += int64(len(line))
		}
	}
	return canonical, spaced, size
}

// appendSpaced writes v as JSON with a space after every ':' and ','.
func appendSpaced(dst []byte, v Value) []byte {
	switch v.Kind() {
	case Array:
		dst = append(dst, '[')
		for i, e := range v.Elements() {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendSpaced(dst, e)
		}
		return append(dst, ']')
	case Object:
		dst = append(dst, '{')
		for i, m := range v.Members() {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendString(dst, m.Key)
			dst = append(dst, ": "...)
			dst = appendSpaced(dst, m.Value)
		}
		return append(dst, '}')
	}
	return v.Append(dst)
}

// walk looks into every array and object of v, as a validator would.
func walk(v Value) int {
	n := 1
	for _, e := range v.Elements() {
		n += walk(e)
	}
	for _, m := range v.Members() {
		n += walk(m.Value)
	}
	return n
}

// BenchmarkParse measures checking rows and recording their structure.
func BenchmarkParse(b *testing.B) {
	canonical, spaced, size := benchRows(b)
	for _, bench := range []struct {
		name string
		rows [][]byte
	}{{"canonical", canonical}, {"spaced", spaced}} {
		b.Run(bench.name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				for _, row := range bench.rows {
					if _, err := Parse(row); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkParseAppend measures reading rows and writing them back: the
// canonical rows take the raw fast path (one scan and a copy), the spaced
// ones are decoded and re-encoded. The ratio of the two is the fast path's
// speedup.
func BenchmarkParseAppend(b *testing.B) {
	canonical, spaced, size := benchRows(b)
	for _, bench := range []struct {
		name string
		rows [][]byte
	}{{"canonical", canonical}, {"spaced", spaced}} {
		b.Run(bench.name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			var buf []byte
			for b.Loop() {
				for _, row := range bench.rows {
					v, err := Parse(row)
					if err != nil {
						b.Fatal(err)
					}
					buf = v.Append(buf[:0])
				}
			}
		})
	}
}

// BenchmarkParseWalk measures decoding every array and object of each row.
func BenchmarkParseWalk(b *testing.B) {
	canonical, _, size := benchRows(b)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, row := range canonical {
			v, err := Parse(row)
			if err != nil {
				b.Fatal(err)
			}
			walk(v)
		}
	}
}

// BenchmarkParseRead measures what the verbs do with most rows: read a few
// fields of the row and of its data, and the type of each content block,
// leaving the long texts alone.
func BenchmarkParseRead(b *testing.B) {
	canonical, _, size := benchRows(b)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, row := range canonical {
			v, err := Parse(row)
			if err != nil {
				b.Fatal(err)
			}
			readRow(v)
		}
	}
}

// readRow reads v as a verb reading an event would, and returns how many
// strings it found, so that nothing is optimized away.
func readRow(v Value) int {
	n := 0
	for _, key := range []string{"type", "seq", "time", "surfaceOp"} {
		if _, ok := v.Get(key); ok {
			n++
		}
	}
	data := v.Field("data")
	for _, key := range []string{"turn", "step", "id", "status", "message", "content"} {
		if _, ok := data.Get(key); ok {
			n++
		}
	}
	for _, msg := range []Value{data, data.Field("message")} {
		for _, block := range msg.Field("content").Elements() {
			n += len(block.Field("type").Text())
		}
		n += len(msg.Field("role").Text())
	}
	return n
}
