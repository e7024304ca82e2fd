package search

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/codec/v4"
	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/listing"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/session"
)

// blockSize is the size of the blocks of whole lines the first scan reads.
const blockSize = 1 << 20

// Search searches one file and calls hit for each hit, in file order.
func (s *Searcher) Search(f File, hit func(Hit)) Result {
	r := Result{Path: f.Path, Format: -1}
	header, skipped, err := s.scan(f.Path, &r)
	switch {
	case err != nil:
		r.Err = err
	case r.Excluded || skipped:
	case header.Kind() == jsonv.Object:
		s.rows(f.Path, header, &r, hit)
	default:
		s.migrated(f, &r, hit)
	}
	return r
}

// scan reads the header line of the file at path and, for a v4 file, its
// session and project; when the pattern has a literal, it scans the rest
// of the text for a candidate line. skipped is true when the file holds
// none, or is outside the project; header is null when the file is not a
// v4 session to read row by row.
func (s *Searcher) scan(path string, r *Result) (header jsonv.Value, skipped bool, err error) {
	text, err := migrate.OpenText(path, nil)
	if err != nil {
		return jsonv.Value{}, false, err
	}
	defer text.Close()
	blocks := newBlockReader(text)
	defer blocks.release()
	block, err := blocks.next()
	if err != nil {
		return jsonv.Value{}, false, readError(path, err)
	}
	end := bytes.IndexByte(block, '\n')
	if end < 0 {
		return jsonv.Value{}, false, nil // the migrated reader says what is wrong
	}
	header, err = jsonv.Parse(block[:end])
	if err != nil || header.Field("type").Text() != "session" {
		return jsonv.Value{}, false, nil
	}
	if version, ok := header.Field("version").Count(); !ok || version != v4.Version {
		return jsonv.Value{}, false, nil
	}
	r.Format, r.Session = v4.Version, header.Field("id").Text()
	cwd, hasCwd := header.Field("cwd").Str()
	r.Project = projectOf(path, cwd, hasCwd)
	if r.Excluded = !s.inProject(r.Project); r.Excluded || s.m.pre == nil {
		return header, r.Excluded, nil
	}
	var scratch []byte
	block = block[end+1:]
	for {
		if s.m.pre.find(block, &scratch) >= 0 {
			return header, false, nil
		}
		if block, err = blocks.next(); err == io.EOF {
			return header, true, nil
		} else if err != nil {
			return jsonv.Value{}, false, readError(path, err)
		}
	}
}

// projectOf is the session's directory as a listing gives it: the
// header's cwd, else the one the store's project directory encodes.
func projectOf(path, cwd string, hasCwd bool) string {
	if hasCwd {
		return cwd
	}
	return listing.ProjectOf(path)
}

// inProject reports whether a session's directory is the query's project
// or lies under it.
func (s *Searcher) inProject(dir string) bool {
	want := s.q.Project
	if want == "" {
		return true
	}
	dir, want = filepath.Clean(dir), filepath.Clean(want)
	return dir == want || strings.HasPrefix(dir, strings.TrimSuffix(want, string(filepath.Separator))+string(filepath.Separator))
}

// readError names the file in an error of reading its text.
func readError(path string, err error) error {
	var lineErr *jsonl.Error
	if errors.As(err, &lineErr) {
		return err
	}
	return &jsonl.Error{File: path, Err: err}
}

// blockReader reads a text in blocks of whole lines (the last may lack its
// newline) into one buffer of blockSize bytes, grown for a line longer
// than that.
type blockReader struct {
	r   io.Reader
	buf []byte
	// buf[start:end] is the start of a line the last block cut off.
	start, end int
	eof        bool
}

// blockBuffers keeps the buffers of finished scans for the next: a store
// of small files costs one buffer per worker, not one per file.
var blockBuffers = sync.Pool{New: func() any { buf := make([]byte, blockSize); return &buf }}

func newBlockReader(r io.Reader) *blockReader {
	return &blockReader{r: r, buf: *blockBuffers.Get().(*[]byte)}
}

// release hands the buffer back for another scan, unless a long line grew
// it.
func (b *blockReader) release() {
	if buf := b.buf; len(buf) == blockSize {
		blockBuffers.Put(&buf)
	}
	b.buf = nil
}

// next returns the next block, valid until the next call, or io.EOF.
func (b *blockReader) next() ([]byte, error) {
	b.end = copy(b.buf, b.buf[b.start:b.end])
	b.start = 0
	for {
		if b.eof {
			if b.end == 0 {
				return nil, io.EOF
			}
			block := b.buf[:b.end]
			b.end = 0
			return block, nil
		}
		if b.end == len(b.buf) {
			b.buf = append(b.buf, make([]byte, len(b.buf))...)
		}
		n, err := io.ReadFull(b.r, b.buf[b.end:])
		read := b.buf[b.end : b.end+n]
		b.end += n
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			b.eof = true
		case err != nil:
			return nil, err
		}
		if last := bytes.LastIndexByte(read, '\n'); last >= 0 {
			b.start = b.end - len(read) + last + 1
			return b.buf[:b.start], nil
		}
	}
}

// rows reads a v4 file with candidate lines row by row, decoding the
// candidate rows of searched types and the rows that carry state.
func (s *Searcher) rows(path string, header jsonv.Value, r *Result, hit func(Hit)) {
	text, err := migrate.OpenText(path, nil)
	if err != nil {
		r.Err = err
		return
	}
	defer text.Close()
	w := &walk{s: s, path: path, id: r.Session, hit: hit}
	createdAt, _ := header.Field("createdAt").SafeInt()
	lines := jsonl.NewReader(text, path)
	var scratch []byte
	body, snapshot := int64(-1), false
	for !w.done() {
		line, err := lines.Next()
		if err == io.EOF || line.Torn { // dsh drops a torn last line
			break
		}
		if err != nil {
			r.Err = err
			break
		}
		if body++; body == 0 {
			continue // the header
		}
		typ, typed := rowType(line.Text)
		switch {
		case body == 1: // the first row tells a normalized snapshot
		case typed && (typ == "turn/start" || typ == "tool/call"):
		case typed && !isSearched(typ):
			continue
		case s.m.pre != nil && !s.m.pre.candidate(line.Text, &scratch):
			continue
		}
		row, err := jsonv.Parse(line.Text)
		if err != nil || row.Kind() != jsonv.Object {
			r.Notes = append(r.Notes, fmt.Sprintf("%s:%d: row is not a JSON object; not searched", path, line.Num))
			continue
		}
		if body == 1 {
			snapshot = !row.Has("seq") && !row.Has("time")
		}
		ev := session.Event{Type: row.Field("type").Text(), Row: row}
		ev.Seq, _ = row.Field("seq").SafeInt()
		ev.Time, _ = row.Field("time").SafeInt()
		if snapshot { // seq and time as migrate restores them
			ev.Seq = body - 1
			ev.Time = createdAt + ev.Seq
		}
		w.event(ev)
	}
	r.Hits = w.hits
}

// rowType returns the type of a row as dsh writes it, type first; ok is
// false when the row does not start so.
func rowType(line []byte) (typ string, ok bool) {
	const prefix = `{"type":"`
	if !bytes.HasPrefix(line, []byte(prefix)) {
		return "", false
	}
	rest := line[len(prefix):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return "", false
	}
	return string(rest[:end]), true
}

// migrated reads a file through migrate's reader: every row decoded, an
// older format migrated to v4 in memory, as dsh reads it.
func (s *Searcher) migrated(f File, r *Result, hit func(Hit)) {
	src, err := migrate.Open(f.Path, nil, migrate.OpenOptions{
		Options:        migrate.Options{Recovery: v2.Recoverable, Vocabulary: s.q.Vocabulary},
		AnyZstdFraming: true,
		ChildFiles:     f.Children,
		ChildFilesOnly: f.ChildrenKnown,
	})
	if err != nil {
		r.Err = err
		return
	}
	defer src.Close()
	h := src.Header
	r.Format, r.Session = src.SourceVersion, h.ID
	r.Project = projectOf(f.Path, "", false)
	if h.Cwd != nil {
		r.Project = *h.Cwd
	}
	if r.Excluded = !s.inProject(r.Project); r.Excluded {
		return
	}
	w := &walk{s: s, path: f.Path, id: h.ID, hit: hit}
	for !w.done() {
		ev, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			r.Err = err
			break
		}
		w.event(ev)
	}
	r.Hits = w.hits
	if issue := src.Issue(); issue != nil && r.Err == nil && !w.done() {
		var lineErr *jsonl.Error
		if !errors.As(issue, &lineErr) {
			issue = fmt.Errorf("%s: %w", f.Path, issue)
		}
		r.Notes = append(r.Notes, fmt.Sprintf("%v; the rows from there on are not searched, as dsh's reader drops them", issue))
	}
}

// Run searches files with jobs workers (at least one) and calls hit for
// each hit and done for each file after its hits, in file order, from the
// calling goroutine. A worker runs a few files ahead at most, and waits
// while the hits it found for a file not yet handed back fill a queue.
func (s *Searcher) Run(files []File, jobs int, hit func(Hit), done func(Result)) {
	jobs = max(jobs, 1)
	if jobs == 1 || len(files) <= 1 {
		for _, f := range files {
			done(s.Search(f, hit))
		}
		return
	}
	type run struct {
		hits   chan Hit
		result chan Result
	}
	runs := make([]run, len(files))
	for i := range runs {
		runs[i] = run{hits: make(chan Hit, 256), result: make(chan Result, 1)}
	}
	window := make(chan struct{}, 4*jobs)
	next := make(chan int)
	var workers sync.WaitGroup
	for range jobs {
		workers.Go(func() {
			for i := range next {
				r := s.Search(files[i], func(h Hit) { runs[i].hits <- h })
				close(runs[i].hits)
				runs[i].result <- r
			}
		})
	}
	go func() {
		for i := range files {
			window <- struct{}{}
			next <- i
		}
		close(next)
	}()
	for i := range files {
		for h := range runs[i].hits {
			hit(h)
		}
		done(<-runs[i].result)
		<-window
	}
	workers.Wait()
}
