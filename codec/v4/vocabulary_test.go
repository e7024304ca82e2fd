package v4

import (
	"errors"
	"testing"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/vocab"
)

const unsupported = "SessionFormatUnsupportedMigrationError: "

// TestOfficialLineChanges covers what the official line admits after the
// goldens' build (vocabulary.md), and that zDSH still refuses it.
func TestOfficialLineChanges(t *testing.T) {
	official, zdsh := vocab.Default(), vocab.Zdsh.Vocabulary()
	catalog := func(fact string) string { return `{"type":"subagent/catalog","data":` + fact + `}` }
	tests := []struct {
		name     string
		rows     []string
		official string
		zdsh     string
	}{
		{"working directory change", []string{`{"type":"working-directory/change","data":{"cwd":"/p/sub"}}`},
			"", unsupported + `format v4 contains unknown event type "working-directory/change" at seq 0`},
		{"working directory payload", []string{`{"type":"working-directory/change","data":{"cwd":"/p","at":1}}`},
			fe + `format v4 working-directory/change at seq 0 has an invalid payload: data: has the undeclared member "at"`,
			unsupported + `format v4 contains unknown event type "working-directory/change" at seq 0`},
		{"external catalog fact", []string{catalog(`{"version":2,"childId":"x","childCreatedAt":1,"mode":"external"}`)},
			"", fe + "subagent/catalog requires a supported versioned catalog fact"},
		{"external catalog fact with label", []string{catalog(`{"version":2,"childId":"x","childCreatedAt":1,"mode":"external","label":"remote"}`)}, "",
			fe + "subagent/catalog requires a supported versioned catalog fact"},
		{"version 2 is external only", []string{catalog(`{"version":2,"childId":"x","childCreatedAt":1,"mode":"one-shot"}`)},
			fe + "subagent/catalog requires a supported versioned catalog fact", fe + "subagent/catalog requires a supported versioned catalog fact"},
		{"external needs version 2", []string{catalog(`{"version":1,"childId":"x","childCreatedAt":1,"mode":"external"}`)},
			fe + "subagent/catalog requires a supported versioned catalog fact", fe + "subagent/catalog requires a supported versioned catalog fact"},
		{"duplicate external child", []string{catalog(`{"version":2,"childId":"x","childCreatedAt":1,"mode":"external"}`), catalog(`{"version":0,"childId":"x","childCreatedAt":1,"mode":"one-shot"}`)},
			fe + "duplicate catalog child x", fe + "subagent/catalog requires a supported versioned catalog fact"},
		{"attribution source kinds", []string{user("u", "user"), user("q", "user-question-reply"), user("w", "working-directory")}, "", ""},
		{"title reasoning effort", []string{user("u", "user"), `{"type":"session/title-llm-request","data":{"messageSeqs":[0],"reasoningEffort":"high","messages":[{"role":"user","source":{"kind":"dsh-session-title-llm"},"content":[{"type":"text","text":"x"}]}]}}`}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := restore(t, unseeded, official, 0, tt.rows...); got != tt.official {
				t.Errorf("official: got %q\nwant %q", got, tt.official)
			}
			if got := restore(t, unseeded, zdsh, 0, tt.rows...); got != tt.zdsh {
				t.Errorf("zdsh: got %q\nwant %q", got, tt.zdsh)
			}
		})
	}
}

// TestDeclaredTypes covers types known only from a declaration file.
func TestDeclaredTypes(t *testing.T) {
	d, err := vocab.Parse([]byte(`{"roots":[
		{"kind":"event","event":"agent/harness","surface":false,"schema":{"root":0,"nodes":[{"kind":"object","properties":[{"name":"data","type":1}]},{"kind":"object","properties":[{"name":"harness","type":2}]},{"kind":"primitive","type":"string"}]}},
		{"kind":"event","event":"agent/screen","surface":true}]}`))
	if err != nil {
		t.Fatal(err)
	}
	d.File = "fork.schema.json"
	v := vocab.Default().With(d)
	tests := []struct{ row, want string }{
		{`{"type":"agent/harness","data":{"harness":"devin"}}`, ""},
		{`{"type":"agent/harness","data":{"harness":1}}`, fe + "format v4 agent/harness at seq 0 does not fit the schema declared by fork.schema.json: data.harness: expected string"},
		{`{"type":"agent/screen","data":{}}`, unsupported + `format v4 event type "agent/screen" at seq 0 is a surface type (declared by fork.schema.json), and dshlog cannot derive a message for it`},
		{`{"type":"agent/other","data":{}}`, unsupported + `format v4 contains unknown event type "agent/other" at seq 0`},
	}
	for _, tt := range tests {
		if got := restore(t, unseeded, v, 0, tt.row); got != tt.want {
			t.Errorf("%s: got %q\nwant %q", tt.row, got, tt.want)
		}
	}
	if got := restore(t, unseeded, v.WithUnknownAllowed(), 0, `{"type":"agent/other","data":{}}`); got != "" {
		t.Errorf("allowed unknown: %q", got)
	}
}

// TestUnknownTypeError: the refusal names the type and seq and is dsh's.
func TestUnknownTypeError(t *testing.T) {
	r := NewRestorer(session.Header{Version: 4, ID: "s", CreatedAt: 1}, vocab.Default())
	row, _ := jsonv.Parse([]byte(`{"type":"agent/harness","seq":0,"time":1,"data":{}}`))
	r.Add(session.Event{Type: "agent/harness", Seq: 0, Row: row})
	err := r.Finish(0)
	var unknown *UnknownTypeError
	var refusal *session.Refusal
	if !errors.As(err, &unknown) || unknown.Type != "agent/harness" || unknown.Seq != 0 || !errors.As(err, &refusal) {
		t.Fatalf("%#v", err)
	}
}
