package migrate

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/session"
)

// FuzzMigrate feeds arbitrary session files through the whole chain: it
// never panics, every failure is a dsh refusal or says the file is not a
// session log at all (ErrNotSessionLog), and what it migrates reads back as
// a current session that re-encodes to the same bytes.
func FuzzMigrate(f *testing.F) {
	sessiontest.Seed(f, sessiontest.Glob(f,
		filepath.Join(corpus, "golden/edge*/*/session.v[234].jsonl"),
		filepath.Join(corpus, "restored/provider-cwd/session.v*.jsonl"),
	), false)
	f.Fuzz(func(t *testing.T, data []byte, strict bool) {
		recovery := v2.Recoverable
		if strict {
			recovery = v2.Strict
		}
		out, err := migrateBytes(data, recovery)
		if err != nil {
			var r *session.Refusal
			if !errors.As(err, &r) && !errors.Is(err, ErrNotSessionLog) {
				t.Fatalf("error is neither a dsh refusal nor not-a-session-log: %v", err)
			}
			return
		}
		again, err := migrateBytes(out, v2.Strict)
		if err != nil {
			t.Fatalf("the migrated session does not read back: %v\n%s", err, out)
		}
		if !bytes.Equal(again, out) {
			t.Fatalf("the migrated session does not re-encode to itself:\n%s\n%s", out, again)
		}
	})
}

func migrateBytes(data []byte, recovery v2.Recovery) ([]byte, error) {
	r, err := NewReader(jsonl.NewReader(bytes.NewReader(data), "fuzz"), Options{Recovery: recovery})
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if _, err := Encode(&out, r); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
