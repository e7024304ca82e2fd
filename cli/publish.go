package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dshlog/dshlog/lease"
)

// publishNew writes a new file at path through write: into a private
// temporary file beside path, synced, then linked into place and the
// directory synced, so path appears whole or not at all. An existing path
// is never replaced; it is refused as "PATH: already exists; " + refusal.
func publishNew(path, refusal string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".dshlog-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	err = write(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if closeErr := tmp.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return err
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s: already exists; %s", path, refusal)
		}
		return err
	}
	return lease.SyncDir(dir)
}

// spoolToStdout runs write into a private temporary file and copies the
// result to stdout only once write has succeeded, so a failure prints no
// partial output.
func spoolToStdout(stdout io.Writer, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp("", "dshlog-output-*")
	if err != nil {
		return err
	}
	os.Remove(tmp.Name()) // unlinked: nothing is left behind, whatever happens
	defer tmp.Close()
	if err := write(tmp); err != nil {
		return err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err = io.Copy(stdout, tmp)
	return err
}
