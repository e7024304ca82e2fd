package agentloop

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/jsonl"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/session"
)

//go:embed scenarios/*.json
var scenarioFiles embed.FS

// Scenario is a built-in run: one script per session it writes.
type Scenario struct {
	Name        string // as dshlog loop --scenario takes it
	Description string // one line for --list
	scripts     []string
}

// Scenarios are the built-in scenarios, in the order --list shows them.
var Scenarios = []Scenario{
	{"four-turn", "a tool call; RATE_LIMIT then a retry; a cancel mid-stream; a follow-up (the design notes' 41 events)", []string{"four-turn"}},
	{"compaction", "four-turn with turn 1 replaced by a summary before request 5", []string{"compaction"}},
	{"crash", "deploy then echo, killed during deploy: the log ends with a dangling tool/call", []string{"crash"}},
	{"fork", "the notes' two fork boundaries (four-turn at 15, crash at 9), each child continuing with one more turn", []string{"fork-a", "fork-b"}},
}

// FindScenario returns the built-in scenario called name.
func FindScenario(name string) (Scenario, bool) {
	for _, s := range Scenarios {
		if s.Name == name {
			return s, true
		}
	}
	return Scenario{}, false
}

// Scripts returns the scenario's scripts, one per session.
func (s Scenario) Scripts() ([]*Script, error) {
	var scripts []*Script
	for _, name := range s.scripts {
		data, err := scenarioFiles.ReadFile("scenarios/" + name + ".json")
		if err != nil {
			return nil, err
		}
		script, err := ParseScript(data)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: %w", s.Name, err)
		}
		scripts = append(scripts, script)
	}
	return scripts, nil
}

// Run is a finished run of one script.
type Run struct {
	// Header is the session header the log begins with.
	Header session.Header
	// Requests are the requests the model received, as frozen.
	Requests []Request
	// Crashed says the script killed the loop during a tool call.
	Crashed bool
	// Interrupted says ctx was cancelled before the script's last turn.
	Interrupted bool
	// Tools are the tools' side effects.
	Tools *Tools
}

// RunScript runs s with model (a ScriptedModel of s when nil) and writes
// the session log to out. A fork script first runs its parent scenario in
// memory and starts from buildForkSeed of the parent's log. A crash the
// script asks for is not an error, nor is a cancelled ctx: Run.Crashed and
// Run.Interrupted say so.
func RunScript(ctx context.Context, s *Script, model Model, out io.Writer) (Run, error) {
	if model == nil {
		model = NewScriptedModel(s)
	}
	recorder := &Recorder{Model: model}
	tools := &Tools{}
	var l *Loop
	var err error
	if s.Fork != nil {
		l, err = startFork(ctx, s, recorder, tools, out)
	} else {
		l, err = New(s, recorder, tools, out)
	}
	if err != nil {
		return Run{}, err
	}
	run := Run{Header: l.Header(), Tools: tools}
	err = l.Run(ctx)
	run.Requests = recorder.Requests()
	switch {
	case errors.Is(err, ErrCrashed):
		run.Crashed, err = true, nil
	case errors.Is(err, ErrInterrupted):
		run.Interrupted, err = true, nil
	}
	return run, err
}

// startFork runs the parent scenario into memory, cuts it as dsh's fork
// does, and starts the child's loop on the seed.
func startFork(ctx context.Context, s *Script, model Model, tools *Tools, out io.Writer) (*Loop, error) {
	parentScenario, ok := FindScenario(s.Fork.Scenario)
	if !ok {
		return nil, fmt.Errorf("fork: no built-in scenario %q", s.Fork.Scenario)
	}
	scripts, err := parentScenario.Scripts()
	if err != nil {
		return nil, err
	}
	if len(scripts) != 1 {
		return nil, fmt.Errorf("fork: scenario %q writes %d sessions; a parent must be one", s.Fork.Scenario, len(scripts))
	}
	var parent bytes.Buffer
	if _, err := RunScript(ctx, scripts[0], nil, &parent); err != nil {
		return nil, fmt.Errorf("fork: parent %s: %w", s.Fork.Scenario, err)
	}
	events, err := migrate.NewReader(jsonl.NewReader(&parent, s.Fork.Scenario), migrate.Options{Recovery: v2.Strict})
	if err != nil {
		return nil, err
	}
	var seed []session.Event
	tail, err := fold.ForkSeed(events.Header.ID, events, s.Fork.Boundary, func(ev session.Event) error {
		seed = append(seed, ev)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("fork: %w", err)
	}
	h := fold.ChildHeader(events.Header, s.Session, s.CreatedAt)
	return start(s, model, tools, out, h, s.Fork.Boundary+1, append(seed, tail...))
}
