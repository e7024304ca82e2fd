package agentloop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// Script is a loop run written down: the session, the model's replies in
// the order the requests are sent, and what happens around them. Its JSON
// form (the field tags) is what dshlog loop --script reads; README.md
// documents it with an example, and the built-in scenarios are scripts.
type Script struct {
	// Description is free text for people.
	Description string `json:"description,omitempty"`
	// Session is the session id; CreatedAt the header's createdAt and the
	// clock's start (ms); Seed seeds the message ids.
	Session   string `json:"session"`
	CreatedAt int64  `json:"createdAt"`
	Seed      uint64 `json:"seed"`
	// System is the system prompt; Provider and Model the request config.
	System   string `json:"system"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
	// Tools names the tools offered, in order: "echo", "deploy".
	Tools []string `json:"tools"`
	// Fork, when set, starts the session as a fork child of a built-in
	// scenario's log cut after seq Boundary.
	Fork *ForkFrom `json:"fork,omitempty"`
	// Turns are run in order.
	Turns []Turn `json:"turns"`
}

// ForkFrom names the parent of a fork child: a built-in scenario and the
// inclusive seq its log is cut at (buildForkSeed's boundary).
type ForkFrom struct {
	Scenario string `json:"scenario"`
	Boundary int64  `json:"boundary"`
}

// Turn is one user input and the replies to the requests it causes.
type Turn struct {
	// User is the text of the turn's user message.
	User string `json:"user"`
	// Compact, when set, replaces earlier turns by a summary before this
	// turn's first request.
	Compact *Compact `json:"compact,omitempty"`
	// Replies answer this turn's requests in order: one per step, plus one
	// per retry.
	Replies []Reply `json:"replies"`
	// CrashIn is a tool call id: the process dies while that call runs,
	// right after its tool/call is written.
	CrashIn string `json:"crashIn,omitempty"`
}

// Compact replaces the surface nodes of whole turns (never the system
// prompt) by one summary user/message.
type Compact struct {
	Turns   []int64 `json:"turns"`   // the turns replaced, by number (from 1), in order
	Summary string  `json:"summary"` // the summary user/message's text
}

// Reply is what the model streams for one request: reasoning pieces, text
// pieces and tool calls (each split into argument pieces), in that block
// order, then usage and the finish. Error ends the stream in an error
// finish instead (after whatever came before); Cancel makes the user
// cancel right after the last piece, with the last block unfinished.
type Reply struct {
	Reasoning []string   `json:"reasoning,omitempty"`
	Text      []string   `json:"text,omitempty"`
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	Usage     *Usage     `json:"usage,omitempty"`
	Error     *Failure   `json:"error,omitempty"`
	Cancel    bool       `json:"cancel,omitempty"`
}

// ToolCall is a tool call the model streams, its arguments split into
// pieces.
type ToolCall struct {
	ID   string   `json:"id"`
	Name string   `json:"name"`
	Args []string `json:"args"`
}

// Usage is a reply's token counts.
type Usage struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
}

// Failure is a provider error that ends a stream.
type Failure struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ParseScript decodes a script, refusing unknown fields, and checks it.
func ParseScript(data []byte) (*Script, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Script
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("script: %w", err)
	}
	if dec.More() {
		return nil, errors.New("script: text after the JSON object")
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	return &s, nil
}

// Check reports the first thing in the script the loop cannot run.
func (s *Script) Check() error {
	switch {
	case s.Session == "":
		return errors.New("script: session (the session id) is required")
	case s.Provider == "" || s.Model == "":
		return errors.New("script: provider and model are required")
	case len(s.Turns) == 0:
		return errors.New("script: no turns")
	}
	for _, name := range s.Tools {
		if _, ok := toolSchemas[name]; !ok {
			return fmt.Errorf("script: unknown tool %q (the loop has %s)", name, toolNames())
		}
	}
	for i, turn := range s.Turns {
		if err := turn.check(s.Tools); err != nil {
			return fmt.Errorf("script: turn %d: %w", i+1, err)
		}
	}
	return nil
}

func (t Turn) check(tools []string) error {
	if t.User == "" {
		return errors.New("user (the user's input) is required")
	}
	if len(t.Replies) == 0 {
		return errors.New("no replies")
	}
	for i, r := range t.Replies {
		if r.Error != nil && r.Error.Code == "" {
			return fmt.Errorf("reply %d: error needs a code", i+1)
		}
		for _, call := range r.ToolCalls {
			if call.ID == "" {
				return fmt.Errorf("reply %d: a tool call needs an id", i+1)
			}
			if !slices.Contains(tools, call.Name) && !(r.Cancel && call.Name == "") {
				return fmt.Errorf("reply %d: tool call %s names %q, which the script does not offer", i+1, call.ID, call.Name)
			}
		}
	}
	if t.Compact != nil && (len(t.Compact.Turns) == 0 || t.Compact.Summary == "") {
		return errors.New("compact needs turns and a summary")
	}
	return nil
}

// ScriptedModel is a Model that streams a script's replies, one per
// request, in order.
type ScriptedModel struct {
	replies []Reply
}

// NewScriptedModel returns the model answering the requests of s.
func NewScriptedModel(s *Script) *ScriptedModel {
	var replies []Reply
	for _, turn := range s.Turns {
		replies = append(replies, turn.Replies...)
	}
	return &ScriptedModel{replies: replies}
}

// errNoReply is returned when the loop sends more requests than the script
// answers.
var errNoReply = errors.New("scripted model: the script has no reply left for this request")

// Stream streams the next reply.
func (m *ScriptedModel) Stream(ctx context.Context, req Request, emit func(Chunk) error) error {
	if len(m.replies) == 0 {
		return errNoReply
	}
	reply := m.replies[0]
	m.replies = m.replies[1:]
	for _, c := range reply.chunks() {
		if err := emit(c); err != nil {
			return err
		}
	}
	if reply.Cancel {
		return context.Canceled
	}
	return ctx.Err()
}

// chunks are the reply as a stream.
func (r Reply) chunks() []Chunk {
	var out []Chunk
	index := 0
	pieces := func(kind ChunkKind, texts []string) {
		if len(texts) == 0 {
			return
		}
		for _, t := range texts {
			out = append(out, Chunk{Kind: kind, Index: index, Text: t})
		}
		index++
	}
	pieces(ReasoningDelta, r.Reasoning)
	pieces(TextDelta, r.Text)
	for _, call := range r.ToolCalls {
		for i, arg := range call.Args {
			c := Chunk{Kind: ToolCallDelta, Index: index, ID: call.ID, Text: arg}
			if i == 0 {
				c.Name = call.Name
			}
			out = append(out, c)
		}
		index++
	}
	if r.Cancel {
		return out
	}
	if r.Usage != nil {
		out = append(out, Chunk{Kind: UsageChunk, InputTokens: r.Usage.Input, OutputTokens: r.Usage.Output})
	}
	finish := Finish{Kind: "stop"}
	switch {
	case r.Error != nil:
		finish = Finish{Kind: "error", Code: r.Error.Code, Message: r.Error.Message}
	case len(r.ToolCalls) > 0:
		finish.Kind = "tool-calls"
	}
	return append(out, Chunk{Kind: FinishChunk, Finish: finish})
}
