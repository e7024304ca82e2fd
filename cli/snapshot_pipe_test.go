//go:build unix

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSnapshotNormalizeReadsAPipe: normalize reads its log twice, so a
// named pipe (as a shell's <(...) gives) is spooled first, not re-opened
// or sought in.
func TestSnapshotNormalizeReadsAPipe(t *testing.T) {
	log, err := os.ReadFile("../testdata/corpus/restored/provider-cwd/session.v4.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../testdata/corpus/dsh/provider-cwd/session.v4.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(t.TempDir(), "session.v4.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	written := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			_, err = f.Write(log)
			f.Close()
		}
		written <- err
	}()
	code, stdout, stderr := runDshlog(t, "snapshot", "normalize", fifo)
	// Had the command failed before opening the pipe, the writer would
	// wait for a reader forever: give it one (the log fits the pipe).
	if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
		defer r.Close()
	}
	if err := <-written; err != nil {
		t.Fatal(err)
	}
	if code != ExitOK || !bytes.Equal([]byte(stdout), want) {
		t.Errorf("exit %d, stderr %q; stdout equals the snapshot: %v", code, stderr, stdout == string(want))
	}
}
