package v1to2_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v0"
	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/migrate/stage"
	"github.com/dshlog/dshlog/migrate/v0to1"
	"github.com/dshlog/dshlog/migrate/v1to2"
	"github.com/dshlog/dshlog/session"
)

// TestVectors runs every case of testdata/vectors (the spec's v1→v2
// vectors, see its README) through the codec and a chain that ends at v2,
// in both recovery modes, and compares the v2 file, or dsh's refusal text.
func TestVectors(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "vectors", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no vectors: %v", err)
	}
	for _, dir := range dirs {
		inputs, _ := filepath.Glob(filepath.Join(dir, "session*.jsonl"))
		var input string
		for _, in := range inputs {
			if !strings.HasSuffix(in, ".v2.jsonl") {
				input = in
			}
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			if input == "" {
				t.Fatal("no input")
			}
			want, wantErr := expectation(t, input)
			data, err := os.ReadFile(input)
			if err != nil {
				t.Fatal(err)
			}
			for _, recovery := range []v2.Recovery{v2.Recoverable, v2.Strict} {
				got, err := migrateToV2(data, recovery, false)
				switch {
				case err != nil && wantErr == "":
					t.Fatalf("%s: refused: %v", recovery, err)
				case err != nil:
					var r *session.Refusal
					if !errors.As(err, &r) || r.Text() != wantErr {
						t.Errorf("%s: refusal\n got  %v\n want %s", recovery, err, wantErr)
					}
				case wantErr != "":
					t.Fatalf("%s: migrated, want %s", recovery, wantErr)
				case !bytes.Equal(got, want):
					t.Errorf("%s: v2 output\n got\n%s\n want\n%s", recovery, got, want)
				}
			}
		})
	}
}

func expectation(t *testing.T, input string) ([]byte, string) {
	if b, err := os.ReadFile(input + ".v2.jsonl"); err == nil {
		return b, ""
	}
	b, err := os.ReadFile(input + ".error.txt")
	if err != nil {
		t.Fatalf("no expectation for %s", input)
	}
	return nil, strings.TrimSuffix(string(b), "\n")
}

var errNotV0V1 = errors.New("not a v0 or v1 session")

// migrateToV2 reads a v0 or v1 session with the released codec and
// migrates it to v2 through dsh's chain (so refusals are wrapped as dsh
// wraps them), then writes the v2 file and checks that the v2 codec reads it
// back with the same inherited cut. With expand, packed chunk rows reach the
// edges as single assistant/chunk events instead of compact runs.
func migrateToV2(data []byte, recovery v2.Recovery, expand bool) ([]byte, error) {
	var dec *v0.Decoder
	var stream *migrate.Stream
	var events []session.Event
	var entry session.Emit
	err := sessiontest.ReadRows(data,
		func(hv jsonv.Value) error {
			version, _ := hv.Field("version").Count()
			if version > 1 {
				return errNotV0V1
			}
			var err error
			if dec, err = v0.NewDecoder(hv, int(version), recovery); err != nil {
				return err
			}
			edges := []stage.Edge{v0to1.Edge{}, v1to2.Edge{}}[version:]
			chain, err := migrate.NewChain(int(version), 2, v2.CheckHeader, edges...)
			if err != nil {
				return err
			}
			stream, err = chain.NewStream(dec.Header(), dec.HeaderCut(), func(item session.Item) error {
				events = append(events, item.Event)
				return nil
			})
			if err != nil {
				return err
			}
			entry = stream.Emit
			if expand {
				entry = expanding(stream.Emit)
			}
			return nil
		},
		func(row jsonv.Value) error { return dec.Decode(row, entry) })
	if err != nil {
		return nil, err
	}
	if _, err := dec.Finish(entry); err != nil {
		return nil, err
	}
	cut, err := stream.Finish()
	if err != nil {
		return nil, err
	}
	out, err := v2.EncodeHeader(nil, stream.Header, cut)
	if err != nil {
		return nil, err
	}
	out = append(out, '\n')
	for _, ev := range events {
		out = append(v2.EncodeEvent(out, ev), '\n')
	}
	return out, readsBack(out, cut)
}

// readsBack checks the v2 bytes with the released v2 codec.
func readsBack(file []byte, cut int64) error {
	got, err := sessiontest.ReadSession(file,
		func(hv jsonv.Value) (sessiontest.Decoder, error) {
			h, err := v2.DecodeHeader(hv)
			if err != nil {
				return nil, err
			}
			return v2.NewDecoder(h, v2.Strict), nil
		},
		func(session.Event) error { return nil })
	if err == nil && got != cut {
		err = errors.New("the v2 file's marker disagrees with the migrated cut")
	}
	return err
}

// expanding feeds a packed chunk run to emit as its single assistant/chunk
// events, and any other item as it is.
func expanding(emit session.Emit) session.Emit {
	return func(item session.Item) error {
		if item.Run == nil {
			return emit(item)
		}
		members, err := item.Run.Expand()
		if err != nil {
			return err
		}
		for _, ev := range members {
			if err := emit(session.Item{Event: ev}); err != nil {
				return err
			}
		}
		return nil
	}
}
