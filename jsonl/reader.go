// Package jsonl reads dsh session files line by line, with lines of any
// length and a torn final line told apart from a complete one. Opening a file
// and undoing its compression is the migrate package's job (dsh's own file
// protocol); this package sees only plaintext.
package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
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
	// arenaSize is the size of the last block allocated for the arena.
	arenaSize int
}

// Short lines are copied into shared blocks of arenaBlock bytes instead of
// one allocation each; a line longer than maxArenaLine gets its own.
const (
	arenaBlock      = 64 << 10
	firstArenaBlock = 4 << 10
	maxArenaLine    = arenaBlock / 8
)

// NewReader returns a Reader of r; name is used in errors. A *bufio.Reader
// is read through as it is, whatever its size (a small file's reader is
// sized to the file); anything else gets a 256 KiB buffer.
func NewReader(r io.Reader, name string) *Reader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 256<<10)
	}
	return &Reader{br: br, name: name}
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
		// The first blocks are smaller, so a small file costs little.
		r.arenaSize = min(max(2*r.arenaSize, firstArenaBlock, n), arenaBlock)
		r.arena = make([]byte, 0, r.arenaSize)
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

// IsTruncatedStream reports whether err says a compressed stream ended early,
// which for a session file means a torn tail.
func IsTruncatedStream(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF)
}
