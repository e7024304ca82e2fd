package vocab

import (
	"slices"
	"strings"
	"testing"
)

// TestEventMapPluginFile reads a real plugin's declaration merge: the seven
// browser-task types changanhua's fork declares in its browser-task package,
// which its recorded v3 logs carry.
func TestEventMapPluginFile(t *testing.T) {
	d, err := Load("../testdata/fork-logs-more/changanhua-cordis-tool-round/domain.ts")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"browser-task/change", "browser-task/receipt", "browser-task/check", "browser-task/delegation",
		"browser-task/delegation-candidate", "browser-target/change", "browser-task/function-handoff",
	}
	if d.Kind != FileEventMap || !slices.Equal(typeNames(d), want) {
		t.Fatalf("kind %q, types %v; want %q, %v", d.Kind, typeNames(d), FileEventMap, want)
	}
	for _, typ := range d.Types {
		if typ.Surface || typ.Schema != nil {
			t.Errorf("%s: a plugin's type is log-only and unchecked, got %+v", typ.Name, typ)
		}
	}
}

func typeNames(d *Declaration) []string {
	var out []string
	for _, typ := range d.Types {
		out = append(out, typ.Name)
	}
	return out
}

// TestEventMapMembers holds the reading of SessionEventMap members to what
// dsh's catalog generator collects, on the shapes TypeScript allows around
// them.
func TestEventMapMembers(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"owning interface, exported, with optional and readonly members", `
export interface SessionEventMap {
  /** A turn begins. */
  'turn/start': { turn: number }
  readonly "turn/end": TurnEnd;
  'step/start'?: StepStart,
}`, []string{"turn/start", "turn/end", "step/start"}},
		{"a fork's own package scope, two members on one line", `
declare module '@monotykamary/dsh-session/types' {
  interface SessionEventMap { 'code/dispatch-start': A; 'code/dispatch': B }
}`, []string{"code/dispatch-start", "code/dispatch"}},
		{"two merges in one file, around other declarations", `
declare module '@deepseek-ai/dsh-session/types' {
  interface SessionEventMap { 'a/one': X }
}
interface Other { 'not/an-event': Y }
declare module '@deepseek-ai/dsh-session/types' {
  interface SessionProjectionMap { avatar: Z }
  interface SessionEventMap { 'a/two': X }
}`, []string{"a/one", "a/two"}},
		{"payload keys, comments and strings are not members", `
declare module '@deepseek-ai/dsh-session/types' {
  interface SessionEventMap {
    // 'commented/out': X
    /* 'block/comment': X
       'still/comment': X */
    'x/record': {
      'inner/key': string
      kind: 'literal: not a key'
    }
    'x/conditional': T extends 'a' ? 'b' : 'c'
    'x/template': ` + "`plugin:${string}`" + `
    'x/union':
      | 'y/one'
      | 'y/two'
  }
}`, []string{"x/record", "x/conditional", "x/template", "x/union"}},
		{"escaped quotes in a payload literal", `
declare module '@deepseek-ai/dsh-session/types' {
  interface SessionEventMap { 'q/one': { note: 'it\'s: "q"' }; 'q/two': "say \"x\": y" }
}`, []string{"q/one", "q/two"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse([]byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if got := typeNames(d); !slices.Equal(got, tt.want) {
				t.Fatalf("types %v, want %v", got, tt.want)
			}
		})
	}
}

// TestEventMapRefusals: what dsh's generator refuses to catalog, and a file
// that declares nothing, are refused with the line at fault.
func TestEventMapRefusals(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"identifier member", "export interface SessionEventMap {\n  'a/b': X\n  qr: Y\n}", "line 3: SessionEventMap member qr has a non-literal name"},
		{"plugin namespace", "export interface SessionEventMap {\n  'plugin:x': X\n}", `line 2: SessionEventMap member "plugin:x" uses the plugin: namespace`},
		{"extends", "export interface SessionEventMap extends Base {\n  'a/b': X\n}", "line 1: SessionEventMap extends another interface"},
		{"not closed", "export interface SessionEventMap {\n  'a/b': X\n", "line 1: SessionEventMap is not closed"},
		{"empty", "export interface SessionEventMap {}\n", "SessionEventMap declares no event type"},
		{"only nested in a function", "function f() { interface SessionEventMap { 'a/b': X } }", "no interface SessionEventMap at the top level"},
		{"bad name", "export interface SessionEventMap {\n  'a b': X\n}", `line 2: "a b" is not an event type name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
}
