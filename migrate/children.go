package migrate

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate/v3to4"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

// SourceChangedError says a file changed while it was being migrated (dsh's
// JsonlGenerationSourceChangedError); nothing is published.
type SourceChangedError struct{ Path string }

func (e *SourceChangedError) Error() string {
	return fmt.Sprintf("historical session generation changed during migration: %q", e.Path)
}

// childFile is a child session found for a parent, with the header it was
// found by (dsh's indexed header, in current form).
type childFile struct {
	path    string
	header  session.Header
	version int // the stored format version, which names the file in dsh's store
}

// gatherChildren finds and reads the child evidence of the historical
// session whose header value is hv, as dsh's write open does before it
// migrates: a current session needs none.
func gatherChildren(path string, hv jsonv.Value, version int, opts OpenOptions) ([]v3to4.ChildFact, []string, []string, error) {
	children := opts.Children
	parentID, ok := hv.Field("id").Str()
	if version >= currentVersion || !ok {
		return children, nil, nil, nil
	}
	search := path
	if opts.ChildFilesOnly {
		search = "-" // nothing beside the file to look at
	}
	files, err := findChildren(search, parentID, version, opts.ChildFiles)
	if err != nil {
		return nil, nil, nil, err
	}
	var paths, warnings []string
	for _, cf := range files {
		child, err := readChild(cf, parentID, opts.StoreRoot, opts.Vocabulary)
		var changed *SourceChangedError
		if errors.As(err, &changed) {
			return nil, nil, nil, err
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: child gives no catalog evidence: %v", cf.path, err))
		}
		children = append(children, child)
		paths = append(paths, cf.path)
	}
	return children, paths, warnings, nil
}

// findChildren returns the direct subagent children of the session parentID
// stored at path: those given explicitly, the other files of a snapshot
// directory with the same header version, and the sessions of the same dsh
// store. Each is listed once, in path order.
func findChildren(path, parentID string, version int, explicit []string) ([]childFile, error) {
	seen := map[string]bool{}
	if abs, err := filepath.Abs(path); err == nil {
		seen[abs] = true
	}
	var out []childFile
	add := func(p string, h session.Header, v int) {
		abs, err := filepath.Abs(p)
		if err != nil || seen[abs] {
			return
		}
		seen[abs] = true
		out = append(out, childFile{path: p, header: h, version: v})
	}
	for _, p := range explicit {
		h, v, err := indexHeader(p)
		if err != nil {
			return nil, fmt.Errorf("child %s: %w", p, err)
		}
		if !h.IsSubagentOf(parentID) {
			return nil, fmt.Errorf("child %s: session %s is not a subagent child of %s", p, h.ID, parentID)
		}
		add(p, h, v)
	}
	if path == "-" {
		return out, nil
	}
	dir := filepath.Dir(path)
	for _, p := range snapshotSiblings(dir) {
		if h, v, err := indexHeader(p); err == nil && v == version && h.IsSubagentOf(parentID) {
			add(p, h, v)
		}
	}
	if root, ok := storeRoot(dir, parentID); ok {
		for _, p := range storeSessions(root) {
			if h, v, err := indexHeader(p); err == nil && h.IsSubagentOf(parentID) {
				add(p, h, v)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, nil
}

// ReadHeaderFile reads only the header of the session file at path, as
// dsh's index does: the current (v4) header and the stored format version.
// A header dsh's index refuses is an error.
func ReadHeaderFile(path string) (session.Header, int, error) {
	return indexHeader(path)
}

// indexHeader reads a session file's header as dsh's index does
// (catalog.readHeader): the current header and the stored version.
func indexHeader(path string) (session.Header, int, error) {
	hv, version, err := readHeaderFile(path)
	if err != nil {
		return session.Header{}, 0, err
	}
	info := ReadHeader(hv)
	if info.Reason != nil {
		return session.Header{}, version, info.Reason
	}
	return info.Header, version, nil
}

// snapshotSiblings lists the files of a directory named like generations.
func snapshotSiblings(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if _, ok := GenerationOf(e.Name()); ok && e.Type().IsRegular() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// projectDir matches the names of dsh's project directories.
var projectDir = regexp.MustCompile(`^(--.+--|_no-cwd)$`)

// storeRoot returns the root of the dsh store that dir belongs to, when dir
// is the session directory of parentID inside a project directory.
func storeRoot(dir, parentID string) (string, bool) {
	if parentID == "" || filepath.Base(dir) != encodeSegment(parentID) {
		return "", false
	}
	project := filepath.Dir(dir)
	if !projectDir.MatchString(filepath.Base(project)) {
		return "", false
	}
	return filepath.Dir(project), true
}

// canonicalGeneration matches dsh's canonical generation names.
var canonicalGeneration = regexp.MustCompile(`^session(?:\.v([1-9][0-9]*))?\.jsonl(?:\.zstd)?$`)

// storeSessions returns the selected generation (the highest canonical
// one) of every session directory under the store root.
func storeSessions(root string) []string {
	projects, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var out []string
	for _, p := range projects {
		if !p.IsDir() || !projectDir.MatchString(p.Name()) {
			continue
		}
		sessions, err := os.ReadDir(filepath.Join(root, p.Name()))
		if err != nil {
			continue
		}
		for _, s := range sessions {
			if !s.IsDir() {
				continue
			}
			dir := filepath.Join(root, p.Name(), s.Name())
			if name, ok := highestGeneration(dir); ok {
				out = append(out, filepath.Join(dir, name))
			}
		}
	}
	return out
}

// highestGeneration picks the generation dsh reads in a session directory.
func highestGeneration(dir string) (string, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", false
	}
	best, bestVersion := "", -1
	for _, e := range entries {
		m := canonicalGeneration.FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() {
			continue
		}
		v := 0
		if m[1] != "" {
			if v, err = strconv.Atoi(m[1]); err != nil {
				continue
			}
		}
		if v > bestVersion {
			best, bestVersion = e.Name(), v
		}
	}
	return best, bestVersion >= 0
}

// readChild reads one child session in full and reduces it to its catalog
// evidence, as dsh's prepareCatalogFacts does. A child that cannot be read
// or reduced still gives evidence, without a descriptor, and the error
// says why; a child whose header changed since it was found is fatal.
func readChild(cf childFile, parentID, storeRoot string, v *vocab.Vocabulary) (v3to4.ChildFact, error) {
	sourcePath := cf.path
	if storeRoot != "" {
		sourcePath = filepath.Join(storeRoot, projectDirName(cf.header.Cwd), encodeSegment(cf.header.ID), logFilename(cf.version, false))
	}
	unavailable := v3to4.ChildFact{ChildID: cf.header.ID, ChildCreatedAt: cf.header.CreatedAt, SourcePath: sourcePath}
	h, reduce, err := restoreChild(cf.path, v)
	if err != nil {
		return unavailable, err
	}
	if h.ID != cf.header.ID || h.CreatedAt != cf.header.CreatedAt || !h.IsSubagentOf(parentID) ||
		!sameString(h.Cwd, cf.header.Cwd) || h.IsSeeded != cf.header.IsSeeded ||
		h.DelegationDepth != cf.header.DelegationDepth || !sameString(h.AgentPreset, cf.header.AgentPreset) {
		return unavailable, &SourceChangedError{Path: cf.path}
	}
	fact, err := reduce()
	if err != nil {
		return unavailable, err
	}
	fact.SourcePath = sourcePath
	return fact, nil
}

func sameString(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// restoreChild restores a child session as dsh does for evidence
// (recoverable, current validation; v3 and older with the historical
// catalog) and returns its restored header and the reduction of its
// artifact to catalog evidence. Only its subagent descriptors are kept.
func restoreChild(path string, v *vocab.Vocabulary) (session.Header, func() (v3to4.ChildFact, error), error) {
	f, err := openPlain(path, nil, nil, false)
	if err != nil {
		return session.Header{}, nil, err
	}
	defer f.close()
	lines := jsonl.NewReader(f.text, f.name)
	hv, version, err := readHeaderLine(lines)
	if err != nil {
		return session.Header{}, nil, err
	}
	cat := newCatalog(nil, v)
	if version <= historicalVersion {
		cat = newHistoricalCatalog()
	}
	var reducer *v3to4.ChildReducer
	var reduceErr error
	r := &Reader{lines: lines, SourceVersion: version}
	r.restore, err = cat.newRestore(hv, v2.Recoverable, Current, func(ev session.Event) error {
		if reducer != nil {
			reducer.Add(ev)
		}
		return nil
	})
	if err != nil {
		return session.Header{}, nil, lineError(lines, 1, err)
	}
	reducer, reduceErr = v3to4.NewChildReducer(r.restore.Header)
	for {
		if _, err := r.Next(); err == io.EOF {
			break
		} else if err != nil {
			return session.Header{}, nil, err
		}
	}
	reduce := func() (v3to4.ChildFact, error) {
		if reduceErr != nil {
			return v3to4.ChildFact{}, reduceErr
		}
		return reducer.Finish(r.Cut())
	}
	return r.restore.Header, reduce, nil
}
