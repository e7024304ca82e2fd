package v3to4

import (
	"bytes"
	"errors"
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
	"github.com/dshlog/dshlog/vocab"
)

// migrateV3 runs dsh's write-open pipeline on a v3 file with this edge
// alone and returns the v4 file or dsh's refusal text.
func migrateV3(t *testing.T, data []byte, children []ChildFact, recovery v2.Recovery) ([]byte, string) {
	t.Helper()
	out, err := pipeline(data, children, recovery)
	if err != nil {
		return nil, text(t, err)
	}
	return out, ""
}

// pipeline is the write-open path: physical read, v3 codec, the stage
// (errors wrapped as dsh's chain wraps them), the transformed v4 restore,
// and the v4 writer.
func pipeline(data []byte, children []ChildFact, recovery v2.Recovery) ([]byte, error) {
	headerLine, body, _ := bytes.Cut(data, []byte("\n"))
	if i := bytes.LastIndexByte(body, '\n'); i >= 0 {
		body = body[:i]
	} else {
		body = nil
	}
	hv, err := jsonv.Parse(headerLine)
	if err != nil {
		return nil, session.Plainf("corrupt session log: header line is not valid JSON")
	}
	h, err := v3.DecodeHeader(hv)
	if err != nil {
		return nil, err
	}
	edge := New(children)
	target, err := edge.MigrateHeader(h)
	if err == nil {
		err = edge.ValidateTargetHeader(target)
	}
	if err != nil {
		return nil, wrapStage(err)
	}
	sourceCut := int64(-1)
	if !h.IsSeeded {
		sourceCut = 0
	}
	st, err := edge.NewStage(stage.StageInput{SourceHeader: h, TargetHeader: target, SourceCut: sourceCut, Decoded: true})
	if err != nil {
		return nil, wrapStage(err)
	}
	restorer := v4.NewRestorer(target, vocab.Zdsh.Vocabulary())
	var out []byte
	sink := func(item session.Item) error {
		restorer.Add(item.Event)
		out = v4.AppendEvent(out, item.Event)
		return nil
	}
	dec := v3.NewDecoder(h, recovery)
	var unparsable error
	if bytes.Count(data, []byte("\n")) > 1 {
		for i, line := range bytes.Split(body, []byte("\n")) {
			row, err := jsonv.Parse(line)
			if err != nil {
				if unparsable == nil {
					unparsable = session.Plainf("corrupt session log: row %d is not valid JSON", i+1)
				}
				continue
			}
			if unparsable != nil {
				if row.Field("type").Text() == "turn/end" {
					return nil, unparsable
				}
				continue
			}
			ev, ok, err := dec.Decode(row)
			if err != nil {
				return nil, err
			}
			if ok {
				if err := st.Transform(session.Item{Event: ev}, sink); err != nil {
					return nil, wrapStage(err)
				}
			}
		}
	}
	if _, err := dec.Finish(); err != nil {
		return nil, err
	}
	cut, err := st.Finish(sink)
	if err != nil {
		return nil, wrapStage(err)
	}
	if err := restorer.Finish(cut); err != nil {
		var r *session.Refusal
		if errors.As(err, &r) && r.Class != session.ClassUnsupported {
			err = session.Unsupportedf("Session migration from v3 to v4 refuses the transformed artifact: %s", r.Msg)
		}
		return nil, err
	}
	file, err := v4.AppendHeader(nil, target, cut)
	if err != nil {
		return nil, err
	}
	return append(file, out...), nil
}

// wrapStage wraps an error raised inside the edge as dsh's chain does.
func wrapStage(err error) error {
	var r *session.Refusal
	if errors.As(err, &r) && r.Class == session.ClassUnsupported {
		return err
	}
	return session.Unsupportedf("%s refuses this format v3 Session: %s", Name, err.Error())
}

func text(t *testing.T, err error) string {
	t.Helper()
	var r *session.Refusal
	if !errors.As(err, &r) {
		t.Fatalf("not a dsh refusal: %v", err)
	}
	return r.Text()
}

// goldenChildren gives the child evidence of the golden cases that have
// children; the chain derives it from the child files, this test states it.
var goldenChildren = map[string][]ChildFact{
	"v3-parent-v0-child-conflict": {{
		ChildID:         "00000000-0000-4000-8000-000000000002",
		ChildCreatedAt:  1783951001000,
		DescriptorCount: 1,
		Descriptor:      mustParse(`{"version":3,"mode":"one-shot","provider":"spawn"}`),
		SourcePath:      "/sessions/--workspace-demo--/00000000-0000-4000-8000-000000000002/session.jsonl",
	}},
}

func mustParse(s string) jsonv.Value {
	v, err := jsonv.Parse([]byte(s))
	if err != nil {
		panic(err)
	}
	return v
}

// TestGoldenV3 migrates every v3 input of the corpus and of the edge cases
// and compares with dsh's bytes or refusal, in both recovery modes.
func TestGoldenV3(t *testing.T) {
	const root = "../../testdata/corpus/"
	type migration struct{ name, input, golden string }
	var cases []migration
	restored, _ := filepath.Glob(root + "restored*/*/session*.v3.jsonl")
	for _, in := range restored {
		rel := strings.TrimPrefix(in, root)
		variant, _, _ := strings.Cut(rel, "/")
		golden := root + strings.Replace(variant, "restored", "golden", 1) + strings.TrimPrefix(rel, variant)
		cases = append(cases, migration{rel, in, golden})
	}
	edges, _ := filepath.Glob(root + "golden/edge*/*/session.v3.jsonl")
	for _, in := range edges {
		cases = append(cases, migration{strings.TrimPrefix(in, root), in, in})
	}
	if len(cases) < 40 {
		t.Fatalf("found %d v3 inputs, want at least 40", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			input, err := os.ReadFile(c.input)
			if err != nil {
				t.Fatal(err)
			}
			children := goldenChildren[filepath.Base(filepath.Dir(c.input))]
			for _, recovery := range []v2.Recovery{v2.Recoverable, v2.Strict} {
				golden := c.golden
				if recovery == v2.Strict {
					if _, err := os.Stat(golden + ".strict.v4.jsonl"); err == nil {
						golden += ".strict"
					} else if _, err := os.Stat(golden + ".strict.error.txt"); err == nil {
						golden += ".strict"
					}
				}
				got, refusal := migrateV3(t, input, children, recovery)
				if want, err := os.ReadFile(golden + ".error.txt"); err == nil {
					if refusal+"\n" != string(want) {
						t.Errorf("%s: refusal %q\nwant %q", recovery, refusal, want)
					}
					continue
				}
				want, err := os.ReadFile(golden + ".v4.jsonl")
				if err != nil {
					t.Fatal(err)
				}
				if refusal != "" {
					t.Errorf("%s: refused: %s", recovery, refusal)
					continue
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s: bytes differ from the golden at line %d", recovery, firstDiffLine(got, want))
				}
			}
		})
	}
}

// firstDiffLine returns the 1-based line where a and b first differ.
func firstDiffLine(a, b []byte) int {
	line := 1
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return line
		}
		if a[i] == '\n' {
			line++
		}
	}
	return line
}
