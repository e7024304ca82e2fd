package jsonl

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
)

// readAll returns every line of r, and the error that ended it (nil at EOF).
func readAll(r *Reader) ([]Line, error) {
	var lines []Line
	for {
		line, err := r.Next()
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			return lines, err
		}
		lines = append(lines, line)
	}
}

// describe renders lines compactly for comparison: each line's text in
// brackets, a torn line's followed by "~".
func describe(lines []Line) string {
	var b strings.Builder
	for i, l := range lines {
		if l.Num != i+1 {
			b.WriteString("bad Num")
		}
		b.WriteString("[" + string(l.Text) + "]")
		if l.Torn {
			b.WriteString("~")
		}
	}
	return b.String()
}

func TestReaderLines(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty file", "", ""},
		{"one complete line", "a\n", "[a]"},
		{"torn last line", "a\nb", "[a][b]~"},
		{"only a torn line", "a", "[a]~"},
		{"complete last line", "a\nb\n", "[a][b]"},
		{"empty line inside", "a\n\nb\n", "[a][][b]"},
		{"only a newline", "\n", "[]"},
		{"two newlines", "\n\n", "[][]"},
		{"CRLF keeps the CR (JSON white space)", "a\r\nb\r\n", "[a\r][b\r]"},
		{"torn CR", "a\r", "[a\r]~"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, source := range []struct {
				name string
				r    io.Reader
			}{
				{"whole", strings.NewReader(tt.in)},
				{"byte by byte", iotest.OneByteReader(strings.NewReader(tt.in))},
			} {
				lines, err := readAll(NewReader(source.r, "f"))
				if err != nil {
					t.Fatal(err)
				}
				if got := describe(lines); got != tt.want {
					t.Errorf("%s: lines %q, want %q", source.name, got, tt.want)
				}
			}
		})
	}
}

func TestReaderAfterEOF(t *testing.T) {
	r := NewReader(strings.NewReader("a"), "f")
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := r.Next(); err != io.EOF {
			t.Fatalf("Next after the end = %v, want io.EOF", err)
		}
	}
}

func TestLinesAreOwned(t *testing.T) {
	r := NewReader(strings.NewReader("first\nsecond\n"), "f")
	a, _ := r.Next()
	b, _ := r.Next()
	if string(a.Text) != "first" || string(b.Text) != "second" {
		t.Fatalf("lines %q %q", a.Text, b.Text)
	}
	b.Text[0] = 'X'
	if string(a.Text) != "first" {
		t.Errorf("changing one line changed another: %q", a.Text)
	}
	_ = append(a.Text, "++++++"...)
	if string(b.Text) != "Xecond" {
		t.Errorf("appending to one line overwrote the next: %q", b.Text)
	}
}

// TestSmallBuffer reads through a caller's small bufio.Reader as it is:
// lines longer than its buffer, and lines that outgrow the first arena
// blocks, come out whole and owned.
func TestSmallBuffer(t *testing.T) {
	var in strings.Builder
	var want []string
	for i := range 200 {
		line := strings.Repeat(string(rune('a'+i%26)), i*17)
		want = append(want, line)
		in.WriteString(line + "\n")
	}
	lines, err := readAll(NewReader(bufio.NewReaderSize(strings.NewReader(in.String()), 16), "small"))
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d", len(lines), len(want))
	}
	for i, line := range lines {
		if string(line.Text) != want[i] || line.Num != i+1 {
			t.Fatalf("line %d: %d bytes, num %d; want %d bytes", i+1, len(line.Text), line.Num, len(want[i]))
		}
	}
}

func TestLongLines(t *testing.T) {
	// Far beyond bufio's and bufio.Scanner's limits: 50 MB in one line.
	const size = 50 << 20
	long := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	for _, torn := range []bool{false, true} {
		in := append([]byte("head\n"), long...)
		if !torn {
			in = append(in, "\nlast\n"...)
		}
		lines, err := readAll(NewReader(bytes.NewReader(in), "big"))
		if err != nil {
			t.Fatal(err)
		}
		want := 3
		if torn {
			want = 2
		}
		if len(lines) != want {
			t.Fatalf("torn=%v: %d lines, want %d", torn, len(lines), want)
		}
		if got := lines[1]; !bytes.Equal(got.Text, long) || got.Torn != torn || got.Num != 2 {
			t.Errorf("torn=%v: long line of %d bytes, torn %v, num %d", torn, len(got.Text), got.Torn, got.Num)
		}
		if !torn && string(lines[2].Text) != "last" {
			t.Errorf("line after the long one = %q", lines[2].Text)
		}
	}
}

func TestReadError(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(boom)), "f.jsonl")
	lines, err := readAll(r)
	if describe(lines) != "[a]" {
		t.Errorf("lines before the error %q", describe(lines))
	}
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, boom) || e.File != "f.jsonl" || e.Line != 2 {
		t.Fatalf("err = %#v, want an *Error at f.jsonl:2 wrapping boom", err)
	}
	if err.Error() != "f.jsonl:2: boom" {
		t.Errorf("message %q", err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("Next after an error = %v, want io.EOF", err)
	}
}

func TestErrorText(t *testing.T) {
	tests := []struct {
		err  Error
		want string
	}{
		{Error{File: "s.jsonl", Err: errors.New("x")}, "s.jsonl: x"},
		{Error{File: "s.jsonl", Line: 3, Err: errors.New("x")}, "s.jsonl:3: x"},
		{Error{File: "s.jsonl", Line: 3, Column: 7, Err: errors.New("x")}, "s.jsonl:3:7: x"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%q, want %q", got, tt.want)
		}
	}
}

const session = "{\"type\":\"session\",\"version\":4}\n{\"seq\":0}\n{\"seq\":1}\n"

func gzipped(t testing.TB, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestTruncatedStream: a gzip stream cut short is told apart from other
// errors, which for a session file means a torn tail.
func TestTruncatedStream(t *testing.T) {
	gz := gzipped(t, session)
	r, err := gzip.NewReader(bytes.NewReader(gz[:len(gz)-4]))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readAll(NewReader(r, "s")); !IsTruncatedStream(err) {
		t.Fatalf("err = %v, want a truncated stream", err)
	}
	if IsTruncatedStream(io.EOF) || IsTruncatedStream(errors.New("x")) {
		t.Error("IsTruncatedStream is true for other errors")
	}
}

func TestCompressionString(t *testing.T) {
	for c, want := range map[Compression]string{None: "none", Zstd: "zstd", Gzip: "gzip"} {
		if c.String() != want {
			t.Errorf("%d: %q", c, c)
		}
	}
}

// TestArenaBoundaries reads many lines of random lengths, which fill the
// arena blocks and cross their ends in every way (some longer than a block
// or than the read buffer), through readers that hand over text in
// different sizes: each way gives the lines of the text, each with no room
// to append into, and no line changes when later ones are read.
func TestArenaBoundaries(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var in []byte
	var want []string
	for len(in) < 3<<20 {
		n := rng.IntN(3000)
		if rng.IntN(50) == 0 {
			n = rng.IntN(300 << 10)
		}
		line := bytes.Repeat([]byte{byte('a' + len(want)%26)}, n)
		want = append(want, string(line))
		in = append(append(in, line...), '\n')
	}
	readers := map[string]func() io.Reader{
		"bytes.Reader":          func() io.Reader { return bytes.NewReader(in) },
		"bufio 256 KiB":         func() io.Reader { return bufio.NewReaderSize(bytes.NewReader(in), 256<<10) },
		"bufio 4 KiB":           func() io.Reader { return bufio.NewReaderSize(bytes.NewReader(in), 4<<10) },
		"bufio 1 MiB":           func() io.Reader { return bufio.NewReaderSize(bytes.NewReader(in), 1<<20) },
		"half reads":            func() io.Reader { return iotest.HalfReader(bytes.NewReader(in)) },
		"data with EOF":         func() io.Reader { return iotest.DataErrReader(bytes.NewReader(in)) },
		"bufio of 1-byte reads": func() io.Reader { return bufio.NewReader(iotest.OneByteReader(bytes.NewReader(in))) },
	}
	for name, open := range readers {
		lines, err := readAll(NewReader(open(), name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(lines) != len(want) {
			t.Fatalf("%s: %d lines, want %d", name, len(lines), len(want))
		}
		for i, line := range lines {
			if string(line.Text) != want[i] || line.Num != i+1 || line.Torn || cap(line.Text) != len(line.Text) {
				t.Fatalf("%s: line %d: %d bytes (cap %d), num %d, torn %v; want %d bytes",
					name, i+1, len(line.Text), cap(line.Text), line.Num, line.Torn, len(want[i]))
			}
		}
	}
}
