package cli

import (
	"context"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dshlog/dshlog/follow"
	"github.com/dshlog/dshlog/listing"
	"github.com/dshlog/dshlog/migrate"
)

// followFlags are the flags of a verb that can read a session while dsh
// writes it: inspect, stats and verify.
type followFlags struct {
	on   bool
	idle time.Duration
}

// followHelp is the part of a verb's --help that says what --follow does.
const followHelp = `With --follow, FILE is read while dsh writes it: what the verb shows appears
as dsh appends lines, a line being read only once its newline is there (one
still being written is waited for, not torn). Instead of a FILE, a directory
(the store root as dshlog ls finds it when none is given) follows the session
written most recently under it. The file is opened only to read what was
appended, never held while waiting, so dsh goes on writing, migrating and
renaming it; a newer generation published beside it (after a migration), the
file replaced or cut shorter ends the following with a note naming what
happened. Following ends on Ctrl-C, or after --idle DURATION without the file
growing, and the verb then ends as it does on a finished file.`

func addFollowFlags(flags *pflag.FlagSet, f *followFlags) {
	flags.BoolVar(&f.on, "follow", false, "read the session while dsh writes it, showing what it appends (Ctrl-C ends)")
	flags.DurationVar(&f.idle, "idle", 0, "with --follow, stop after `DURATION` without the file growing (e.g. 30s; 0: only Ctrl-C)")
}

// check reports a usage error in the flags.
func (f followFlags) check() error {
	switch {
	case f.idle < 0:
		return usageErrorf("--idle %s: a duration cannot be negative", f.idle)
	case f.idle > 0 && !f.on:
		return usageErrorf("--idle says when --follow stops; it needs --follow")
	}
	return nil
}

// followArgs accepts the arguments of a verb: at most one (a file or a
// directory; none for the store root) with --follow, else as without.
func followArgs(f *followFlags, without cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if f.on {
			return cobra.MaximumNArgs(1)(cmd, args)
		}
		return without(cmd, args)
	}
}

// followContext is done on Ctrl-C, which then ends following instead of the
// process.
func followContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
}

// followTarget returns the session file to follow for the argument given:
// a file as it is, else the session written most recently under the
// directory, or under the store root when arg is "".
func followTarget(arg string, s *streams) (string, error) {
	if arg == "-" {
		return "", usageErrorf("--follow reads a file by its path and takes no standard input")
	}
	root := arg
	if root == "" {
		roots := listing.Roots(os.Getenv)
		if len(roots) == 0 {
			return "", usageErrorf("no session given: pass FILE or DIR, or set DSH_SESSIONS_DIR")
		}
		root = roots[0]
	}
	info, err := os.Stat(root)
	if err != nil {
		return "", err
	}
	if !info.IsDir() {
		return root, nil
	}
	latest, err := follow.Latest(root)
	if err != nil {
		return "", err
	}
	note(s, "following %s, the session written most recently under %s", latest, root)
	return latest, nil
}

// followedSession is a session read while dsh writes it.
type followedSession struct {
	*sessionEvents
	tail *follow.Tail
}

// openFollowed opens the session file at path for following; caughtUp is
// called each time every line there is was read, before waiting for more.
func openFollowed(ctx context.Context, path string, s *streams, opts migrate.Options, f followFlags, caughtUp func()) (*followedSession, error) {
	tail, err := follow.Open(ctx, path, follow.Options{Idle: f.idle, CaughtUp: caughtUp})
	if err != nil {
		return nil, err
	}
	if newer := tail.Newer(); newer != "" {
		note(s, "%s: a newer generation of this session, %s, is beside it: dsh opens and writes that one", path, newer)
	}
	events, err := openSessionWith(path, s, migrate.OpenOptions{Options: opts, AnyZstdFraming: true, Growing: tail})
	if err != nil {
		tail.Close()
		return nil, err
	}
	return &followedSession{sessionEvents: events, tail: tail}, nil
}

// Close releases the session and its file.
func (f *followedSession) Close() {
	f.sessionEvents.Close()
	f.tail.Close()
}

// noteEnd says, once the events are read, what ended the following and
// what was left unread.
func (f *followedSession) noteEnd(s *streams) {
	name := f.name
	if n := f.Unfinished(); n > 0 {
		note(s, "%s: the last line was still being written (%d bytes, no newline yet) and was not read", name, n)
	}
	switch f.tail.Reason() {
	case follow.Idle:
		note(s, "%s: stopped following: nothing appended for %s", name, f.tail.Idle())
	case follow.Superseded:
		note(s, "%s: stopped following: dsh published a newer generation of this session, %s, and writes there now; follow that file to go on", name, f.tail.Newer())
	case follow.Replaced:
		note(s, "%s: stopped following: another file was put at this path (renamed over it); run again to read it", name)
	case follow.Truncated:
		note(s, "%s: stopped following: the file became shorter than what was read", name)
	case follow.Removed:
		note(s, "%s: stopped following: the file was removed or renamed", name)
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
