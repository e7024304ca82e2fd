// Package listing summarizes the sessions of a dsh store for a listing: one
// Summary per session log, with the facts a person scans a store for (id,
// project, title, when, how big, in which state) and links from subagent
// children to their parents.
//
// Summarize reads one log front to back through migrate's reader and dsh's
// Session load checks (fold.Load), because the state column (refused by
// dsh) needs both. It keeps only counters and the last title: memory is
// that of the fold (the live surface of the one session being read) and
// never a whole log. List walks a root with store.Walk and summarizes the
// current logs on GOMAXPROCS goroutines; it holds the list of logs and one
// Summary per session (a few hundred bytes each), which sorting by last
// activity needs, and, when a historical log is among them, each log's id
// and parent from its header (ReadHeaders) so that no log's migration
// scans the whole store for its children.
package listing

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/store"
	"github.com/dshlog/dshlog/vocab"
)

// State is how a session log ends, as dsh would find it.
type State string

// The states of a session log, from the best to the worst.
const (
	// Closed: the log ends between turns.
	Closed State = "closed"
	// OpenTail: the log ends inside a turn; dsh's crash repair would close it.
	OpenTail State = "open tail"
	// TornTail: the last line was cut short (dsh drops it), or a damaged row
	// made dsh's recoverable reader drop it and every row after it.
	TornTail State = "torn tail"
	// Refused: dsh refuses to open the session (its codec, migration or
	// Session load says no).
	Refused State = "refused by dsh"
)

// Summary is what a listing shows of one session.
type Summary struct {
	// Path is the log file read: the session's current generation.
	Path string
	// ID is the header's session id, or the one the directory name encodes
	// when the header cannot be read.
	ID string
	// Project is the session's working directory: the header's cwd, else
	// the decoded name of the store's project directory ("" if neither).
	Project string
	// Title is the last session/title's title, "" when none.
	Title string
	// CreatedAt is the header's createdAt and LastActivity the time of the
	// last event read (CreatedAt when there is none), both in epoch ms.
	CreatedAt, LastActivity int64
	// Format is the format version of the file (the header's, else the
	// name's).
	Format int
	// Turns counts turn/start events, Requests the settlements (model
	// requests the log records).
	Turns, Requests int
	// InputTokens and OutputTokens sum the usage logged on settlements.
	InputTokens, OutputTokens int64
	// Size is the file's size in bytes.
	Size  int64
	State State
	// Problem is why the state is refused or torn, as dsh or the reader
	// words it; "" otherwise.
	Problem string
	// Parent is the header's parentSession for a subagent child, "" else.
	Parent string
	// Children are the ids of the listed sessions whose Parent is ID, in
	// listing order; List fills it.
	Children []string
}

// Summarize reads the session log l and returns its summary. A log dsh
// refuses is a Summary in state Refused, never an error; the error is for
// a file that cannot be read at all. A historical log's subagent children
// (whose catalog evidence its migration reads) are found as dsh finds them.
//
// The log is read as the dsh build whose vocabulary is v wrote it (nil: the
// default build, today's dsh).
func Summarize(l store.Log, v *vocab.Vocabulary) (Summary, error) {
	return summarize(l, v, nil, false)
}

// summarize is Summarize with the children of a historical log given
// (childrenKnown) rather than searched for.
func summarize(l store.Log, v *vocab.Vocabulary, children []string, childrenKnown bool) (Summary, error) {
	s := Summary{Path: l.Path, Format: l.Version, Size: l.Size, State: Closed}
	if id, ok := store.DecodeSegment(filepath.Base(filepath.Dir(l.Path))); ok {
		s.ID = id
	}
	s.Project = ProjectOf(l.Path)
	src, err := migrate.Open(l.Path, nil, migrate.OpenOptions{
		Options:        migrate.Options{Recovery: v2.Recoverable, Vocabulary: v},
		AnyZstdFraming: true,
		ChildFiles:     children,
		ChildFilesOnly: childrenKnown,
	})
	if err != nil {
		var pathErr *os.PathError
		if errors.As(err, &pathErr) {
			return s, err
		}
		s.refuse(err)
		return s, nil
	}
	defer src.Close()
	s.header(src.Reader)
	f := fold.New()
	for {
		ev, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			s.refuse(err)
			return s, nil
		}
		if err := f.Load(ev); err != nil {
			s.refuse(err)
			return s, nil
		}
		s.event(ev)
	}
	switch {
	case src.Issue() != nil:
		s.State, s.Problem = TornTail, src.Issue().Error()
	case src.TornTail():
		s.State, s.Problem = TornTail, "torn last line (no final newline) dropped, as dsh does"
	case f.TurnOpen():
		s.State = OpenTail
	}
	return s, nil
}

// header takes what the session's header says.
func (s *Summary) header(r *migrate.Reader) {
	h := r.Header
	s.ID, s.CreatedAt, s.LastActivity, s.Format = h.ID, h.CreatedAt, h.CreatedAt, r.SourceVersion
	if h.Cwd != nil {
		s.Project = *h.Cwd
	}
	if h.ParentSession != nil {
		s.Parent = *h.ParentSession
	}
}

// event counts one event.
func (s *Summary) event(ev session.Event) {
	s.LastActivity = max(s.LastActivity, ev.Time)
	switch {
	case ev.Type == "turn/start":
		s.Turns++
	case ev.Type == "session/title":
		if title, ok := ev.Data().Field("title").Str(); ok {
			s.Title = title
		}
	case fold.IsSettlement(ev.Type):
		s.Requests++
		usage := ev.Data().Field("usage")
		in, _ := usage.Field("inputTokens").Count()
		out, _ := usage.Field("outputTokens").Count()
		s.InputTokens += in
		s.OutputTokens += out
	}
}

// refuse marks the session refused for err.
func (s *Summary) refuse(err error) {
	s.State, s.Problem = Refused, err.Error()
}

// ProjectOf decodes the name of the dsh project directory that holds the
// session directory of the log at path: "--<projectKey(cwd)>--" gives the
// key (separators show as "-": the key cannot tell "/" from ":"), "_no-cwd"
// gives "". A directory not named like one gives "".
func ProjectOf(path string) string {
	name := filepath.Base(filepath.Dir(filepath.Dir(path)))
	key, prefixed := strings.CutPrefix(name, "--")
	key, suffixed := strings.CutSuffix(key, "--")
	if !prefixed || !suffixed || key == "" {
		return ""
	}
	if decoded, ok := store.DecodeSegment(key); ok {
		return decoded
	}
	return key
}

// Roots returns the store roots dsh and the tools around it use, in the
// order a listing tries them: $DSH_SESSIONS_DIR, $DSH_HOME/sessions, then
// ~/.dsh/sessions. getenv is os.Getenv in the command.
func Roots(getenv func(string) string) []string {
	var roots []string
	if dir := getenv("DSH_SESSIONS_DIR"); dir != "" {
		roots = append(roots, dir)
	}
	if home := getenv("DSH_HOME"); home != "" {
		roots = append(roots, filepath.Join(home, "sessions"))
	}
	if home := getenv("HOME"); home != "" {
		roots = append(roots, filepath.Join(home, ".dsh", "sessions"))
	}
	return roots
}

// List summarizes every current session log under root, links children to
// parents and returns the summaries sorted by last activity, the most
// recent first (ties by id, then path), each read as the build whose
// vocabulary is v (nil: today's dsh) wrote it. A log that cannot be read is
// reported to onError and left out, as is a directory that cannot be
// listed.
//
// When the root holds a historical log (format before v4), whose
// migration reads its subagent children's catalog evidence, List first
// reads every log's header once and hands each historical log the children
// found among them: dsh's own search scans the whole store for each such
// log, which over a store of them would take time growing with its square.
func List(root string, v *vocab.Vocabulary, onError func(path string, err error)) ([]Summary, error) {
	var failures sync.Mutex
	report := func(path string, err error) {
		failures.Lock()
		defer failures.Unlock()
		onError(path, err)
	}
	var logs []store.Log
	historical := false
	err := store.Walk(root, func(d store.Dir) error {
		for _, l := range d.Current() {
			logs = append(logs, l)
			historical = historical || l.Version < currentVersion
		}
		return nil
	}, report)
	if err != nil {
		return nil, err
	}
	var children *Children
	if historical {
		children = ReadHeaders(logs)
	}
	out := make([]Summary, len(logs))
	failed := make([]bool, len(logs))
	parallel(len(logs), func(i int) {
		l := logs[i]
		var err error
		if historical {
			out[i], err = summarize(l, v, children.Of(i), true)
		} else {
			out[i], err = summarize(l, v, nil, false)
		}
		if err != nil {
			report(l.Path, err)
			failed[i] = true
		}
	})
	kept := out[:0]
	for i, s := range out {
		if !failed[i] {
			kept = append(kept, s)
		}
	}
	out = kept
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.LastActivity != b.LastActivity {
			return a.LastActivity > b.LastActivity
		}
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		return a.Path < b.Path
	})
	Link(out)
	return out, nil
}

// currentVersion is the format dsh writes: a log before it is historical.
const currentVersion = v4.Version

// Children is what the headers of a set of logs say about subagent
// children: the catalog evidence a historical log's migration reads, found
// once for a whole store (pass it with migrate.OpenOptions.ChildFilesOnly)
// by the rules dsh's own search follows for one log: the files of its
// snapshot directory with the same format version, and, when it lies in a
// store's session directory, the sessions of that store.
type Children struct {
	ids      []string
	siblings map[childKey][]string // by directory, parent id and version
	inStore  map[childKey][]string // by store root and parent id
	logs     []store.Log
	versions []int
}

type childKey struct {
	place, parent string
	version       int
}

// ReadHeaders reads the header of every log (in parallel) and indexes the
// subagent children among them.
func ReadHeaders(logs []store.Log) *Children {
	c := &Children{ids: make([]string, len(logs)), versions: make([]int, len(logs)), logs: logs,
		siblings: map[childKey][]string{}, inStore: map[childKey][]string{}}
	parents := make([]string, len(logs))
	parallel(len(logs), func(i int) {
		h, version, err := migrate.ReadHeaderFile(logs[i].Path)
		if err != nil {
			return
		}
		c.ids[i], c.versions[i] = h.ID, version
		if h.ParentSession != nil && h.IsSubagentOf(*h.ParentSession) {
			parents[i] = *h.ParentSession
		}
	})
	for i, parent := range parents {
		if parent == "" {
			continue
		}
		path := logs[i].Path
		sibling := childKey{filepath.Dir(path), parent, c.versions[i]}
		c.siblings[sibling] = append(c.siblings[sibling], path)
		if root, ok := storeRootOf(path); ok {
			stored := childKey{root, parent, 0}
			c.inStore[stored] = append(c.inStore[stored], path)
		}
	}
	return c
}

// Of returns the paths of the children of log i, in path order.
func (c *Children) Of(i int) []string {
	id, path := c.ids[i], c.logs[i].Path
	if id == "" {
		return nil
	}
	seen := map[string]bool{path: true}
	var out []string
	add := func(paths []string) {
		for _, p := range paths {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	add(c.siblings[childKey{filepath.Dir(path), id, c.versions[i]}])
	if root, ok := storeRootOf(path); ok {
		if dirID, ok := store.DecodeSegment(filepath.Base(filepath.Dir(path))); ok && dirID == id {
			add(c.inStore[childKey{root, id, 0}])
		}
	}
	sort.Strings(out)
	return out
}

// projectDir matches the names of dsh's project directories.
var projectDir = regexp.MustCompile(`^(--.+--|_no-cwd)$`)

// storeRootOf returns the root of the dsh store whose session directory
// holds the log at path: its directory's parent must be a project
// directory.
func storeRootOf(path string) (string, bool) {
	project := filepath.Dir(filepath.Dir(path))
	if !projectDir.MatchString(filepath.Base(project)) {
		return "", false
	}
	return filepath.Dir(project), true
}

// parallel calls do for 0..n-1 on GOMAXPROCS goroutines.
func parallel(n int, do func(i int)) {
	next := make(chan int)
	var workers sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		workers.Go(func() {
			for i := range next {
				do(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	workers.Wait()
}

// Parents returns, for each summary, the index of its parent's summary in
// the list, or -1 when it names none that is listed. A parent in the same
// directory (a snapshot folder's session.jsonl for its session.<K>.jsonl)
// is taken first; else the one summary with that id, when it is the only
// one (recorded fixtures reuse ids across folders; a dsh store does not).
func Parents(list []Summary) []int {
	type key struct{ dir, id string }
	inDir := make(map[key]int, len(list))
	byID := make(map[string]int, len(list))
	for i, s := range list {
		k := key{filepath.Dir(s.Path), s.ID}
		if _, dup := inDir[k]; !dup {
			inDir[k] = i
		}
		if _, dup := byID[s.ID]; dup {
			byID[s.ID] = -1
		} else {
			byID[s.ID] = i
		}
	}
	parents := make([]int, len(list))
	for i, s := range list {
		parents[i] = -1
		if s.Parent == "" {
			continue
		}
		if p, ok := inDir[key{filepath.Dir(s.Path), s.Parent}]; ok && p != i {
			parents[i] = p
		} else if p, ok := byID[s.Parent]; ok && p >= 0 && p != i {
			parents[i] = p
		}
	}
	return parents
}

// Link fills each summary's Children with the ids of its children (see
// Parents), in list order.
func Link(list []Summary) {
	for i, p := range Parents(list) {
		if p >= 0 {
			list[p].Children = append(list[p].Children, list[i].ID)
		}
	}
}
