// Package snapshot converts between a real dsh session log and dsh's
// normalized snapshot form, the form dsh's own snapshot harness commits under
// snapshots/session/<scenario>/: no seq or time in the rows, expanded
// sourceEventSeqs, and placeholders for what changes from run to run
// ({{cwd}}, {{session:N}}, {{message:N}}, {{id:N}}, {{workflow:N}},
// {{system}}, {{tools}}).
//
// Normalize follows dsh's snapshot normalizer (package dsh-session-snapshot:
// the cwd tokenizer, the request scrubber and the identity redaction) for one
// log. Restore implements the restore rules R1–R7 of the corpus
// (testdata/corpus/golden/README.md): placeholders to values (R1), an
// optional scope rewrite (R2), the tool list (R3), seq (R4), time (R5), the
// writer's key order (R6) and the range encoding of sourceEventSeqs (R7);
// where dsh's snapshot folder keeps the system prompt and tool schemas
// beside the log (system-prompt[.K].expected.md, tool-schemas[.K].expected.json),
// Restore substitutes them as dsh's harness does on replay. Check compares a
// log with a stored snapshot row by row.
//
// The Values a restore fills in are also what Normalize recognizes, so
// Restore(Normalize(log)) gives the log back byte for byte when the log's own
// values are supplied (its cwd, id formats, system prompt, tools, and a clock
// of createdAt + seq×TimeStep).
//
// Memory: Restore holds one row at a time plus the expected prompts and
// tool lists it substitutes. Normalize and Check read the log twice (the
// first pass learns every id to replace, as dsh's redaction does over the
// whole log before it rewrites); they hold one row at a time plus the table
// of ids found, never the whole log.
package snapshot

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/dshlog/dshlog/jsonv"
)

// Values are what the placeholders of a snapshot stand for. The zero Values
// is not useful; start from Defaults.
type Values struct {
	// Cwd is the workspace path {{cwd}} stands for.
	Cwd string
	// IDFormats maps a placeholder kind (session, message, id, workflow, …)
	// to the fmt format of its value, with one %d (or %0Nd) verb for the
	// ordinal: {{message:3}} is fmt.Sprintf(IDFormats["message"], 3). A kind
	// without a format is left as a placeholder by Restore.
	IDFormats map[string]string
	// System is the text {{system}} stands for in a system/message.
	System string
	// Tools is the tool list {{tools}} stands for in a request/header.
	Tools jsonv.Value
	// TimeStep is the clock of the restored rows: time = createdAt +
	// seq×TimeStep (R5 uses 1).
	TimeStep int64
}

// r3Tools is the tool list rule R3 puts in place of {{tools}}.
const r3Tools = `[{"name":"bash","description":"Run a shell command in the workspace.","parameters":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}},{"name":"read","description":"Read a text file.","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]`

// Defaults returns the values of restore rules R1 and R3: cwd
// /workspace/demo, session ids 00000000-0000-4000-8000-<N as 12 digits>,
// message-N, id-N, workflow-N, dsh's one-line system prompt, a bash and a
// read tool, and a clock that ticks once per seq.
func Defaults() Values {
	tools, err := jsonv.Parse([]byte(r3Tools))
	if err != nil {
		panic(err) // a constant
	}
	return Values{
		Cwd: "/workspace/demo",
		IDFormats: map[string]string{
			"session":  "00000000-0000-4000-8000-%012d",
			"message":  "message-%d",
			"id":       "id-%d",
			"workflow": "workflow-%d",
		},
		System:   "You are a coding agent running inside DeepSeek Harness.",
		Tools:    tools,
		TimeStep: 1,
	}
}

// Placeholder texts of dsh's snapshots.
const (
	cwdToken    = "{{cwd}}"
	systemToken = "{{system}}"
	toolsToken  = "{{tools}}"
)

// tokenPattern matches an ordinal placeholder {{kind:N}}.
var tokenPattern = regexp.MustCompile(`\{\{([A-Za-z]+):([1-9][0-9]*)\}\}`)

// token spells the placeholder of kind with ordinal n.
func token(kind string, n int) string {
	return "{{" + kind + ":" + strconv.Itoa(n) + "}}"
}

// idFormat is one kind's value format, compiled both ways.
type idFormat struct {
	kind   string
	format string
	parse  *regexp.Regexp // the whole value; group 1 is the ordinal
}

// compileFormats checks each format has exactly one integer verb and builds
// the pattern that recognizes its values.
func compileFormats(formats map[string]string) ([]idFormat, error) {
	verb := regexp.MustCompile(`%(0?[1-9][0-9]*)?d`)
	var out []idFormat
	for kind, format := range formats {
		locs := verb.FindAllStringIndex(format, -1)
		if len(locs) != 1 || strings.Count(format, "%") != 1 {
			return nil, fmt.Errorf("id format %q of %s needs exactly one %%d verb", format, kind)
		}
		start, end := locs[0][0], locs[0][1]
		pattern := "^" + regexp.QuoteMeta(format[:start]) + "([0-9]+)" + regexp.QuoteMeta(format[end:]) + "$"
		out = append(out, idFormat{kind: kind, format: format, parse: regexp.MustCompile(pattern)})
	}
	return out, nil
}

// ordinalOf reports the kind and ordinal whose format spells value.
func ordinalOf(formats []idFormat, value string) (string, int, bool) {
	for _, f := range formats {
		m := f.parse.FindStringSubmatch(value)
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil || n < 1 || fmt.Sprintf(f.format, n) != value {
			continue
		}
		return f.kind, n, true
	}
	return "", 0, false
}
