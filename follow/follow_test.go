package follow

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A Tail hands out what is appended while it waits, calls CaughtUp each
// time it has read everything, and ends with io.EOF when its context is
// done.
func TestTailReadsAppendsUntilStopped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.v4.jsonl")
	write(t, path, "one\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	caughtUp := 0
	tail, err := Open(ctx, path, Options{Poll: time.Millisecond, CaughtUp: func() {
		caughtUp++
		switch caughtUp {
		case 1:
			appendText(t, path, "tw")
		case 2:
			appendText(t, path, "o\n")
		default:
			cancel()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer tail.Close()
	got, err := io.ReadAll(tail)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "one\ntwo\n" || tail.Reason() != Stopped || caughtUp != 3 {
		t.Errorf("read %q, reason %d, caught up %d times", got, tail.Reason(), caughtUp)
	}
}

// A Tail ends, after what it read, when dsh stops writing the file: a newer
// generation published beside it, another file renamed over it, the file
// cut shorter or removed; or when it has not grown for Idle.
func TestTailEnds(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, path string)
		idle   time.Duration
		want   Reason
	}{
		{name: "new generation", want: Superseded, change: func(t *testing.T, path string) {
			write(t, filepath.Join(filepath.Dir(path), "session.v4.jsonl"), "migrated\n")
		}},
		{name: "renamed over", want: Replaced, change: func(t *testing.T, path string) {
			other := path + ".tmp"
			write(t, other, "line\nother\n")
			if err := os.Rename(other, path); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "cut shorter", want: Truncated, change: func(t *testing.T, path string) {
			if err := os.Truncate(path, 2); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "removed", want: Removed, change: func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "idle", want: Idle, idle: time.Nanosecond, change: func(*testing.T, string) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "session.v3.jsonl")
			write(t, path, "line\n")
			write(t, filepath.Join(dir, "session.1.v4.jsonl"), "another session's\n")
			changed := false
			tail, err := Open(context.Background(), path, Options{Poll: time.Millisecond, Idle: tc.idle, CaughtUp: func() {
				if !changed {
					changed = true
					tc.change(t, path)
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer tail.Close()
			got, err := io.ReadAll(tail)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != "line\n" || tail.Reason() != tc.want {
				t.Errorf("read %q, reason %d, want %d", got, tail.Reason(), tc.want)
			}
			newer := ""
			if tc.want == Superseded {
				newer = filepath.Join(dir, "session.v4.jsonl")
			}
			if tail.Newer() != newer {
				t.Errorf("Newer() = %q, want %q", tail.Newer(), newer)
			}
		})
	}
}

// A newer generation already there when following starts is named, and
// does not end the Tail: dsh writes that one, and the Tail goes on until
// it is stopped.
func TestTailNamesNewerGenerationAtOpen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "session.jsonl")
	write(t, path, "v0\n")
	write(t, filepath.Join(dir, "session.v2.jsonl"), "v2\n")
	write(t, filepath.Join(dir, "session.v4.jsonl"), "v4\n")
	tail, err := Open(context.Background(), path, Options{Idle: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	defer tail.Close()
	if _, err := io.ReadAll(tail); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "session.v4.jsonl"); tail.Newer() != want || tail.Reason() != Idle {
		t.Errorf("Newer() = %q, reason %d; want %q, Idle", tail.Newer(), tail.Reason(), want)
	}
}

func TestOpenRefusesDirectory(t *testing.T) {
	if _, err := Open(context.Background(), t.TempDir(), Options{}); err == nil {
		t.Error("a directory was opened for following")
	}
}

// Latest takes, of each session's current generation, the one modified
// last.
func TestLatest(t *testing.T) {
	root := t.TempDir()
	then := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	for i, name := range []string{"p/a/session.v4.jsonl", "p/b/session.v3.jsonl", "p/b/session.v4.jsonl", "q/c/session.jsonl"} {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, path, "x\n")
		at := then.Add(time.Duration(i) * time.Hour)
		if name == "p/b/session.v3.jsonl" {
			at = then.Add(time.Hour * 10) // an older generation, however recent, is not what dsh writes
		}
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Latest(root)
	if want := filepath.Join(root, "q/c/session.jsonl"); got != want || err != nil {
		t.Errorf("Latest = %q, %v; want %q", got, err, want)
	}
	if _, err := Latest(t.TempDir()); err == nil {
		t.Error("Latest found a session in an empty directory")
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendText(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}
