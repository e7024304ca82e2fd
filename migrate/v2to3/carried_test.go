package v2to3_test

import (
	"os"
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
	"github.com/dshlog/dshlog/migrate/v2to3"
	"github.com/dshlog/dshlog/session"
)

// TestCarriedPayloadsPass backs the v2→v3 edge's skipping of the payload
// rules for the types carriesCheckedPayload lists: every event of such a
// type that the v0→v1→v2 chain emits, from every v0 and v1 file of the
// corpus and the edges' vectors and from the cases below, must pass the
// rules at version 2. The chain is run in both recovery modes; a session it
// refuses emits what it had emitted before the refusal.
func TestCarriedPayloadsPass(t *testing.T) {
	files := sessiontest.Glob(t,
		"../../testdata/corpus/*/*/*.jsonl",
		"../../testdata/corpus/*/*/*/*.jsonl",
		"../v0to1/testdata/*.jsonl",
		"../v1to2/testdata/vectors/*/session.v[01].jsonl",
	)
	inputs := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[f] = data
	}
	for name, text := range carriedCases {
		inputs[name] = []byte(text)
	}
	checked := 0
	for name, data := range inputs {
		for _, recovery := range []v2.Recovery{v2.Recoverable, v2.Strict} {
			for _, ev := range migrateToV2(data, recovery) {
				if !v2to3.CarriesCheckedPayload(ev.Type, ev.Data()) {
					continue
				}
				checked++
				if err := v2.CheckPayloadSemantics(ev, 2); err != nil {
					t.Errorf("%s: %s: the v2 rules refuse a carried payload: %s", name, ev.Row, sessiontest.RefusalText(err))
				}
			}
		}
	}
	if checked < 1000 {
		t.Errorf("only %d carried events checked", checked)
	}
}

// TestLegacyGoalSpliceIsNotCarried pins the one case the list leaves out:
// an inbox splice inserting a legacy goal message passes before v2 only.
func TestLegacyGoalSpliceIsNotCarried(t *testing.T) {
	events := migrateToV2([]byte(carriedCases["legacy-goal"]), v2.Strict)
	found := false
	for _, ev := range events {
		if ev.Type != "agent/inbox/spliced" {
			continue
		}
		found = true
		if v2to3.CarriesCheckedPayload(ev.Type, ev.Data()) {
			t.Errorf("%s is carried", ev.Row)
		}
		if v2.CheckPayloadSemantics(ev, 2) == nil {
			t.Errorf("%s passes the v2 rules: the case no longer shows why it is not carried", ev.Row)
		}
	}
	if !found {
		t.Fatal("the case migrated no inbox splice")
	}
}

const goalMessage = `{"id":"g1","role":"user","content":[{"type":"text","text":"<goal_state>{\"cleared\":{\"id\":\"g\",\"revision\":1},\"clearedAt\":5}</goal_state>"}],"source":{"kind":"goal","goalId":"g","revision":1,"round":0,"change":{"kind":"goal/change","version":1,"operation":"clear","cleared":{"id":"g","revision":1},"clearedAt":5}}}`

// carriedCases are v0 sessions with the shapes the carried types take
// that the corpus lacks: legacy goal messages, an interrupted turn the
// v1→v2 edge closes, session references and legacy shapes v0→v1 rewrites.
var carriedCases = map[string]string{
	"legacy-goal": lines(
		`{"type":"session","version":0,"id":"s","createdAt":1,"cwd":"/w","delegationDepth":0}`,
		`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}`,
		`{"type":"step/start","seq":1,"time":1,"data":{"turn":1,"step":1}}`,
		`{"type":"user/message","seq":2,"time":1,"data":`+goalMessage+`,"surfaceOp":"append"}`,
		`{"type":"agent/inbox/spliced","seq":3,"time":1,"data":{"target":"next-step","start":0,"inserted":[`+goalMessage+`]}}`,
	),
	"interrupted-turn": lines(
		`{"type":"session","version":0,"id":"s","createdAt":1,"cwd":"/w","delegationDepth":0}`,
		`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}`,
		`{"type":"step/start","seq":1,"time":1,"data":{"turn":1,"step":1}}`,
		`{"type":"user/message","seq":2,"time":1,"data":{"id":"u","role":"user","content":[],"source":{"kind":"user"}},"surfaceOp":"append"}`,
		`{"type":"step/end","seq":3,"time":1,"data":{"turn":1,"step":1}}`,
		`{"type":"agent/inbox/spliced","seq":4,"time":1,"data":{"target":"next-turn","start":0,"inserted":[{"id":"n","role":"user","content":[],"source":{"kind":"user"}}]}}`,
		`{"type":"turn/start","seq":5,"time":2,"data":{"turn":2}}`,
		`{"type":"turn/end","seq":6,"time":3,"data":{"turn":2,"reason":{"kind":"completed"}}}`,
	),
	"legacy-shapes": lines(
		`{"type":"session","version":0,"id":"s","createdAt":1,"cwd":"/w","delegationDepth":0}`,
		`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1,"trigger":{"kind":"user"}}}`,
		`{"type":"step/start","seq":1,"time":1,"data":{"turn":1,"step":1}}`,
		`{"type":"steering/message","seq":2,"time":1,"data":{"turn":1,"content":[{"type":"text","text":"hi"}],"source":{"kind":"user"}},"surfaceOp":"append"}`,
		`{"type":"user/message","seq":3,"time":1,"data":{"content":[],"source":{"kind":"session-reference","form":"recall","version":1,"references":[{"sessionId":"r","label":"l","capturedThroughSeq":null,"compacted":false,"originalMessages":1,"retainedMessages":1,"omittedMessages":0,"omittedBytes":0,"truncated":false,"inputIndex":0}]}},"surfaceOp":"append"}`,
		`{"type":"assistant/message","seq":4,"time":1,"data":{"turn":1,"step":1,"content":[{"type":"text","text":"ok"}],"provenance":{"provider":"p","model":"m"}},"surfaceOp":"append"}`,
		`{"type":"tool/call","seq":5,"time":1,"data":{"turn":1,"step":1,"callId":"c","name":"bash","arguments":"{}"}}`,
		`{"type":"tool/result","seq":6,"time":1,"data":{"turn":1,"step":1,"callId":"c","content":[{"type":"text","text":"done"}],"isError":false},"surfaceOp":"append"}`,
		`{"type":"step/end","seq":7,"time":1,"data":{"turn":1,"step":1}}`,
		`{"type":"turn/end","seq":8,"time":1,"data":{"turn":1,"reason":{"kind":"error","step":1,"message":"m"}}}`,
		`{"type":"turn/start","seq":9,"time":1,"data":{"turn":2}}`,
		`{"type":"turn/end","seq":10,"time":1,"data":{"turn":2,"reason":{"kind":"disposed"}}}`,
	),
}

func lines(rows ...string) string { return strings.Join(rows, "\n") + "\n" }

// migrateToV2 runs a v0 or v1 session through the codec and the v0→v1→v2
// chain and returns the v2 events it emitted, up to any refusal; a session
// of another version gives none.
func migrateToV2(data []byte, recovery v2.Recovery) []session.Event {
	var dec *v0.Decoder
	var stream *migrate.Stream
	var events []session.Event
	err := sessiontest.ReadRows(data,
		func(hv jsonv.Value) error {
			version, _ := hv.Field("version").Count()
			if version > 1 {
				return os.ErrInvalid
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
			return err
		},
		func(row jsonv.Value) error { return dec.Decode(row, stream.Emit) })
	if err == nil {
		_, err = dec.Finish(stream.Emit)
	}
	if err == nil {
		_, _ = stream.Finish()
	}
	return events
}
