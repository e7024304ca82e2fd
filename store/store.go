// Package store finds dsh session logs on disk: it knows the names dsh gives
// a session's generations and children, and walks a tree of directories
// (a dsh store root, one session directory, a folder of recorded sessions)
// for them.
//
// It reads directory listings only, never a file's content, and holds one
// directory's listing at a time: a walk over a store of any size costs
// memory for the deepest path and the largest session directory.
//
// dsh's store layout is <root>/<project dir>/<session dir>/, the project
// directory named --<projectKey(cwd)>-- (or _no-cwd) and the session
// directory by the encoded session id; a session directory holds the
// generations session.jsonl (v0) and session.v<N>.jsonl, each possibly
// ".zstd" compressed, a session.lock and transient migration stages. dsh's
// snapshot folders put a session's children beside it as session.<K>.jsonl
// and session.<K>.v<N>.jsonl.
package store

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Log is one session log file found by its name.
type Log struct {
	// Path is the file's path as found (the walk's root joined with the
	// names below it).
	Path string
	// Session is 0 for the directory's own session and K for the K-th
	// session of a snapshot folder (session.<K>.jsonl).
	Session int
	// Version is the format version the name states: 0 for session.jsonl.
	Version int
	// Compression is the compression suffix of the name: "", ".zstd",
	// ".zst" or ".gz".
	Compression string
	// Size is the file's size in bytes when it was listed.
	Size int64
}

// logName matches the names of session logs: session.jsonl,
// session.v<N>.jsonl, session.<K>.jsonl and session.<K>.v<N>.jsonl, with an
// optional compression suffix.
var logName = regexp.MustCompile(`^session(?:\.(0|[1-9][0-9]*))?(?:\.v([1-9][0-9]*))?\.jsonl(\.zstd|\.zst|\.gz)?$`)

// maxSafeInteger is JavaScript's Number.MAX_SAFE_INTEGER: dsh refuses a
// generation number beyond it.
const maxSafeInteger = 1<<53 - 1

// ParseName reports whether base (a file name without directory) is the
// name of a session log, and what the name says. Staging files
// (session.migration.<hex>….tmp), session.lock and names that only resemble
// a generation (session.v0.jsonl, session.v01.jsonl) are not logs.
func ParseName(base string) (Log, bool) {
	m := logName.FindStringSubmatch(base)
	if m == nil {
		return Log{}, false
	}
	var l Log
	var err error
	if m[1] != "" {
		if l.Session, err = strconv.Atoi(m[1]); err != nil {
			return Log{}, false
		}
	}
	if m[2] != "" {
		v, err := strconv.ParseInt(m[2], 10, 64)
		if err != nil || v > maxSafeInteger {
			return Log{}, false
		}
		l.Version = int(v)
	}
	l.Compression = m[3]
	return l, true
}

// Dir is a directory that holds session logs.
type Dir struct {
	// Path is the directory's path as found.
	Path string
	// Logs are its session logs ordered by session number, then version.
	Logs []Log
}

// Current returns the logs dsh would open in the directory: for each
// session number, the generation with the highest version. When two files
// state the same version (plain and compressed), the first by name is taken.
func (d Dir) Current() []Log {
	var out []Log
	for i, l := range d.Logs {
		if i+1 < len(d.Logs) && d.Logs[i+1].Session == l.Session {
			continue
		}
		j := len(out)
		out = append(out, l)
		for k := i - 1; k >= 0 && d.Logs[k].Session == l.Session && d.Logs[k].Version == l.Version; k-- {
			out[j] = d.Logs[k]
		}
	}
	return out
}

// ID returns the session id that dsh's store encodes in the directory's
// name, decoding ~XXXX escapes; ok is false when the name is not such an
// encoding.
func (d Dir) ID() (id string, ok bool) {
	return DecodeSegment(filepath.Base(d.Path))
}

// Walk walks the directory tree at root in lexical order and calls fn for
// every directory that holds at least one session log. Symbolic links are
// not followed. When onError is not nil, a directory that cannot be read is
// reported to it and skipped; otherwise its error ends the walk.
func Walk(root string, fn func(Dir) error, onError func(path string, err error)) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if onError == nil {
				return err
			}
			onError(path, err)
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		dir, err := list(path)
		if err != nil {
			if onError == nil {
				return err
			}
			onError(path, err)
			return nil
		}
		if len(dir.Logs) == 0 {
			return nil
		}
		return fn(dir)
	})
}

// list reads one directory's session logs.
func list(path string) (Dir, error) {
	entries, err := os.ReadDir(path)
	if err != nil {
		return Dir{}, err
	}
	dir := Dir{Path: path}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		l, ok := ParseName(e.Name())
		if !ok {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed since the listing: not there to judge
		}
		l.Path, l.Size = filepath.Join(path, e.Name()), info.Size()
		dir.Logs = append(dir.Logs, l)
	}
	sort.SliceStable(dir.Logs, func(i, j int) bool {
		a, b := dir.Logs[i], dir.Logs[j]
		if a.Session != b.Session {
			return a.Session < b.Session
		}
		if a.Version != b.Version {
			return a.Version < b.Version
		}
		return filepath.Base(a.Path) < filepath.Base(b.Path)
	})
	return dir, nil
}

// DecodeSegment reverses dsh's encoding of a session id as a path segment
// (every UTF-16 code unit outside [A-Za-z0-9._-] written ~XXXX). ok is false
// when seg holds a character the encoding never writes or a bad escape.
func DecodeSegment(seg string) (string, bool) {
	var units []uint16
	for i := 0; i < len(seg); {
		c := seg[i]
		switch {
		case c == '~':
			if i+5 > len(seg) {
				return "", false
			}
			u, err := strconv.ParseUint(seg[i+1:i+5], 16, 16)
			if err != nil || strings.ToUpper(seg[i+1:i+5]) != seg[i+1:i+5] {
				return "", false
			}
			units = append(units, uint16(u))
			i += 5
		case isSafe(c):
			units = append(units, uint16(c))
			i++
		default:
			return "", false
		}
	}
	if len(units) == 0 {
		return "", false
	}
	return string(utf16.Decode(units)), true
}

// isSafe reports whether dsh keeps the byte c as it is in a path segment.
func isSafe(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}
