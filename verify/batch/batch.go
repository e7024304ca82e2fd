// Package batch runs the verifier over many session files, the way a CI
// gate needs it: it expands inputs (files, directories walked for dsh's
// session log names, "-") into a sorted list of files, keeps the ones of
// one shard, judges them in parallel and hands the results back in path
// order whatever the parallelism.
//
// Memory: one verify.Check per worker (the fold of one session each),
// plus the findings of the files judged but not yet handed back, which the
// workers never run more than a small window ahead of; never a file's
// content beyond what its Check holds.
package batch

import (
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/migrate/lift"
	"github.com/dshlog/dshlog/store"
	"github.com/dshlog/dshlog/verify"
	"github.com/dshlog/dshlog/vocab"
)

// Stdin is the input that names standard input.
const Stdin = "-"

// Target is one session file to judge.
type Target struct {
	// Path is the file as named or found: an argument as given, or a
	// walked directory joined with the names below it; "-" for stdin.
	Path string
	// Size is the file's size when it was listed, or -1 when unknown.
	Size int64
	// Err, when not nil, says the file could not even be listed (a
	// directory the walk could not read); it is reported unreadable.
	Err error
}

// Selection says which files a directory contributes.
type Selection struct {
	// AllGenerations judges every generation of a session directory, not
	// only the one dsh would open.
	AllGenerations bool
}

// Expand turns inputs into the files to judge, sorted by path (see
// ComparePaths) with each
// file once. A file or "-" is taken as it is, whatever its name; a
// directory is walked for session logs (store.Walk), taking of each
// session the generation dsh would open, or all of them. empty lists the
// directories that hold no session log.
func Expand(inputs []string, sel Selection) (targets []Target, empty []string) {
	seen := map[string]bool{}
	add := func(t Target) {
		key := t.Path
		if key != Stdin {
			key = filepath.Clean(key)
		}
		if !seen[key] {
			seen[key] = true
			targets = append(targets, t)
		}
	}
	for _, input := range inputs {
		info, err := os.Stat(input)
		if input == Stdin || err != nil || !info.IsDir() {
			size := int64(-1)
			if err == nil {
				size = info.Size()
			}
			add(Target{Path: input, Size: size})
			continue
		}
		found := false
		store.Walk(input, func(d store.Dir) error {
			logs := d.Logs
			if !sel.AllGenerations {
				logs = d.Current()
			}
			for _, l := range logs {
				found = true
				add(Target{Path: l.Path, Size: l.Size})
			}
			return nil
		}, func(path string, err error) {
			found = true
			add(Target{Path: path, Size: -1, Err: err})
		})
		if !found {
			empty = append(empty, input)
		}
	}
	slices.SortFunc(targets, func(a, b Target) int { return ComparePaths(a.Path, b.Path) })
	return targets, empty
}

// ComparePaths orders paths directory by directory, as a walk lists them:
// "a/b" before "a-c/b", which a plain string order reverses.
func ComparePaths(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		ca, cb := a[i], b[i]
		if ca == cb {
			continue
		}
		if os.IsPathSeparator(ca) {
			return -1
		}
		if os.IsPathSeparator(cb) {
			return 1
		}
		return cmp.Compare(ca, cb)
	}
	return cmp.Compare(len(a), len(b))
}

// Shard is one of N parts of a list of files, chosen by a hash of each
// path, so parallel jobs split the same list with no coordination.
type Shard struct {
	// Index is 1..Count.
	Index, Count int
}

// ParseShard reads "I/N", 1 <= I <= N.
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	index, errI := strconv.Atoi(i)
	count, errN := strconv.Atoi(n)
	if !ok || errI != nil || errN != nil || count < 1 || index < 1 || index > count {
		return Shard{}, fmt.Errorf("shard %q is not I/N with 1 <= I <= N", s)
	}
	return Shard{Index: index, Count: count}, nil
}

// Holds reports whether path falls into the shard: its FNV-1a hash (of the
// path with forward slashes) modulo Count is Index-1.
func (s Shard) Holds(path string) bool {
	if s.Count <= 1 {
		return true
	}
	h := fnv.New64a()
	io.WriteString(h, filepath.ToSlash(path))
	return h.Sum64()%uint64(s.Count) == uint64(s.Index-1)
}

// Filter returns the targets the shard holds, in order.
func (s Shard) Filter(targets []Target) []Target {
	var out []Target
	for _, t := range targets {
		if s.Holds(t.Path) {
			out = append(out, t)
		}
	}
	return out
}

// Result is one judged file.
type Result struct {
	Target
	// Findings are the verifier's findings, in the order found.
	Findings []verify.Finding
	// Chain is the file's request chain.
	Chain verify.Chain
	// SourceVersion is the format the file is stored in: v4, or an older
	// one judged as dsh migrates it to v4. It is -1 when the file could not
	// be opened.
	SourceVersion int
	// Notes say what was done to read the file that dsh would refuse or
	// does silently (an unusual compression framing, a child giving no
	// catalog evidence); for people, not findings. A migrated format is
	// said by SourceVersion, not here, so that a report over many files
	// can count them.
	Notes []string
	// Err says the file could not be read or is in an unsupported format;
	// such a file has no findings.
	Err error
}

// Options say how Run reads and judges files.
type Options struct {
	// Jobs is how many files are judged at once; below 1 means 1.
	Jobs int
	// Stdin is read for the target "-".
	Stdin io.Reader
	// Open are the options every file is opened with.
	Open migrate.OpenOptions
}

// Run judges every target with opts.Jobs workers and calls emit with each
// result, in target order, from the calling goroutine.
func Run(targets []Target, opts Options, emit func(Result)) {
	jobs := max(opts.Jobs, 1)
	if jobs == 1 || len(targets) <= 1 {
		for _, t := range targets {
			emit(Judge(t, opts))
		}
		return
	}
	// Workers run at most window files ahead of the one emitted next, so
	// one slow file never makes the others' findings pile up.
	window := make(chan struct{}, 4*jobs)
	results := make([]chan Result, len(targets))
	for i := range results {
		results[i] = make(chan Result, 1)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range jobs {
		wg.Go(func() {
			for i := range next {
				results[i] <- Judge(targets[i], opts)
			}
		})
	}
	go func() {
		for i := range targets {
			window <- struct{}{}
			next <- i
		}
		close(next)
	}()
	for i := range targets {
		emit(<-results[i])
		<-window
	}
	wg.Wait()
}

// Judge reads and judges one target.
func Judge(t Target, opts Options) Result {
	r := Result{Target: t, SourceVersion: -1}
	if t.Err != nil {
		r.Err = t.Err
		return r
	}
	judge(&r, opts)
	if refused := refusal(r); refused != nil && t.Path != Stdin && readsV0AsHistory(opts.Open.Vocabulary) {
		again := judgeAsV0Line(r.Path, opts)
		switch {
		case errors.Is(again.Err, migrate.ErrNotSessionLog):
			// Behind the header today's dsh refuses, no session at all.
			r.Findings, r.Err = nil, again.Err
		case again.Err == nil && again.SourceVersion == 0 && !refuses(again.Findings):
			refused.Hint = v0LineHint
		}
	}
	return r
}

// judge reads and judges r's file into r. A header dsh refuses is a
// finding like any other refusal: the file was read, and dsh refuses it.
func judge(r *Result, opts Options) {
	t := r.Target
	src, err := migrate.Open(t.Path, opts.Stdin, opts.Open)
	if refused, ok := migrate.HeaderRefusal(err); ok {
		if version, ok := migrate.StoredVersion(t.Path); ok && t.Path != Stdin {
			r.SourceVersion = version
		}
		r.Findings = []verify.Finding{{Code: verify.CodeCodecRefused, Severity: verify.Error, Seq: -1, Line: 1, Message: refused.Text()}}
		return
	}
	if err != nil {
		r.Err = err
		return
	}
	defer src.Close()
	name := DisplayName(t.Path)
	if src.Unframed {
		r.Notes = append(r.Notes, fmt.Sprintf("%s: Zstandard stream not in dsh's framing (the header line is not alone in the first frame); read as plain text, though dsh itself would refuse this file", name))
	}
	r.Notes = append(r.Notes, src.Warnings...)
	r.SourceVersion = src.SourceVersion
	r.Chain, r.Err = verify.Check(src.Reader, func(f verify.Finding) { r.Findings = append(r.Findings, f) })
	if r.Err != nil {
		r.Findings = nil
	}
	if lifted := src.LiftCounts().Summary(lift.BuildRules...); lifted != "" {
		r.Notes = append(r.Notes, fmt.Sprintf("%s: read as the build that wrote it reads it, where today's migrator refuses: %s", name, lifted))
	}
}

// readsV0AsHistory reports whether the vocabulary's build (nil: the
// default) reads format v0 only as history, through today's migrator.
func readsV0AsHistory(v *vocab.Vocabulary) bool {
	return v == nil || v.Build().V0 == nil
}

// refusal returns r's finding that says dsh refuses the log, or that its
// request chain breaks unexplained, if any: what the v0 line may read
// otherwise.
func refusal(r Result) *verify.Finding {
	for i, f := range r.Findings {
		switch f.Code {
		case verify.CodeCodecRefused, verify.CodeUnknownEventType, verify.CodeNotExtending:
			return &r.Findings[i]
		}
	}
	return nil
}

// judgeAsV0Line judges the file at path again as the v0 line reads it.
func judgeAsV0Line(path string, opts Options) Result {
	again := Result{Target: Target{Path: path}, SourceVersion: -1}
	opts.Open.Vocabulary = vocab.V0Line.Vocabulary()
	judge(&again, opts)
	return again
}

// refuses reports whether one of the findings is dsh refusing the log, or
// the request chain breaking unexplained: what the v0 line would not read
// as written.
func refuses(findings []verify.Finding) bool {
	for _, f := range findings {
		if f.Refuses() || f.Code == verify.CodeNotExtending {
			return true
		}
	}
	return false
}

// v0LineHint is what a log today's dsh refuses and the v0 line reads clean
// is told: both ways out.
const v0LineHint = "the v0 line (the pre-v1 dsh most forks still run, whose current format is v0) reads this log: judge it as its build does with --dsh v0-line or the fork's --vocabulary packages/core/session/src/known-event-types.ts; dshlog rescue writes a v4 log today's dsh opens"

// DisplayName is the name a file is reported under: its path, or
// "<stdin>" for "-".
func DisplayName(path string) string {
	if path == Stdin {
		return "<stdin>"
	}
	return path
}
