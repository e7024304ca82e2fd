package migrate

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// frame compresses text as one checksummed zstd frame.
func frame(t *testing.T, text string) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll([]byte(text), nil)
}

func concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// TestZstdFrames checks the reading of dsh's Zstandard logs: frame by
// frame, the header alone in the first, records whole at the end of the
// complete frames, and a torn final frame giving back what it holds.
func TestZstdFrames(t *testing.T) {
	const header = "{\"type\":\"session\"}\n"
	events := frame(t, "{\"seq\":0}\n{\"seq\":1}\n")
	skippable := []byte{0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0}
	reserved := frame(t, header)
	reserved[4] |= 0x08
	tests := []struct {
		name string
		data []byte
		want string // the plaintext, or the error
	}{
		{"header frame, then a batch", concat(frame(t, header), events), header + "{\"seq\":0}\n{\"seq\":1}\n"},
		{"a frame per batch", concat(frame(t, header), frame(t, "{\"seq\":0}\n"), frame(t, "{\"seq\":1}\n")), header + "{\"seq\":0}\n{\"seq\":1}\n"},
		{"header only", frame(t, header), header},
		{"first frame holds more than the header", frame(t, header+"{\"seq\":0}\n"), "corrupt Zstandard session log: first frame is not exactly one header line"},
		{"first frame holds a torn header", concat(frame(t, "{\"type\""), frame(t, ":1}\n")), "corrupt Zstandard session log: first frame is not exactly one header line"},
		{"complete frames end inside a record", concat(frame(t, header), frame(t, "{\"seq\":0}\n{\"se")), "corrupt Zstandard session log: complete frame contains a torn JSONL record"},
		{"torn final frame", concat(frame(t, header), frame(t, "{\"seq\":0}\n"), events[:len(events)-6]), header + "{\"seq\":0}\n"},
		{"torn first frame", frame(t, header)[:8], "empty or header-less Zstandard session log"},
		{"skippable frame", concat(frame(t, header), skippable, events), "corrupt Zstandard session log: invalid frame magic at byte " + itoa(len(frame(t, header)))},
		{"reserved frame-header bit", reserved, "corrupt Zstandard session log: reserved frame-header bit at byte 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, seekable := range []bool{true, false} {
				got := readZstd(t, tt.data, seekable, false)
				if got != tt.want {
					t.Errorf("seekable %v:\n got  %q\n want %q", seekable, got, tt.want)
				}
			}
		})
	}
}

// TestZstdAnyFraming checks the lenient reading that read-only verbs use: a
// file compressed whole by the zstd tool reads as its plaintext (a torn end
// being a torn last line), while dsh's own framing reads as before and
// corruption is still refused.
func TestZstdAnyFraming(t *testing.T) {
	const header = "{\"type\":\"session\"}\n"
	const body = "{\"seq\":0}\n{\"seq\":1}\n"
	whole := frame(t, header+body)
	skippable := []byte{0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"one frame holding the whole file", whole, header + body},
		{"whole file in two frames", concat(frame(t, header+"{\"seq\":0}\n"), frame(t, "{\"seq\":1}\n")), header + body},
		{"whole file without its final newline", frame(t, header+"{\"seq\":0}"), header + "{\"seq\":0}"},
		{"dsh's framing still reads", concat(frame(t, header), frame(t, body)), header + body},
		{"a one-line file without newline", frame(t, "{\"type\":1}"), "{\"type\":1}"},
		{"torn single frame, nothing decodable", whole[:len(whole)-6], "empty or header-less Zstandard session log"},
		{"skippable frame", concat(whole, skippable), "corrupt Zstandard session log: invalid frame magic at byte " + itoa(len(whole))},
		{"empty frame", frame(t, ""), "corrupt Zstandard session log: first frame is not exactly one header line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, seekable := range []bool{true, false} {
				got := readZstd(t, tt.data, seekable, true)
				if got != tt.want {
					t.Errorf("seekable %v:\n got  %q\n want %q", seekable, got, tt.want)
				}
			}
		})
	}
}

// TestOpenReportsUnframed: Open says when it read a zstd file dsh would
// refuse, and refuses it without AnyZstdFraming.
func TestOpenReportsUnframed(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join(corpus, "restored/fs-write/session.v4.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "session.v4.jsonl.zst")
	if err := os.WriteFile(path, frame(t, string(plain)), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := Open(path, nil, OpenOptions{AnyZstdFraming: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	events := 0
	for {
		if _, err := src.Next(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		events++
	}
	if !src.Unframed || events != 21 {
		t.Errorf("Unframed = %v, %d events; want true, 21", src.Unframed, events)
	}
	if _, err := Open(path, nil, OpenOptions{}); err == nil || !strings.Contains(err.Error(), "first frame is not exactly one header line") {
		t.Errorf("without AnyZstdFraming: %v, want dsh's refusal", err)
	}
}

// readZstd reads a zstd log from a file (seekable) or a stream, and returns
// its plaintext or the error.
func readZstd(t *testing.T, data []byte, seekable, anyFraming bool) string {
	t.Helper()
	path, stdin := "-", io.Reader(bytes.NewReader(data))
	if seekable {
		path = filepath.Join(t.TempDir(), "session.jsonl.zstd")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := openPlain(path, stdin, nil, anyFraming)
	if err != nil {
		return refusalMessage(err)
	}
	defer f.close()
	text, err := io.ReadAll(f.text)
	if err != nil {
		return refusalMessage(err)
	}
	return string(text)
}

// refusalMessage is the message of a JSONL-layer refusal, without its
// class.
func refusalMessage(err error) string {
	return strings.TrimPrefix(refusalText(err), "Error: ")
}
