package snapshot

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

const corpus = "../testdata/corpus"

// corpusFiles lists the session files of a corpus folder as scenario/file.
func corpusFiles(t *testing.T, folder string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(corpus, folder, "*", "session*.jsonl"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no session files in %s: %v", folder, err)
	}
	var rel []string
	for _, p := range paths {
		r, _ := filepath.Rel(filepath.Join(corpus, folder), p)
		rel = append(rel, r)
	}
	return rel
}

func restoreBytes(t *testing.T, snapshot []byte, name string, opts RestoreOptions) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := Restore(&out, bytes.NewReader(snapshot), name, opts); err != nil {
		t.Fatalf("restore %s: %v", name, err)
	}
	return out.Bytes()
}

// TestRestoreCorpus reproduces every file of the corpus's restored/ from
// dsh/ with rules R1–R7, and every file of restored-fork-scope/ without R2.
func TestRestoreCorpus(t *testing.T) {
	files := corpusFiles(t, "dsh")
	if len(files) != 52 {
		t.Fatalf("dsh corpus has %d files, want 52", len(files))
	}
	forkScope := 0
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			snapshot, err := os.ReadFile(filepath.Join(corpus, "dsh", file))
			if err != nil {
				t.Fatal(err)
			}
			withScope := RestoreOptions{Values: Defaults(), Replace: scopeReplacements()}
			assertSameFile(t, restoreBytes(t, snapshot, file, withScope), filepath.Join(corpus, "restored", file))

			want := filepath.Join(corpus, "restored-fork-scope", file)
			if _, err := os.Stat(want); err != nil {
				want = filepath.Join(corpus, "restored", file)
			} else {
				forkScope++
			}
			assertSameFile(t, restoreBytes(t, snapshot, file, RestoreOptions{Values: Defaults()}), want)
		})
	}
	if forkScope != 30 {
		t.Errorf("%d files compared with restored-fork-scope/, want 30", forkScope)
	}
}

// assertSameFile fails with the first differing line when got is not the
// content of the file want.
func assertSameFile(t *testing.T, got []byte, want string) {
	t.Helper()
	expected, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(got, expected) {
		return
	}
	t.Fatalf("differs from %s at %s", want, firstDiff(got, expected))
}

// scopeReplacements are the corpus's rewrites of rule R2, which undo the
// forks' npm scope rename (dshlog snapshot restore --replace, twice).
func scopeReplacements() []Replacement {
	return []Replacement{{"@x1a0f3n9/", "@deepseek-ai/"}, {"@xfcodeai/", "@deepseek-ai/"}}
}
