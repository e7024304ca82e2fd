package agentloop

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"
)

// TestRetryAfter reads Retry-After as RFC 9110 writes it: seconds or an
// HTTP date, capped at a minute; anything else asks for no wait.
func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		header string
		want   time.Duration
	}{
		{"", 0},
		{"2", 2 * time.Second},
		{" 7 ", 7 * time.Second},
		{"0", 0},
		{"-3", 0},
		{"120", time.Minute},
		{now.Add(30 * time.Second).Format(http.TimeFormat), 30 * time.Second},
		{now.Add(-time.Second).Format(http.TimeFormat), 0},
		{"soon", 0},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.header, now); got != tt.want {
			t.Errorf("Retry-After %q: %v, want %v", tt.header, got, tt.want)
		}
	}
}

// TestOpenAIRetryDelay: the server's Retry-After when it names one (at
// most a minute), else RetryBase (a second by default) doubling per retry.
func TestOpenAIRetryDelay(t *testing.T) {
	limited := Finish{Kind: "error", Code: "RATE_LIMIT"}
	tests := []struct {
		model OpenAIModel
		f     Finish
		retry int
		want  time.Duration
	}{
		{OpenAIModel{}, Finish{Kind: "error", Code: "RATE_LIMIT", RetryAfter: 5 * time.Second}, 1, 5 * time.Second},
		{OpenAIModel{}, Finish{Kind: "error", Code: "RATE_LIMIT", RetryAfter: time.Hour}, 2, time.Minute},
		{OpenAIModel{}, limited, 1, time.Second},
		{OpenAIModel{}, limited, 2, 2 * time.Second},
		{OpenAIModel{}, limited, 3, 4 * time.Second},
		{OpenAIModel{RetryBase: 10 * time.Millisecond}, limited, 3, 40 * time.Millisecond},
		{OpenAIModel{}, limited, 40, time.Minute},
	}
	for _, tt := range tests {
		if got := tt.model.RetryDelay(tt.f, tt.retry); got != tt.want {
			t.Errorf("RetryBase %v, %+v, retry %d: %v, want %v", tt.model.RetryBase, tt.f, tt.retry, got, tt.want)
		}
	}
}

// TestRateLimitAnswerAsksForItsWait: a live server's 429 becomes a
// RATE_LIMIT finish carrying its Retry-After.
func TestRateLimitAnswerAsksForItsWait(t *testing.T) {
	f := httpFailure(&http.Response{
		StatusCode: http.StatusTooManyRequests,
		Status:     "429 Too Many Requests",
		Header:     http.Header{"Retry-After": {"3"}},
		Body:       http.NoBody,
	})
	if f.Code != "RATE_LIMIT" || f.RetryAfter != 3*time.Second || f.Message != "429 Too Many Requests" {
		t.Fatalf("%+v", f)
	}
}

// backoffModel is a script's model that asks for a wait before each
// retry: it records what the loop asked, and may cancel the run then.
type backoffModel struct {
	*ScriptedModel
	delay  time.Duration
	cancel context.CancelFunc // called when asked, if set
	asked  []Finish
	retry  []int
}

func (m *backoffModel) RetryDelay(f Finish, retry int) time.Duration {
	m.asked, m.retry = append(m.asked, f), append(m.retry, retry)
	if m.cancel != nil {
		m.cancel()
	}
	return m.delay
}

// TestLoopWaitsBeforeRetry: the loop asks a Backoff model for the wait
// before retrying a RATE_LIMIT, once per retry, through RunScript's
// recorder; the wait leaves the log as it is without one.
func TestLoopWaitsBeforeRetry(t *testing.T) {
	sc, _ := FindScenario("four-turn")
	scripts, _ := sc.Scripts()
	var plain, waited bytes.Buffer
	if _, err := RunScript(context.Background(), scripts[0], nil, &plain); err != nil {
		t.Fatal(err)
	}
	m := &backoffModel{ScriptedModel: NewScriptedModel(scripts[0]), delay: time.Millisecond}
	if _, err := RunScript(context.Background(), scripts[0], m, &waited); err != nil {
		t.Fatal(err)
	}
	if len(m.asked) != 1 || m.asked[0].Code != "RATE_LIMIT" || m.retry[0] != 1 {
		t.Fatalf("asked %+v for retries %v, want one RATE_LIMIT, retry 1", m.asked, m.retry)
	}
	if !bytes.Equal(plain.Bytes(), waited.Bytes()) {
		t.Error("the log differs when the loop waits before the retry")
	}
}

// TestCancelWhileWaitingToRetry: a user's cancel during the wait ends the
// turn aborted at once, with no further request.
func TestCancelWhileWaitingToRetry(t *testing.T) {
	sc, _ := FindScenario("four-turn")
	scripts, _ := sc.Scripts()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := &backoffModel{ScriptedModel: NewScriptedModel(scripts[0]), delay: time.Hour, cancel: cancel}
	var out bytes.Buffer
	run, err := RunScript(ctx, scripts[0], m, &out)
	if err != nil {
		t.Fatal(err)
	}
	events := readEvents(t, out.Bytes())
	last := events[len(events)-1]
	if !run.Interrupted || last.Type != "turn/end" || last.Data().Field("reason").String() != `{"kind":"aborted","reason":{"kind":"user"}}` {
		t.Fatalf("interrupted %v, last event %s %s", run.Interrupted, last.Type, last.Row)
	}
	attempt, stepEnd := events[len(events)-3], events[len(events)-2]
	if attempt.Type != "assistant/attempt" || !bytes.Contains(attempt.Row.Encode(), []byte(`"RATE_LIMIT"`)) || stepEnd.Type != "step/end" {
		t.Errorf("the turn ends %s %s, %s; want the RATE_LIMIT attempt, then step/end", attempt.Type, attempt.Row, stepEnd.Type)
	}
}
