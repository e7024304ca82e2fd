package gen

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/verify"
)

func load(t *testing.T, path string) (*Template, []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := Load(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return tmpl, data
}

func TestOneCopyIsTheTemplate(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/corpus/restored/*/*.v4.jsonl")
	if len(files) == 0 {
		t.Fatal("no templates")
	}
	for _, path := range files {
		tmpl, data := load(t, path)
		var out bytes.Buffer
		n, err := tmpl.Write(&out, 0)
		if err != nil {
			t.Fatal(err)
		}
		if n != int64(out.Len()) || !bytes.Equal(out.Bytes(), data) {
			t.Errorf("%s: one copy differs from the template", path)
		}
	}
}

// TestGeneratedSessionDecodes writes a long session and reads it back with
// the v4 codec in strict mode: seqs dense, references earlier, rows admitted.
func TestGeneratedSessionDecodes(t *testing.T) {
	tmpl, data := load(t, "../../testdata/corpus/restored/fs-delete-recreate/session.v4.jsonl")
	var out bytes.Buffer
	const size = 256 << 10
	n, err := tmpl.Write(&out, size)
	if err != nil {
		t.Fatal(err)
	}
	if n < size || n > size+int64(len(data)) || n != int64(out.Len()) {
		t.Fatalf("wrote %d bytes (counted %d), want about %d", out.Len(), n, size)
	}
	lines := jsonl.NewReader(&out, "generated")
	line, err := lines.Next()
	if err != nil {
		t.Fatal(err)
	}
	hv, _ := jsonv.Parse(line.Text)
	h, err := v4.DecodeHeader(hv)
	if err != nil {
		t.Fatal(err)
	}
	dec := v4.NewDecoder(h, v2.Strict)
	ids := map[string]bool{}
	turns := 0
	for {
		line, err := lines.Next()
		if err == io.EOF {
			break
		}
		if err != nil || line.Torn {
			t.Fatalf("line %d: %v (torn %v)", line.Num, err, line.Torn)
		}
		row, err := jsonv.Parse(line.Text)
		if err != nil {
			t.Fatal(err)
		}
		ev, ok, err := dec.Decode(row)
		if err != nil || !ok {
			t.Fatalf("line %d: %v", line.Num, err)
		}
		if ev.Type == "turn/start" {
			turns++
			if got, _ := ev.Data().Field("turn").Count(); got != int64(turns) {
				t.Fatalf("turn/start %d numbered %d", turns, got)
			}
		}
		if id := ev.Data().Field("message").Field("id").Text(); id != "" {
			if ids[id] {
				t.Fatalf("message id %s repeats", id)
			}
			ids[id] = true
		}
		if ev.Type == "system/message" && turns > 1 {
			t.Fatal("the system message is repeated")
		}
	}
	if _, err := dec.Finish(); err != nil {
		t.Fatal(err)
	}
	if turns < 10 {
		t.Errorf("only %d turns", turns)
	}
}

func TestLoadRefusesTurnlessTemplate(t *testing.T) {
	in := "{\"type\":\"session\"}\n{\"type\":\"x\",\"seq\":0,\"time\":1,\"data\":{}}\n"
	if _, err := Load(strings.NewReader(in)); err == nil {
		t.Error("a template without a turn was accepted")
	}
}

// TestEveryTemplateRepeatsIntoAnAcceptedSession: three copies of each
// restored v4 corpus session (compaction and subagent sessions included)
// make a session that dsh's full v4 read accepts (codec, admission and the
// artifact restore) and that verify finds no error in.
func TestEveryTemplateRepeatsIntoAnAcceptedSession(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/corpus/restored/*/*.v4.jsonl")
	for _, path := range files {
		t.Run(path, func(t *testing.T) {
			tmpl, data := load(t, path)
			var out bytes.Buffer
			if _, err := tmpl.Write(&out, 3*int64(len(data))); err != nil {
				t.Fatal(err)
			}
			generated := filepath.Join(t.TempDir(), "session.v4.jsonl")
			if err := os.WriteFile(generated, out.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			src, err := migrate.Open(generated, nil, migrate.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			_, err = verify.Check(src.Reader, func(f verify.Finding) {
				if f.Severity == verify.Error {
					t.Errorf("line %d: [%s] %s", f.Line, f.Code, f.Message)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestLargeStore fills a tree with sessions of about the size asked until
// it holds about the total asked, and counts what it wrote.
func TestLargeStore(t *testing.T) {
	root := t.TempDir()
	files, total, err := LargeStore("../../testdata/corpus/restored/fs-write/session.v4.jsonl", root, 200<<10, 64<<10)
	if err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(root, "--project--", "large-*", "session.v4.jsonl"))
	var sum int64
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		sum += info.Size()
	}
	if files != len(paths) || files < 3 || total != sum || total < 200<<10 {
		t.Fatalf("%d files of %d bytes reported, %d files of %d bytes written; want at least 3 and 200 KiB", files, total, len(paths), sum)
	}
}
