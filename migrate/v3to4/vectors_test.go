package v3to4

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/codec/v3"
	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate/stage"
	"github.com/dshlog/dshlog/session"
)

var update = flag.Bool("update", false, "write the expected outputs of the test vectors")

// runStage migrates the logical events of a v3 file with the stage alone,
// as dsh's own stage tests do (no codec, no target validation), and returns
// the v4 file its events make or the chain's refusal text.
func runStage(t *testing.T, data []byte, children []ChildFact) ([]byte, string) {
	t.Helper()
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	h, err := v3.DecodeHeader(mustParse(string(lines[0])))
	if err != nil {
		t.Fatalf("header: %v", err)
	}
	edge := New(children)
	target, err := edge.MigrateHeader(h)
	if err != nil {
		t.Fatalf("header: %v", err)
	}
	cut := int64(-1)
	if !h.IsSeeded {
		cut = 0
	}
	st, err := edge.NewStage(stage.StageInput{SourceHeader: h, TargetHeader: target, SourceCut: cut})
	if err != nil {
		return nil, text(t, wrapStage(err))
	}
	var body []byte
	sink := func(item session.Item) error {
		body = v4.AppendEvent(body, item.Event)
		return nil
	}
	for _, line := range lines[1:] {
		if err := st.Transform(session.Item{Event: logicalEvent(t, line)}, sink); err != nil {
			return nil, text(t, wrapStage(err))
		}
	}
	if cut, err = st.Finish(sink); err != nil {
		return nil, text(t, wrapStage(err))
	}
	file, err := v4.AppendHeader(nil, target, cut)
	if err != nil {
		t.Fatal(err)
	}
	return append(file, body...), ""
}

// logicalEvent is a row taken as a decoded logical event.
func logicalEvent(t *testing.T, line []byte) session.Event {
	t.Helper()
	row, err := jsonv.Parse(line)
	if err != nil {
		t.Fatalf("row %s: %v", line, err)
	}
	seq, _ := row.Field("seq").SafeInt()
	tm, _ := row.Field("time").SafeInt()
	return session.Event{Type: row.Field("type").Text(), Seq: seq, Time: tm, Row: row}
}

// readChildren reads a vector's child evidence, a JSON array of
// {childId, childCreatedAt, descriptorCount, descriptor, sourcePath?}.
func readChildren(t *testing.T, path string) []ChildFact {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	list := mustParse(string(data))
	children := []ChildFact{}
	for _, c := range list.Elements() {
		created, _ := c.Field("childCreatedAt").SafeInt()
		count, _ := c.Field("descriptorCount").SafeInt()
		children = append(children, ChildFact{
			ChildID:         c.Field("childId").Text(),
			ChildCreatedAt:  created,
			DescriptorCount: count,
			Descriptor:      c.Field("descriptor"),
			SourcePath:      c.Field("sourcePath").Text(),
		})
	}
	return children
}

// TestVectors runs the spec's v3→v4 test vectors (testdata/README.md):
// stage/ through the stage alone, pipeline/ through codec, stage and target
// validation, each against its .v4.jsonl or .error.txt.
func TestVectors(t *testing.T) {
	inputs, _ := filepath.Glob("testdata/*/*.v3.jsonl")
	if len(inputs) < 70 {
		t.Fatalf("found %d vectors, want at least 70", len(inputs))
	}
	for _, in := range inputs {
		base := strings.TrimSuffix(in, ".v3.jsonl")
		t.Run(strings.TrimPrefix(base, "testdata/"), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			children := readChildren(t, base+".children.json")
			var got []byte
			var refusal string
			if filepath.Base(filepath.Dir(in)) == "pipeline" {
				got, refusal = migrateV3(t, data, children, v2.Recoverable)
			} else {
				got, refusal = runStage(t, data, children)
			}
			if *update {
				writeExpectation(t, base, got, refusal)
				return
			}
			if want, err := os.ReadFile(base + ".error.txt"); err == nil {
				if refusal+"\n" != string(want) {
					t.Fatalf("refusal %q\nwant %q", refusal, want)
				}
				return
			}
			want, err := os.ReadFile(base + ".v4.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			if refusal != "" {
				t.Fatalf("refused: %s", refusal)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("output differs at line %d:\n%s\nwant:\n%s", firstDiffLine(got, want), got, want)
			}
		})
	}
}

func writeExpectation(t *testing.T, base string, got []byte, refusal string) {
	t.Helper()
	os.Remove(base + ".v4.jsonl")
	os.Remove(base + ".error.txt")
	if refusal != "" {
		got, base = []byte(refusal+"\n"), base+".error.txt"
	} else {
		base += ".v4.jsonl"
	}
	if err := os.WriteFile(base, got, 0o644); err != nil {
		t.Fatal(err)
	}
}
