package migrate

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/jsonv"
)

// rows returns n JSON rows, every 500th one longer than a batch.
func rows(n int) []string {
	out := make([]string, n)
	for i := range out {
		pad := ""
		if i%500 == 499 {
			pad = strings.Repeat("x", batchBytes+1)
		}
		out[i] = fmt.Sprintf(`{"seq":%d,"pad":"%s"}`, i, pad)
	}
	return out
}

// failingReader returns its text, then err.
type failingReader struct {
	text string
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.text == "" {
		return 0, r.err
	}
	n := copy(p, r.text)
	r.text = r.text[n:]
	return n, nil
}

func TestReadAheadOrder(t *testing.T) {
	readErr := errors.New("disk gone")
	tests := []struct {
		name    string
		text    string
		err     error // of the reader after the text
		lines   int
		torn    bool
		wantErr error
	}{
		{"many batches", strings.Join(rows(3000), "\n") + "\n", io.EOF, 3000, false, io.EOF},
		{"torn last line", strings.Join(rows(20), "\n"), io.EOF, 20, true, io.EOF},
		{"invalid row", "{\"seq\":0}\n{\n{\"seq\":2}\n", io.EOF, 3, false, io.EOF},
		{"read error", strings.Join(rows(700), "\n") + "\n", readErr, 700, false, readErr},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := startReadAhead(jsonl.NewReader(&failingReader{tt.text, tt.err}, "s"), nil)
			defer a.close()
			want := strings.Split(strings.TrimSuffix(tt.text, "\n"), "\n")
			for i := 0; i < tt.lines; i++ {
				p, err := a.line()
				if err != nil {
					t.Fatalf("line %d: %v", i+1, err)
				}
				if p.Num != i+1 || string(p.Text) != want[i] {
					t.Fatalf("line %d is %d %.40q, want %.40q", i+1, p.Num, p.Text, want[i])
				}
				torn := tt.torn && i == tt.lines-1
				if p.Torn != torn || (torn || p.err != nil) != (p.row.Kind() != jsonv.Object) {
					t.Fatalf("line %d: torn %v, parse %v (%v)", i+1, p.Torn, p.row.Kind(), p.err)
				}
				if !torn && p.err == nil && p.row.Field("seq").String() != fmt.Sprint(i) {
					t.Fatalf("line %d parsed as %s", i+1, p.row)
				}
			}
			for range 2 {
				if _, err := a.line(); !errors.Is(err, tt.wantErr) {
					t.Fatalf("after the lines: %v, want %v", err, tt.wantErr)
				}
			}
		})
	}
}

func TestReadAheadCloseEarly(t *testing.T) {
	before := runtime.NumGoroutine()
	a := startReadAhead(jsonl.NewReader(strings.NewReader(strings.Join(rows(5000), "\n")), "s"), nil)
	if _, err := a.line(); err != nil {
		t.Fatal(err)
	}
	a.close()
	a.close() // a second close is harmless
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left running", runtime.NumGoroutine()-before)
		}
		time.Sleep(time.Millisecond)
	}
}
