package v3to4

import (
	"bytes"
	"errors"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// readV4 reads a v4 file as dsh's native reader does (admission, framing,
// restore) and writes it back.
func readV4(data []byte) ([]byte, error) {
	headerLine, body, _ := bytes.Cut(data, []byte("\n"))
	body = bytes.TrimSuffix(body, []byte("\n"))
	hv, err := jsonv.Parse(headerLine)
	if err != nil {
		return nil, err
	}
	h, err := v4.DecodeHeader(hv)
	if err != nil {
		return nil, err
	}
	dec := v4.NewDecoder(h, v2.Strict)
	restorer := v4.NewRestorer(h, vocab.Zdsh.Vocabulary())
	var out []byte
	if len(body) > 0 {
		for _, line := range bytes.Split(body, []byte("\n")) {
			row, err := jsonv.Parse(line)
			if err != nil {
				return nil, err
			}
			ev, _, err := dec.Decode(row)
			if err != nil {
				return nil, err
			}
			restorer.Add(ev)
			out = v4.AppendEvent(out, ev)
		}
	}
	cut, err := dec.Finish()
	if err == nil {
		err = restorer.Finish(cut)
	}
	if err != nil {
		return nil, err
	}
	file, err := v4.AppendHeader(nil, h, cut)
	return append(file, out...), err
}

// FuzzV3ToV4 migrates arbitrary v3 files: the edge must never panic, must
// refuse only with dsh's refusals, and whatever it writes must be a v4 file
// dsh's native reader accepts and reads back to the same bytes.
func FuzzV3ToV4(f *testing.F) {
	sessiontest.Seed(f, sessiontest.Glob(f,
		"../../testdata/corpus/restored/*/session*.v3.jsonl",
		"../../testdata/corpus/golden/edge*/*/session.v3.jsonl",
		"testdata/*/*.v3.jsonl",
	))
	children := []ChildFact{{ChildID: "c", ChildCreatedAt: 2, DescriptorCount: 1,
		Descriptor: mustParse(`{"version":3,"provider":"spawn","mode":"continuable","label":"l"}`)}}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := pipeline(data, children, v2.Recoverable)
		if err != nil {
			var r *session.Refusal
			if !errors.As(err, &r) {
				t.Fatalf("error is not a dsh refusal: %v", err)
			}
			return
		}
		again, err := readV4(out)
		if err != nil {
			t.Fatalf("the migrated file is refused: %v\n%s", err, out)
		}
		if !bytes.Equal(again, out) {
			t.Fatalf("the migrated file does not read back to itself")
		}
	})
}

// chunkEntries are stream entries in and around the shapes
// canonicalUnknownChunkKind reads: dsh's own, other key orders, extra
// members, escapes, kinds v3 does not know, non-canonical text.
var chunkEntries = []struct {
	text string
	sure bool // the canonical text must settle it
}{
	{`{"type":"chunk","time":1788699367607,"chunk":{"type":"block-start","index":0,"blockType":"reasoning"}}`, true},
	{`{"type":"chunk","time":-1.5e3,"chunk":{"type":"block-start","index":12,"blockType":"tool-call"}}`, false},
	{`{"type":"chunk","time":1,"chunk":{"type":"block-start","index":0,"blockType":"web-search"}}`, true},
	{`{"type":"chunk","time":1,"chunk":{"type":"block-start","index":0,"blockType":"text","extra":1}}`, false},
	{`{"type":"chunk","time":1,"chunk":{"type":"block-start","index":0,"blockType":"te\"xt"}}`, false},
	{`{"type":"chunk","time":1,"chunk":{"type":"block-start","index":0,"blockType":"\u0000"}}`, false},
	{`{"type":"chunk","time":1,"chunk":{"type":"block-start","index":0,"blockType":7}}`, false},
	{`{"type":"chunk","time":1,"chunk":{"type":"block-start","index":0}}`, false},
	{`{"type":"chunk","time":1,"chunk":{"index":0,"type":"block-start","blockType":"plugin:x"}}`, false},
	{`{"type":"chunk","time":1,"chunk":{"type":"block-start","index":0,"blockType":"text"},"note":"block-end"}`, false},
	{`{"type":"chunk","time":1,"chunk":{"type":"block-end","index":0,"block":{"type":"reasoning","text":"The \"block-start\""}}}`, true},
	{`{"type":"chunk","time":1,"chunk":{"type":"block-end","index":1,"block":{"type":"tool-call","id":"c","name":"w","arguments":"{}"}}}`, true},
	{`{"type":"chunk","time":1,"chunk":{"type":"block-end","index":1,"block":{"type":"image-gen"}}}`, true},
	{`{"type":"chunk","time":1,"chunk":{"type":"block-end","index":1,"block":{"text":"x","type":"text"}}}`, false},
	{`{"type":"chunk","time":1,"chunk":{"type":"block-end","index":1,"block":"text"}}`, false},
	{`{"type":"chunk","time":1,"chunk":{"type":"block-end","index":1}}`, false},
	{`{"type":"chunk","time":1,"chunk":{"type":"usage","usage":{"inputTokens":1}}}`, true},
	{`{"type":"chunk","time":1,"chunk":{"type":"finish","reason":{"kind":"block-end"}}}`, false},
	{`{"type":"chunk","time":1,"chunk":"block-start"}`, false},
	{`{"type":"chunk","chunk":{"type":"block-start","index":0,"blockType":"x"},"time":1}`, false},
	{`{"type":"reasoning-chunks","time0":1,"index":0,"dt":[1,0],"texts":["a","b"]}`, true},
	{`{"type":"text-chunks","time0":1,"index":0,"dt":[1],"texts":["block-start"]}`, true},
	{`{"type":"chunkx","time":1,"chunk":{"type":"block-start","index":0,"blockType":"x"}}`, true},
	{`{"time":1,"type":"chunk","chunk":{"type":"block-start","index":0,"blockType":"x"}}`, false},
	{`{"type": "chunk", "time": 1, "chunk": {"type": "block-start", "index": 0, "blockType": "x"}}`, false},
	{`{"type":"chunk","time":1,"chunk":{"type":"block-start","index":0,"blockType":"x"}}`, true},
	{`[1,2]`, false},
	{`"chunk"`, false},
}

// TestCanonicalChunkKinds requires the canonical-text reading of every
// sample entry, when it is sure, to agree with peeking, and to be sure of
// the entries dsh writes.
func TestCanonicalChunkKinds(t *testing.T) {
	for _, e := range chunkEntries {
		if sure := checkChunkKinds(t, []byte(e.text)); e.sure && !sure {
			t.Errorf("%s: the canonical text does not settle it", e.text)
		}
	}
}

// checkChunkKinds compares the two readings of one entry and reports
// whether the canonical one was sure.
func checkChunkKinds(t *testing.T, text []byte) bool {
	t.Helper()
	entry, err := jsonv.Parse(text)
	if err != nil {
		return false
	}
	peeked := isString(peekTag(entry), "chunk") && !knownChunkKinds(entry)
	unknown, sure := canonicalUnknownChunkKind(entry.Raw())
	if sure && unknown != peeked {
		t.Errorf("%s: canonical text says unknown=%v, peeking %v", text, unknown, peeked)
	}
	if got := unknownChunkKind(entry); got != peeked {
		t.Errorf("%s: unknownChunkKind %v, peeking %v", text, got, peeked)
	}
	return sure
}

func FuzzCanonicalChunkKinds(f *testing.F) {
	for _, e := range chunkEntries {
		f.Add([]byte(e.text))
	}
	f.Fuzz(func(t *testing.T, text []byte) { checkChunkKinds(t, text) })
}
