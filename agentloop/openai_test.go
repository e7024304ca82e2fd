package agentloop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// sseServer is an OpenAI-compatible chat-completions server in the test
// process that answers with a script's replies, one per request, as
// server-sent events (a RATE_LIMIT reply as a 429; a cancelled reply as
// its pieces, then nothing until the client goes away).
type sseServer struct {
	t       *testing.T
	mu      sync.Mutex
	replies []Reply
	bodies  []map[string]any // every request body received
}

func (s *sseServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer test-key" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	reply := s.replies[0]
	s.replies = s.replies[1:]
	s.mu.Unlock()
	if reply.Error != nil {
		w.Header().Set("Retry-After", "0") // no wait named: the client's own backoff applies
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprintf(w, `{"error":{"message":%q}}`, reply.Error.Message)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(v any) {
		data, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", data)
		w.(http.Flusher).Flush()
	}
	delta := func(d map[string]any) { send(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": d}}}) }
	for _, piece := range reply.Reasoning {
		delta(map[string]any{"reasoning_content": piece})
	}
	for _, piece := range reply.Text {
		delta(map[string]any{"content": piece})
	}
	for i, call := range reply.ToolCalls {
		for j, arg := range call.Args {
			c := map[string]any{"index": i, "function": map[string]any{"arguments": arg}}
			if j == 0 {
				c["id"], c["type"] = call.ID, "function"
				c["function"].(map[string]any)["name"] = call.Name
			}
			delta(map[string]any{"tool_calls": []any{c}})
		}
	}
	if reply.Cancel {
		<-r.Context().Done() // the user cancels; the stream never finishes
		return
	}
	reason := "stop"
	if len(reply.ToolCalls) > 0 {
		reason = "tool_calls"
	}
	send(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": reason}}})
	if reply.Usage != nil {
		send(map[string]any{"choices": []any{}, "usage": map[string]any{"prompt_tokens": reply.Usage.Input, "completion_tokens": reply.Usage.Output}})
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// cancellingModel is the user at the keyboard: it cancels a request once
// the pieces of a cancelled reply have all arrived. It forwards the inner
// model's Backoff, counting the waits asked for.
type cancellingModel struct {
	inner   Model
	replies []Reply
	waits   []time.Duration
}

func (m *cancellingModel) RetryDelay(f Finish, retry int) time.Duration {
	d := m.inner.(Backoff).RetryDelay(f, retry)
	m.waits = append(m.waits, d)
	return d
}

func (m *cancellingModel) Stream(ctx context.Context, req Request, emit func(Chunk) error) error {
	reply := m.replies[0]
	m.replies = m.replies[1:]
	if !reply.Cancel {
		return m.inner.Stream(ctx, req, emit)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	left := len(reply.chunks())
	return m.inner.Stream(ctx, req, func(c Chunk) error {
		if left--; left == 0 {
			defer cancel()
		}
		return emit(c)
	})
}

// TestOpenAIModelEndToEnd: the four-turn scenario run against a local
// OpenAI-compatible server writes the very log the scripted model writes,
// and every request the server received carries as many messages as the
// request the log rebuilds.
func TestOpenAIModelEndToEnd(t *testing.T) {
	for _, name := range []string{"four-turn", "compaction", "crash"} {
		t.Run(name, func(t *testing.T) {
			sc, _ := FindScenario(name)
			scripts, _ := sc.Scripts()
			script := scripts[0]
			want, _ := runBuiltIn(t, name)
			replies := NewScriptedModel(script).replies
			server := &sseServer{t: t, replies: replies}
			ts := httptest.NewServer(server)
			defer ts.Close()
			model := &cancellingModel{inner: &OpenAIModel{Endpoint: ts.URL + "/v1", Model: "wire-model", APIKey: "test-key", Client: ts.Client(), RetryBase: time.Millisecond}, replies: replies}
			var out bytes.Buffer
			run, err := RunScript(context.Background(), script, model, &out)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("the log differs from the scripted model's:\n%s", firstDifference(out.Bytes(), want))
			}
			path := filepath.Join(t.TempDir(), "session.v4.jsonl")
			if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := CheckRequests(path, run.Requests); err != nil {
				t.Error(err)
			}
			limited := 0
			for _, r := range replies {
				if r.Error != nil {
					limited++
				}
			}
			if len(model.waits) != limited || limited > 0 && model.waits[0] != time.Millisecond {
				t.Errorf("the loop waited %v before retrying %d RATE_LIMIT answers, want RetryBase before each", model.waits, limited)
			}
			if len(server.bodies) != len(run.Requests) {
				t.Fatalf("the server got %d requests, the loop sent %d", len(server.bodies), len(run.Requests))
			}
			for i, body := range server.bodies {
				if got, want := len(body["messages"].([]any)), len(run.Requests[i].Messages()); got != want || body["model"] != "wire-model" || body["stream"] != true {
					t.Errorf("request %d on the wire: %d messages, model %v, stream %v; want %d messages", i+1, got, body["model"], body["stream"], want)
				}
			}
		})
	}
}

func firstDifference(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := range min(len(g), len(w)) {
		if !bytes.Equal(g[i], w[i]) {
			return fmt.Sprintf("line %d:\n  got  %s\n  want %s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}

// TestOpenAIWireRequest: the request's messages and tools in the
// chat-completions shape.
func TestOpenAIWireRequest(t *testing.T) {
	_, run := runBuiltIn(t, "four-turn")
	m := &OpenAIModel{Model: "deepseek-chat"}
	body, err := m.WireRequest(run.Requests[1])
	if err != nil {
		t.Fatal(err)
	}
	want := `{"messages":[{"role":"system","content":"You are an AI agent powered by DeepSeek Harness.\n\nYou are a test agent."},{"role":"user","content":"go"},{"role":"assistant","content":"calling echo","tool_calls":[{"id":"c1","type":"function","function":{"name":"echo","arguments":"{\"text\":\"one\"}"}}]},{"role":"tool","content":"echo: one","tool_call_id":"c1"}],"model":"deepseek-chat","stream":true,"stream_options":{"include_usage":true},"tools":[{"type":"function","function":{"name":"echo","description":"echo back","parameters":{"type":"object","properties":{"text":{"type":"string"}}}}}]}`
	if string(body) != want {
		t.Errorf("wire request\n got %s\nwant %s", body, want)
	}
}
