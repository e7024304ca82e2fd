package agentloop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/dshlog/dshlog/jsonv"
)

// OpenAIModel is a Model that sends each request to an OpenAI-compatible
// streaming chat-completions endpoint (DeepSeek's API has this shape):
// POST {Endpoint}/chat/completions with stream:true, reading the
// server-sent events back as chunks. The request's messages and tools are
// translated to the wire format; reasoning_content deltas become
// reasoning, tool_calls deltas tool calls, a 429 answer a RATE_LIMIT
// error finish, retried after the wait its Retry-After asks for (Backoff).
type OpenAIModel struct {
	// Endpoint is the API base URL, e.g. https://api.deepseek.com.
	Endpoint string
	// Model is the model name sent on the wire.
	Model string
	// APIKey is sent as a bearer token when not empty.
	APIKey string
	// Client is the HTTP client; nil means http.DefaultClient.
	Client *http.Client
	// RetryBase is the first wait after a RATE_LIMIT answer that names no
	// Retry-After, doubled for each further retry; 0 means a second.
	RetryBase time.Duration
}

// maxRetryWait bounds the wait before a retry, whatever a server asks.
const maxRetryWait = time.Minute

// RetryDelay is the wait before retry number retry after a RATE_LIMIT
// answer: the Retry-After it named, at most a minute, or else RetryBase
// doubled for each retry after the first.
func (m *OpenAIModel) RetryDelay(f Finish, retry int) time.Duration {
	if f.RetryAfter > 0 {
		return min(f.RetryAfter, maxRetryWait)
	}
	base := m.RetryBase
	if base <= 0 {
		base = time.Second
	}
	return min(base<<min(max(retry-1, 0), 6), maxRetryWait)
}

// wireMessage is a chat-completions message.
type wireMessage struct {
	Role       string         `json:"role"`
	Content    *string        `json:"content"`
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type wireToolCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type wireTool struct {
	Type     string          `json:"type"`
	Function json.RawMessage `json:"function"`
}

// WireRequest translates a request into the chat-completions body.
func (m *OpenAIModel) WireRequest(req Request) ([]byte, error) {
	v := req.Value()
	body := map[string]any{"model": m.Model, "stream": true, "stream_options": map[string]bool{"include_usage": true}}
	var messages []wireMessage
	for _, msg := range v.Field("messages").Elements() {
		messages = append(messages, toWire(msg))
	}
	body["messages"] = messages
	var tools []wireTool
	for _, tool := range v.Field("tools").Elements() {
		tools = append(tools, wireTool{Type: "function", Function: tool.Encode()})
	}
	if len(tools) > 0 {
		body["tools"] = tools
	}
	if t, ok := v.Field("temperature").Number(); ok {
		body["temperature"] = t
	}
	if n, ok := v.Field("maxTokens").Count(); ok {
		body["max_tokens"] = n
	}
	return json.Marshal(body)
}

// toWire translates one dsh message.
func toWire(msg jsonv.Value) wireMessage {
	var text strings.Builder
	var calls []wireToolCall
	for _, block := range msg.Field("content").Elements() {
		switch block.Field("type").Text() {
		case "text":
			text.WriteString(block.Field("text").Text())
		case "tool-call":
			calls = append(calls, wireToolCall{ID: block.Field("id").Text(), Type: "function",
				Function: wireFunction{Name: block.Field("name").Text(), Arguments: block.Field("arguments").Text()}})
		}
	}
	role := msg.Field("role").Text()
	if role == "developer" {
		role = "system"
	}
	content := text.String()
	w := wireMessage{Role: role, Content: &content, ToolCalls: calls}
	if role == "assistant" && content == "" && len(calls) > 0 {
		w.Content = nil
	}
	if role == "tool" {
		w.ToolCallID = msg.Field("toolCallId").Text()
	}
	return w
}

// Stream sends req and streams the reply.
func (m *OpenAIModel) Stream(ctx context.Context, req Request, emit func(Chunk) error) error {
	body, err := m.WireRequest(req)
	if err != nil {
		return err
	}
	httpReq, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(m.Endpoint, "/")+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return err
	}
	httpReq.Header.Set("Content-Type", "application/json")
	httpReq.Header.Set("Accept", "text/event-stream")
	if m.APIKey != "" {
		httpReq.Header.Set("Authorization", "Bearer "+m.APIKey)
	}
	client := m.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(httpReq)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return emit(Chunk{Kind: FinishChunk, Finish: httpFailure(resp)})
	}
	err = readServerEvents(resp.Body, newDeltaState(emit))
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// httpFailure turns an error answer into an error finish: 429 is
// RATE_LIMIT, other codes HTTP_<status>.
func httpFailure(resp *http.Response) Finish {
	code := fmt.Sprintf("HTTP_%d", resp.StatusCode)
	if resp.StatusCode == http.StatusTooManyRequests {
		code = "RATE_LIMIT"
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var answer struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	message := resp.Status
	if json.Unmarshal(data, &answer) == nil && answer.Error.Message != "" {
		message = answer.Error.Message
	}
	f := Finish{Kind: "error", Code: code, Message: message}
	if code == "RATE_LIMIT" {
		f.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	return f
}

// retryAfter reads a Retry-After header, in seconds or as an HTTP date
// (RFC 9110, 10.2.3), as the wait it asks for from now; 0 when it asks for
// none or cannot be read.
func retryAfter(header string, now time.Time) time.Duration {
	header = strings.TrimSpace(header)
	if header == "" {
		return 0
	}
	if seconds, err := strconv.ParseInt(header, 10, 64); err == nil {
		if seconds <= 0 {
			return 0
		}
		return time.Duration(min(seconds, int64(maxRetryWait/time.Second))) * time.Second
	}
	if at, err := http.ParseTime(header); err == nil && at.After(now) {
		return at.Sub(now)
	}
	return 0
}

// streamChunk is one chat-completions stream event.
type streamChunk struct {
	Choices []struct {
		Delta struct {
			Content          string         `json:"content"`
			ReasoningContent string         `json:"reasoning_content"`
			ToolCalls        []wireToolCall `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
}

// deltaState numbers the content blocks of one reply as they appear and
// remembers each wire tool call's id and block.
type deltaState struct {
	emit   func(Chunk) error
	blocks int
	last   ChunkKind
	open   bool
	calls  map[int]*callBlock // by wire tool-call index
	finish *Finish
	usage  *Chunk
}

type callBlock struct {
	id    string
	block int
}

func newDeltaState(emit func(Chunk) error) *deltaState {
	return &deltaState{emit: emit, calls: map[int]*callBlock{}}
}

// block returns the block index for a text or reasoning delta.
func (s *deltaState) block(kind ChunkKind) int {
	if !s.open || s.last != kind {
		s.blocks++
		s.open, s.last = true, kind
	}
	return s.blocks - 1
}

func (s *deltaState) take(c streamChunk) error {
	for _, choice := range c.Choices {
		d := choice.Delta
		if d.ReasoningContent != "" {
			if err := s.emit(Chunk{Kind: ReasoningDelta, Index: s.block(ReasoningDelta), Text: d.ReasoningContent}); err != nil {
				return err
			}
		}
		if d.Content != "" {
			if err := s.emit(Chunk{Kind: TextDelta, Index: s.block(TextDelta), Text: d.Content}); err != nil {
				return err
			}
		}
		for _, call := range d.ToolCalls {
			if err := s.toolCall(call); err != nil {
				return err
			}
		}
		if choice.FinishReason != nil {
			s.finish = &Finish{Kind: finishKind(*choice.FinishReason)}
		}
	}
	if c.Usage != nil {
		s.usage = &Chunk{Kind: UsageChunk, InputTokens: c.Usage.PromptTokens, OutputTokens: c.Usage.CompletionTokens}
	}
	return nil
}

func (s *deltaState) toolCall(call wireToolCall) error {
	index := 0
	if call.Index != nil {
		index = *call.Index
	}
	b, ok := s.calls[index]
	chunk := Chunk{Kind: ToolCallDelta, Text: call.Function.Arguments}
	if !ok {
		id := call.ID
		if id == "" {
			id = fmt.Sprintf("call-%d", s.blocks) // dsh's log needs every call to have an id
		}
		b = &callBlock{id: id, block: s.blocks}
		s.calls[index] = b
		s.blocks++
		s.open, s.last = true, ToolCallDelta
		chunk.Name = call.Function.Name
	}
	chunk.Index, chunk.ID = b.block, b.id
	return s.emit(chunk)
}

// finishKind maps a chat-completions finish_reason to dsh's.
func finishKind(reason string) string {
	switch reason {
	case "tool_calls":
		return "tool-calls"
	case "length":
		return "max-tokens"
	}
	return "stop"
}

// end emits the usage and the finish once the stream is over.
func (s *deltaState) end() error {
	if s.usage != nil {
		if err := s.emit(*s.usage); err != nil {
			return err
		}
	}
	if s.finish == nil {
		return fmt.Errorf("openai stream ended without a finish_reason")
	}
	return s.emit(Chunk{Kind: FinishChunk, Finish: *s.finish})
}

// readServerEvents reads server-sent events until [DONE] or the end of body.
func readServerEvents(body io.Reader, s *deltaState) error {
	lines := bufio.NewScanner(body)
	lines.Buffer(make([]byte, 64<<10), 16<<20)
	for lines.Scan() {
		data, ok := strings.CutPrefix(lines.Text(), "data:")
		if !ok {
			continue // comments, event names, blank separators
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			return s.end()
		}
		var c streamChunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			return fmt.Errorf("openai stream: bad event %q: %w", data, err)
		}
		if err := s.take(c); err != nil {
			return err
		}
	}
	if err := lines.Err(); err != nil {
		return err
	}
	return s.end()
}
