package migrate

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/lease"
)

// Published says what Publish did.
type Published struct {
	// Source is the migrated file; Target the current generation beside it.
	Source, Target string
	SourceVersion  int
	Written
	// Existing is true when Target already held this migration: nothing
	// was written.
	Existing bool
	// Warnings say which children gave no catalog evidence, and why.
	Warnings []string
}

// ConflictError says the current generation's name is taken by a file that
// is not this migration (dsh's JsonlGenerationTargetConflictError); it is
// never replaced.
type ConflictError struct {
	Path   string
	Reason string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("current session generation already exists at %q: %s", e.Path, e.Reason)
}

// ErrCurrent says a file is already in the current format: there is
// nothing to publish.
var ErrCurrent = errors.New("the session is already in the current format v4")

// Publish migrates the historical session file at path and publishes its
// current generation beside it as dsh's JSONL write open does: under the
// directory's session.lock, staged in session.migration.<hex>.jsonl.tmp
// (0600, synced), published with link() once the source is proven
// unchanged, never replacing an existing file. The source is never
// modified; on any failure nothing is left behind. When the target already
// holds this very migration (a re-run), nothing is written at all.
func Publish(path string, opts OpenOptions) (Published, error) {
	return publish(path, opts, true)
}

// Check migrates the historical session file at path in memory and says
// what Publish would do, as dsh's read open does: no lock, nothing written.
// Existing reports a target that already holds this migration; a
// ConflictError one that holds something else.
func Check(path string, opts OpenOptions) (Published, error) {
	return publish(path, opts, false)
}

func publish(path string, opts OpenOptions, write bool) (Published, error) {
	out := Published{Source: path, Target: filepath.Join(filepath.Dir(path), PublishedName(filepath.Base(path)))}
	hv, version, err := readHeaderFile(path)
	if err != nil {
		return out, err
	}
	out.SourceVersion = version
	if version == currentVersion {
		return out, ErrCurrent
	}
	if write {
		id, _ := hv.Field("id").Str()
		held, err := lease.Acquire(filepath.Dir(path), id)
		if err != nil {
			return out, err
		}
		defer held.Release()
	}
	src, err := Open(path, nil, opts)
	if err != nil {
		return out, err
	}
	defer src.Close()
	out.Warnings = src.Warnings
	switch _, err := os.Lstat(out.Target); {
	case err == nil:
		out.Written, err = compareExisting(src, out.Target)
		out.Existing = err == nil
		return out, err
	case !write:
		out.Written, err = Encode(io.Discard, src.Reader)
		return out, err
	}
	out.Written, err = stageAndLink(src, out.Target)
	return out, err
}

// Save writes the migrated session to path (a Zstandard generation when the
// name ends in .zstd or .zst), replacing what is there only once the whole
// session has been migrated: it is staged beside path and renamed. The
// source itself is never a valid path.
func Save(src *Source, path string) (Written, error) {
	if src.Path != "-" {
		a, errA := os.Stat(src.Path)
		b, errB := os.Stat(path)
		if errA == nil && errB == nil && os.SameFile(a, b) {
			return Written{}, fmt.Errorf("%s: will not overwrite the session being migrated", path)
		}
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return Written{}, err
	}
	compressed := strings.HasSuffix(base, ".zstd") || strings.HasSuffix(base, ".zst")
	w := NewGenerationWriter(newWriteback(f), compressed)
	written, err := Encode(w, src.Reader)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return written, err
	}
	return written, lease.SyncDir(dir)
}

// stageAndLink writes the migration to a staging file and links it to the
// target, as dsh's publishPreparedMigration does.
func stageAndLink(src *Source, target string) (Written, error) {
	dir := filepath.Dir(target)
	suffix := ".jsonl"
	if src.Compression == jsonl.Zstd {
		suffix = ".jsonl.zstd"
	}
	tmp, f, err := createStage(dir, suffix)
	if err != nil {
		return Written{}, err
	}
	written, err := writeStage(f, src)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = PublishStaged(tmp, target, func() error { return checkUnchanged(src) })
		if errors.Is(err, os.ErrExist) {
			err = acceptExisting(tmp, target)
		}
	}
	if rerr := os.Remove(tmp); rerr != nil && err == nil && !errors.Is(rerr, os.ErrNotExist) {
		err = rerr
	}
	return written, err
}

// PublishStaged publishes a fully written staging file as target, as dsh
// publishes a prepared generation: it syncs the staging file, calls
// unchanged to prove the source is still the file that was read (its error
// stops the publication), links the staging file to target, which never
// replaces a file (an existing target gives an error for which
// errors.Is(err, os.ErrExist) holds), and syncs target's directory so the
// new name survives a crash. The staging file is left for the caller to
// remove. migrate's Publish and dshlog rescue both publish through it.
func PublishStaged(staged, target string, unchanged func() error) error {
	f, err := os.Open(staged)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := unchanged(); err != nil {
		return err
	}
	if err := os.Link(staged, target); err != nil {
		return err
	}
	return lease.SyncDir(filepath.Dir(target))
}

// StillSame reports whether the file at path is still the one before
// describes, by what dsh compares: device, inode, size, and the
// modification and change times.
func StillSame(path string, before os.FileInfo) (bool, error) {
	now, err := os.Stat(path)
	if err != nil {
		return false, err
	}
	return *identityOf(now) == *identityOf(before), nil
}

// createStage creates a fresh session.migration.<16 hex><suffix>.tmp,
// exclusive and private, trying other names on a collision.
func createStage(dir, suffix string) (string, *os.File, error) {
	for {
		var token [8]byte
		if _, err := rand.Read(token[:]); err != nil {
			return "", nil, err
		}
		path := filepath.Join(dir, "session.migration."+hex.EncodeToString(token[:])+suffix+".tmp")
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		return path, f, err
	}
}

// writeStage encodes the migration into the staging file; PublishStaged
// syncs it.
func writeStage(f *os.File, src *Source) (Written, error) {
	w := NewGenerationWriter(newWriteback(f), src.Compression == jsonl.Zstd)
	written, err := Encode(w, src.Reader)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return written, err
}

// checkUnchanged refuses to publish when the source file is no longer the
// one that was read.
func checkUnchanged(src *Source) error {
	if src.identity == nil {
		return nil
	}
	info, err := os.Stat(src.Path)
	if err != nil {
		return err
	}
	if *identityOf(info) != *src.identity {
		return &SourceChangedError{Path: src.Path}
	}
	return nil
}

// acceptExisting decides about a target that appeared while migrating: it
// is accepted when it is a regular file that begins with the staged
// generation (an appended tail is allowed), else it is a conflict.
func acceptExisting(staged, target string) error {
	f, err := openPlain(staged, nil, nil, false)
	if err != nil {
		return err
	}
	defer f.close()
	_, err = matchTarget(f.text, target)
	return err
}

// compareExisting migrates without writing and checks the result against
// an existing target: a re-run finds its own earlier publication.
func compareExisting(src *Source, target string) (Written, error) {
	pr, pw := io.Pipe()
	type result struct {
		w   Written
		err error
	}
	done := make(chan result, 1)
	go func() {
		w, err := Encode(pw, src.Reader)
		pw.CloseWithError(err)
		done <- result{w, err}
	}()
	matchErr := func() error {
		_, err := matchTarget(pr, target)
		return err
	}()
	io.Copy(io.Discard, pr) // let the migration finish: its refusal wins
	res := <-done
	if res.err != nil {
		return res.w, res.err
	}
	return res.w, matchErr
}

// matchTarget checks that the target is a regular file whose plaintext
// begins with want's, judged as dsh's verifier does once all of want is
// known: a target shorter than want first, then differing bytes.
func matchTarget(want io.Reader, target string) (int64, error) {
	info, err := os.Lstat(target)
	if err != nil {
		return 0, err
	}
	switch {
	case info.Mode()&os.ModeSymlink != 0:
		return 0, &ConflictError{Path: target, Reason: "target is a symbolic link"}
	case !info.Mode().IsRegular():
		return 0, &ConflictError{Path: target, Reason: "target is a non-regular file"}
	}
	t, err := openPlain(target, nil, nil, false)
	if err != nil {
		return 0, &ConflictError{Path: target, Reason: err.Error()}
	}
	defer t.close()
	ours, theirs := make([]byte, 64<<10), make([]byte, 64<<10)
	var n int64
	short, differ := false, false
	for {
		k, rerr := io.ReadFull(want, ours)
		if k > 0 && !short {
			m, terr := io.ReadFull(t.text, theirs[:k])
			if terr != nil && terr != io.EOF && terr != io.ErrUnexpectedEOF {
				return n, &ConflictError{Path: target, Reason: terr.Error()}
			}
			short = m < k
			differ = differ || !bytes.Equal(ours[:m], theirs[:m])
		}
		n += int64(k)
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			return n, rerr
		}
	}
	switch {
	case short:
		return n, &ConflictError{Path: target, Reason: "target bytes are shorter than the migrated generation"}
	case differ:
		return n, &ConflictError{Path: target, Reason: "target bytes do not begin with the migrated generation"}
	}
	return n, nil
}

// GenerationWriter writes a current generation file as dsh's JSONL backend
// does: plain text, or for a Zstandard generation the header line as its
// own checksummed frame and the events as one checksummed stream after it.
type GenerationWriter struct {
	w      io.Writer
	zstd   bool
	header []byte // the header line while it is incomplete
	done   bool   // the header frame is written
	enc    *zstd.Encoder
}

// NewGenerationWriter returns a writer of a generation file to w.
func NewGenerationWriter(w io.Writer, compressed bool) *GenerationWriter {
	return &GenerationWriter{w: w, zstd: compressed}
}

// Write takes the generation's plaintext.
func (g *GenerationWriter) Write(p []byte) (int, error) {
	if !g.zstd {
		return g.w.Write(p)
	}
	n := len(p)
	if !g.done {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			g.header = append(g.header, p...)
			return n, nil
		}
		g.header = append(g.header, p[:i+1]...)
		p = p[i+1:]
		if err := g.writeHeaderFrame(); err != nil {
			return 0, err
		}
	}
	if len(p) == 0 {
		return n, nil
	}
	if g.enc == nil {
		enc, err := zstd.NewWriter(g.w, zstd.WithEncoderCRC(true), zstd.WithEncoderConcurrency(1))
		if err != nil {
			return 0, err
		}
		g.enc = enc
	}
	if _, err := g.enc.Write(p); err != nil {
		return 0, err
	}
	return n, nil
}

func (g *GenerationWriter) writeHeaderFrame() error {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return err
	}
	frame := enc.EncodeAll(g.header, nil)
	enc.Close()
	g.done = true
	_, err = g.w.Write(frame)
	return err
}

// Close ends the compressed stream; it does not close the underlying
// writer.
func (g *GenerationWriter) Close() error {
	if !g.zstd {
		return nil
	}
	if !g.done && len(g.header) > 0 {
		if err := g.writeHeaderFrame(); err != nil {
			return err
		}
	}
	if g.enc != nil {
		return g.enc.Close()
	}
	return nil
}
