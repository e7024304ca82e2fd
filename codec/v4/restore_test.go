package v4

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// readV4 runs dsh's native v4 read on a file's bytes: the physical read
// (header line, body up to the last newline), codec admission and framing
// with the given recovery, then the artifact restore with the pinned
// vocabulary. It returns the re-encoded file, or dsh's refusal text.
func readV4(t *testing.T, data []byte, recovery v2.Recovery) ([]byte, int, string) {
	t.Helper()
	out, events, err := nativeRead(data, recovery)
	if err != nil {
		return nil, 0, refusalText(t, err)
	}
	return out, events, ""
}

// errUnparsable stands for the JSONL layer's refusal of a line that is not
// JSON, which these tests do not exercise.
var errUnparsable = errors.New("line is not valid JSON")

func nativeRead(data []byte, recovery v2.Recovery) ([]byte, int, error) {
	headerLine, body, _ := bytes.Cut(data, []byte("\n"))
	if i := bytes.LastIndexByte(body, '\n'); i >= 0 {
		body = body[:i]
	} else {
		body = nil
	}
	hv, err := jsonv.Parse(headerLine)
	if err != nil {
		return nil, 0, errUnparsable
	}
	h, err := DecodeHeader(hv)
	if err != nil {
		return nil, 0, err
	}
	dec := NewDecoder(h, recovery)
	restorer := NewRestorer(h, vocab.Zdsh.Vocabulary())
	var out []byte
	events := 0
	if bytes.Count(data, []byte("\n")) > 1 {
		for _, line := range bytes.Split(body, []byte("\n")) {
			row, err := jsonv.Parse(line)
			if err != nil {
				return nil, 0, errUnparsable
			}
			ev, ok, err := dec.Decode(row)
			if err != nil {
				return nil, 0, err
			}
			if ok {
				restorer.Add(ev)
				out = AppendEvent(out, ev)
				events++
			}
		}
	}
	cut, err := dec.Finish()
	if err == nil {
		err = restorer.Finish(cut)
	}
	if err != nil {
		return nil, 0, err
	}
	file, err := AppendHeader(nil, h, cut)
	if err != nil {
		return nil, 0, err
	}
	return append(file, out...), events, nil
}

func refusalText(t *testing.T, err error) string {
	t.Helper()
	var r *session.Refusal
	if !errors.As(err, &r) {
		t.Fatalf("error is not a dsh refusal: %v", err)
	}
	return r.Text()
}

// TestBadLogsCodecVerdicts replays every damaged log of corpus/bad-logs
// through the native v4 read and compares with dsh's codec verdict.
func TestBadLogsCodecVerdicts(t *testing.T) {
	cases, _ := filepath.Glob("../../testdata/corpus/bad-logs/*/expect.json")
	if len(cases) < 40 {
		t.Fatalf("found %d bad-log cases, want 40", len(cases))
	}
	type verdict struct {
		OK            bool   `json:"ok"`
		OutputEvents  int    `json:"outputEvents"`
		ByteIdentical bool   `json:"byteIdentical"`
		Error         string `json:"error"`
	}
	for _, expectPath := range cases {
		dir := filepath.Dir(expectPath)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			raw, err := os.ReadFile(expectPath)
			if err != nil {
				t.Fatal(err)
			}
			var expect struct {
				Codec       verdict  `json:"codec"`
				CodecStrict *verdict `json:"codecStrict"`
			}
			if err := json.Unmarshal(raw, &expect); err != nil {
				t.Fatal(err)
			}
			input, err := os.ReadFile(filepath.Join(dir, "session.v4.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			check := func(recovery v2.Recovery, want verdict) {
				got, events, refusal := readV4(t, input, recovery)
				if refusal != want.Error {
					t.Fatalf("%s: refusal %q, want %q", recovery, refusal, want.Error)
				}
				if want.OK {
					if events != want.OutputEvents || bytes.Equal(got, input) != want.ByteIdentical {
						t.Errorf("%s: %d events (byte-identical %v), want %d (%v)",
							recovery, events, bytes.Equal(got, input), want.OutputEvents, want.ByteIdentical)
					}
				}
			}
			check(v2.Recoverable, expect.Codec)
			strict := expect.Codec
			if expect.CodecStrict != nil {
				strict = *expect.CodecStrict
			}
			check(v2.Strict, strict)
		})
	}
}

// TestV4GoldenReads reads every v4 input of the corpus and the edge cases
// and compares with its golden bytes or refusal; every migrated golden is a
// v4 file dsh accepted too, and reads back to itself.
func TestV4GoldenReads(t *testing.T) {
	const root = "../../testdata/"
	type read struct{ input, golden string }
	var reads []read
	glob := func(pattern string) []string {
		matches, _ := filepath.Glob(root + pattern)
		return matches
	}
	for _, in := range glob("corpus/restored/*/session*.v4.jsonl") {
		scenario, file := filepath.Base(filepath.Dir(in)), filepath.Base(in)
		reads = append(reads, read{in, root + "corpus/golden/" + scenario + "/" + file})
	}
	for _, in := range glob("corpus/golden/edge*/*/session*.v4.jsonl") {
		if !strings.Contains(filepath.Base(in), ".jsonl.") {
			reads = append(reads, read{in, in})
		}
	}
	for _, pattern := range []string{"seed-vectors/*.v4.jsonl", "corpus/golden*/*/*.jsonl.v4.jsonl", "corpus/golden/edge*/*/*.jsonl.v4.jsonl"} {
		for _, in := range glob(pattern) {
			reads = append(reads, read{in, strings.TrimSuffix(in, ".v4.jsonl")})
		}
	}
	if len(reads) < 100 {
		t.Fatalf("found %d v4 reads, want at least 100", len(reads))
	}
	for _, r := range reads {
		t.Run(strings.TrimPrefix(r.input, root), func(t *testing.T) {
			input, err := os.ReadFile(r.input)
			if err != nil {
				t.Fatal(err)
			}
			got, _, refusal := readV4(t, input, v2.Recoverable)
			if want, err := os.ReadFile(r.golden + ".error.txt"); err == nil {
				if refusal+"\n" != string(want) {
					t.Fatalf("refusal %q, want %q", refusal, want)
				}
				return
			}
			if refusal != "" {
				t.Fatalf("refused: %s", refusal)
			}
			want := input
			if golden, err := os.ReadFile(r.golden + ".v4.jsonl"); err == nil {
				want = golden
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from the golden (%d vs %d bytes)", len(got), len(want))
			}
		})
	}
}
