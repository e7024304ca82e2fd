package migrate

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/dshlog/dshlog/session"
)

// dsh's Zstandard session log is a concatenation of checksummed frames: the
// header line alone in the first, then the event batches. zstdFrames reads
// it the way dsh's JSONL backend does (session-persistence-jsonl zstd.ts and
// generation.ts): frames are walked structurally, skippable frames and
// reserved bits are corruption, the first frame must be exactly one line,
// complete frames must end on a record, and a frame cut short by the end of
// the file gives back the complete lines it holds (a torn tail).
//
// With anyFraming set, a stream whose first frame holds more than the header
// line (a file compressed whole by the zstd tool) is read as plain
// concatenated frames instead of being refused; unframed then reports it.
type zstdFrames struct {
	dec        *zstd.Decoder
	frame      frameBytes
	frames     int // complete frames read
	buf        []byte
	out        []byte // decoded plaintext not yet returned
	open       bool   // a frame is being decoded
	lastNL     bool   // the plaintext so far ends with '\n'
	anyFraming bool   // accept a first frame that is more than the header line
	unframed   bool   // the first frame was more than the header line
	err        error
}

// newZstdFrames returns a reader of the plaintext of the zstd log in src:
// dsh's framing only, or any frames when anyFraming is set.
func newZstdFrames(src *bufio.Reader, anyFraming bool) (*zstdFrames, error) {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		return nil, err
	}
	z := &zstdFrames{dec: dec, frame: frameBytes{src: src}, lastNL: true, anyFraming: anyFraming}
	z.buf = make([]byte, 256<<10)
	return z, nil
}

// Close releases the decoder.
func (z *zstdFrames) Close() error {
	z.dec.Close()
	return nil
}

func corruptZstd(format string, args ...any) error {
	return session.Plainf("corrupt Zstandard session log: %s", fmt.Sprintf(format, args...))
}

// Read returns decoded plaintext.
func (z *zstdFrames) Read(p []byte) (int, error) {
	for len(z.out) == 0 {
		if z.err != nil {
			return 0, z.err
		}
		z.err = z.step()
	}
	n := copy(p, z.out)
	z.out = z.out[n:]
	return n, nil
}

// step decodes the next piece of plaintext into z.out, or returns why there
// is none: io.EOF at the end (after a torn final frame too), or an error.
func (z *zstdFrames) step() error {
	if !z.open {
		if err := z.frame.begin(); err == io.EOF {
			return z.end()
		} else if err != nil {
			return err
		}
		if z.frame.torn {
			return z.end()
		}
		if err := z.dec.Reset(&z.frame); err != nil {
			return corruptZstd("%v", err)
		}
		z.open = true
		if z.frames == 0 {
			return z.headerFrame()
		}
	}
	n, err := z.dec.Read(z.buf)
	z.out = z.buf[:n]
	if n > 0 {
		z.lastNL = z.buf[n-1] == '\n'
	}
	switch {
	case z.frame.err != nil:
		return z.frame.err
	case z.frame.torn:
		// The file ends inside this frame: what decoded counts, and the
		// line reader drops its incomplete last line.
		return io.EOF
	case err == io.EOF:
		z.open = false
		z.frames++
		return nil
	case err != nil:
		return corruptZstd("%v", err)
	}
	return nil
}

// headerFrame decodes the first frame, which dsh requires to be exactly the
// header line. It decodes piece by piece and decides as soon as it can, so
// memory stays bounded by the header line even when the frame holds a whole
// file; in anyFraming mode such a frame is handed on as plain text.
func (z *zstdFrames) headerFrame() error {
	var header []byte
	for {
		n, err := z.dec.Read(z.buf)
		header = append(header, z.buf[:n]...)
		switch {
		case z.frame.err != nil:
			return z.frame.err
		case err != nil && err != io.EOF && !z.frame.torn:
			return corruptZstd("%v", err)
		}
		nl := bytes.IndexByte(header, '\n')
		if nl >= 0 && nl != len(header)-1 {
			return z.unframedFirst(header) // text after the header line
		}
		frameEnded := err == io.EOF || z.frame.torn
		if !frameEnded {
			continue
		}
		switch {
		case z.frame.torn && (!z.anyFraming || len(header) == 0):
			return z.end()
		case len(header) > 0 && nl == len(header)-1 && !z.frame.torn:
			z.open = false
			z.frames++
			z.out = header
			return nil
		case len(header) > 0:
			return z.unframedFirst(header) // one line, but no newline or no frame end
		}
		return corruptZstd("first frame is not exactly one header line")
	}
}

// unframedFirst handles a first frame that holds more than the header line:
// dsh refuses the log; in anyFraming mode the text decoded so far is handed
// on and the rest is read as plain frames.
func (z *zstdFrames) unframedFirst(text []byte) error {
	if !z.anyFraming {
		return corruptZstd("first frame is not exactly one header line")
	}
	z.unframed = true
	z.out = text
	z.lastNL = text[len(text)-1] == '\n'
	if z.frame.torn {
		return io.EOF
	}
	return nil
}

// end finishes the log after its complete frames, when the file has no more
// bytes or ends inside a frame.
func (z *zstdFrames) end() error {
	if z.frames == 0 {
		return session.Plainf("empty or header-less Zstandard session log")
	}
	if !z.lastNL && !z.unframed {
		return corruptZstd("complete frame contains a torn JSONL record")
	}
	return io.EOF // an unframed stream's last line without '\n' is a torn tail
}

// frameBytes hands the zstd decoder the bytes of exactly one frame, walking
// its structure (frame header, block headers, checksum) as they pass. It
// ends early, with torn set, when the file ends inside the frame, and with
// err set when the structure is corrupt.
type frameBytes struct {
	src     *bufio.Reader
	offset  int64  // bytes of src consumed, for dsh's "at byte N" messages
	pending []byte // structural bytes read and not yet handed on
	payload int    // block bytes before the next structure
	last    bool   // the current block is the frame's last
	sum     bool   // the frame ends with a checksum
	done    bool
	torn    bool
	err     error
}

// zstdMagic is the magic number that opens every Zstandard frame.
const zstdMagic32 = 0xFD2FB528

// begin reads the next frame's header. It returns io.EOF when the log has
// no more bytes, and sets torn when it ends inside the header.
func (f *frameBytes) begin() error {
	f.pending, f.payload, f.last, f.sum, f.done, f.torn = f.pending[:0], 0, false, false, false, false
	start := f.offset
	magic, ok := f.read(4)
	if !ok {
		if len(magic) == 0 {
			return io.EOF
		}
		f.torn = true
		return nil
	}
	if binary.LittleEndian.Uint32(magic) != zstdMagic32 {
		return corruptZstd("invalid frame magic at byte %d", start)
	}
	desc, ok := f.read(1)
	if !ok {
		f.torn = true
		return nil
	}
	d := desc[0]
	if d&0x18 != 0 {
		return corruptZstd("reserved frame-header bit at byte %d", f.offset-1)
	}
	rest, sum := frameHeaderRest(d)
	f.sum = sum
	more, ok := f.read(rest)
	if !ok {
		f.torn = true
		return nil
	}
	f.pending = append(append(append(f.pending, magic...), d), more...)
	f.err = f.blockHeader()
	return f.err
}

// frameHeaderRest returns how many header bytes follow a frame descriptor,
// and whether the frame carries a checksum.
func frameHeaderRest(d byte) (int, bool) {
	singleSegment := d&0x20 != 0
	dictBytes := int(d & 0x03)
	if dictBytes == 3 {
		dictBytes = 4
	}
	sizeBytes := 0
	if fcs := d >> 6; fcs > 0 {
		sizeBytes = 1 << fcs
	} else if singleSegment {
		sizeBytes = 1
	}
	rest := dictBytes + sizeBytes
	if !singleSegment {
		rest++ // window descriptor
	}
	return rest, d&0x04 != 0
}

// blockHeader reads the next block header into pending.
func (f *frameBytes) blockHeader() error {
	at := f.offset
	h, ok := f.read(3)
	if !ok {
		f.torn = true
		return nil
	}
	last, payload, reserved := parseBlockHeader(h)
	if reserved {
		return corruptZstd("reserved block type at byte %d", at)
	}
	f.last, f.payload = last, payload
	f.pending = append(f.pending, h...)
	return nil
}

// parseBlockHeader reads a 3-byte block header: whether the block is the
// frame's last, how many payload bytes follow, and whether its type is the
// reserved one.
func parseBlockHeader(h []byte) (last bool, payload int, reserved bool) {
	v := uint32(h[0]) | uint32(h[1])<<8 | uint32(h[2])<<16
	switch (v >> 1) & 3 {
	case 3:
		return false, 0, true
	case 1:
		return v&1 != 0, 1, false // RLE: one byte, repeated
	}
	return v&1 != 0, int(v >> 3), false
}

// read reads exactly n structural bytes, or what there is and false.
func (f *frameBytes) read(n int) ([]byte, bool) {
	buf := make([]byte, n)
	got, err := io.ReadFull(f.src, buf)
	f.offset += int64(got)
	return buf[:got], err == nil
}

// Read hands on the frame's bytes.
func (f *frameBytes) Read(p []byte) (int, error) {
	for {
		switch {
		case len(f.pending) > 0:
			n := copy(p, f.pending)
			f.pending = f.pending[n:]
			return n, nil
		case f.err != nil || f.torn || f.done:
			return 0, io.EOF
		case f.payload > 0:
			if len(p) > f.payload {
				p = p[:f.payload]
			}
			n, err := f.src.Read(p)
			f.offset += int64(n)
			f.payload -= n
			if n == 0 && err != nil {
				f.torn = true
				return 0, io.EOF
			}
			return n, nil
		case !f.last:
			f.err = f.blockHeader()
		default:
			f.done = true
			if f.sum {
				sum, ok := f.read(4)
				if !ok {
					f.torn = true
					return 0, io.EOF
				}
				f.pending = append(f.pending[:0], sum...)
			}
		}
	}
}

// scanZstdFrames walks the frame structure of a whole zstd log without
// decompressing, as dsh does before it decodes anything, so that a corrupt
// structure anywhere is reported before any row. A frame cut short by the
// end stops the walk without error.
func scanZstdFrames(r io.ReaderAt, size int64) error {
	var b [4]byte
	for off := int64(0); off < size; {
		if size-off < 4 {
			return nil
		}
		if _, err := r.ReadAt(b[:4], off); err != nil {
			return err
		}
		if binary.LittleEndian.Uint32(b[:4]) != zstdMagic32 {
			return corruptZstd("invalid frame magic at byte %d", off)
		}
		off += 4
		if off == size {
			return nil
		}
		if _, err := r.ReadAt(b[:1], off); err != nil {
			return err
		}
		if b[0]&0x18 != 0 {
			return corruptZstd("reserved frame-header bit at byte %d", off)
		}
		rest, sum := frameHeaderRest(b[0])
		off++
		if size-off < int64(rest) {
			return nil
		}
		off += int64(rest)
		for {
			if size-off < 3 {
				return nil
			}
			if _, err := r.ReadAt(b[:3], off); err != nil {
				return err
			}
			last, payload, reserved := parseBlockHeader(b[:3])
			if reserved {
				return corruptZstd("reserved block type at byte %d", off)
			}
			off += 3
			if size-off < int64(payload) {
				return nil
			}
			off += int64(payload)
			if last {
				break
			}
		}
		if sum {
			if size-off < 4 {
				return nil
			}
			off += 4
		}
	}
	return nil
}
