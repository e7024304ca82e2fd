package agentloop

import (
	"context"
	"sync"
	"time"
)

// ChunkKind says what a model stream chunk carries.
type ChunkKind int

// The chunks a model streams. Blocks are implicit: the first delta with a
// new Index starts a block, and a block ends when the next one starts or
// the stream finishes.
const (
	TextDelta      ChunkKind = iota // Text is a piece of a text block
	ReasoningDelta                  // Text is a piece of a reasoning block
	ToolCallDelta                   // a piece of a tool call: ID, Name (first piece), Text (arguments)
	UsageChunk                      // InputTokens, OutputTokens
	FinishChunk                     // Finish ends the stream
)

// Chunk is one piece of a model's streamed reply.
type Chunk struct {
	Kind  ChunkKind // which of the fields below the chunk carries
	Index int       // content block index, for deltas
	Text  string    // text, reasoning or arguments piece
	// ID and Name identify a tool call; Name only on the piece that
	// introduces it.
	ID, Name                  string
	InputTokens, OutputTokens int64  // the reply's usage, for UsageChunk
	Finish                    Finish // how the stream ended, for FinishChunk
}

// Finish is how a stream ended: "stop", "tool-calls", "max-tokens", or
// "error" with the provider's failure code and message (RATE_LIMIT is
// retried in the same step).
type Finish struct {
	Kind    string
	Code    string
	Message string
	// RetryAfter is the wait a RATE_LIMIT answer asked for (its
	// Retry-After), 0 when it named none. It is not logged.
	RetryAfter time.Duration
}

// Backoff is implemented by a model whose RATE_LIMIT answers call for a
// wait before the step's request is sent again, as a live server's do:
// RetryDelay returns the wait before retry number retry (1, 2, …) after
// the failure f. The loop waits for nothing with a model that does not
// implement it, such as a script's.
type Backoff interface {
	RetryDelay(f Finish, retry int) time.Duration
}

// Model is a model client: Stream sends req and hands each chunk of the
// reply to emit, in order, ending with a FinishChunk. A user's cancel
// arrives as ctx's cancellation (or a model returns context.Canceled):
// Stream then returns ctx's error without finishing.
type Model interface {
	Stream(ctx context.Context, req Request, emit func(Chunk) error) error
}

// Recorder is a Model that keeps every request it forwards to the model it
// wraps, as frozen, in order.
type Recorder struct {
	Model Model // the model requests are forwarded to

	mu       sync.Mutex
	requests []Request
}

// Stream records req and forwards it.
func (r *Recorder) Stream(ctx context.Context, req Request, emit func(Chunk) error) error {
	r.mu.Lock()
	r.requests = append(r.requests, req)
	r.mu.Unlock()
	return r.Model.Stream(ctx, req, emit)
}

// RetryDelay is the recorded model's RetryDelay (see Backoff), or no wait
// when it has none.
func (r *Recorder) RetryDelay(f Finish, retry int) time.Duration {
	if b, ok := r.Model.(Backoff); ok {
		return b.RetryDelay(f, retry)
	}
	return 0
}

// Requests returns the requests recorded so far.
func (r *Recorder) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Request(nil), r.requests...)
}
