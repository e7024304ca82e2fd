package migrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

const corpus = "../testdata/corpus"

// goldenCase is one input of dsh's golden migrations and where its
// expected outcome lives.
type goldenCase struct {
	name     string
	input    string
	expected string   // path prefix: <expected>.v4.jsonl or <expected>.error.txt
	children []string // explicit child evidence
}

// TestGolden runs every golden input through the pipeline of
// testdata/corpus/golden/README.md (children found as dsh finds them, the
// write-open read, the v4 encoder) in both recovery modes and compares the
// bytes, or the refusal text, with what dsh's own migrator produced.
func TestGolden(t *testing.T) {
	cases := restoredCases(t, "restored", "golden")
	cases = append(cases, restoredCases(t, "restored-fork-scope", "golden-fork-scope")...)
	cases = append(cases, edgeCases(t, "golden/edge")...)
	cases = append(cases, edgeCases(t, "golden/edge2")...)
	if len(cases) < 120 {
		t.Fatalf("found %d golden cases, want at least 120", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, recovery := range []v2.Recovery{v2.Recoverable, v2.Strict} {
				t.Run(recovery.String(), func(t *testing.T) {
					checkGolden(t, c, recovery)
				})
			}
		})
	}
}

// restoredCases lists every file of every scenario under dir, expected
// under golden/<scenario>/.
func restoredCases(t *testing.T, dir, golden string) []goldenCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpus, dir, "*", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []goldenCase
	for _, f := range files {
		scenario := filepath.Base(filepath.Dir(f))
		out = append(out, goldenCase{
			name:     dir + "/" + scenario + "/" + filepath.Base(f),
			input:    f,
			expected: filepath.Join(corpus, golden, scenario, filepath.Base(f)),
		})
	}
	return out
}

// edgeCases lists the cases of an edge folder from its cases.json.
func edgeCases(t *testing.T, dir string) []goldenCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpus, dir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var listed []struct {
		Name     string `json:"name"`
		File     string `json:"file"`
		Children []struct {
			File string `json:"file"`
		} `json:"children"`
	}
	if err := json.Unmarshal(data, &listed); err != nil {
		t.Fatal(err)
	}
	var out []goldenCase
	listedNames := map[string]bool{}
	for _, l := range listed {
		listedNames[l.Name] = true
		input := filepath.Join(corpus, dir, l.Name, l.File)
		c := goldenCase{name: dir + "/" + l.Name, input: input, expected: input}
		for _, ch := range l.Children {
			c.children = append(c.children, filepath.Join(corpus, dir, l.Name, ch.File))
		}
		out = append(out, c)
	}
	entries, err := os.ReadDir(filepath.Join(corpus, dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && !listedNames[e.Name()] {
			t.Errorf("%s/%s is not listed in cases.json", dir, e.Name())
		}
	}
	return out
}

// checkGolden migrates a case with the vocabulary of zDSH, the build the
// goldens were made with.
func checkGolden(t *testing.T, c goldenCase, recovery v2.Recovery) {
	want, wantErr := expected(t, c.expected, recovery)
	opts := Options{Recovery: recovery, Vocabulary: vocab.Zdsh.Vocabulary(), AsMigrator: true}
	got, err := migrateFile(c.input, OpenOptions{Options: opts, ChildFiles: c.children, StoreRoot: "/sessions"})
	switch {
	case err != nil && wantErr == "":
		t.Fatalf("refused, want %d bytes:\n%v", len(want), err)
	case err != nil:
		var r *session.Refusal
		if !errors.As(err, &r) {
			t.Fatalf("error is not a dsh refusal: %v", err)
		}
		if r.Text() != wantErr {
			t.Errorf("refusal differs:\n got  %s\n want %s", r.Text(), wantErr)
		}
	case wantErr != "":
		t.Fatalf("migrated (%d bytes), want refusal %s", len(got), wantErr)
	case !bytes.Equal(got, want):
		t.Errorf("output differs from golden: %s", firstDifference(got, want))
	}
}

// expected returns the golden bytes or refusal text for a recovery mode.
func expected(t *testing.T, prefix string, recovery v2.Recovery) ([]byte, string) {
	t.Helper()
	modes := []string{""}
	if recovery == v2.Strict {
		modes = []string{".strict", ""}
	}
	for _, mode := range modes {
		if b, err := os.ReadFile(prefix + mode + ".v4.jsonl"); err == nil {
			return b, ""
		}
		if b, err := os.ReadFile(prefix + mode + ".error.txt"); err == nil {
			return nil, strings.TrimSuffix(string(b), "\n")
		}
	}
	t.Fatalf("no golden for %s", prefix)
	return nil, ""
}

// migrateFile migrates one file in memory and returns the published bytes.
func migrateFile(path string, opts OpenOptions) ([]byte, error) {
	src, err := Open(path, nil, opts)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	var out bytes.Buffer
	if _, err := Encode(&out, src.Reader); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// firstDifference describes the first line where got and want differ.
func firstDifference(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got  %s\n want %s", i+1, clip(gl), clip(wl))
		}
	}
	return "equal"
}

func clip(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}
