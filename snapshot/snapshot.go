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
// values are supplied: its cwd, id formats, system prompt, tools and a clock
// of createdAt + seq×TimeStep; or, for any log, the Recorded values a
// Normalizer found (Normalizer.Recorded, Recorded.RestoreOptions).
//
// Normalize differs from dsh's normalizer in what one log cannot know: dsh
// redacts a parent and its children together, numbering every header's id
// first; a child normalized alone numbers its parent 1 and itself next
// (NormalizeOptions.Sessions names the others). Ids spelled in one of the
// NormalizeOptions.IDFormats keep their ordinal, which undoes rule R1. dsh's
// repository-key and review-checkout ids of git worktrees are not
// recognized.
//
// Restore also fills the named placeholders of the pre-v1 line's
// normalizers ({{sessionId}}, {{parent}}, {{child-N}}, {{messageId}},
// {{rpcId}}, {{workflow-run}}, {{messagePrefix}}; see Restore), and fails
// on any placeholder it cannot fill rather than leave it in the log.
//
// Memory: Restore holds one row at a time plus the expected prompts, tool
// lists and clock runs it puts in, and the messages agent/inbox/spliced rows
// inserted with a made-up id until a later row delivers them. Normalize and Check read the log twice
// (the first pass learns every id to replace, as dsh's redaction does over
// the whole log before it rewrites); they hold one row at a time plus the
// table of ids found and, for Recorded, the system prompts, tool lists and
// clock runs, never the whole log.
package snapshot

import (
	"fmt"
	"regexp"
	"slices"
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
	// without a format is spelled kind-N by Restore ({{approval:1}} is
	// approval-1).
	IDFormats map[string]string
	// IDs maps placeholders to the ids they stand for ({{message:1}} →
	// 8707a01d-…); an id listed here takes precedence over IDFormats.
	IDs map[string]string
	// System is the text {{system}} stands for in a system/message.
	System string
	// Tools is the tool list {{tools}} stands for in a request/header.
	Tools jsonv.Value
	// TimeStep is the clock of the restored rows: time = createdAt +
	// seq×TimeStep (R5 uses 1).
	TimeStep int64
	// Clock, when not empty, gives the rows' times instead of TimeStep (a
	// clock Normalizer.Recorded found).
	Clock []ClockRun
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

// formatVerb is the integer verb of an id format.
var formatVerb = regexp.MustCompile(`%(0?[1-9][0-9]*)?d`)

// CheckIDFormat reports whether format can spell ids: it must hold exactly
// one %d (or %0Nd) and no other verb.
func CheckIDFormat(format string) error {
	if len(formatVerb.FindAllStringIndex(format, -1)) != 1 || strings.Count(format, "%") != 1 {
		return fmt.Errorf("id format %q needs exactly one %%d verb and no other", format)
	}
	return nil
}

// compileFormats checks each format and builds the pattern that recognizes
// its values.
func compileFormats(formats map[string]string) ([]idFormat, error) {
	var out []idFormat
	for kind, format := range formats {
		if err := CheckIDFormat(format); err != nil {
			return nil, fmt.Errorf("%s: %v", kind, err)
		}
		loc := formatVerb.FindStringIndex(format)
		pattern := "^" + regexp.QuoteMeta(format[:loc[0]]) + "([0-9]+)" + regexp.QuoteMeta(format[loc[1]:]) + "$"
		out = append(out, idFormat{kind: kind, format: format, parse: regexp.MustCompile(pattern)})
	}
	slices.SortFunc(out, func(a, b idFormat) int { return strings.Compare(a.kind, b.kind) })
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
