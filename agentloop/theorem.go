package agentloop

import (
	"fmt"
	"io"
	"strings"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/verify"
)

// CheckRequests is the reconstruction theorem (semantics.md §4.5, §4.8) on
// requests actually sent: it reads the session file at path back from
// disk and checks that each request in sent (as the model received it)
// equals, byte for byte, the request fold rebuilds from the events
// strictly before the settlement of the same number, and that the log has
// a settlement for each one. It then runs dshlog verify's series rule over
// the file, so each request extends the previous one unless the log
// explains why (a series header or a session/end-seed). The first
// difference is returned as a *Mismatch, an unexplained break as a
// *SeriesError.
//
// Memory: the fold of the file and the requests in sent.
func CheckRequests(path string, sent []Request) error {
	byIndex := map[int]Request{}
	for _, r := range sent {
		byIndex[r.Index()] = r
	}
	src, err := migrate.Open(path, nil, migrate.OpenOptions{Options: migrate.Options{Recovery: v2.Strict}})
	if err != nil {
		return err
	}
	defer src.Close()
	f := fold.New()
	for {
		ev, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if fold.IsSettlement(ev.Type) {
			if err := checkSettlement(f, ev, byIndex, src.Header.ID); err != nil {
				return err
			}
		}
		if err := f.Load(ev); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	for _, r := range sent {
		if _, open := byIndex[r.Index()]; open {
			return &Mismatch{Index: r.Index(), Settlement: -1, Problem: fmt.Sprintf("the log has %d settlements; none settles this request", f.Settlements())}
		}
	}
	return checkSeries(path)
}

// checkSettlement compares the request settlement settles with the one
// sent under its number, if any, and marks it compared.
func checkSettlement(f *fold.Fold, settlement session.Event, sent map[int]Request, sessionID string) error {
	rebuilt, err := f.Request(settlement)
	if err != nil {
		return err
	}
	req, ok := sent[rebuilt.Index]
	if !ok {
		return nil
	}
	delete(sent, rebuilt.Index)
	if m := compareRequests(req.Value(), freeze(rebuilt, sessionID).Value(), rebuilt.Index, settlement.Seq); m != nil {
		return m
	}
	return nil
}

// seriesFindings are verify's findings about one request not extending the
// previous one without the log explaining why.
var seriesFindings = map[string]bool{verify.CodeNotExtending: true, verify.CodeSeriesMarker: true}

// SeriesError reports requests that do not extend the previous one while
// the log does not say why: verify's series findings on the file.
type SeriesError struct {
	Path     string           // the log read back
	Findings []verify.Finding // verify's series findings on it
}

// Error lists the series findings, separated by semicolons.
func (e *SeriesError) Error() string {
	parts := make([]string, len(e.Findings))
	for i, f := range e.Findings {
		parts[i] = fmt.Sprintf("seq %d: %s: %s", f.Seq, f.Code, f.Message)
	}
	return strings.Join(parts, "; ")
}

// checkSeries runs verify over the file and returns its series findings.
func checkSeries(path string) error {
	src, err := migrate.Open(path, nil, migrate.OpenOptions{})
	if err != nil {
		return err
	}
	defer src.Close()
	found, err := verify.Errors(src.Reader, func(f verify.Finding) bool { return seriesFindings[f.Code] })
	if err != nil {
		return err
	}
	if len(found) > 0 {
		return &SeriesError{Path: path, Findings: found}
	}
	return nil
}
