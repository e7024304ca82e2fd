package vocab

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// parseEventMap reads the event types a TypeScript file declares as members
// of SessionEventMap: the session package's own interface, or a plugin's
// declaration merge inside a `declare module '…/types'` block. These are
// the declarations dsh's catalog generator collects into
// known-event-types.ts, so a plugin kept outside a build's repository can
// declare its types with its own source file. As the generator requires,
// every member is a string-literal event type name outside the plugin:
// namespace; a member's payload type is not read. Plugin types are log-only
// (only the session package's SurfaceEventType union makes a surface type).
func parseEventMap(data []byte) (*Declaration, error) {
	toks := lexTypeScript(string(data))
	d := &Declaration{Kind: FileEventMap}
	found := false
	for i := 0; i < len(toks); i++ {
		if !isEventMap(toks, i) || !(toks[i].depth == 0 || inModuleBlock(toks, i)) {
			continue
		}
		found = true
		body := i + 2
		switch {
		case toks[body].is("extends"):
			return nil, fmt.Errorf("line %d: SessionEventMap extends another interface; declare its event members directly", toks[i].line)
		case !toks[body].is("{"):
			return nil, fmt.Errorf("line %d: interface SessionEventMap is not followed by its body", toks[i].line)
		}
		end, names, err := eventMapMembers(toks, body)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			d.Types = append(d.Types, Type{Name: name})
		}
		i = end
	}
	if !found {
		return nil, errNoEventMap
	}
	if len(d.Types) == 0 {
		return nil, fmt.Errorf("SessionEventMap declares no event type")
	}
	return d, nil
}

// errNoEventMap says a file declares no SessionEventMap: one that only
// mentions the name (in a string or a comment) is skipped in a source tree.
var errNoEventMap = errors.New("no interface SessionEventMap at the top level or in a declare module block")

// isEventMap reports whether the tokens at i open `interface SessionEventMap`.
func isEventMap(toks []token, i int) bool {
	return toks[i].is("interface") && i+2 < len(toks) && toks[i+1].is("SessionEventMap")
}

// inModuleBlock reports whether the token at i stands directly in the
// block of a `declare module 'name' {`.
func inModuleBlock(toks []token, i int) bool {
	depth := toks[i].depth
	for j := i - 1; j >= 3; j-- {
		if toks[j].depth < depth {
			return toks[j].is("{") && toks[j-1].quoted && toks[j-2].is("module") && toks[j-3].is("declare")
		}
	}
	return false
}

// eventMapMembers reads the members of the interface body that opens at
// the token body ('{'), and returns the index of the token that closes it.
// A member's name is the token at the start of the member (the body's
// first, one after a ';' or ',', or the first on its line, past readonly)
// followed by ':' or '?:'.
func eventMapMembers(toks []token, body int) (end int, names []string, err error) {
	inside := toks[body].depth + 1
	start := true
	for i := body + 1; i < len(toks); i++ {
		t := toks[i]
		if t.depth < inside {
			return i, names, nil // the closing '}'
		}
		if t.depth > inside {
			start = false
			continue
		}
		if !start && t.line > toks[i-1].line {
			start = true
		}
		switch {
		case start && t.is("readonly"):
			continue
		case start && isMemberName(toks, i):
			if !t.quoted {
				return 0, nil, fmt.Errorf("line %d: SessionEventMap member %s has a non-literal name; event types are declared as 'scope/name': payload", t.line, t.text)
			}
			if strings.HasPrefix(t.text, "plugin:") {
				return 0, nil, fmt.Errorf("line %d: SessionEventMap member %q uses the plugin: namespace, which holds ignorable plugin records", t.line, t.text)
			}
			if err := checkName(t.text); err != nil {
				return 0, nil, fmt.Errorf("line %d: %w", t.line, err)
			}
			names = append(names, t.text)
		}
		start = t.is(";") || t.is(",")
	}
	return 0, nil, fmt.Errorf("line %d: SessionEventMap is not closed", toks[body].line)
}

// isMemberName reports whether the token at i is followed by ':' or '?:'.
func isMemberName(toks []token, i int) bool {
	t := toks[i]
	if !t.quoted && !isIdentifier(t.text) {
		return false
	}
	next := i + 1
	if next < len(toks) && toks[next].is("?") {
		next++
	}
	return next < len(toks) && toks[next].is(":")
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		letter := r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// token is one token of a TypeScript text as far as parseEventMap needs:
// a word, a string literal's value (quoted), or one punctuation character;
// depth is how many brackets ({, ( or [) are open around it (a closing
// bracket has the depth of its opening one).
type token struct {
	text   string
	quoted bool
	line   int
	depth  int
}

func (t token) is(s string) bool { return !t.quoted && t.text == s }

// lexTypeScript splits src into tokens, leaving out comments and the
// contents of template literals. It never fails: text it cannot read as
// TypeScript still gives tokens, which then declare nothing.
func lexTypeScript(src string) []token {
	var toks []token
	line, depth := 1, 0
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				end = len(src) - i - 4
			}
			line += strings.Count(src[i:i+2+end+2], "\n")
			i += 2 + end + 2
		case c == '\'' || c == '"':
			value, next := lexString(src, i)
			toks = append(toks, token{text: value, quoted: true, line: line, depth: depth})
			line += strings.Count(src[i:next], "\n")
			i = next
		case c == '`':
			next := skipTemplate(src, i)
			toks = append(toks, token{text: "`", line: line, depth: depth})
			line += strings.Count(src[i:next], "\n")
			i = next
		case isWordByte(c):
			j := i
			for j < len(src) && isWordByte(src[j]) {
				j++
			}
			toks = append(toks, token{text: src[i:j], line: line, depth: depth})
			i = j
		default:
			switch c {
			case '}', ')', ']':
				depth = max(depth-1, 0)
			}
			toks = append(toks, token{text: src[i : i+1], line: line, depth: depth})
			switch c {
			case '{', '(', '[':
				depth++
			}
			i++
		}
	}
	return toks
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// lexString reads the string literal that starts at i and returns its value
// and where it ends. Escapes other than a quote or a backslash are kept as
// written: an event type name holds none.
func lexString(src string, i int) (string, int) {
	quote := src[i]
	var b strings.Builder
	for j := i + 1; j < len(src); j++ {
		switch c := src[j]; {
		case c == quote:
			return b.String(), j + 1
		case c == '\\' && j+1 < len(src):
			j++
			if src[j] != quote && src[j] != '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(src[j])
		case c == '\n':
			return b.String(), j // unterminated: the line ends it
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), len(src)
}

// skipTemplate returns where the template literal that starts at i ends,
// stepping over its ${…} substitutions by their braces.
func skipTemplate(src string, i int) int {
	open := 0
	for j := i + 1; j < len(src); j++ {
		switch c := src[j]; {
		case c == '\\':
			j++
		case c == '`' && open == 0:
			return j + 1
		case c == '$' && j+1 < len(src) && src[j+1] == '{':
			open++
			j++
		case c == '{' && open > 0:
			open++
		case c == '}' && open > 0:
			open--
		}
	}
	return len(src)
}

// LoadSourceTree reads the SessionEventMap members declared by the
// TypeScript sources of a plugin's source tree rooted at dir: every .ts or
// .tsx file in a src directory (as dsh's generator reads packages/*/*/src),
// outside node_modules and hidden directories, that mentions the interface.
// It returns a declaration per such file, in path order, and none when no
// file declares any.
func LoadSourceTree(dir string) ([]*Declaration, error) {
	var decls []*Declaration
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := e.Name()
		if e.IsDir() {
			if path != dir && (name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		inSrc := slices.Contains(strings.Split(filepath.ToSlash(filepath.Dir(rel)), "/"), "src")
		if !inSrc || !(strings.HasSuffix(name, ".ts") || strings.HasSuffix(name, ".tsx")) {
			return nil
		}
		data, err := readDeclarationFile(path)
		if err != nil {
			return err
		}
		if !bytes.Contains(data, []byte("interface SessionEventMap")) {
			return nil
		}
		d, err := parseEventMap(data)
		if errors.Is(err, errNoEventMap) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		d.File = path
		decls = append(decls, d)
		return nil
	})
	return decls, err
}
