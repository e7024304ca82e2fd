package sessiontest

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// TestReadRows checks the JSONL rules the harness promises: the header goes
// to header, whole rows to row, a torn last line is dropped and an
// unparsable row stops the read.
func TestReadRows(t *testing.T) {
	tests := []struct {
		name, data string
		rows       []string
		typed      bool // the error, if any, is one Typed accepts
		err        bool
	}{
		{"empty", "", nil, true, true},
		{"header only", "{\"h\":1}\n", nil, true, false},
		{"rows", "{\"h\":1}\n[1]\n[2]\n", []string{"[1]", "[2]"}, true, false},
		{"torn last line dropped", "{\"h\":1}\n[1]\n[2", []string{"[1]"}, true, false},
		{"torn valid last line dropped", "{\"h\":1}\n[1]\n[2]", []string{"[1]"}, true, false},
		{"unparsable row stops", "{\"h\":1}\n[1]\nnot json\n[3]\n", []string{"[1]"}, true, true},
		{"unparsable header", "nope\n[1]\n", nil, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var header string
			var rows []string
			err := ReadRows([]byte(tc.data),
				func(v jsonv.Value) error { header = v.String(); return nil },
				func(v jsonv.Value) error { rows = append(rows, v.String()); return nil })
			if (err != nil) != tc.err || (err != nil && Typed(err) != tc.typed) {
				t.Fatalf("err %v (%T)", err, err)
			}
			if !tc.err && header != `{"h":1}` {
				t.Errorf("header %s", header)
			}
			if strings.Join(rows, " ") != strings.Join(tc.rows, " ") {
				t.Errorf("rows %q, want %q", rows, tc.rows)
			}
		})
	}
}

// TestReadRowsStopsAtCallbackError checks that an error from header or row
// ends the read and is returned as it is.
func TestReadRowsStopsAtCallbackError(t *testing.T) {
	stop := errors.New("stop")
	data := []byte("{}\n[1]\n[2]\n")
	if err := ReadRows(data, func(jsonv.Value) error { return stop }, nil); err != stop {
		t.Errorf("header error: got %v", err)
	}
	n := 0
	err := ReadRows(data, func(jsonv.Value) error { return nil }, func(jsonv.Value) error { n++; return stop })
	if err != stop || n != 1 {
		t.Errorf("row error: got %v after %d rows", err, n)
	}
	if Typed(stop) {
		t.Error("a plain error counts as typed")
	}
}

// TestRefusalText checks the three renderings.
func TestRefusalText(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{session.FormatErrorf("bad %d", 1), "SessionFormatError: bad 1"},
		{io.EOF, "not a refusal: EOF"},
	}
	for _, tc := range tests {
		if got := RefusalText(tc.err); got != tc.want {
			t.Errorf("RefusalText(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
