package v2to3

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate/stage"
	"github.com/dshlog/dshlog/session"
)

// result is what migrating a v2 text through the edge gave: the v3 lines as
// dsh's v3 writer would encode them, the target cut, or the refusal.
type result struct {
	lines []string
	cut   int64
	err   error
}

// text renders the refusal as "<Class>: <message>", or "" for none.
func (r result) text() string { return sessiontest.RefusalText(r.err) }

// migrateV2 runs a v2 session text (header line, then rows) through the v2
// codec and the edge. sourceCut is the upstream cut given to the stage.
func migrateV2(t *testing.T, text string, sourceCut int64) result {
	t.Helper()
	return migrateWith(t, Edge{}, text, sourceCut)
}

// migrateWith is migrateV2 through the edge e.
func migrateWith(t *testing.T, e Edge, text string, sourceCut int64) result {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	hv, err := jsonv.Parse([]byte(lines[0]))
	if err != nil {
		t.Fatal(err)
	}
	h, err := v2.DecodeHeader(hv)
	if err != nil {
		return result{err: err}
	}
	target, err := e.MigrateHeader(h)
	if err != nil {
		return result{err: err}
	}
	if err := e.ValidateTargetHeader(target); err != nil {
		return result{err: err}
	}
	st, err := e.NewStage(stage.StageInput{SourceHeader: h, TargetHeader: target, SourceCut: sourceCut, Decoded: true})
	if err != nil {
		return result{err: err}
	}
	var out []string
	emit := func(item session.Item) error {
		if item.Event.Seq != int64(len(out)) {
			t.Errorf("emitted seq %d at position %d", item.Event.Seq, len(out))
		}
		out = append(out, string(v2.EncodeEvent(nil, item.Event)))
		return nil
	}
	dec := v2.NewDecoder(h, v2.Strict)
	for _, line := range lines[1:] {
		row, err := jsonv.Parse([]byte(line))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		ev, ok, err := dec.Decode(row)
		if err != nil {
			return result{lines: out, err: err}
		}
		if ok {
			if err := st.Transform(session.Item{Event: ev}, emit); err != nil {
				return result{lines: out, err: err}
			}
		}
	}
	if _, err := dec.Finish(); err != nil {
		return result{lines: out, err: err}
	}
	cut, err := st.Finish(emit)
	if err == nil && st.HeaderCut() >= 0 && st.HeaderCut() != cut {
		t.Errorf("finish cut %d differs from the predeclared %d", cut, st.HeaderCut())
	}
	head := string(target.Value().Encode())
	return result{lines: append([]string{head}, out...), cut: cut, err: err}
}

func sha(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
