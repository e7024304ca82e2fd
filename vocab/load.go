package vocab

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// Declaration is the set of event types one file declares.
type Declaration struct {
	// File is the path the declaration was read from.
	File string
	// Kind says which kind of file it was (see the File* constants).
	Kind string
	// Types are the declared types, in the file's order. Derivable is
	// false for each: dshlog knows them only from the file.
	Types []Type
}

// The kinds of declaration file Load reads.
const (
	// FileKnownEventTypes is a build's known-event-types.ts, the generated
	// KNOWN_SESSION_EVENT_TYPES (and MESSAGE_PROJECTION_EVENT_TYPES) sets.
	FileKnownEventTypes = "known-event-types.ts"
	// FilePersistenceSchema is a persistence schema: docs/persistence-schema.json
	// or a persistence change's <date>-<name>.schema.json, whose event roots
	// carry each type's surface flag and structural schema.
	FilePersistenceSchema = "persistence schema"
	// FileEventMap is a TypeScript file that declares members of
	// SessionEventMap, as a plugin does in a `declare module` block: what
	// dsh's generator collects into known-event-types.ts.
	FileEventMap = "SessionEventMap declaration"
	// FileList is a plain list of type names, one a line ('#' starts a
	// comment).
	FileList = "list"
)

// maxDeclarationFile bounds what Load reads: the largest real declaration
// (a persistence-schema.json) is well under a megabyte.
const maxDeclarationFile = 64 << 20

// Load reads the event types a dsh build declares from path, telling the
// kind of file by its content: a TypeScript module defining
// KNOWN_SESSION_EVENT_TYPES, a JSON persistence schema with "roots", a
// TypeScript file declaring SessionEventMap members, or a plain list of
// names.
func Load(path string) (*Declaration, error) {
	data, err := readDeclarationFile(path)
	if err != nil {
		return nil, err
	}
	d, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d.File = path
	return d, nil
}

// readDeclarationFile reads a file of at most maxDeclarationFile bytes.
func readDeclarationFile(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.Size() > maxDeclarationFile {
		return nil, fmt.Errorf("%s: too large for a vocabulary file (%d bytes)", path, info.Size())
	}
	return os.ReadFile(path)
}

// Parse reads a declaration from the content of a file (see Load).
func Parse(data []byte) (*Declaration, error) {
	trimmed := bytes.TrimSpace(data)
	switch {
	case bytes.Contains(data, []byte("KNOWN_SESSION_EVENT_TYPES")):
		return parseKnownEventTypes(data)
	case bytes.HasPrefix(trimmed, []byte("{")):
		return parsePersistenceSchema(data)
	case bytes.Contains(data, []byte("interface SessionEventMap")):
		return parseEventMap(data)
	}
	return parseList(data)
}

// setPattern finds `NAME ... = new Set([ ... ])` in known-event-types.ts.
var setPattern = regexp.MustCompile(`(?s)export const (\w+)\b[^=]*=\s*new Set\(\[(.*?)\]\)`)

// stringPattern finds the quoted names inside a set literal.
var stringPattern = regexp.MustCompile(`'([^'\\]*)'|"([^"\\]*)"`)

func parseKnownEventTypes(data []byte) (*Declaration, error) {
	sets := map[string][]string{}
	for _, m := range setPattern.FindAllSubmatch(data, -1) {
		var names []string
		for _, s := range stringPattern.FindAllSubmatch(m[2], -1) {
			names = append(names, string(s[1])+string(s[2]))
		}
		sets[string(m[1])] = names
	}
	known, ok := sets["KNOWN_SESSION_EVENT_TYPES"]
	if !ok || len(known) == 0 {
		return nil, fmt.Errorf("no KNOWN_SESSION_EVENT_TYPES set of quoted names found")
	}
	projection := map[string]bool{}
	for _, name := range sets["MESSAGE_PROJECTION_EVENT_TYPES"] {
		projection[name] = true
	}
	d := &Declaration{Kind: FileKnownEventTypes}
	for _, name := range known {
		if err := checkName(name); err != nil {
			return nil, err
		}
		d.Types = append(d.Types, Type{Name: name, Surface: projection[name]})
	}
	return d, nil
}

// persistenceSchema is the part of a persistence schema file Load reads.
type persistenceSchema struct {
	Roots *[]struct {
		Kind    string `json:"kind"`
		Event   string `json:"event"`
		Surface bool   `json:"surface"`
		Schema  *struct {
			Root  int    `json:"root"`
			Nodes []Node `json:"nodes"`
		} `json:"schema"`
	} `json:"roots"`
}

func parsePersistenceSchema(data []byte) (*Declaration, error) {
	var file persistenceSchema
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("not a persistence schema: %v", err)
	}
	if file.Roots == nil {
		return nil, fmt.Errorf(`not a persistence schema: no "roots"`)
	}
	d := &Declaration{Kind: FilePersistenceSchema}
	for i, root := range *file.Roots {
		if root.Kind != "event" {
			continue // headers, the envelope, plugin records
		}
		if err := checkName(root.Event); err != nil {
			return nil, fmt.Errorf("root %d: %w", i, err)
		}
		t := Type{Name: root.Event, Surface: root.Surface}
		if root.Schema != nil {
			whole := &Schema{Root: root.Schema.Root, Nodes: root.Schema.Nodes}
			if err := whole.validate(); err != nil {
				return nil, fmt.Errorf("root %d (%s): %w", i, root.Event, err)
			}
			t.Schema = whole.payload()
		}
		d.Types = append(d.Types, t)
	}
	if len(d.Types) == 0 {
		return nil, fmt.Errorf("persistence schema declares no event root")
	}
	return d, nil
}

// payload returns the schema of an event's data member, given the schema
// of its whole row; nil when the row schema has no data member.
func (s *Schema) payload() *Schema {
	row := s.Nodes[s.Root]
	if row.Kind != KindObject {
		return nil
	}
	for _, p := range row.Properties {
		if p.Name == "data" {
			return &Schema{Root: p.Type, Nodes: s.Nodes}
		}
	}
	return nil
}

func parseList(data []byte) (*Declaration, error) {
	d := &Declaration{Kind: FileList}
	lines := bufio.NewScanner(bytes.NewReader(data))
	lines.Buffer(nil, maxDeclarationFile)
	for n := 1; lines.Scan(); n++ {
		line, _, _ := strings.Cut(lines.Text(), "#")
		name := strings.TrimSpace(line)
		if name == "" {
			continue
		}
		if err := checkName(name); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		d.Types = append(d.Types, Type{Name: name})
	}
	if err := lines.Err(); err != nil {
		return nil, err
	}
	if len(d.Types) == 0 {
		return nil, fmt.Errorf("no event type names (a list holds one name a line)")
	}
	return d, nil
}

// checkName refuses what cannot be an event type name.
func checkName(name string) error {
	if name == "" || strings.ContainsAny(name, " \t\"'`,;{}[]()") {
		return fmt.Errorf("%q is not an event type name", name)
	}
	return nil
}
