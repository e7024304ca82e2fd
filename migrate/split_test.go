package migrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSplitFirstError reads a v0 session whose row 13 only a stage after
// the split refuses (an assistant/chunk with an unexpected member, which
// v1→v2 checks) and whose row 24, later, is not JSON with a turn/end after
// it (the front's refusal), with the chain whole and split: the later
// stage's error on the earlier row comes first either way, and without it
// the front's error is the one returned.
func TestSplitFirstError(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(corpus, "restored/fs-write/session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(text), "\n")
	if !strings.HasPrefix(lines[13], `{"type":"assistant/chunk",`) || !strings.Contains(lines[len(lines)-2], `"turn/end"`) {
		t.Fatal("the corpus session changed: row 13 is no longer a chunk")
	}
	badChunk := slicesWith(lines, 13, strings.Replace(lines[13], `{"type":"assistant/chunk",`, `{"type":"assistant/chunk","extra":1,`, 1))
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"both", slicesWith(badChunk, 24, "{not json\n"), ":14: assistant/chunk 12 has unexpected member extra"},
		{"front only", slicesWith(lines, 24, "{not json\n"), ":25:2: corrupt session log: row 24 is not valid JSON"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".jsonl")
		if err := os.WriteFile(path, []byte(strings.Join(tc.lines, "")), 0o600); err != nil {
			t.Fatal(err)
		}
		inline := readWith(t, path, Options{}, false, false)
		if !strings.HasSuffix(inline.err, tc.want) {
			t.Errorf("%s, inline: %q; want the error ending %q", tc.name, inline.err, tc.want)
		}
		for _, ahead := range []bool{false, true} {
			got := readWith(t, path, Options{}, ahead, true)
			if got.err != inline.err || got.count != inline.count {
				t.Errorf("%s, split, ahead %v: %d events, %q; inline %d events, %q", tc.name, ahead, got.count, got.err, inline.count, inline.err)
			}
		}
	}
}
