package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/listing"
)

// lsOptions are the inputs of dshlog ls.
type lsOptions struct {
	root  string
	json  bool
	tree  bool
	vocab vocabularyFlags
}

func init() { addVerb(newLsCommand) }

// newLsCommand returns dshlog ls, which lists the sessions of a store.
func newLsCommand(s *streams) *cobra.Command {
	var opts lsOptions
	cmd := &cobra.Command{
		Use:   "ls [ROOT]",
		Short: "List the sessions of a dsh store",
		Long: `List the sessions of a dsh store, the most recently active first. The store
is ROOT, else $DSH_SESSIONS_DIR, else $DSH_HOME/sessions, else ~/.dsh/sessions;
any directory tree holding session logs will do (a project directory, one
session directory, a folder of recorded sessions). Each session's current
generation (the highest version dsh would open) is read once, front to back,
through dsh's own checks; nothing is written.

Columns: LAST ACTIVITY and CREATED (UTC), ID, PROJECT (the header's cwd, else
the store's project directory decoded), TITLE (the last session/title), FMT
(format version of the file), TURNS, REQS (model requests), TOKENS (input/
output tokens from the logged usage), SIZE, STATE and CHILDREN (subagent
sessions listed whose parentSession is this one). STATE is one of:
  closed          the log ends between turns
  open tail       the log ends inside a turn (crash repair would close it)
  torn tail       the last line is cut short, or a damaged row made dsh's
                  recoverable reader drop the rows from it on
  refused by dsh  dsh refuses to open the session

--tree puts subagent children under their parents. --json prints one object
per session with the keys path, id, project, title, createdAt, lastActivity
(epoch ms), format, turns, requests, inputTokens, outputTokens, size, state,
problem (why refused or torn, else null), parent (else null), children.`,
		Example: `  dshlog ls
  dshlog ls --tree ~/.dsh/sessions
  dshlog ls --json testdata/corpus/restored | jq 'select(.state != "closed")'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.root = args[0]
			}
			return runLs(opts, s)
		},
	}
	flags := cmd.Flags()
	flags.BoolVar(&opts.json, "json", false, "print one JSON object per session instead of a table")
	flags.BoolVar(&opts.tree, "tree", false, "show subagent children under their parents")
	addVocabularyFlags(flags, &opts.vocab)
	return cmd
}

func runLs(opts lsOptions, s *streams) error {
	vocabulary, err := opts.vocab.resolve()
	if err != nil {
		return err
	}
	root := opts.root
	if root == "" {
		roots := listing.Roots(os.Getenv)
		if len(roots) == 0 {
			return usageErrorf("no store given: pass ROOT or set DSH_SESSIONS_DIR")
		}
		root = roots[0]
	}
	info, err := os.Stat(root)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && opts.root == "" {
			return withHint(err, "pass the store's directory as ROOT, or set DSH_SESSIONS_DIR or DSH_HOME")
		}
		return err
	}
	if !info.IsDir() {
		return usageErrorf("%s is not a directory: ls lists a store (use inspect or stats for one file)", root)
	}
	summaries, err := listing.List(root, vocabulary, func(path string, err error) {
		note(s, "%s: skipped: %v", path, err)
	})
	if err != nil {
		return err
	}
	rows := summaries
	depth := make([]int, len(rows))
	if opts.tree {
		rows, depth = treeOrder(summaries)
	}
	if opts.json {
		return printLsJSON(s, rows)
	}
	return printLsTable(s, rows, depth)
}

// treeOrder puts each child right after its parent (depth first), keeping
// the order of the list among siblings, and returns each row's depth.
func treeOrder(list []listing.Summary) ([]listing.Summary, []int) {
	parents := listing.Parents(list)
	children := make(map[int][]int)
	for i, p := range parents {
		if p >= 0 {
			children[p] = append(children[p], i)
		}
	}
	out := make([]listing.Summary, 0, len(list))
	depths := make([]int, 0, len(list))
	seen := make([]bool, len(list))
	var visit func(i, depth int)
	visit = func(i, depth int) {
		if seen[i] {
			return
		}
		seen[i] = true
		out = append(out, list[i])
		depths = append(depths, depth)
		for _, c := range children[i] {
			visit(c, depth+1)
		}
	}
	for i, p := range parents {
		if p < 0 {
			visit(i, 0)
		}
	}
	for i := range list { // a cycle of parents: list the rest flat
		visit(i, 0)
	}
	return out, depths
}

var lsColumns = []string{"LAST ACTIVITY", "ID", "PROJECT", "TITLE", "CREATED", "FMT", "TURNS", "REQS", "TOKENS IN/OUT", "SIZE", "STATE", "CHILDREN"}

func printLsTable(s *streams, rows []listing.Summary, depth []int) error {
	right := []bool{false, false, false, false, false, true, true, true, true, true, false, true}
	cells := make([][]string, len(rows))
	for i, r := range rows {
		id := r.ID
		if depth[i] > 0 {
			id = strings.Repeat("  ", depth[i]-1) + "└─ " + id
		}
		cells[i] = []string{
			msTime(r.LastActivity), id, r.Project, shorten(r.Title, 40), msTime(r.CreatedAt),
			"v" + strconv.Itoa(r.Format), strconv.Itoa(r.Turns), strconv.Itoa(r.Requests),
			itoa(r.InputTokens) + "/" + itoa(r.OutputTokens), byteSize(r.Size), string(r.State),
			strconv.Itoa(len(r.Children)),
		}
	}
	return printTable(s.out, lsColumns, right, cells)
}

func printLsJSON(s *streams, rows []listing.Summary) error {
	w := bufio.NewWriter(s.out)
	var b []byte
	for _, r := range rows {
		b = append(b[:0], `{"path":`...)
		b = jsonv.AppendString(b, r.Path)
		b = append(b, `,"id":`...)
		b = jsonv.AppendString(b, r.ID)
		b = append(b, `,"project":`...)
		b = jsonv.AppendString(b, r.Project)
		b = append(b, `,"title":`...)
		b = jsonv.AppendString(b, r.Title)
		b = fmt.Appendf(b, `,"createdAt":%d,"lastActivity":%d,"format":%d,"turns":%d,"requests":%d,"inputTokens":%d,"outputTokens":%d,"size":%d,"state":`,
			r.CreatedAt, r.LastActivity, r.Format, r.Turns, r.Requests, r.InputTokens, r.OutputTokens, r.Size)
		b = jsonv.AppendString(b, string(r.State))
		b = append(b, `,"problem":`...)
		b = appendOptionalString(b, r.Problem)
		b = append(b, `,"parent":`...)
		b = appendOptionalString(b, r.Parent)
		b = append(b, `,"children":[`...)
		for i, c := range r.Children {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonv.AppendString(b, c)
		}
		b = append(b, "]}\n"...)
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return w.Flush()
}

// msTime formats epoch milliseconds as a UTC minute.
func msTime(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04")
}

// byteSize formats a size in bytes for people: B, KB, MB, GB (powers of
// 1000, one decimal).
func byteSize(n int64) string {
	const unit = 1000
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	value, suffix := float64(n)/unit, "KB"
	for _, next := range []string{"MB", "GB", "TB"} {
		if value < unit {
			break
		}
		value, suffix = value/unit, next
	}
	return strconv.FormatFloat(value, 'f', 1, 64) + " " + suffix
}

// shorten cuts s to at most n characters, marking a cut with "…", and
// puts line breaks on one line.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
