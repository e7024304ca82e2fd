package agentloop

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// FuzzParseScript: no script text makes ParseScript or a run of what it
// accepts panic, and a run either fails or writes a log the reader takes.
func FuzzParseScript(f *testing.F) {
	f.Add([]byte(`{"session":"s","provider":"p","model":"m","tools":["echo"],"turns":[{"user":"u","replies":[{"text":["a","b"],"toolCalls":[{"id":"c","name":"echo","args":["{\"text\":","\"x\"}"]}]},{"error":{"code":"RATE_LIMIT"}},{"text":["done"]}]}]}`))
	f.Add([]byte(`{"session":"s","provider":"p","model":"m","turns":[{"user":"u","replies":[{"reasoning":["r"],"cancel":true}]}]}`))
	f.Add([]byte(`{"session":"s","provider":"p","model":"m","tools":["deploy"],"turns":[{"user":"u","crashIn":"c","replies":[{"toolCalls":[{"id":"c","name":"deploy","args":["{\"env\":\"x\"}"]}]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseScript(data)
		if err != nil {
			return
		}
		replies := 0
		for _, turn := range s.Turns {
			replies += len(turn.Replies)
		}
		if replies > 40 || s.Fork != nil {
			return // keep each run short
		}
		var out bytes.Buffer
		if _, err := RunScript(context.Background(), s, nil, &out); err != nil {
			return
		}
		// What the loop wrote passed dsh's admission row by row; the whole
		// must also be a session the reader takes.
		if err := readEventsOrError(out.Bytes()); err != nil {
			t.Errorf("a run of an accepted script wrote a log the reader refuses: %v\n%s", err, data)
		}
	})
}

// FuzzServerEvents: no stream of server-sent events makes the OpenAI
// client's reader panic.
func FuzzServerEvents(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"echo\",\"arguments\":\"{\"}}]}}]}\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &reply{}
		_ = readServerEvents(bytes.NewReader(data), newDeltaState(func(c Chunk) error { r.add(c); return nil }))
		_ = r.stream().Encode()
		_ = r.content(strings.Contains(string(data), "cancel"))
	})
}
