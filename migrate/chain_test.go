package migrate

import (
	"errors"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate/stage"
	"github.com/dshlog/dshlog/session"
)

// fakeEdge is an adjacent migration whose behaviour a test chooses.
type fakeEdge struct {
	from       int
	headerErr  error
	targetErr  error
	stageErr   error
	transform  func(session.Item, session.Emit) error
	finish     func(session.Emit) (int64, error)
	headerCut  int64
	finishedAt *[]string // appends the edge's name when its stage finishes
}

func (e *fakeEdge) Name() string { return "edge-v" + itoa(e.from) }
func (e *fakeEdge) From() int    { return e.from }

func (e *fakeEdge) MigrateHeader(h session.Header) (session.Header, error) {
	h.Version = e.from + 1
	return h, e.headerErr
}

func (e *fakeEdge) ValidateTargetHeader(session.Header) error { return e.targetErr }

func (e *fakeEdge) NewStage(stage.StageInput) (stage.Stage, error) {
	if e.stageErr != nil {
		return nil, e.stageErr
	}
	return fakeStage{e}, nil
}

type fakeStage struct{ e *fakeEdge }

func (s fakeStage) Transform(item session.Item, emit session.Emit) error {
	if s.e.transform != nil {
		return s.e.transform(item, emit)
	}
	return emit(item)
}

func (s fakeStage) Finish(emit session.Emit) (int64, error) {
	if s.e.finishedAt != nil {
		*s.e.finishedAt = append(*s.e.finishedAt, s.e.Name())
	}
	if s.e.finish != nil {
		return s.e.finish(emit)
	}
	return 0, nil
}

func (s fakeStage) HeaderCut() int64 { return s.e.headerCut }

func itoa(n int) string { return jsonv.IntValue(int64(n)).String() }

func refusalText(err error) string {
	var r *session.Refusal
	if errors.As(err, &r) {
		return r.Text()
	}
	if err == nil {
		return "<nil>"
	}
	return "not a refusal: " + err.Error()
}

func TestNewChainRefusals(t *testing.T) {
	tests := []struct {
		name  string
		edges []stage.Edge
		want  string
	}{
		{"missing edge", []stage.Edge{&fakeEdge{from: 2}}, "SessionFormatUnsupportedMigrationError: Session migration v3->v4 is missing"},
		{"duplicate edge", []stage.Edge{&fakeEdge{from: 2}, &fakeEdge{from: 2}, &fakeEdge{from: 3}}, "SessionFormatError: Session migration v2->v3 is duplicated"},
		{"edge past current", []stage.Edge{&fakeEdge{from: 2}, &fakeEdge{from: 3}, &fakeEdge{from: 4}}, "SessionFormatError: Session migration from v4 does not lead to current v4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewChain(2, 4, nil, tt.edges...)
			if got := refusalText(err); got != tt.want {
				t.Errorf("got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestPlanRefusesNewerAndOlder(t *testing.T) {
	c, err := NewChain(2, 4, nil, &fakeEdge{from: 2}, &fakeEdge{from: 3})
	if err != nil {
		t.Fatal(err)
	}
	for version, want := range map[int]string{
		5: "SessionFormatUnsupportedMigrationError: stored Session uses newer format v5; this build writes v4",
		1: "SessionFormatUnsupportedMigrationError: stored Session uses older format v1; this build ships no upgrade path for it (it reads v2 and later)",
	} {
		if _, err := c.Plan(version); refusalText(err) != want {
			t.Errorf("Plan(%d) = %s, want %s", version, refusalText(err), want)
		}
	}
	if plan, err := c.Plan(3); err != nil || len(plan) != 1 || plan[0].From() != 3 {
		t.Errorf("Plan(3) = %v, %v; want the v3 edge", plan, err)
	}
}

// TestChainWrapping checks dsh's wrapping of what an edge raises: a plain
// format error gets the edge's prefix, an unsupported-migration refusal
// passes bare, header failures name the header, and a refusal raised in a
// later stage while an earlier one forwards is wrapped once, by the stage
// that raised it.
func TestChainWrapping(t *testing.T) {
	format := session.FormatErrorf("row 3 is odd")
	unsupported := session.Unsupportedf("inherited Session cut 64 splits one Assistant attempt")
	refuse := func(err error) func(session.Item, session.Emit) error {
		return func(session.Item, session.Emit) error { return err }
	}
	tests := []struct {
		name   string
		first  fakeEdge
		second fakeEdge
		want   string
	}{
		{"format error in a stage", fakeEdge{transform: refuse(format)}, fakeEdge{},
			"SessionFormatUnsupportedMigrationError: edge-v2 refuses this format v2 Session: row 3 is odd"},
		{"unsupported passes bare", fakeEdge{transform: refuse(unsupported)}, fakeEdge{},
			"SessionFormatUnsupportedMigrationError: inherited Session cut 64 splits one Assistant attempt"},
		{"later stage wraps once", fakeEdge{}, fakeEdge{transform: refuse(format)},
			"SessionFormatUnsupportedMigrationError: edge-v3 refuses this format v3 Session: row 3 is odd"},
		{"header migration", fakeEdge{headerErr: format}, fakeEdge{},
			"SessionFormatUnsupportedMigrationError: edge-v2 refuses this format v2 Session header: row 3 is odd"},
		{"target header", fakeEdge{}, fakeEdge{targetErr: format},
			"SessionFormatUnsupportedMigrationError: edge-v3 refuses this format v3 Session header: row 3 is odd"},
		{"stage creation", fakeEdge{}, fakeEdge{stageErr: format},
			"SessionFormatUnsupportedMigrationError: edge-v3 refuses this format v3 Session: row 3 is odd"},
		{"finish", fakeEdge{finish: func(session.Emit) (int64, error) { return 0, format }}, fakeEdge{},
			"SessionFormatUnsupportedMigrationError: edge-v2 refuses this format v2 Session: row 3 is odd"},
		{"predeclared cut changed", fakeEdge{headerCut: 0, finish: func(session.Emit) (int64, error) { return 3, nil }}, fakeEdge{headerCut: -1},
			"SessionFormatError: edge-v2 changed its predeclared inherited cut"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first, second := tt.first, tt.second
			first.from, second.from = 2, 3
			c, err := NewChain(2, 4, nil, &first, &second)
			if err != nil {
				t.Fatal(err)
			}
			s, err := c.NewStream(session.Header{Version: 2}, -1, func(session.Item) error { return nil })
			if err == nil {
				err = s.Emit(session.Item{Event: session.Event{Type: "turn/start"}})
			}
			if err == nil {
				_, err = s.Finish()
			}
			if got := refusalText(err); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestChainSinkErrorsPassUnwrapped checks that a failure of the chain's
// output (a full disk, say) is not taken for a refusal of a stage.
func TestChainSinkErrorsPassUnwrapped(t *testing.T) {
	c, err := NewChain(2, 4, nil, &fakeEdge{from: 2}, &fakeEdge{from: 3})
	if err != nil {
		t.Fatal(err)
	}
	full := errors.New("no space left on device")
	s, err := c.NewStream(session.Header{Version: 2}, -1, func(session.Item) error { return full })
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Emit(session.Item{}); err != full {
		t.Errorf("got %v, want the sink's own error", err)
	}
}

// TestChainFinishOrder checks that stages finish from source to target and
// that what an earlier stage emits while finishing passes the later ones
// before they finish.
func TestChainFinishOrder(t *testing.T) {
	var log []string
	first := &fakeEdge{from: 2, headerCut: -1, finishedAt: &log, finish: func(emit session.Emit) (int64, error) {
		return 0, emit(session.Item{Event: session.Event{Type: "subagent/catalog"}})
	}}
	second := &fakeEdge{from: 3, headerCut: -1, finishedAt: &log, transform: func(item session.Item, emit session.Emit) error {
		log = append(log, "edge-v3 transforms "+item.Event.Type)
		return emit(item)
	}, finish: func(session.Emit) (int64, error) { return 7, nil }}
	c, err := NewChain(2, 4, nil, first, second)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	s, err := c.NewStream(session.Header{Version: 2}, -1, func(item session.Item) error {
		out = append(out, item.Event.Type)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cut, err := s.Finish()
	if err != nil || cut != 7 {
		t.Fatalf("Finish = %d, %v; want 7", cut, err)
	}
	want := "edge-v2, edge-v3 transforms subagent/catalog, edge-v3"
	if got := strings.Join(log, ", "); got != want {
		t.Errorf("order %q, want %q", got, want)
	}
	if len(out) != 1 || out[0] != "subagent/catalog" {
		t.Errorf("sink got %v", out)
	}
}

// fakeCheck is an artifact check that refuses at the end.
type fakeCheck struct{ err error }

func (c fakeCheck) Add(session.Event)  {}
func (c fakeCheck) Finish(int64) error { return c.err }

// TestTransformedArtifactRefusal checks dsh's wrapping of the final check:
// a migrated artifact's plain refusal names the migration, an unsupported
// one passes bare, and a current artifact's refusal is never wrapped.
func TestTransformedArtifactRefusal(t *testing.T) {
	tests := []struct {
		name    string
		version int
		err     error
		want    string
	}{
		{"migrated, format error", 3, session.FormatErrorf("turn/start does not open the expected turn"),
			"SessionFormatUnsupportedMigrationError: Session migration from v3 to v4 refuses the transformed artifact: turn/start does not open the expected turn"},
		{"migrated, unsupported", 3, session.Unsupportedf(`format v4 contains unknown event type "x" at seq 1`),
			`SessionFormatUnsupportedMigrationError: format v4 contains unknown event type "x" at seq 1`},
		{"current", 4, session.FormatErrorf("format v4 event 1 is not dense"),
			"SessionFormatError: format v4 event 1 is not dense"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chain, err := NewChain(3, 4, nil, &fakeEdge{from: 3, headerCut: -1})
			if err != nil {
				t.Fatal(err)
			}
			header := func(v jsonv.Value) (session.Header, error) {
				n, _ := v.Field("version").Count()
				return session.Header{Version: int(n)}, nil
			}
			cd := func(version int) codec {
				return codec{version: version, decodeHeader: header, newDecoder: func(hv jsonv.Value, _ v2.Recovery) (rowDecoder, error) {
					h, _ := header(hv)
					return eventRows{h, v2.NewDecoder(h, v2.Strict)}, nil
				}}
			}
			cat := &catalog{chain: chain, codecs: map[int]codec{3: cd(3), 4: cd(4)},
				newValidator: func(session.Header, bool) validator { return fakeCheck{tt.err} }}
			hv := jsonv.ObjectValue(jsonv.M("version", jsonv.IntValue(int64(tt.version))))
			r, err := cat.newRestore(hv, v2.Strict, Current, func(session.Event) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			if tt.version == 3 {
				r.validation = Transformed
			}
			_, err = r.finish()
			if got := refusalText(err); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestReadHeader checks the classification of headers without their body,
// as dsh's catalog.readHeader gives it.
func TestReadHeader(t *testing.T) {
	tests := []struct {
		header  string
		status  HeaderStatus
		version int
		reason  string
	}{
		{`{"type":"session","version":4,"id":"a","createdAt":1,"isSeeded":false,"delegationDepth":0}`, StatusCurrent, 4, ""},
		{`{"type":"session","version":3,"id":"a","createdAt":1,"isSeeded":false,"delegationDepth":0}`, StatusMigrationRequired, 3, ""},
		{`{"type":"session","version":2,"id":"a","createdAt":1,"isSeeded":false,"delegationDepth":0,"agentPreset":"code"}`, StatusMigrationRequired, 2, ""},
		{`{"type":"session","version":5,"id":"a"}`, StatusUnsupported, 5, "SessionFormatUnsupportedMigrationError: stored Session uses newer format v5; this build writes v4"},
		{`{"type":"session","version":0,"id":"a","createdAt":1,"delegationDepth":0}`, StatusMigrationRequired, 0, ""},
		{`{"type":"session","version":1,"id":"a","createdAt":1,"delegationDepth":0,"seedLength":0}`, StatusMigrationRequired, 1, ""},
		{`{"type":"session","version":0,"id":"a"}`, StatusMalformed, 0, `SessionFormatError: released v0 physical header lacks required member "createdAt"`},
		{`{"type":"session","version":3,"id":"a","createdAt":1,"cwd":"rel","isSeeded":false,"delegationDepth":0}`, StatusMalformed, 3, "SessionFormatError: format v2 header cwd must be absolute"},
		{`{"type":"session","version":-1}`, StatusMalformed, -1, "SessionFormatError: Session format version must be a non-negative safe integer"},
		{`[4]`, StatusMalformed, -1, "SessionFormatError: Session header must be a JSON object"},
	}
	for _, tt := range tests {
		hv, err := jsonv.Parse([]byte(tt.header))
		if err != nil {
			t.Fatal(err)
		}
		info := ReadHeader(hv)
		reason := ""
		if info.Reason != nil {
			reason = refusalText(info.Reason)
		}
		if info.Status != tt.status || info.StoredVersion != tt.version || info.TargetVersion != 4 || reason != tt.reason {
			t.Errorf("%s:\n got  %v v%d %q\n want %v v%d %q", tt.header, info.Status, info.StoredVersion, reason, tt.status, tt.version, tt.reason)
		}
		if tt.version == 2 && (info.Header.Version != 4 || info.Header.AgentPreset == nil || *info.Header.AgentPreset != "ptc") {
			t.Errorf("%s: current header %+v", tt.header, info.Header)
		}
	}
}
