package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/dshlog/dshlog/jsonv"
)

// Expected holds what dsh's snapshot folder keeps beside a log for its
// {{system}} and {{tools}} placeholders: the system prompt of each
// system/message in order, and the tool list of the first request/header and
// of each later header that changes it (reason "change").
type Expected struct {
	// Prompts are the initial system prompt and the prompts of later header
	// changes; nil when the folder has no system-prompt file for the log.
	Prompts []string
	// Tools are the initial tool list and the lists of later header changes;
	// nil when the folder has no tool-schemas file for the log.
	Tools []jsonv.Value
}

// changeMarker separates the prompts of later header changes in a
// system-prompt file (dsh's formatSystemPromptSnapshot).
var changeMarker = regexp.MustCompile(`\n<!-- request/header change [0-9]+ -->\n\n`)

// ParseSystemPrompts splits a system-prompt[.K].expected.md file into its
// prompts. dsh's formatter ends each prompt with a newline it adds when the
// prompt has none; dsh's composed prompts never end with one, so it is
// taken off again.
func ParseSystemPrompts(text string) []string {
	parts := changeMarker.Split(text, -1)
	for i, p := range parts {
		parts[i] = strings.TrimSuffix(p, "\n")
	}
	return parts
}

// ParseToolSchemas reads a tool-schemas[.K].expected.json file:
// {"initial": [...], "changes": [[...], ...]}.
func ParseToolSchemas(text []byte) ([]jsonv.Value, error) {
	v, err := jsonv.Parse(text)
	if err != nil {
		return nil, err
	}
	initial, changes := v.Field("initial"), v.Field("changes")
	if v.Kind() != jsonv.Object || initial.Kind() != jsonv.Array || changes.Kind() != jsonv.Array {
		return nil, errors.New("a tool-schema file must be an object with array-valued initial and changes")
	}
	lists := []jsonv.Value{initial}
	for _, c := range changes.Elements() {
		if c.Kind() != jsonv.Array {
			return nil, errors.New("each of a tool-schema file's changes must be an array")
		}
		lists = append(lists, c)
	}
	return lists, nil
}

// childNumber is K in session.K.jsonl and session.K.vN.jsonl.
var childNumber = regexp.MustCompile(`^session\.([1-9][0-9]*)\.(?:v[0-9]+\.)?jsonl$`)

// ChildNumber is K when the log at path is child K of its snapshot folder
// (session.K.jsonl or session.K.vN.jsonl), else 0.
func ChildNumber(path string) int {
	m := childNumber.FindStringSubmatch(filepath.Base(path))
	if m == nil {
		return 0
	}
	k, err := strconv.Atoi(m[1])
	if err != nil || k >= 1<<30 {
		return 0
	}
	return k
}

// ExpectedFiles names the files beside the log at path that hold its
// expected system prompts and tool schemas: system-prompt.expected.md and
// tool-schemas.expected.json for the parent, system-prompt.K.expected.md and
// tool-schemas.K.expected.json for child K (session.K.v4.jsonl).
func ExpectedFiles(path string) (prompts, tools string) {
	dir, infix := filepath.Dir(path), ""
	if m := childNumber.FindStringSubmatch(filepath.Base(path)); m != nil {
		infix = "." + m[1]
	}
	return filepath.Join(dir, "system-prompt"+infix+".expected.md"), filepath.Join(dir, "tool-schemas"+infix+".expected.json")
}

// LoadExpected reads the expectation files beside the log at path. It
// returns nil when there are none.
func LoadExpected(path string) (*Expected, error) {
	promptFile, toolsFile := ExpectedFiles(path)
	var exp Expected
	text, err := os.ReadFile(promptFile)
	switch {
	case err == nil:
		exp.Prompts = ParseSystemPrompts(string(text))
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	text, err = os.ReadFile(toolsFile)
	switch {
	case err == nil:
		if exp.Tools, err = ParseToolSchemas(text); err != nil {
			return nil, fmt.Errorf("%s: %v", toolsFile, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	if exp.Prompts == nil && exp.Tools == nil {
		return nil, nil
	}
	return &exp, nil
}

// substituteExpected puts the expected prompt into a {{system}} system
// message and the expected tools into a request/header whose tools are
// {{tools}} or a list of tool names, as dsh's harness does on replay.
func (r *restorer) substituteExpected(text []byte) ([]byte, error) {
	exp := r.opts.Expected
	v, err := jsonv.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	switch v.Field("type").Text() {
	case "system/message":
		block := v.Field("data").Field("message").Field("content").Index(0)
		if exp.Prompts == nil || block.Field("text").Text() != systemToken {
			return text, nil
		}
		prompt := r.opts.System
		if r.prompts < len(exp.Prompts) {
			prompt = exp.Prompts[r.prompts]
		} else {
			r.warn("system prompt %d has no expected text (the system-prompt file holds %d); it gets the stand-in prompt %q", r.prompts+1, len(exp.Prompts), abbreviate(prompt))
		}
		r.prompts++
		content := v.Field("data").Field("message").Field("content")
		content = content.WithIndex(0, block.With("text", jsonv.StringValue(prompt)))
		return withPath(v, content, "data", "message", "content").Encode(), nil
	case "request/header":
		tools := v.Field("data").Field("header").Field("tools")
		if exp.Tools == nil || !(tools.Text() == toolsToken || isNameList(tools)) {
			return text, nil
		}
		if r.headers == 0 || v.Field("data").Field("reason").Text() == "change" {
			r.tools = r.opts.Tools
			if r.headers < len(exp.Tools) {
				r.tools = exp.Tools[r.headers]
			} else {
				r.warn("tool list %d has no expected schemas (the tool-schemas file holds %d); it gets the stand-in tools of rule R3", r.headers+1, len(exp.Tools))
			}
			r.headers++
		}
		return withPath(v, r.tools, "data", "header", "tools").Encode(), nil
	}
	return text, nil
}

// isNameList reports whether v is a non-empty list of tool names, the form
// dsh's scrubber keeps when the log holds developer messages.
func isNameList(v jsonv.Value) bool {
	if v.Kind() != jsonv.Array || v.Len() == 0 {
		return false
	}
	for _, e := range v.Elements() {
		if e.Kind() != jsonv.String {
			return false
		}
	}
	return true
}

// ordinalValue is the value of one {{kind:N}} placeholder: its id, its
// kind's format with N, or kind-N when the kind has no format (rule R1's
// spelling of message-N, id-N and workflow-N).
func (r *restorer) ordinalValue(tok string) string {
	if id, ok := r.opts.IDs[tok]; ok {
		return id
	}
	m := tokenPattern.FindStringSubmatch(tok)
	n, err := strconv.Atoi(m[2])
	if err != nil { // an ordinal too large for an int
		return m[1] + "-" + m[2]
	}
	format, ok := r.opts.IDFormats[m[1]]
	if !ok {
		return m[1] + "-" + m[2]
	}
	return fmt.Sprintf(format, n)
}

// abbreviate is text cut to its first line, at most 60 bytes, for a
// warning.
func abbreviate(text string) string {
	line, _, cut := strings.Cut(text, "\n")
	if runes := []rune(line); len(runes) > 60 {
		line, cut = string(runes[:60]), true
	}
	if cut {
		return line + "…"
	}
	return line
}
