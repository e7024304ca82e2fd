// Package search finds what was said in dsh session logs: the text of
// user, system, developer and assistant messages, the reasoning of
// assistant messages, tool calls (name and arguments), tool results and
// session titles, each decoded from its JSON string before it is matched.
//
// A file in the current format (v4) is read twice at most. First its
// plaintext is scanned in large blocks of whole lines for the pattern's
// literal as JSON.stringify quotes it (see prefilter): a file with no
// candidate line has no hit and is done after that one scan, at the speed
// of a byte search. A file with candidates is read again line by line:
// only candidate rows of a type that holds searched text are decoded, and
// the rows that carry state (turn/start for turn numbers, tool/call for the
// tool a result answers) are parsed for it. A v4 row is searched as it is
// stored; search does not judge the log (verify does). A file in an older
// format (v0..v3), or a pattern with no literal to look for, goes through
// migrate's reader, which decodes and migrates every row as dsh does and
// stops where dsh refuses the log.
//
// Memory: one block of lines (1 MiB, or the longest line) and one row per
// worker; the tool names of the current turn's calls; and the hits of the
// files searched ahead of the one being handed back, a bounded queue per
// file that makes a worker wait. Never a whole log.
package search

import (
	"slices"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// Query says what to look for and where.
type Query struct {
	// Pattern is a Go regular expression, or a fixed string when Fixed is
	// set; IgnoreCase compares with Unicode's simple case folding.
	Pattern    string
	Fixed      bool
	IgnoreCase bool
	// Reasoning searches the reasoning blocks of assistant messages too.
	Reasoning bool
	// Roles, Tools and Types, when not empty, keep only the hits in a
	// message of one of the roles, in a call of or a result from one of
	// the tools, or in an event of one of the types.
	Roles, Tools, Types []string
	// Since and Until, when not zero, keep only the events at or after
	// Since and before Until (epoch milliseconds).
	Since, Until int64
	// Project, when not empty, keeps only the sessions whose directory (the
	// header's cwd, else the store's project directory) is Project or lies
	// under it.
	Project string
	// FirstOnly stops reading a file at its first hit: enough to list the
	// sessions that have one.
	FirstOnly bool
	// Vocabulary is the dsh build an older log is read as written by (nil:
	// the default build), as every reading verb takes it.
	Vocabulary *vocab.Vocabulary
}

// The fields of an event that are searched.
const (
	// FieldText is a text block of a message (a tool result's too).
	FieldText = "text"
	// FieldReasoning is a reasoning block of an assistant message.
	FieldReasoning = "reasoning"
	// FieldToolName and FieldArguments are a tool call's name and its
	// arguments (JSON text, as the model wrote them).
	FieldToolName  = "tool-name"
	FieldArguments = "arguments"
	// FieldTitle is a session/title's title.
	FieldTitle = "title"
)

// Hit is one match.
type Hit struct {
	// Path is the file and Session the session's id.
	Path, Session string
	// Seq and Time are the event's, Turn the turn it belongs to (its own
	// turn member, else the last turn/start's; 0 before the first).
	Seq, Time, Turn int64
	// Type is the event type; Role the message's role ("" for a title).
	Type, Role string
	// Tool is the tool of a tool call or of the call a result answers, ""
	// otherwise or when the call is not in the log.
	Tool string
	// Field is what was matched (FieldText, …), Block the index of its
	// content block in the message (-1 for a title).
	Field string
	Block int
	// Start and End are the byte offsets of the match in the field's
	// decoded text (UTF-8).
	Start, End int
	// Before and After are up to 160 bytes of the field around the match,
	// and Match the matched text cut to 240 bytes, each on a whole
	// character.
	Before, Match, After string
}

// Result is what searching one file found, after its hits.
type Result struct {
	Path string
	// Session is the header's session id, Project the session's directory,
	// Format the format version of the file (-1 when the header could not
	// be read).
	Session, Project string
	Format           int
	// Excluded is true when the session is outside Query.Project.
	Excluded bool
	// Hits counts the hits handed on.
	Hits int
	// Notes say what was passed over: rows that are not JSON, rows dsh's
	// reader drops.
	Notes []string
	// Err says the file could not be read, or was read only up to where
	// dsh refuses it (its hits before that were handed on).
	Err error
}

// File is one session file to search.
type File struct {
	Path string
	// Children, with ChildrenKnown, are the subagent children whose catalog
	// evidence the migration of a historical (v0..v3) log reads, found for
	// a whole store at once (listing.ReadHeaders); without ChildrenKnown
	// they are searched for beside the file as dsh does.
	Children      []string
	ChildrenKnown bool
}

// Searcher runs one query over files. It is safe for use by several
// goroutines at once.
type Searcher struct {
	q                   Query
	m                   *matcher
	roles, tools, types map[string]bool
}

// New compiles a query. The error is for a pattern that is empty or not a
// valid regular expression.
func New(q Query) (*Searcher, error) {
	m, err := newMatcher(q)
	if err != nil {
		return nil, err
	}
	return &Searcher{q: q, m: m, roles: set(q.Roles), tools: set(q.Tools), types: set(q.Types)}, nil
}

func set(values []string) map[string]bool {
	if len(values) == 0 {
		return nil
	}
	out := make(map[string]bool, len(values))
	for _, v := range values {
		out[v] = true
	}
	return out
}

// Prefiltered reports whether v4 files are scanned for the pattern's
// literal before any row is decoded.
func (s *Searcher) Prefiltered() bool { return s.m.pre != nil }

// searchedTypes are the event types whose rows hold searched text.
var searchedTypes = []string{"system/message", "developer/message", "user/message", "assistant/message", "tool/result", "session/title"}

// isSearched reports whether rows of the type hold searched text.
func isSearched(typ string) bool { return slices.Contains(searchedTypes, typ) }

// walk follows one session's events and hands on the hits among them.
type walk struct {
	s     *Searcher
	path  string
	id    string
	turn  int64
	tools map[string]string // tool names by call id, of the current turn
	hit   func(Hit)
	hits  int
}

// done reports whether the walk has found all it was asked for.
func (w *walk) done() bool { return w.s.q.FirstOnly && w.hits > 0 }

// event takes one event: it keeps the turn and the tool names, and
// searches the text the event holds.
func (w *walk) event(ev session.Event) {
	data := ev.Data()
	switch ev.Type {
	case "turn/start":
		w.turn, _ = data.Field("turn").Count()
		clear(w.tools)
		return
	case "tool/call":
		if w.tools == nil {
			w.tools = map[string]string{}
		}
		w.tools[data.Field("callId").Text()] = data.Field("name").Text()
		return
	}
	if !isSearched(ev.Type) || !w.s.keepsEvent(ev) {
		return
	}
	hit := Hit{Path: w.path, Session: w.id, Seq: ev.Seq, Time: ev.Time, Turn: w.turn, Type: ev.Type, Block: -1}
	if turn, ok := data.Field("turn").Count(); ok {
		hit.Turn = turn
	}
	if ev.Type == "session/title" {
		hit.Field = FieldTitle
		w.field(hit, data.Field("title"))
		return
	}
	message := data.Field("message")
	if ev.Type == "user/message" {
		message = data
	}
	hit.Role = message.Field("role").Text()
	if ev.Type == "tool/result" {
		id := message.Field("source").Field("callId").Text()
		if id == "" {
			id = message.Field("toolCallId").Text()
		}
		hit.Tool = w.tools[id]
	}
	content := message.Field("content")
	if content.Kind() == jsonv.String {
		hit.Field, hit.Block = FieldText, 0
		w.field(hit, content)
		return
	}
	for i, block := range content.Elements() {
		hit.Block = i
		switch block.Field("type").Text() {
		case "tool-call":
			hit.Tool = block.Field("name").Text()
			hit.Field = FieldToolName
			w.field(hit, block.Field("name"))
			hit.Field = FieldArguments
			w.field(hit, block.Field("arguments"))
			hit.Tool = ""
		case "reasoning":
			if w.s.q.Reasoning {
				hit.Field = FieldReasoning
				w.field(hit, block.Field("text"))
			}
		default:
			hit.Field = FieldText
			w.field(hit, block.Field("text"))
		}
		if w.done() {
			return
		}
	}
}

// keepsEvent applies the filters an event alone decides: its type and
// time.
func (s *Searcher) keepsEvent(ev session.Event) bool {
	q := s.q
	switch {
	case s.types != nil && !s.types[ev.Type]:
		return false
	case q.Since != 0 && ev.Time < q.Since:
		return false
	case q.Until != 0 && ev.Time >= q.Until:
		return false
	}
	return true
}

// field searches one string field, a hit template carrying where it is.
func (w *walk) field(at Hit, value jsonv.Value) {
	if w.done() || (w.s.roles != nil && !w.s.roles[at.Role]) || (w.s.tools != nil && !w.s.tools[at.Tool]) {
		return
	}
	text, ok := value.Str()
	if !ok {
		return
	}
	w.s.m.each(text, func(start, end int) bool {
		h := at
		h.Start, h.End = start, end
		h.Before, h.Match, h.After = context(text, start, end)
		w.hits++
		w.hit(h)
		return !w.done()
	})
}
