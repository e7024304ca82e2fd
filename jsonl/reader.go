// Package jsonl reads dsh session files line by line: plain, Zstandard or
// gzip compressed, or standard input, with lines of any length and a torn
// final line told apart from a complete one.
package jsonl

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"
)

// Line is one line of a session file.
type Line struct {
	Num  int    // 1-based line number in the file (the header is line 1)
	Text []byte // the line without its '\n'; owned by the caller
	Torn bool   // the file ended before this line's '\n'
}

// Reader yields the lines of a session file. Memory grows with the longest
// line, not with the file.
type Reader struct {
	br    *bufio.Reader
	name  string
	num   int
	done  bool
	arena []byte // free room for the next short lines
}

// Short lines are copied into shared blocks of arenaBlock bytes instead of
// one allocation each; a line longer than maxArenaLine gets its own.
const (
	arenaBlock   = 64 << 10
	maxArenaLine = arenaBlock / 8
)

// NewReader returns a Reader of r; name is used in errors.
func NewReader(r io.Reader, name string) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 256<<10), name: name}
}

// Name returns the name the Reader reports in errors.
func (r *Reader) Name() string { return r.name }

// Next returns the next line, or io.EOF after the last one. A last line
// without '\n' is returned with Torn set.
func (r *Reader) Next() (Line, error) {
	if r.done {
		return Line{}, io.EOF
	}
	frag, err := r.br.ReadSlice('\n')
	var text []byte
	if err == bufio.ErrBufferFull {
		buf := bytes.Clone(frag)
		for err == bufio.ErrBufferFull {
			frag, err = r.br.ReadSlice('\n')
			buf = append(buf, frag...)
		}
		text = buf
	} else {
		text = r.own(frag)
	}
	switch {
	case err == io.EOF:
		r.done = true
		if len(text) == 0 {
			return Line{}, io.EOF
		}
		r.num++
		return Line{Num: r.num, Text: text, Torn: true}, nil
	case err != nil:
		r.done = true
		return Line{}, &Error{File: r.name, Line: r.num + 1, Err: err}
	}
	r.num++
	return Line{Num: r.num, Text: text[: len(text)-1 : len(text)-1]}, nil
}

// own returns a copy of frag that no later line shares: appending to it
// cannot reach the bytes of another line.
func (r *Reader) own(frag []byte) []byte {
	n := len(frag)
	if n > maxArenaLine {
		return bytes.Clone(frag)
	}
	if n > cap(r.arena) {
		r.arena = make([]byte, 0, arenaBlock)
	}
	text := append(r.arena[:0], frag...)
	r.arena = r.arena[n:n]
	return text[:n:n]
}

// Error is a problem at a place in a session file.
type Error struct {
	File   string
	Line   int // 1-based; 0 when the problem is not on one line
	Column int // 1-based byte column; 0 when unknown
	Err    error
}

func (e *Error) Error() string {
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	case e.Column == 0:
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s:%d:%d: %v", e.File, e.Line, e.Column, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Compression is how a session file's bytes are stored.
type Compression int

// The compressions dsh session files come in.
const (
	None Compression = iota
	Zstd
	Gzip
)

func (c Compression) String() string {
	return [...]string{"none", "zstd", "gzip"}[c]
}

var (
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
	gzipMagic = []byte{0x1f, 0x8b}
)

// File is an opened session file, decompressed as needed.
type File struct {
	io.Reader
	Name        string
	Compression Compression
	closers     []io.Closer
}

// Close releases the file and any decompressor.
func (f *File) Close() error {
	var first error
	for i := len(f.closers) - 1; i >= 0; i-- {
		if err := f.closers[i].Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Open opens the session file at path, or reads stdin when path is "-". The
// compression is recognized by the content's magic bytes, whatever the name.
func Open(path string, stdin io.Reader) (*File, error) {
	if path == "-" {
		return Wrap(io.NopCloser(stdin), "<stdin>")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return Wrap(f, path)
}

// Wrap recognizes the compression of rc's content and returns it as a File.
func Wrap(rc io.ReadCloser, name string) (*File, error) {
	br := bufio.NewReaderSize(rc, 256<<10)
	magic, err := br.Peek(4)
	if err != nil && err != io.EOF {
		rc.Close()
		return nil, &Error{File: name, Err: err}
	}
	file := &File{Reader: br, Name: name, closers: []io.Closer{rc}}
	switch {
	case bytes.HasPrefix(magic, zstdMagic):
		dec, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			rc.Close()
			return nil, &Error{File: name, Err: fmt.Errorf("zstd: %w", err)}
		}
		file.Reader, file.Compression = dec, Zstd
		file.closers = append(file.closers, closerFunc(func() error { dec.Close(); return nil }))
	case bytes.HasPrefix(magic, gzipMagic):
		dec, err := gzip.NewReader(br)
		if err != nil {
			rc.Close()
			return nil, &Error{File: name, Err: fmt.Errorf("gzip: %w", err)}
		}
		file.Reader, file.Compression = dec, Gzip
		file.closers = append(file.closers, dec)
	}
	return file, nil
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// IsTruncatedStream reports whether err says a compressed stream ended early,
// which for a session file means a torn tail.
func IsTruncatedStream(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF)
}
