package migrate

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"

	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/jsonv"
)

// OpenOptions say how Open reads a session file.
type OpenOptions struct {
	Options
	// ChildFiles are subagent child sessions to take catalog evidence from,
	// besides those Open finds beside the file.
	ChildFiles []string
	// ChildFilesOnly makes ChildFiles the whole of the evidence: Open
	// searches neither the file's directory nor its store for more. A
	// caller that has read a whole store's headers already (a listing)
	// passes the children it found, instead of a store scan per session.
	ChildFilesOnly bool
	// StoreRoot, when set, names each child in refusals by the path dsh's
	// store under this root would give it (as the golden corpus pipeline
	// did) instead of the child's real path.
	StoreRoot string
	// Progress, when set, is called as the session file (not its children)
	// is read, with the bytes read so far and the file's size (-1 for a
	// stream).
	Progress func(read, size int64)
	// AnyZstdFraming accepts a Zstandard file whose first frame holds more
	// than the header line (one compressed whole by the zstd tool), which
	// dsh refuses; read-only verbs set it. Source.Unframed reports it.
	AnyZstdFraming bool
	// Extra is plaintext read after the file's own, as if the file ended
	// with it: rows a writer means to append, checked before it appends
	// them. It must be whole lines.
	Extra []byte
	// Growing, when not nil, is read instead of the file at path: the bytes
	// of a file a writer is appending to, as they arrive, ending (io.EOF)
	// when the caller stops following it (package follow). Path still names
	// the file, its generation and its children. Each row is then decoded as
	// soon as its line is complete, with nothing read or restored ahead, and
	// a last line still without its newline when the bytes end is left
	// unread (Reader.Unfinished), not dropped as torn.
	Growing io.Reader
}

// Source is a session file opened for reading: a Reader of its current
// events plus what the file protocol needs to know about the file.
type Source struct {
	*Reader
	// Path is the file's path, "-" for standard input.
	Path        string
	Compression jsonl.Compression
	// Size is the file's size when opened (what is read), or -1 for a
	// stream.
	Size int64
	// Children are the child files whose evidence the migration uses.
	Children []string
	// Warnings say which children gave no evidence, and why.
	Warnings []string
	// Unframed is true for a Zstandard file not in dsh's generation
	// framing, read because OpenOptions.AnyZstdFraming allowed it; dsh
	// itself would refuse the file. It is known once the header is read.
	Unframed bool

	identity *identity
	closers  []io.Closer
}

// Open opens the session file at path ("-" reads stdin) and returns a
// reader of its current (v4) events. A historical session's subagent
// children are found as dsh finds them (same store, or same snapshot
// directory) and read for the v3→v4 catalog completion. Only the bytes
// present when the file was opened are read, so an append racing the read
// is not half seen; with opts.Growing, the appends are what is read.
func Open(path string, stdin io.Reader, opts OpenOptions) (*Source, error) {
	var f *plainFile
	var err error
	if opts.Growing != nil {
		f, err = openGrowing(path, opts.Growing, opts.AnyZstdFraming)
	} else {
		f, err = openPlain(path, stdin, opts.Progress, opts.AnyZstdFraming)
	}
	if err != nil {
		return nil, err
	}
	src := &Source{Path: path, Compression: f.compression, Size: f.size, identity: f.identity, closers: f.closers}
	text := f.text
	if len(opts.Extra) > 0 {
		text = io.MultiReader(text, bytes.NewReader(opts.Extra))
	}
	lines := jsonl.NewReader(text, f.name)
	hv, version, err := readHeaderLine(lines)
	src.Unframed = f.zstd != nil && f.zstd.unframed
	if err == nil {
		opts.Children, src.Children, src.Warnings, err = gatherChildren(path, hv, version, opts)
	}
	if err == nil {
		src.Reader, err = startReader(lines, hv, version, opts.Options)
		if err == nil {
			src.Reader.live = opts.Growing != nil
			src.Reader.mayRunAhead = !src.Reader.live
			if build := src.Vocabulary().Build(); build.V0 != nil && version > 1 {
				src.Warnings = append(src.Warnings, fmt.Sprintf("%s: dsh %s writes format v0, and this log is format v%d, which no build of its line writes: its rules do not apply, only the types its vocabulary declares", f.name, build.Name, version))
			}
		}
	}
	if err != nil {
		src.Close()
		return nil, err
	}
	return src, nil
}

// Close releases the file.
func (s *Source) Close() error {
	if s.Reader != nil {
		s.Reader.close()
	}
	var first error
	for i := len(s.closers) - 1; i >= 0; i-- {
		if err := s.closers[i].Close(); err != nil && first == nil {
			first = err
		}
	}
	s.closers = nil
	return first
}

// plainFile is an opened session file's plaintext.
type plainFile struct {
	name        string
	text        io.Reader
	compression jsonl.Compression
	size        int64
	identity    *identity
	closers     []io.Closer
	zstd        *zstdFrames // the decoder of a Zstandard file
}

// readBufferSize is the read buffer for a file of size bytes (-1 for a
// stream): 256 KiB, or less for a small file, whose cost per file would
// otherwise be the buffer's.
func readBufferSize(size int64) int {
	const most, least = 256 << 10, 4 << 10
	if size < 0 || size >= most {
		return most
	}
	return int(max(size+1, least))
}

// openPlain opens a session file and decompresses it as dsh's backend
// reads it; a regular file is read up to its size at opening. progress,
// when set, follows the reading.
func openPlain(path string, stdin io.Reader, progress func(read, size int64), anyZstdFraming bool) (*plainFile, error) {
	p := &plainFile{name: path, size: -1}
	var raw io.Reader
	var section *io.SectionReader // the file, when it is a regular one
	if path == "-" {
		p.name, raw = "<stdin>", stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		p.closers = append(p.closers, f)
		info, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		raw = f
		if info.Mode().IsRegular() {
			p.size = info.Size()
			p.identity = identityOf(info)
			section = io.NewSectionReader(f, 0, p.size)
			raw = section
		}
	}
	if progress != nil {
		raw = &progressReader{r: raw, size: p.size, report: progress}
	}
	if err := p.decompress(raw, section, anyZstdFraming); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// openGrowing is openPlain for the bytes of a file being appended to, as
// they arrive: a stream named path.
func openGrowing(path string, growing io.Reader, anyZstdFraming bool) (*plainFile, error) {
	p := &plainFile{name: path, size: -1}
	if err := p.decompress(growing, nil, anyZstdFraming); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// decompress makes p's text the plaintext of raw, as dsh's backend reads
// it; section, when not nil, is the whole of a regular file raw reads.
func (p *plainFile) decompress(raw io.Reader, section *io.SectionReader, anyZstdFraming bool) error {
	br := bufio.NewReaderSize(raw, readBufferSize(p.size))
	magic, err := br.Peek(4)
	if err != nil && err != io.EOF {
		return &jsonl.Error{File: p.name, Err: err}
	}
	p.text = br
	switch {
	case len(magic) == 4 && bytes.Equal(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		p.compression = jsonl.Zstd
		if section != nil {
			if err := scanZstdFrames(section, p.size); err != nil {
				return &jsonl.Error{File: p.name, Err: err}
			}
		}
		z, err := newZstdFrames(br, anyZstdFraming)
		if err != nil {
			return err
		}
		p.text, p.zstd = z, z
		p.closers = append(p.closers, z)
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		gz, err := gzip.NewReader(br)
		if err != nil {
			return &jsonl.Error{File: p.name, Err: fmt.Errorf("gzip: %w", err)}
		}
		p.compression = jsonl.Gzip
		p.text = gz
		p.closers = append(p.closers, gz)
	}
	return nil
}

func (p *plainFile) close() {
	for i := len(p.closers) - 1; i >= 0; i-- {
		p.closers[i].Close()
	}
}

// progressReader reports the bytes read through it.
type progressReader struct {
	r      io.Reader
	read   int64
	size   int64
	report func(read, size int64)
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.read += int64(n)
	p.report(p.read, p.size)
	return n, err
}

// StoredVersion returns the format version the header line of the session
// file at path states, or false when it states none (or cannot be read).
func StoredVersion(path string) (int, bool) {
	hv, _, err := readHeaderFile(path)
	if err != nil && hv.Kind() != jsonv.Object {
		return 0, false
	}
	version, ok := hv.Field("version").Count()
	return int(version), ok
}

// readHeaderFile reads only the header of the session file at path.
func readHeaderFile(path string) (jsonv.Value, int, error) {
	f, err := openPlain(path, nil, nil, false)
	if err != nil {
		return jsonv.Value{}, 0, err
	}
	defer f.close()
	return readHeaderLine(jsonl.NewReader(f.text, f.name))
}

// Text is a session file's plaintext, decompressed as Open reads it.
type Text struct {
	io.Reader
	Compression jsonl.Compression
	plain       *plainFile
}

// OpenText opens the session file at path ("-" reads stdin) and returns
// its plaintext, for readers that need the rows before any codec judges
// them (a rescue of a damaged log). A Zstandard file compressed whole is
// read too.
func OpenText(path string, stdin io.Reader) (*Text, error) {
	p, err := openPlain(path, stdin, nil, true)
	if err != nil {
		return nil, err
	}
	return &Text{Reader: p.text, Compression: p.compression, plain: p}, nil
}

// Close releases the file.
func (t *Text) Close() error {
	t.plain.close()
	return nil
}
