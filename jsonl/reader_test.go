package jsonl

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/klauspost/compress/zstd"
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

// zstdLog compresses each chunk as its own frame and concatenates them,
// as dsh writes .jsonl.zstd files (the first frame holds the header line).
func zstdLog(t testing.TB, chunks ...string) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	var out []byte
	for _, c := range chunks {
		out = enc.EncodeAll([]byte(c), out)
	}
	return out
}

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

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	header, rows, _ := strings.Cut(session, "\n")
	header += "\n"
	tests := []struct {
		name        string
		file        string
		content     []byte
		compression Compression
	}{
		{"plain", "session.v4.jsonl", []byte(session), None},
		{"zstd, header frame then one batch", "session.v4.jsonl.zstd", zstdLog(t, header, rows), Zstd},
		{"zstd, a frame per row", "session.v4.jsonl.zst", zstdLog(t, header, "{\"seq\":0}\n", "{\"seq\":1}\n"), Zstd},
		{"gzip", "session.v4.jsonl.gz", gzipped(t, session), Gzip},
		{"compression told by content, not name", "session.v4.jsonl", zstdLog(t, header, rows), Zstd},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if err := os.WriteFile(path, tt.content, 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if f.Compression != tt.compression || f.Name != path {
				t.Errorf("compression %v name %q, want %v %q", f.Compression, f.Name, tt.compression, path)
			}
			lines, err := readAll(NewReader(f, f.Name))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := describe(lines), "["+strings.ReplaceAll(strings.TrimSuffix(session, "\n"), "\n", "][")+"]"; got != want {
				t.Errorf("lines %q, want %q", got, want)
			}
			if err := f.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
}

func TestOpenStdin(t *testing.T) {
	header, rows, _ := strings.Cut(session, "\n")
	for _, content := range [][]byte{[]byte(session), zstdLog(t, header+"\n", rows), gzipped(t, session)} {
		f, err := Open("-", bytes.NewReader(content))
		if err != nil {
			t.Fatal(err)
		}
		if f.Name != "<stdin>" {
			t.Errorf("name %q", f.Name)
		}
		lines, err := readAll(NewReader(f, f.Name))
		if err != nil || len(lines) != 3 {
			t.Errorf("%v: %d lines, err %v", f.Compression, len(lines), err)
		}
		f.Close()
	}
}

func TestOpenEmptyAndShort(t *testing.T) {
	// Files shorter than any magic are plain.
	for _, content := range []string{"", "{", "\x28\xb5", "\x1f"} {
		f, err := Wrap(io.NopCloser(strings.NewReader(content)), "f")
		if err != nil {
			t.Fatalf("%q: %v", content, err)
		}
		if f.Compression != None {
			t.Errorf("%q: compression %v", content, f.Compression)
		}
		got, _ := io.ReadAll(f)
		if string(got) != content {
			t.Errorf("%q read back as %q", content, got)
		}
	}
}

func TestOpenMissing(t *testing.T) {
	_, err := Open(filepath.Join(t.TempDir(), "none.jsonl"), nil)
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, want not-exist", err)
	}
}

func TestOpenBadGzipHeader(t *testing.T) {
	_, err := Wrap(io.NopCloser(strings.NewReader("\x1f\x8bXXXXXXXXXXXX")), "bad.gz")
	var e *Error
	if !errors.As(err, &e) || e.File != "bad.gz" || !strings.HasPrefix(e.Err.Error(), "gzip: ") {
		t.Errorf("err = %v, want a gzip *Error naming the file", err)
	}
}

func TestTruncatedStream(t *testing.T) {
	// The complete frames' lines are read, then the torn frame is reported
	// as a truncated stream: dsh's torn tail.
	full := zstdLog(t, "{\"h\":1}\n", "{\"seq\":0}\n", "{\"seq\":1}\n")
	gz := gzipped(t, session)
	tests := []struct {
		name    string
		content []byte
		want    string
	}{
		{"zstd, last frame torn", full[:len(full)-3], `[{"h":1}][{"seq":0}]`},
		{"gzip, trailer missing", gz[:len(gz)-4], ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Wrap(io.NopCloser(bytes.NewReader(tt.content)), "s")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			lines, err := readAll(NewReader(f, "s"))
			if !IsTruncatedStream(err) {
				t.Fatalf("err = %v, want a truncated stream", err)
			}
			if tt.want != "" && describe(lines) != tt.want {
				t.Errorf("lines %q, want %q", describe(lines), tt.want)
			}
		})
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
