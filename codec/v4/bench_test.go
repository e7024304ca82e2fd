package v4_test

import (
	"bytes"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"testing"

	v2 "github.com/dshlog/dshlog/codec/v2"
	v4 "github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/internal/gen"
	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// benchTemplate is the corpus session whose turns the generated benchmark
// session repeats: five tool steps, the shape of a typical coding turn.
const benchTemplate = "../../testdata/corpus/restored/fs-delete-recreate/session.v4.jsonl"

// generate writes a v4 session of about size bytes into a temporary
// directory and returns its path and exact size.
func generate(b *testing.B, size int64) (string, int64) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "session.v4.jsonl")
	n, err := gen.WriteFile(benchTemplate, path, size)
	if err != nil {
		b.Fatal(err)
	}
	return path, n
}

// rowDecoder is what roundTrip needs of a decoder: v4's, or the v2 framing
// and seq discipline it wraps.
type rowDecoder interface {
	Decode(row jsonv.Value) (session.Event, bool, error)
	Finish() (int64, error)
}

// admitted decodes rows as dsh's v4 codec does, admission included.
func admitted(h session.Header) rowDecoder { return v4.NewDecoder(h, v2.Recoverable) }

// framed decodes rows with the v2 framing and seq discipline only.
func framed(h session.Header) rowDecoder { return v2.NewDecoder(h, v2.Recoverable) }

// roundTrip decodes the v4 session at path and writes it back to w as dsh's
// writer would, streaming: one row in memory at a time.
func roundTrip(path string, w io.Writer, newDecoder func(session.Header) rowDecoder) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	lines := jsonl.NewReader(f, path)
	line, err := lines.Next()
	if err != nil {
		return err
	}
	hv, err := jsonv.Parse(line.Text)
	if err != nil {
		return err
	}
	h, err := v4.DecodeHeader(hv)
	if err != nil {
		return err
	}
	dec := newDecoder(h)
	// The header carries the inherited cut, known only at the end; the
	// generated session is unseeded, so its header is written first.
	buf, err := v4.AppendHeader(make([]byte, 0, 256<<10), h, 0)
	if err != nil {
		return err
	}
	for {
		line, err := lines.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		row, err := jsonv.Parse(line.Text)
		if err != nil {
			return err
		}
		ev, ok, err := dec.Decode(row)
		if err != nil {
			return err
		}
		if ok {
			buf = v4.AppendEvent(buf, ev)
		}
		if len(buf) > 192<<10 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if _, err := dec.Finish(); err != nil {
		return err
	}
	_, err = w.Write(buf)
	return err
}

// BenchmarkV4RoundTrip measures decoding and re-encoding a generated
// ~100 MB v4 session; the figure is the throughput of dshlog's read path.
// "admitted" is dsh's v4 codec; "framed" leaves out the native row
// admission, which shows what the JSON layer and the framing cost alone.
func BenchmarkV4RoundTrip(b *testing.B) {
	if testing.Short() {
		b.Skip("generates a 100 MB session")
	}
	path, size := generate(b, 100<<20)
	want, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	wantSum := crc32.ChecksumIEEE(want)
	want = nil
	for _, bench := range []struct {
		name       string
		newDecoder func(session.Header) rowDecoder
	}{{"admitted", admitted}, {"framed", framed}} {
		b.Run(bench.name, func(b *testing.B) {
			sum := crc32.NewIEEE()
			if err := roundTrip(path, sum, bench.newDecoder); err != nil {
				b.Fatal(err)
			}
			if sum.Sum32() != wantSum {
				b.Fatal("the round trip is not byte-identical")
			}
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				if err := roundTrip(path, io.Discard, bench.newDecoder); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestRoundTripHelper keeps the benchmark's pipeline honest on a small
// generated session, so a broken benchmark shows up in ordinary test runs.
func TestRoundTripHelper(t *testing.T) {
	src, err := os.ReadFile(benchTemplate)
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := gen.Load(bytes.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "session.v4.jsonl")
	var data bytes.Buffer
	if _, err := tmpl.Write(&data, 1<<20); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := roundTrip(path, &out, admitted); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), data.Bytes()) {
		t.Errorf("round trip of %d bytes gave %d different bytes", data.Len(), out.Len())
	}
}
