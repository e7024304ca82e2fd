package migrate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/internal/gen"
	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate/stage"
	"github.com/dshlog/dshlog/migrate/v0to1"
	"github.com/dshlog/dshlog/migrate/v1to2"
	"github.com/dshlog/dshlog/migrate/v2to3"
	"github.com/dshlog/dshlog/migrate/v3to4"
	"github.com/dshlog/dshlog/session"
)

// copyingEdge is an edge whose stages hand on no item as owned, so that no
// stage after it changes a row in place: the chain as it ran before stages
// did, the oracle the chain is held to.
type copyingEdge struct{ stage.Edge }

func (e copyingEdge) NewStage(in stage.StageInput) (stage.Stage, error) {
	st, err := e.Edge.NewStage(in)
	if err != nil {
		return nil, err
	}
	return copyingStage{st}, nil
}

type copyingStage struct{ stage.Stage }

func (s copyingStage) Transform(item session.Item, emit session.Emit) error {
	return s.Stage.Transform(item, disown(emit))
}

func (s copyingStage) Finish(emit session.Emit) (int64, error) { return s.Stage.Finish(disown(emit)) }

func disown(emit session.Emit) session.Emit {
	return func(item session.Item) error {
		item.Owned = false
		return emit(item)
	}
}

// chains returns dsh's v4 chain and its copying oracle.
func chains(t testing.TB) (inPlace, copying *Chain) {
	t.Helper()
	inPlace, err := NewChain(oldestVersion, currentVersion, v4.ValidateHeader, v0to1.Edge{}, v1to2.Edge{}, v2to3.Edge{}, v3to4.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	copying, err = NewChain(oldestVersion, currentVersion, v4.ValidateHeader,
		copyingEdge{v0to1.Edge{}}, copyingEdge{v1to2.Edge{}}, copyingEdge{v2to3.Edge{}}, copyingEdge{v3to4.New(nil)})
	if err != nil {
		t.Fatal(err)
	}
	return inPlace, copying
}

// chainRun is what a chain made of a session: every event the last stage
// handed on, as it was when handed on and as it is once the session ends
// (a row changed after it was handed on would differ), the cut, and the
// first refusal.
type chainRun struct {
	handed, ended string
	cut           int64
	err           error
}

// runChain decodes a session's text with its version's codec and runs the
// events through chain. A row that does not parse is left out, as the
// reader refuses it before any codec sees it.
func runChain(chain *Chain, text []byte, recovery v2.Recovery) chainRun {
	var out chainRun
	lines := bytes.Split(bytes.TrimSuffix(text, []byte("\n")), []byte("\n"))
	hv, err := jsonv.Parse(lines[0])
	if err != nil {
		return chainRun{err: err}
	}
	version, _ := hv.Field("version").Count()
	cd, known := newCatalog(nil, nil).codecs[int(version)]
	if !known || int(version) == currentVersion {
		return chainRun{err: fmt.Errorf("not migrated: v%d", version)}
	}
	dec, err := cd.newDecoder(hv, recovery)
	if err != nil {
		return chainRun{err: err}
	}
	var handed strings.Builder
	var events []session.Event
	s, err := chain.NewStream(dec.Header(), dec.HeaderCut(), func(item session.Item) error {
		return item.EachEvent(func(ev session.Event) error {
			fmt.Fprintf(&handed, "%s %d %d %s\n", ev.Type, ev.Seq, ev.Time, ev.Row)
			events = append(events, ev)
			return nil
		})
	})
	if err != nil {
		return chainRun{err: err}
	}
	out.err = func() error {
		for _, line := range lines[1:] {
			row, err := jsonv.Parse(line)
			if err != nil {
				continue
			}
			if err := dec.Decode(row, s.Emit); err != nil {
				return err
			}
		}
		if _, err := dec.Finish(s.Emit); err != nil {
			return err
		}
		out.cut, err = s.Finish()
		return err
	}()
	out.handed = handed.String()
	var ended strings.Builder
	for _, ev := range events {
		fmt.Fprintf(&ended, "%s %d %d %s\n", ev.Type, ev.Seq, ev.Time, ev.Row)
	}
	out.ended = ended.String()
	return out
}

// compareChains runs a session through the chain and its copying oracle
// in both recovery modes, fails the test when the two differ, and reports
// whether the oracle migrated the session without a refusal.
func compareChains(t testing.TB, inPlace, copying *Chain, text []byte, what string) bool {
	t.Helper()
	migrated := false
	for _, recovery := range []v2.Recovery{v2.Recoverable, v2.Strict} {
		got, want := runChain(inPlace, text, recovery), runChain(copying, text, recovery)
		if fmt.Sprint(got.err) != fmt.Sprint(want.err) || got.cut != want.cut {
			t.Fatalf("%s (%v): in place cut %d, %v; copying cut %d, %v", what, recovery, got.cut, got.err, want.cut, want.err)
		}
		if got.handed != want.handed {
			t.Fatalf("%s (%v): in place handed on\n%s\ncopying\n%s", what, recovery, got.handed, want.handed)
		}
		if got.ended != got.handed || want.ended != want.handed {
			t.Fatalf("%s (%v): an event changed after it was handed on:\n%s\nthen\n%s", what, recovery, got.handed, got.ended)
		}
		migrated = migrated || want.err == nil
	}
	return migrated
}

// TestRowsEditedInPlace holds the chain, whose stages change the rows the
// stage before them built in place, to the chain as it was when every
// stage copied them: the same events, the same rows, the same cut and the
// same refusal, on every corpus session of a version that migrates, on
// rows of them mutated so that checks refuse, and on the bench's three
// recipes at a small size.
func TestRowsEditedInPlace(t *testing.T) {
	inPlace, copying := chains(t)
	files := sessiontest.Glob(t, filepath.Join(corpus, "*/*.jsonl"), filepath.Join(corpus, "*/*/*.jsonl"), filepath.Join(corpus, "*/*/*/*.jsonl"))
	compared, migrated, mutated := 0, 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
		hv, err := jsonv.Parse(lines[0])
		if err != nil {
			continue
		}
		if version, ok := hv.Field("version").Count(); !ok || version >= currentVersion {
			continue
		}
		compared++
		if compareChains(t, inPlace, copying, data, f) {
			migrated++
		}
		// Each sampled row, mutated, ends a run of the rows before it.
		step := max((len(lines)-1)/3, 1)
		for end := 1; end < len(lines); end += step {
			row, err := jsonv.Parse(lines[end])
			if err != nil {
				continue
			}
			for m, mutate := range mutations[1:] {
				text := append(bytes.Join(lines[:end], []byte("\n")), '\n')
				text = append(mutate(row).Append(text), '\n')
				compareChains(t, inPlace, copying, text, fmt.Sprintf("%s row %d mutation %d", f, end, m+1))
				mutated++
			}
		}
	}
	for _, recipe := range benchRecipes(t) {
		compared++
		if !compareChains(t, inPlace, copying, recipe.text, recipe.name) {
			t.Errorf("%s: refused", recipe.name)
		}
	}
	if compared < 130 || migrated < 90 || mutated < 1000 {
		t.Fatalf("compared %d sessions (%d migrated) and %d mutations, want at least 130 (90) and 1000", compared, migrated, mutated)
	}
}

type benchRecipe struct {
	name string
	text []byte
}

// benchRecipes makes the bench's three recipes (v0 rows-heavy, v0
// string-heavy, v3) at about 256 KB each; the v3 one is internal/gen's
// repetition of the v3 recipe's template.
func benchRecipes(t testing.TB) []benchRecipe {
	t.Helper()
	v0, err := os.ReadFile(filepath.Join(corpus, "restored/bash-tool-turn/session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	v0Template, err := gen.LoadV0(bytes.NewReader(v0))
	if err != nil {
		t.Fatal(err)
	}
	v3, err := os.ReadFile(filepath.Join(corpus, "restored/fs-write/session.v3.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	v3Template, err := gen.Load(bytes.NewReader(v3))
	if err != nil {
		t.Fatal(err)
	}
	const size = 256 << 10
	var rows, strs, v3Text bytes.Buffer
	if _, err := v0Template.Write(&rows, size, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := v0Template.Write(&strs, size, 40000); err != nil {
		t.Fatal(err)
	}
	if _, err := v3Template.Write(&v3Text, size); err != nil {
		t.Fatal(err)
	}
	return []benchRecipe{{"v0 rows-heavy", rows.Bytes()}, {"v0 string-heavy", strs.Bytes()}, {"v3", v3Text.Bytes()}}
}

// FuzzRowsEditedInPlace holds the chain to its copying oracle on arbitrary
// session files, as TestRowsEditedInPlace does on the corpus. The seeds are
// the v0, v1 and v2 edge cases of the corpus cut to their first rows (a
// system prompt change and a legacy interrupted turn among them), small
// enough for the fuzzer to minimize what it finds.
func FuzzRowsEditedInPlace(f *testing.F) {
	for _, path := range sessiontest.Glob(f,
		filepath.Join(corpus, "golden/edge*/*/session.jsonl"),
		filepath.Join(corpus, "golden/edge*/*/session.v[12].jsonl"),
	) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		lines := bytes.SplitAfter(data, []byte("\n"))
		f.Add(bytes.Join(lines[:min(len(lines), 24)], nil))
	}
	inPlace, copying := chains(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		compareChains(t, inPlace, copying, data, "fuzz input")
	})
}
