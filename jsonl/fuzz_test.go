package jsonl

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"
)

func FuzzJSONLReader(f *testing.F) {
	files, _ := filepath.Glob("../testdata/corpus/golden/edge/*/*.jsonl")
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{"", "\n", "a", "a\nb", "a\r\n\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// As plain text, the lines put back together are the input.
		lines, err := readAll(NewReader(bytes.NewReader(data), "f"))
		if err != nil {
			t.Fatalf("reading plain text: %v", err)
		}
		var joined []byte
		for i, l := range lines {
			if l.Num != i+1 {
				t.Fatalf("line %d numbered %d", i+1, l.Num)
			}
			if bytes.IndexByte(l.Text, '\n') >= 0 {
				t.Fatalf("line %d holds a newline", l.Num)
			}
			joined = append(joined, l.Text...)
			if l.Torn != (i == len(lines)-1 && !bytes.HasSuffix(data, []byte("\n"))) {
				t.Fatalf("line %d of %d torn = %v", l.Num, len(lines), l.Torn)
			}
			if !l.Torn {
				joined = append(joined, '\n')
			}
		}
		if !bytes.Equal(joined, data) {
			t.Fatalf("lines %q do not make up %q", joined, data)
		}
		// Small reads give the same lines.
		small, err := readAll(NewReader(iotest.HalfReader(bytes.NewReader(data)), "f"))
		if err != nil || describe(small) != describe(lines) {
			t.Fatalf("half reads gave %q (%v), want %q", describe(small), err, describe(lines))
		}
	})
}
