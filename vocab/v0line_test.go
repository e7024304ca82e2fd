package vocab

import (
	"path/filepath"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
)

// v0LineForks are the known-event-types.ts of the three forks of the v0
// line whose recordings are in testdata/corpus/fork-logs/v0-line.
var v0LineForks = []string{
	"../testdata/corpus/fork-logs/v0-line/toninfo+deepseek-harness/known-event-types.ts",
	"../testdata/corpus/fork-logs/v0-line/SparkElf+deepseek-harness-plus/known-event-types.ts",
	"../testdata/corpus/fork-logs/v0-line/KeepLost+harniverse/known-event-types.ts",
}

// TestDeclarationLine tells a build's format from the types it declares:
// the v0 line records assistant/chunk (toninfo packages/core/session/src/
// types.ts SESSION_FORMAT_VERSION = 0, line 56), format 4 records
// assistant/attempt instead.
func TestDeclarationLine(t *testing.T) {
	for _, path := range v0LineForks {
		d, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Line(); got != 0 {
			t.Errorf("%s: Line() = %d, want 0", path, got)
		}
	}
	for _, build := range []string{"mainline-v0.2.1-alpha.2", "fork-zdsh", "fork-hebilicious", "fork-1394225561"} {
		path := filepath.Join(builds, build, "packages/core/session/src/known-event-types.ts")
		d, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Line(); got != 4 {
			t.Errorf("%s: Line() = %d, want 4", path, got)
		}
	}
	for _, tt := range []struct {
		list string
		want int
	}{
		{"assistant/chunk\nturn/start\n", 0},
		{"assistant/chunk\nassistant/attempt\n", 4},
		{"assistant/attempt\n", 4},
		{"turn/start\n", AnyLine},
		{"assistant/chunk\n", 0},
	} {
		d, err := Parse([]byte(tt.list))
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Line(); got != tt.want {
			t.Errorf("list %q: Line() = %d, want %d", tt.list, got, tt.want)
		}
	}
}

// TestV0LineBuild is the build --dsh v0-line picks.
func TestV0LineBuild(t *testing.T) {
	for _, name := range []string{"v0-line", "V0-Line", "v0", "pre-v1"} {
		if b, ok := FindBuild(name); !ok || b != V0Line {
			t.Errorf("FindBuild(%q) = %v, %v, want the v0 line", name, b, ok)
		}
	}
	if V0Line.Format != 0 || V0Line.V0 != V0LineRules {
		t.Errorf("v0 line: format %d, rules %+v", V0Line.Format, V0Line.V0)
	}
	for _, b := range []*Build{Official, Zdsh} {
		if b.V0 != nil || b.Format != 4 {
			t.Errorf("%s: format %d, v0 rules %+v; it reads v0 as history", b.Name, b.Format, b.V0)
		}
	}
}

// TestReleasedV0Types checks the released v0 event types against the
// official migrator's frozen inventory (codec/v2, RELEASED_V0_EVENT_
// DISPOSITIONS): every one is in it, and of the types the builds and the
// v0-line forks declare, each the inventory holds is one.
func TestReleasedV0Types(t *testing.T) {
	for name := range releasedV0Types {
		if _, ok := v2.V0Disposition(name); !ok {
			t.Errorf("%s is not in the released v0 inventory", name)
		}
	}
	names := map[string]bool{}
	for _, ty := range Official.Vocabulary().Types() {
		names[ty.Name] = true
	}
	for _, path := range v0LineForks {
		d, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, ty := range d.Types {
			names[ty.Name] = true
			// The three forks declare no type of their own.
			if !IsReleasedV0Type(ty.Name) {
				t.Errorf("%s: %s is not a released v0 type", path, ty.Name)
			}
		}
	}
	for name := range names {
		_, inInventory := v2.V0Disposition(name)
		if inInventory != IsReleasedV0Type(name) {
			t.Errorf("%s: in the released v0 inventory %v, IsReleasedV0Type %v", name, inInventory, IsReleasedV0Type(name))
		}
	}
}

// TestWithOnV0Line adds a fork's declaration to the v0 line: the released
// v0 types it declares are read by the migrator's rules and judged as the
// v4 types they become, so they are skipped; a type of its own is added,
// and is a fork type.
func TestWithOnV0Line(t *testing.T) {
	fork, err := Load(v0LineForks[0])
	if err != nil {
		t.Fatal(err)
	}
	line := V0Line.Vocabulary()
	v := line.With(fork)
	if v.Len() != line.Len() {
		t.Errorf("the fork's released v0 types changed the vocabulary: %d types, want %d", v.Len(), line.Len())
	}
	if v.Has("assistant/chunk") {
		t.Error("assistant/chunk, a released v0 type, was added")
	}
	if got := v.Lookup("team/member"); got == nil || got.Origin != "built in (v0-line)" || !got.Derivable {
		t.Errorf("team/member = %+v, want the built-in type untouched", got)
	}

	own := &Declaration{File: "known-event-types.ts", Kind: FileKnownEventTypes,
		Types: []Type{{Name: "fork/bookmark"}, {Name: "assistant/chunk"}}}
	v = v.With(own)
	if v.Len() != line.Len()+1 {
		t.Errorf("%d types, want %d: the fork's own added, nothing else", v.Len(), line.Len()+1)
	}
	if got := v.Lookup("fork/bookmark"); got == nil || got.Origin != "known-event-types.ts" || got.Derivable {
		t.Errorf("fork/bookmark = %+v, want the fork's own, from its file", got)
	}
	for _, tt := range []struct {
		name string
		fork bool
	}{
		{"fork/bookmark", true},
		{"assistant/chunk", false},   // released v0
		{"team/member", false},       // released v0 and built in
		{"assistant/attempt", false}, // built in, not declared
		{"fork/undeclared", false},   // declared by no one
		{"system/message", false},    // a v4 type
	} {
		if got := v.ForkType(tt.name, 0); got != tt.fork {
			t.Errorf("ForkType(%q) = %v, want %v", tt.name, got, tt.fork)
		}
	}

	// Today's dsh has no v0 line: the same declarations add every type they
	// name that it does not know. The fork's own type is one in a log of
	// any older format; a released v0 type is one only in a v2 or v3 log,
	// which lacks it.
	official := Default().With(fork).With(own)
	if !official.Has("assistant/chunk") || !official.Has("fork/bookmark") {
		t.Error("the official build did not add the declared types")
	}
	for _, tt := range []struct {
		name   string
		format int
		fork   bool
	}{
		{"fork/bookmark", 0, true},
		{"fork/bookmark", 3, true},
		{"assistant/chunk", 0, false},
		{"assistant/chunk", 2, true},
		{"system/message", 3, false},
	} {
		if got := official.ForkType(tt.name, tt.format); got != tt.fork {
			t.Errorf("official: ForkType(%q, v%d) = %v, want %v", tt.name, tt.format, got, tt.fork)
		}
	}
}
