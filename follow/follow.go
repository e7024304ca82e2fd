// Package follow reads a session file while dsh appends to it: a Tail is an
// io.Reader of the file's bytes that, once it has handed out every byte
// there is, waits for more instead of ending, and ends (io.EOF) only when
// the caller stops it, when the file has not grown for a while, or when dsh
// stops writing the file (a new generation published beside it, the file
// replaced, cut shorter or removed). Decoding is the migrate package's job:
// a Tail is handed to it as migrate.OpenOptions.Growing, so that every
// format and compression is read as it is on a finished file.
//
// The file is never held open while the Tail waits: each look at it opens
// it by path, read-only, reads what was appended and closes it again, so
// dsh can go on writing, migrating and renaming it (on Windows, an open
// file cannot be renamed over). A look that finds another file at the path
// (os.SameFile), or a file shorter than what was read, ends the Tail.
//
// Memory: a Tail holds the file's identity, the offset read up to and the
// names of the session logs beside it; the bytes it reads go straight into
// the caller's buffer.
package follow

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/dshlog/dshlog/store"
)

// Options say how a Tail waits for appends and when it stops.
type Options struct {
	// Poll is how long a Tail waits between looks at a file that has not
	// grown; 0 means DefaultPoll.
	Poll time.Duration
	// Idle ends the Tail once the file has not grown for this long; 0
	// waits for ever (until the context is done).
	Idle time.Duration
	// CaughtUp, when not nil, is called on the reading goroutine each time
	// the Tail has handed out every byte there is and is about to wait:
	// the moment to show what was read.
	CaughtUp func()
}

// DefaultPoll is how often a file that has not grown is looked at.
const DefaultPoll = 100 * time.Millisecond

// Reason says why a Tail ended.
type Reason int

// The reasons a Tail ends.
const (
	// Following: the Tail has not ended.
	Following Reason = iota
	// Stopped: the context was done (Ctrl-C).
	Stopped
	// Idle: the file did not grow for Options.Idle.
	Idle
	// Superseded: dsh published a newer generation of the session beside
	// the file (a migration); it writes there now.
	Superseded
	// Replaced: another file was put at the path (renamed over it).
	Replaced
	// Truncated: the file became shorter than what was read.
	Truncated
	// Removed: nothing is at the path any more.
	Removed
)

// Tail reads a growing file; see the package comment. It is used by one
// goroutine.
type Tail struct {
	ctx  context.Context
	path string
	opts Options

	identity os.FileInfo // the file as first opened
	file     *os.File    // open only while there are bytes to read
	offset   int64       // bytes handed out
	size     int64       // the file's size at the last look
	grew     time.Time   // when the file last grew

	log      store.Log       // what the file's name says, when it is a session log's
	named    bool            // the file's name is a session log's
	siblings map[string]bool // session logs beside the file when opened
	newer    string          // a newer generation beside the file

	caughtUp bool // CaughtUp was called since the last byte read
	reason   Reason
}

// Open opens the file at path for following: it must be a regular file. The
// Tail ends when ctx is done, besides the reasons opts give.
func Open(ctx context.Context, path string, opts Options) (*Tail, error) {
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "follow", Path: path, Err: errors.New("not a regular file")}
	}
	t := &Tail{ctx: ctx, path: path, opts: opts, identity: info, file: f, size: info.Size(), grew: time.Now()}
	t.log, t.named = store.ParseName(filepath.Base(path))
	t.siblings = map[string]bool{}
	t.newer = t.newerGeneration(func(name string) bool { t.siblings[name] = true; return true })
	return t, nil
}

// Newer returns the path of a newer generation of the session beside the
// file: one there when it was opened (dsh opens that one, not this), or
// the one whose publication ended the Tail; "" when none.
func (t *Tail) Newer() string { return t.newer }

// Idle returns how long the file may go without growing before the Tail
// ends (Options.Idle).
func (t *Tail) Idle() time.Duration { return t.opts.Idle }

// Reason returns why the Tail ended, or Following.
func (t *Tail) Reason() Reason { return t.reason }

// Read reads the bytes appended to the file, waiting for them when there
// are none yet; it returns io.EOF once the Tail has ended.
func (t *Tail) Read(p []byte) (int, error) {
	for {
		if t.reason != Following {
			return 0, io.EOF
		}
		if err := t.ctx.Err(); err != nil {
			t.end(Stopped)
			continue
		}
		if t.offset < t.size {
			return t.readOpen(p)
		}
		if err := t.look(); err != nil {
			return 0, err
		}
		if t.offset < t.size || t.reason != Following {
			continue
		}
		t.wait()
	}
}

// readOpen reads from the open file what the last look found there.
func (t *Tail) readOpen(p []byte) (int, error) {
	if t.file == nil {
		if err := t.reopen(); err != nil || t.reason != Following {
			return 0, err
		}
	}
	p = p[:min(int64(len(p)), t.size-t.offset)]
	n, err := t.file.ReadAt(p, t.offset)
	t.offset += int64(n)
	if n > 0 {
		t.caughtUp = false
		return n, nil
	}
	if err == io.EOF { // cut shorter since the look
		t.end(Truncated)
		return 0, nil
	}
	return 0, err
}

// look finds what changed since the last look: the file's new size, or why
// following it ends.
func (t *Tail) look() error {
	if t.file == nil {
		if err := t.reopen(); err != nil || t.reason != Following {
			return err
		}
	}
	info, err := t.file.Stat()
	if err != nil {
		return err
	}
	switch size := info.Size(); {
	case size < t.offset:
		t.end(Truncated)
	case size > t.offset:
		t.size, t.grew = size, time.Now()
	}
	return nil
}

// reopen opens the file by its path again and checks it is the same file.
func (t *Tail) reopen() error {
	f, err := os.Open(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		t.end(Removed)
		return nil
	}
	if err != nil {
		return err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	if !os.SameFile(t.identity, info) {
		f.Close()
		t.end(Replaced)
		return nil
	}
	t.file = f
	return nil
}

// wait closes the file, tells the caller everything was read, and waits
// for the next look, unless the Tail ends first.
func (t *Tail) wait() {
	t.closeFile()
	if !t.caughtUp {
		t.caughtUp = true
		if t.opts.CaughtUp != nil {
			t.opts.CaughtUp()
		}
	}
	if newer := t.newerGeneration(func(name string) bool { return !t.siblings[name] }); newer != "" {
		t.newer = newer
		t.end(Superseded)
		return
	}
	if t.opts.Idle > 0 && time.Since(t.grew) >= t.opts.Idle {
		t.end(Idle)
		return
	}
	timer := time.NewTimer(t.opts.Poll)
	defer timer.Stop()
	select {
	case <-t.ctx.Done():
		t.end(Stopped)
	case <-timer.C:
	}
}

// newerGeneration returns the path of a generation of the file's session
// beside it with a higher version than the file's, among the logs for
// which take reports true ("" when none, or when the file's name is not a
// session log's). take sees every session log beside the file.
func (t *Tail) newerGeneration(take func(name string) bool) string {
	if !t.named {
		return ""
	}
	dir := filepath.Dir(t.path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	newest := ""
	version := t.log.Version
	for _, e := range entries {
		l, ok := store.ParseName(e.Name())
		if !ok || !take(e.Name()) || l.Session != t.log.Session || l.Version <= version {
			continue
		}
		newest, version = filepath.Join(dir, e.Name()), l.Version
	}
	return newest
}

// end ends the Tail for reason.
func (t *Tail) end(reason Reason) {
	t.reason = reason
	t.closeFile()
}

func (t *Tail) closeFile() {
	if t.file != nil {
		t.file.Close()
		t.file = nil
	}
}

// Close releases the file if it is open; the Tail ends.
func (t *Tail) Close() error {
	if t.reason == Following {
		t.reason = Stopped
	}
	t.closeFile()
	return nil
}
