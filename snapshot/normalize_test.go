package snapshot

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func normalizeBytes(t *testing.T, log []byte, name string, opts NormalizeOptions) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := Normalize(&out, bytes.NewReader(log), name, opts); err != nil {
		t.Fatalf("normalize %s: %v", name, err)
	}
	return out.Bytes()
}

func readCorpus(t *testing.T, path ...string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(append([]string{corpus}, path...)...))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestNormalizeRestoredCorpus normalizes every restored file of the corpus
// and compares it with the dsh snapshot it was restored from: a file
// restored without R2 normalizes back to the dsh file byte for byte, and
// one restored with R2 differs from it by R2 alone (the scope rename cannot
// be undone), every other rule being undone exactly.
func TestNormalizeRestoredCorpus(t *testing.T) {
	formats := NormalizeOptions{IDFormats: Defaults().IDFormats}
	withoutR2 := 0
	for _, file := range corpusFiles(t, "restored") {
		t.Run(file, func(t *testing.T) {
			dsh := readCorpus(t, "dsh", file)
			got := normalizeBytes(t, readCorpus(t, "restored", file), file, formats)
			r2 := []byte(applyR2(string(dsh)))
			if !bytes.Equal(got, r2) {
				t.Fatalf("normalize(restored) differs from R2(dsh):\n%s", firstDiff(got, r2))
			}
			fork := filepath.Join(corpus, "restored-fork-scope", file)
			if _, err := os.Stat(fork); err != nil {
				if !bytes.Equal(dsh, r2) {
					t.Fatal("R2 changes the dsh file, yet there is no restored-fork-scope file")
				}
				return
			}
			withoutR2++
			if got := normalizeBytes(t, readCorpus(t, "restored-fork-scope", file), file, formats); !bytes.Equal(got, dsh) {
				t.Fatalf("normalize(restored-fork-scope) differs from dsh:\n%s", firstDiff(got, dsh))
			}
		})
	}
	if withoutR2 != 30 {
		t.Errorf("%d files restored without R2, want 30", withoutR2)
	}
}

func applyR2(text string) string {
	for _, r := range scopeReplacements() {
		text = strings.ReplaceAll(text, r.Old, r.New)
	}
	return text
}

// firstDiff names the first line where got and want differ.
func firstDiff(got, want []byte) string {
	gotLines, wantLines := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range min(len(gotLines), len(wantLines)) {
		if gotLines[i] != wantLines[i] {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + clip(gotLines[i]) + "\nwant: " + clip(wantLines[i])
		}
	}
	return "line counts " + strconv.Itoa(len(gotLines)) + " and " + strconv.Itoa(len(wantLines))
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
