// Package sessiontest holds the harness that the tests of dshlog's codecs
// and migration edges share: reading a whole session through one codec,
// seeding fuzz targets from testdata and checking their stability, parsing
// spelled-out JSON, naming a refusal, and comparing rows with a seed
// vector's JSON file. It serves tests only; no non-test
// code imports it, and it imports no codec, so the codecs' own tests can use it.
package sessiontest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// ReadRows reads a session from data as dsh's JSONL backend does: the first
// line, parsed, goes to header and every later line, parsed, to row. A torn
// last line is dropped; a read error, an unparsable line or an error from
// header or row stops the read and is returned (io.EOF for empty data).
func ReadRows(data []byte, header, row func(jsonv.Value) error) error {
	lines := jsonl.NewReader(bytes.NewReader(data), "session")
	first, err := lines.Next()
	if err != nil {
		return err
	}
	hv, err := jsonv.Parse(first.Text)
	if err != nil {
		return err
	}
	if err := header(hv); err != nil {
		return err
	}
	for {
		line, err := lines.Next()
		if err == io.EOF || (err == nil && line.Torn) {
			return nil
		}
		if err != nil {
			return err
		}
		v, err := jsonv.Parse(line.Text)
		if err != nil {
			return err
		}
		if err := row(v); err != nil {
			return err
		}
	}
}

// Decoder is the row decoder of the v2, v3 and v4 codecs: Decode frames a
// row and reports whether it is an event to keep; Finish gives the inherited
// cut once every row is read.
type Decoder interface {
	Decode(row jsonv.Value) (session.Event, bool, error)
	Finish() (int64, error)
}

// ReadSession reads a session from data as ReadRows does, with open turning
// the header into the Decoder for the rows; every event the decoder keeps
// goes to accept. It returns the decoder's inherited cut.
func ReadSession(data []byte, open func(header jsonv.Value) (Decoder, error), accept func(session.Event) error) (int64, error) {
	var dec Decoder
	err := ReadRows(data,
		func(hv jsonv.Value) (err error) {
			dec, err = open(hv)
			return err
		},
		func(row jsonv.Value) error {
			ev, ok, err := dec.Decode(row)
			if err != nil || !ok {
				return err
			}
			return accept(ev)
		})
	if err != nil {
		return 0, err
	}
	return dec.Finish()
}

// Glob returns the files that match the patterns, pattern by pattern; a
// malformed pattern fails t.
func Glob(t testing.TB, patterns ...string) []string {
	t.Helper()
	var files []string
	for _, pattern := range patterns {
		matches, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, matches...)
	}
	return files
}

// Seed adds every file to f's seed corpus, followed by args when the
// target takes more than the file, and returns their contents so that a
// target can add variants of them too; an unreadable file fails f.
func Seed(f *testing.F, files []string, args ...any) [][]byte {
	f.Helper()
	seeds := make([][]byte, 0, len(files))
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(append([]any{data}, args...)...)
		seeds = append(seeds, data)
	}
	return seeds
}

// CheckStable checks a codec's fuzz property on data: read either refuses
// with a Typed error or gives bytes that reread accepts and gives back
// unchanged. The label (a recovery mode) prefixes every failure.
func CheckStable(t *testing.T, label string, data []byte, read, reread func([]byte) ([]byte, error)) {
	t.Helper()
	out, err := read(data)
	if err != nil {
		if !Typed(err) {
			t.Fatalf("%s: untyped error %T: %v", label, err, err)
		}
		return
	}
	again, err := reread(out)
	if err != nil {
		t.Fatalf("%s: accepted bytes do not read again: %v\n%s", label, err, out)
	}
	if !bytes.Equal(again, out) {
		t.Fatalf("%s: reading is not stable:\n%s\nthen\n%s", label, out, again)
	}
}

// Parse parses a JSON text that a test spells out; a syntax error fails t.
func Parse(t testing.TB, text string) jsonv.Value {
	t.Helper()
	v, err := jsonv.Parse([]byte(text))
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return v
}

// Typed reports whether err is one of the errors that reading a session is
// documented to return: io.EOF for an empty file, a dsh refusal, a JSON
// syntax error, or a located JSONL read error.
func Typed(err error) bool {
	var refusal *session.Refusal
	var syntax *jsonv.SyntaxError
	var located *jsonl.Error
	return err == io.EOF || errors.As(err, &refusal) || errors.As(err, &syntax) || errors.As(err, &located)
}

// RefusalText renders err as dsh prints a refusal ("<Class>: <message>"),
// "" for no error, and "not a refusal: …" for any other error.
func RefusalText(err error) string {
	var r *session.Refusal
	if errors.As(err, &r) {
		return r.Text()
	}
	if err != nil {
		return "not a refusal: " + err.Error()
	}
	return ""
}

// CheckRowsFile fails t unless rows, written as the seed vectors write them
// (a JSON array indented by two spaces, with a final newline), equal the
// file at path.
func CheckRowsFile(t testing.TB, rows []jsonv.Value, path string) {
	t.Helper()
	encoded := make([]json.RawMessage, len(rows))
	for i, row := range rows {
		encoded[i] = row.Encode()
	}
	compact, err := json.Marshal(encoded)
	if err != nil {
		t.Fatal(err)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, compact, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pretty.Bytes(), want) {
		t.Errorf("rows differ from %s:\n%s", filepath.Base(path), pretty.Bytes())
	}
}
