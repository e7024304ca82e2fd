package v3to4

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/jsonv"
)

// streamEntries are stream entries in and around dsh's block chunk shapes:
// known and unknown kinds, missing and reordered members, tags that are
// keys or other strings, escaped kinds and packed runs.
var streamEntries = []string{
	`{"type":"chunk","time":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}`,
	`{"type":"chunk","time":1,"chunk":{"type":"block-start","index":0,"blockType":"reasoning"}}`,
	`{"type":"chunk","time":1,"chunk":{"type":"block-start","index":0,"blockType":"mystery"}}`,
	`{"type":"chunk","time":1,"chunk":{"type":"block-start","index":0,"blockType":7}}`,
	`{"type":"chunk","time":1,"chunk":{"type":"block-start","index":0}}`,
	`{"type":"chunk","time":1,"chunk":{"type":"block-start","blockType":"mystery","index":0}}`,
	`{"type":"chunk","time":1,"chunk":{"type":"block-start","index":"0","blockType":"text"}}`,
	`{"type":"chunk","time":1,"chunk":{"type":"block-start","index":1e2,"blockType":"text","extra":1}}`,
	`{"type":"chunk","time":1,"chunk":{"type":"block-start","index":0,"blockType":"te\"xt"}}`,
	`{"type":"chunk","time":1,"chunk":{"type":"block-start","index":0,"blockType":"plugin:x"}}`,
	`{"type":"chunk","time":1,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"block-start"}}}`,
	`{"type":"chunk","time":1,"chunk":{"type":"block-end","index":0,"block":{"type":"mystery"}}}`,
	`{"type":"chunk","time":1,"chunk":{"type":"block-end","index":0,"block":{"text":"a","type":"text"}}}`,
	`{"type":"chunk","time":1,"chunk":{"type":"block-end","index":0,"block":"text"}}`,
	`{"type":"chunk","time":1,"chunk":{"type":"block-end","index":0,"block":{"type":1}}}`,
	`{"type":"chunk","time":1,"chunk":{"type":"block-end","index":0}}`,
	`{"time":1,"type":"chunk","chunk":{"type":"block-start","index":0,"blockType":"mystery"}}`,
	`{"chunk":{"type":"block-end","index":0,"block":{"type":"mystery"}},"type":"chunk"}`,
	`{"type":"other","chunk":{"type":"block-start","index":0,"blockType":"mystery"}}`,
	`{"type":"chunk","time":1,"chunk":{"type":"text-delta","index":0,"text":"\"block-start\",\"index\":0"}}`,
	`{"type":"chunk","time":1,"chunk":{"type":"text-delta","index":0,"text":"x\"block-start"}}`,
	`{"type":"chunk","time":1,"chunk":{"block-start":1}}`,
	`{"type":"chunk","time":1,"chunk":{"type":"block-delta","index":0}}`,
	`{"type":"reasoning-chunks","time0":1,"index":0,"dt":[0,1],"texts":["a","b"]}`,
	`{"type":"chunk","time":1,"chunk":"block-end"}`,
	`{"type":"chunk","time":1,"chunk":{"type":"finish","reason":{"kind":"completed"}}}`,
	`{"type": "chunk", "time": 1, "chunk": {"type": "block-start", "index": 0, "blockType": "mystery"}}`,
	`7`, `"block-end"`, `null`,
}

// migrateStream with its canonical-text shortcut must return what the
// entry-by-entry walk returns: the same stream, changes and refusals.
func TestMigrateStreamShortcutAgrees(t *testing.T) {
	streams := []string{`[]`, `{}`, `"block-start"`, `{"type":"block-start","index":0,"blockType":"mystery"}`}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 5000 {
		var entries []string
		for range rng.IntN(5) {
			entries = append(entries, streamEntries[rng.IntN(len(streamEntries))])
		}
		streams = append(streams, "["+strings.Join(entries, ",")+"]")
	}
	streams = append(streams, corpusStreams(t)...)
	shortcuts := 0
	for _, text := range streams {
		stream, err := jsonv.Parse([]byte(text))
		if err != nil {
			t.Fatalf("bad case %s: %v", text, err)
		}
		subject := subject(func() string { return "format v3 assistant/message at seq 1" })
		got, gotChanged, gotErr := migrateStream(stream, subject)
		fresh, _ := jsonv.Parse([]byte(text))
		want, wantChanged, wantErr := migrateStreamEntries(fresh, subject)
		if got.String() != want.String() || gotChanged != wantChanged || errText(gotErr) != errText(wantErr) {
			t.Errorf("stream %s:\n got %s, %v, %v\nwant %s, %v, %v", text, got, gotChanged, gotErr, want, wantChanged, wantErr)
		}
		if raw := stream.Raw(); raw != nil && knownBlockChunks(raw) {
			shortcuts++
		}
	}
	if shortcuts < len(streams)/10 {
		t.Errorf("the shortcut was taken for %d of %d streams", shortcuts, len(streams))
	}
}

// corpusStreams returns the embedded streams of the v3 sessions under
// testdata.
func corpusStreams(t *testing.T) []string {
	files, _ := filepath.Glob("../../testdata/corpus/*/*.v3.jsonl")
	more, _ := filepath.Glob("../../testdata/corpus/*/*/*.v3.jsonl")
	files = append(files, more...)
	if len(files) == 0 {
		t.Fatal("no v3 sessions in the corpus")
	}
	var streams []string
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			row, err := jsonv.Parse(line)
			if err != nil {
				continue
			}
			if stream, ok := row.Field("data").Get("stream"); ok {
				streams = append(streams, stream.String())
			}
		}
	}
	return streams
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// FuzzMigrateStreamShortcut: any stream text migrates the same either way.
func FuzzMigrateStreamShortcut(f *testing.F) {
	for _, entry := range streamEntries {
		f.Add("[" + entry + "]")
	}
	f.Fuzz(func(t *testing.T, text string) {
		stream, err := jsonv.Parse([]byte(text))
		if err != nil {
			return
		}
		subject := subject(func() string { return "s" })
		got, gotChanged, gotErr := migrateStream(stream, subject)
		fresh, _ := jsonv.Parse([]byte(text))
		want, wantChanged, wantErr := migrateStreamEntries(fresh, subject)
		if got.String() != want.String() || gotChanged != wantChanged || errText(gotErr) != errText(wantErr) {
			t.Errorf("stream %s:\n got %s, %v, %v\nwant %s, %v, %v", text, got, gotChanged, gotErr, want, wantChanged, wantErr)
		}
	})
}
