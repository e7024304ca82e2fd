package migrate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// mutations turn a corpus row into rows that some check made ahead
// refuses: the framing, v3's admission or its canonical event check.
var mutations = []func(jsonv.Value) jsonv.Value{
	func(v jsonv.Value) jsonv.Value { return v },
	func(v jsonv.Value) jsonv.Value { return v.Without("time") },
	func(v jsonv.Value) jsonv.Value { return v.With("ignorable", jsonv.BoolValue(false)) },
	func(v jsonv.Value) jsonv.Value { return v.With("x", jsonv.IntValue(1)) },
	func(v jsonv.Value) jsonv.Value { return v.Without("surfaceOp") },
	func(v jsonv.Value) jsonv.Value { return v.With("surfaceOp", jsonv.StringValue("append")) },
	func(v jsonv.Value) jsonv.Value { return v.With("type", jsonv.StringValue("tool/code-dispatch")) },
	func(v jsonv.Value) jsonv.Value { return v.With("sourceEventSeqs", jsonv.ArrayValue(v.Field("seq"))) },
	func(v jsonv.Value) jsonv.Value {
		return v.With("data", v.Field("data").With("header", jsonv.ObjectValue(jsonv.M("system", jsonv.StringValue("s")))))
	},
	func(v jsonv.Value) jsonv.Value {
		return v.With("data", v.Field("data").With("error", jsonv.ObjectValue()))
	},
}

// TestCheckedDecoding feeds the v2, v3 and v4 files of the corpus, row by
// row, to two decoders of their codec: one decoding each row in place, one
// taking the row with its checks made ahead (CheckRow, as the read-ahead
// does). Both must hand on the same events and refuse with the same error,
// in both recovery modes, also when a row is mutated so that one of the
// checks made ahead refuses it.
func TestCheckedDecoding(t *testing.T) {
	var files []string
	for _, pattern := range []string{"restored/*/*.jsonl", "golden/edge*/*/session.v[234].jsonl", "dsh/*/*.jsonl", "bad-logs/*/*.jsonl"} {
		found, err := filepath.Glob(filepath.Join(corpus, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, found...)
	}
	compared, refused := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		hv, err := jsonv.Parse([]byte(lines[0]))
		if err != nil {
			continue
		}
		version, ok := hv.Field("version").Count()
		cd, known := newCatalog(nil, nil).codecs[int(version)]
		if !ok || !known || version < 2 {
			continue
		}
		var rows []jsonv.Value
		for _, line := range lines[1:] {
			if row, err := jsonv.Parse([]byte(line)); err == nil {
				rows = append(rows, row) // an unparsable row is the reader's, before any codec
			}
		}
		// Each sampled row, mutated, ends a run of the rows before it.
		step := max(len(rows)/8, 1)
		for end := 0; end < len(rows); end += step {
			for m, mutate := range mutations {
				if m == 0 && end+step < len(rows) {
					continue // unmutated, only the whole file
				}
				run := append(rows[:end:end], mutate(rows[end]))
				if m == 0 {
					run = rows
				}
				for _, recovery := range []v2.Recovery{v2.Recoverable, v2.Strict} {
					refusal := compareDecoding(t, cd, hv, recovery, run, fmt.Sprintf("%s row %d mutation %d (%v)", f, end+1, m, recovery))
					compared++
					if refusal {
						refused++
					}
				}
			}
		}
	}
	if compared < 1000 || refused < 100 {
		t.Fatalf("compared %d decodings (%d refused), want at least 1000 (100)", compared, refused)
	}
}

// compareDecoding decodes rows in place and with their checks made ahead,
// fails the test when the two differ, and reports whether they refused.
func compareDecoding(t *testing.T, cd codec, hv jsonv.Value, recovery v2.Recovery, rows []jsonv.Value, what string) bool {
	t.Helper()
	inPlace, err1 := cd.newDecoder(hv, recovery)
	ahead, err2 := cd.newDecoder(hv, recovery)
	if err1 != nil || err2 != nil {
		return false // a header refusal: no rows are read
	}
	checker, ok := ahead.(rowChecker)
	if !ok {
		t.Fatalf("%s: the codec has no row checks to run ahead", what)
	}
	var got, want bytes.Buffer
	record := func(out *bytes.Buffer) session.Emit {
		return func(it session.Item) error {
			fmt.Fprintf(out, "%s %d %d %s\n", it.Event.Type, it.Event.Seq, it.Event.Time, it.Event.Row)
			return nil
		}
	}
	var errWant, errGot error
	for _, row := range rows {
		errWant = inPlace.Decode(row, record(&want))
		errGot = checker.DecodeChecked(row, checker.CheckRow(row), record(&got))
		if fmt.Sprint(errWant) != fmt.Sprint(errGot) {
			t.Fatalf("%s: checked ahead %v, in place %v", what, errGot, errWant)
		}
		if errWant != nil {
			break
		}
	}
	if got.String() != want.String() {
		t.Fatalf("%s: checked ahead handed on\n%s\nin place\n%s", what, got.String(), want.String())
	}
	if errWant == nil {
		issueWant, issueGot := inPlace.Issue(), ahead.Issue()
		if fmt.Sprint(issueWant) != fmt.Sprint(issueGot) {
			t.Fatalf("%s: checked ahead withheld rows for %v, in place for %v", what, issueGot, issueWant)
		}
		return issueWant != nil
	}
	return true
}
