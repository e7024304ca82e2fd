package migrate

import (
	"bytes"
	"errors"
	"github.com/dshlog/dshlog/lease"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// sessionDir copies a corpus file into a fresh directory under its own
// name and returns its path there.
func sessionDir(t *testing.T, corpusFile, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpus, corpusFile))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// names lists a directory's entries.
func names(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return strings.Join(out, " ")
}

// TestPublishBeside runs dsh's write open on a v3 session: the v4
// generation appears beside the untouched source, private, with nothing
// else left but the lock, which is released; a second run finds its own
// publication and writes nothing.
func TestPublishBeside(t *testing.T) {
	src := sessionDir(t, "restored/fs-write/session.v3.jsonl", "session.v3.jsonl")
	dir := filepath.Dir(src)
	before := readFile(t, src)
	beforeInfo, _ := os.Stat(src)

	got, err := Publish(src, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "session.v4.jsonl")
	if got.Target != target || got.Existing || got.SourceVersion != 3 {
		t.Errorf("Publish = %+v", got)
	}
	want := readFile(t, filepath.Join(corpus, "golden/fs-write/session.v3.jsonl.v4.jsonl"))
	if !bytes.Equal(readFile(t, target), want) {
		t.Errorf("published bytes differ from the golden")
	}
	if got.Bytes != int64(len(want)) || got.Events != 21 {
		t.Errorf("written %+v, want %d bytes and 21 events", got.Written, len(want))
	}
	if info, _ := os.Stat(target); info.Mode().Perm() != 0o600 {
		t.Errorf("target mode %v, want 0600", info.Mode().Perm())
	}
	afterInfo, _ := os.Stat(src)
	if !bytes.Equal(readFile(t, src), before) || !os.SameFile(beforeInfo, afterInfo) || !afterInfo.ModTime().Equal(beforeInfo.ModTime()) {
		t.Errorf("the source changed")
	}
	if n := names(t, dir); n != "session.lock session.v3.jsonl session.v4.jsonl" {
		t.Errorf("directory holds %s", n)
	}
	lock, err := os.Open(filepath.Join(dir, "session.lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Errorf("the lock is still held: %v", err)
	}
	syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)

	targetInfo, _ := os.Stat(target)
	again, err := Publish(src, OpenOptions{})
	if err != nil || !again.Existing {
		t.Fatalf("re-run = %+v, %v; want the existing publication", again, err)
	}
	if info, _ := os.Stat(target); !info.ModTime().Equal(targetInfo.ModTime()) || !os.SameFile(info, targetInfo) {
		t.Errorf("the re-run rewrote the target")
	}
}

// TestPublishNeverReplaces checks that a different file already at the
// target's name is a conflict and stays as it was.
func TestPublishNeverReplaces(t *testing.T) {
	golden := string(readFile(t, filepath.Join(corpus, "golden/fs-write/session.v3.jsonl.v4.jsonl")))
	for _, tt := range []struct {
		name, existing, reason string
	}{
		{"different bytes", strings.Replace(golden, `"isSeeded":false`, `"isSeeded":fals3`, 1), "target bytes do not begin with the migrated generation"},
		{"shorter", golden[:100], "target bytes are shorter than the migrated generation"},
		{"empty", "", "target bytes are shorter than the migrated generation"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := sessionDir(t, "restored/fs-write/session.v3.jsonl", "session.v3.jsonl")
			target := filepath.Join(filepath.Dir(src), "session.v4.jsonl")
			if err := os.WriteFile(target, []byte(tt.existing), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Publish(src, OpenOptions{})
			var conflict *ConflictError
			if !errors.As(err, &conflict) || conflict.Reason != tt.reason {
				t.Fatalf("got %v, want a conflict: %s", err, tt.reason)
			}
			if string(readFile(t, target)) != tt.existing {
				t.Errorf("the existing target changed")
			}
			if n := names(t, filepath.Dir(src)); n != "session.lock session.v3.jsonl session.v4.jsonl" {
				t.Errorf("directory holds %s", n)
			}
		})
	}
}

// TestPublishAcceptsAppendedTail checks that a target holding this
// migration plus appended events (dsh wrote to it since) is accepted.
func TestPublishAcceptsAppendedTail(t *testing.T) {
	src := sessionDir(t, "restored/fs-write/session.v3.jsonl", "session.v3.jsonl")
	target := filepath.Join(filepath.Dir(src), "session.v4.jsonl")
	golden := readFile(t, filepath.Join(corpus, "golden/fs-write/session.v3.jsonl.v4.jsonl"))
	if err := os.WriteFile(target, append(golden, "{\"type\":\"turn/start\"}\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := Publish(src, OpenOptions{}); err != nil || !got.Existing {
		t.Errorf("Publish = %+v, %v; want the existing publication accepted", got, err)
	}
}

// TestPublishRefusalLeavesNothing checks that a refused migration leaves
// no generation and no staging file.
func TestPublishRefusalLeavesNothing(t *testing.T) {
	src := sessionDir(t, "golden/edge/seq-gap/session.v3.jsonl", "session.v3.jsonl")
	_, err := Publish(src, OpenOptions{})
	if want := "SessionFormatError: released v2 row 12 has seq gap (expected 12, got 13)"; refusalText(err) != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	if n := names(t, filepath.Dir(src)); n != "session.lock session.v3.jsonl" {
		t.Errorf("directory holds %s", n)
	}
}

// TestPublishLockHeld checks that a session whose lock another writer
// holds is refused as dsh's SessionAlreadyOwnedError.
func TestPublishLockHeld(t *testing.T) {
	src := sessionDir(t, "restored/fs-write/session.v3.jsonl", "session.v3.jsonl")
	held, err := lease.Acquire(filepath.Dir(src), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	_, err = Publish(src, OpenOptions{})
	var owned *lease.AlreadyOwnedError
	if !errors.As(err, &owned) || err.Error() != `session "00000000-0000-4000-8000-000000000001" is already owned by an active write handle` {
		t.Errorf("got %v, want SessionAlreadyOwnedError", err)
	}
	if n := names(t, filepath.Dir(src)); n != "session.lock session.v3.jsonl" {
		t.Errorf("directory holds %s", n)
	}
}

func TestPublishCurrentIsNothingToDo(t *testing.T) {
	src := sessionDir(t, "restored/fs-write/session.v4.jsonl", "session.v4.jsonl")
	if _, err := Publish(src, OpenOptions{}); err != ErrCurrent {
		t.Errorf("got %v, want ErrCurrent", err)
	}
}

// TestSourceChanged checks that a source that changed after it was read is
// not published from.
func TestSourceChanged(t *testing.T) {
	path := sessionDir(t, "restored/fs-write/session.v3.jsonl", "session.v3.jsonl")
	src, err := Open(path, nil, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{}\n")
	f.Close()
	var changed *SourceChangedError
	if err := checkUnchanged(src); !errors.As(err, &changed) {
		t.Errorf("got %v, want SourceChangedError", err)
	}
}

// zstdGeneration compresses text as dsh writes a generation: the header
// line in its own frame, the rest in one more.
func zstdGeneration(t *testing.T, text []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	w := NewGenerationWriter(&out, true)
	if _, err := w.Write(text); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestPublishZstd publishes a Zstandard generation beside a Zstandard
// source: its plaintext is the golden, its first frame the header alone.
func TestPublishZstd(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "session.v3.jsonl.zstd")
	if err := os.WriteFile(src, zstdGeneration(t, readFile(t, filepath.Join(corpus, "restored/fs-write/session.v3.jsonl"))), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Publish(src, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(got.Target) != "session.v4.jsonl.zstd" {
		t.Fatalf("target %s", got.Target)
	}
	raw := readFile(t, got.Target)
	frames := splitFrames(t, raw)
	if len(frames) != 2 {
		t.Fatalf("%d frames, want the header frame and one event stream", len(frames))
	}
	dec, _ := zstd.NewReader(nil)
	defer dec.Close()
	header, err := dec.DecodeAll(frames[0], nil)
	if err != nil || bytes.IndexByte(header, '\n') != len(header)-1 {
		t.Errorf("first frame %q, %v; want exactly the header line", header, err)
	}
	plain, err := dec.DecodeAll(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := readFile(t, filepath.Join(corpus, "golden/fs-write/session.v3.jsonl.v4.jsonl")); !bytes.Equal(plain, want) {
		t.Errorf("plaintext differs from the golden")
	}
	if again, err := Publish(src, OpenOptions{}); err != nil || !again.Existing {
		t.Errorf("re-run = %+v, %v", again, err)
	}
}

// splitFrames splits a zstd log at its frame boundaries.
func splitFrames(t *testing.T, raw []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for len(raw) > 0 {
		end := frameEnd(t, raw)
		out = append(out, raw[:end])
		raw = raw[end:]
	}
	return out
}

func frameEnd(t *testing.T, b []byte) int {
	rest, sum := frameHeaderRest(b[4])
	off := 5 + rest
	for {
		last, payload, _ := parseBlockHeader(b[off : off+3])
		off += 3 + payload
		if last {
			break
		}
	}
	if sum {
		off += 4
	}
	return off
}

// TestPublishStaged: a staged file is linked into place only when the
// source is unchanged, and never over an existing file.
func TestPublishStaged(t *testing.T) {
	refused := errors.New("source changed")
	tests := []struct {
		name      string
		existing  bool  // target exists before publishing
		unchanged error // what the source check says
		want      error // nil, or what errors.Is must find
	}{
		{name: "published"},
		{name: "source changed", unchanged: refused, want: refused},
		{name: "target exists", existing: true, want: os.ErrExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			staged, target := filepath.Join(dir, "stage.tmp"), filepath.Join(dir, "target.jsonl")
			if err := os.WriteFile(staged, []byte("new\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if tt.existing {
				if err := os.WriteFile(target, []byte("old\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := PublishStaged(staged, target, func() error { return tt.unchanged })
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("PublishStaged: %v, want %v", err, tt.want)
			}
			got, readErr := os.ReadFile(target)
			switch {
			case tt.existing && string(got) != "old\n":
				t.Errorf("existing target now holds %q", got)
			case !tt.existing && tt.want != nil && !errors.Is(readErr, os.ErrNotExist):
				t.Errorf("target written though publication failed: %q, %v", got, readErr)
			case tt.want == nil && string(got) != "new\n":
				t.Errorf("target holds %q, want the staged bytes", got)
			}
			if _, err := os.Stat(staged); err != nil {
				t.Errorf("the staging file is the caller's to remove: %v", err)
			}
		})
	}
}

// TestStillSame: a rewrite in place or a replacement is a different file.
func TestStillSame(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.v4.jsonl")
	if err := os.WriteFile(path, []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if same, err := StillSame(path, before); !same || err != nil {
		t.Fatalf("untouched file: same %v, %v", same, err)
	}
	if err := os.WriteFile(path, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if same, err := StillSame(path, before); same || err != nil {
		t.Fatalf("appended file: same %v, %v", same, err)
	}
	os.Remove(path)
	if _, err := StillSame(path, before); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("removed file: %v", err)
	}
}
