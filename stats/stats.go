// Package stats counts what happened in dsh sessions: turns, steps and
// requests; tool calls by tool with their errors and durations; retries,
// cancels, compactions and repaired crashes; the models used; the tokens of
// the logged usage with the share served from the provider's prefix cache;
// and every prefix-cache break, with its cause (from verify's request
// chain) and the input tokens it put back in front of the model.
//
// Collect reads a session file twice, front to back: once through
// verify.Check for the request chain, once to count. It holds counters, one
// entry per tool name, model and break, and the tool calls of the open step
// still waiting for their results; never an event once counted.
package stats

import (
	"errors"
	"io"
	"sort"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/verify"
	"github.com/dshlog/dshlog/vocab"
)

// Counts are the events of a session, or of several, counted by kind.
type Counts struct {
	Turns    int `json:"turns"`
	Steps    int `json:"steps"`
	Requests int `json:"requests"`
	// FailedRequests are the requests settled as assistant/attempt; Retries
	// the requests sent again in the same step after one failed.
	FailedRequests int `json:"failedRequests"`
	Retries        int `json:"retries"`
	// Cancels are turns that ended aborted; CrashesRepaired turns closed
	// by dsh's crash repair (turn/end interrupted); Compactions count
	// compaction/start events.
	Cancels         int `json:"cancels"`
	CrashesRepaired int `json:"crashesRepaired"`
	Compactions     int `json:"compactions"`
}

// add adds o to c.
func (c *Counts) add(o Counts) {
	c.Turns += o.Turns
	c.Steps += o.Steps
	c.Requests += o.Requests
	c.FailedRequests += o.FailedRequests
	c.Retries += o.Retries
	c.Cancels += o.Cancels
	c.CrashesRepaired += o.CrashesRepaired
	c.Compactions += o.Compactions
}

// Session is the statistics of one session log.
type Session struct {
	Path   string `json:"path"`
	ID     string `json:"id"`
	Format int    `json:"format"`
	// Complete is false when dsh refuses the log part way: the counts then
	// cover the events before the refusal, and Problem says why.
	Complete bool   `json:"complete"`
	Problem  string `json:"problem,omitempty"`

	Counts

	Tools  []Tool  `json:"tools"`
	Models []Model `json:"models"`
	Usage  Usage   `json:"usage"`

	// Chain is verify's request chain: how many requests extend the
	// previous one. Breaks are the others, each with its cost.
	Extending int     `json:"extending"`
	Breaks    []Break `json:"breaks"`
}

// Tool is the use of one tool: the calls the model asked for, the errors
// their results reported, and the time from tool/call to tool/result.
type Tool struct {
	Name   string `json:"name"`
	Calls  int    `json:"calls"`
	Errors int    `json:"errors"`
	// Timed counts the calls with a logged tool/call and result;
	// TotalMS and MaxMS are their durations in milliseconds.
	Timed   int   `json:"timed"`
	TotalMS int64 `json:"totalMs"`
	MaxMS   int64 `json:"maxMs"`
}

// Model is one provider and model, with the requests sent to it (the
// request header in force at each settlement).
type Model struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Requests int    `json:"requests"`
	Usage    Usage  `json:"usage"`
}

// Usage sums dsh's TokenUsage over requests. Logged counts the requests
// whose settlement carries a usage; CacheLogged those that report
// cacheReadTokens, over which CacheHitShare is taken.
type Usage struct {
	InputTokens      int64 `json:"inputTokens"`
	OutputTokens     int64 `json:"outputTokens"`
	CacheReadTokens  int64 `json:"cacheReadTokens"`
	CacheWriteTokens int64 `json:"cacheWriteTokens"`
	ReasoningTokens  int64 `json:"reasoningTokens"`
	Logged           int   `json:"logged"`
	// CacheLogged and CacheLoggedInput are the requests reporting
	// cacheReadTokens and their input tokens.
	CacheLogged      int   `json:"cacheLogged"`
	CacheLoggedInput int64 `json:"cacheLoggedInput"`
}

// CacheHitShare is the share of input tokens served from the prefix cache,
// over the requests that report it; ok is false when none does. dsh's
// inputTokens count the whole prompt, cacheReadTokens the part of it read
// from the cache.
func (u Usage) CacheHitShare() (share float64, ok bool) {
	if u.CacheLogged == 0 || u.CacheLoggedInput == 0 {
		return 0, false
	}
	return float64(u.CacheReadTokens) / float64(u.CacheLoggedInput), true
}

// Add adds the usage of o to u.
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CacheReadTokens += o.CacheReadTokens
	u.CacheWriteTokens += o.CacheWriteTokens
	u.ReasoningTokens += o.ReasoningTokens
	u.Logged += o.Logged
	u.CacheLogged += o.CacheLogged
	u.CacheLoggedInput += o.CacheLoggedInput
}

// Break is a request that does not extend the previous one: the provider's
// prefix cache cannot serve it past the point where the two part.
type Break struct {
	verify.Break
	// PutBack is the input tokens the break put back in front of the model
	// afresh: the breaking request's inputTokens, less its cacheReadTokens
	// when it reports them; UsageLogged is false (and PutBack 0) when its
	// settlement logs no usage.
	PutBack     int64 `json:"putBack"`
	UsageLogged bool  `json:"usageLogged"`
}

// usageOf reads a TokenUsage object.
func usageOf(v jsonv.Value) (Usage, bool) {
	if v.Kind() != jsonv.Object {
		return Usage{}, false
	}
	count := func(key string) int64 {
		n, _ := v.Field(key).Count()
		return n
	}
	u := Usage{
		InputTokens: count("inputTokens"), OutputTokens: count("outputTokens"),
		CacheReadTokens: count("cacheReadTokens"), CacheWriteTokens: count("cacheWriteTokens"),
		ReasoningTokens: count("reasoningTokens"), Logged: 1,
	}
	if v.Has("cacheReadTokens") {
		u.CacheLogged, u.CacheLoggedInput = 1, u.InputTokens
	}
	return u, true
}

// Collect reads the session file at path and returns its statistics. A log
// dsh refuses is counted up to the refusal (Complete false, Problem set;
// nothing is counted of one whose header it refuses); the error is for a
// file that cannot be opened or read. A historical log's
// subagent children are found as dsh finds them.
// The session is read as the dsh build whose vocabulary is v wrote it (nil:
// the default build).
func Collect(path string, v *vocab.Vocabulary) (Session, error) {
	return collect(path, v, migrate.OpenOptions{})
}

// CollectWithChildren is Collect with the subagent children of a
// historical log given (listing.ReadHeaders finds them for a whole store
// at once) instead of searched for in its store.
func CollectWithChildren(path string, children []string, v *vocab.Vocabulary) (Session, error) {
	return collect(path, v, migrate.OpenOptions{ChildFiles: children, ChildFilesOnly: true})
}

func collect(path string, v *vocab.Vocabulary, opts migrate.OpenOptions) (Session, error) {
	opts.Options = migrate.Options{Recovery: v2.Recoverable, Vocabulary: v}
	opts.AnyZstdFraming = true
	open := func(path string) (*migrate.Source, error) { return migrate.Open(path, nil, opts) }
	s := Session{Path: path, Complete: true, Tools: []Tool{}, Models: []Model{}, Breaks: []Break{}}
	src, err := open(path)
	if refused, ok := migrate.HeaderRefusal(err); ok {
		s.Complete, s.Problem = false, refused.Text()
		return s, nil
	}
	if err != nil {
		return s, err
	}
	chain, err := verify.Check(src.Reader, func(f verify.Finding) {
		if s.Problem == "" && f.Refuses() {
			s.Problem = f.Message
		}
	})
	src.Close()
	if err != nil {
		return s, err
	}
	s.Complete = chain.Complete && s.Problem == ""
	s.Extending = chain.Extending
	breaks := make(map[int64]int, len(chain.Breaks))
	for i, b := range chain.Breaks {
		s.Breaks = append(s.Breaks, Break{Break: b})
		breaks[b.Seq] = i
	}

	src, err = open(path)
	if err != nil {
		return s, err
	}
	defer src.Close()
	s.ID, s.Format = src.Header.ID, src.SourceVersion
	c := newCounter(&s, breaks)
	for {
		ev, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var refusal *session.Refusal
			if errors.As(err, &refusal) {
				break // verify's pass reported it
			}
			return s, err
		}
		c.event(ev)
	}
	c.finish()
	return s, nil
}

// counter counts events into a Session.
type counter struct {
	s        *Session
	breaks   map[int64]int // break index by settlement seq
	tools    map[string]*Tool
	models   map[[2]string]*Model
	provider string
	model    string
	names    map[string]string // tool name by call id, from the open turn's assistant messages
	started  map[string]int64  // tool/call time by call id
	failed   [2]int64          // turn and step of the last failed attempt, or -1
}

func newCounter(s *Session, breaks map[int64]int) *counter {
	return &counter{s: s, breaks: breaks, tools: map[string]*Tool{}, models: map[[2]string]*Model{},
		names: map[string]string{}, started: map[string]int64{}, failed: [2]int64{-1, -1}}
}

func (c *counter) tool(name string) *Tool {
	t := c.tools[name]
	if t == nil {
		t = &Tool{Name: name}
		c.tools[name] = t
	}
	return t
}

func (c *counter) event(ev session.Event) {
	s, data := c.s, ev.Data()
	switch ev.Type {
	case "turn/start":
		s.Turns++
		clear(c.names)
		clear(c.started)
	case "step/start":
		s.Steps++
	case "turn/end":
		switch data.Field("reason").Field("kind").Text() {
		case "aborted":
			s.Cancels++
		case "interrupted":
			s.CrashesRepaired++
		}
	case "compaction/start":
		s.Compactions++
	case "request/header":
		config := data.Field("header").Field("config")
		c.provider, c.model = config.Field("provider").Text(), config.Field("model").Text()
	case "assistant/message", "assistant/attempt":
		c.settlement(ev)
	case "tool/call":
		id := data.Field("callId").Text()
		c.started[id] = ev.Time
		if _, known := c.names[id]; !known {
			c.names[id] = data.Field("name").Text()
			c.tool(data.Field("name").Text()).Calls++
		}
	case "tool/result":
		message := data.Field("message")
		id := message.Field("source").Field("callId").Text()
		name, known := c.names[id]
		if !known {
			return
		}
		t := c.tool(name)
		if message.Field("isError").IsTrue() {
			t.Errors++
		}
		if start, ok := c.started[id]; ok {
			d := ev.Time - start
			t.Timed++
			t.TotalMS += d
			t.MaxMS = max(t.MaxMS, d)
			delete(c.started, id)
		}
	}
}

// settlement counts a request.
func (c *counter) settlement(ev session.Event) {
	s, data := c.s, ev.Data()
	turn, _ := data.Field("turn").Count()
	step, _ := data.Field("step").Count()
	s.Requests++
	if c.failed == [2]int64{turn, step} {
		s.Retries++
	}
	c.failed = [2]int64{-1, -1}
	if ev.Type == "assistant/attempt" {
		s.FailedRequests++
		c.failed = [2]int64{turn, step}
	}
	key := [2]string{c.provider, c.model}
	m := c.models[key]
	if m == nil {
		m = &Model{Provider: c.provider, Model: c.model}
		c.models[key] = m
	}
	m.Requests++
	usage, logged := usageOf(data.Field("usage"))
	if logged {
		s.Usage.Add(usage)
		m.Usage.Add(usage)
	}
	if i, ok := c.breaks[ev.Seq]; ok && logged {
		b := &s.Breaks[i]
		b.UsageLogged = true
		b.PutBack = usage.InputTokens
		if usage.CacheLogged > 0 {
			b.PutBack = max(0, usage.InputTokens-usage.CacheReadTokens)
		}
	}
	for _, block := range data.Field("message").Field("content").Elements() {
		if block.Field("type").Text() == "tool-call" {
			id, name := block.Field("id").Text(), block.Field("name").Text()
			c.names[id] = name
			c.tool(name).Calls++
		}
	}
}

// finish orders the tools and models for output.
func (c *counter) finish() {
	c.s.Tools, c.s.Models = c.ordered()
}

// ordered returns the tools and models counted so far, in output order.
func (c *counter) ordered() ([]Tool, []Model) {
	tools := make([]Tool, 0, len(c.tools))
	for _, t := range c.tools {
		tools = append(tools, *t)
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	models := make([]Model, 0, len(c.models))
	for _, m := range c.models {
		models = append(models, *m)
	}
	sort.Slice(models, func(i, j int) bool {
		a, b := models[i], models[j]
		if a.Provider != b.Provider {
			return a.Provider < b.Provider
		}
		return a.Model < b.Model
	})
	return tools, models
}

// Cause is the breaks of one cause and the input tokens they put back.
type Cause struct {
	Cause   verify.Cause `json:"cause"`
	Breaks  int          `json:"breaks"`
	PutBack int64        `json:"putBack"`
	// Unlogged counts the breaks whose request logs no usage.
	Unlogged int `json:"unlogged"`
}

// Total is the statistics of several sessions added up.
type Total struct {
	Sessions int `json:"sessions"`
	Counts
	Extending int     `json:"extending"`
	Tools     []Tool  `json:"tools"`
	Models    []Model `json:"models"`
	Usage     Usage   `json:"usage"`
	// Causes are the breaks grouped by cause, in verify.Causes order, each
	// cause listed (with zero breaks when none).
	Causes []Cause `json:"causes"`
}

// Sum adds up sessions.
func Sum(sessions []Session) Total {
	t := Total{Sessions: len(sessions), Tools: []Tool{}, Models: []Model{}}
	tools := map[string]int{}
	models := map[[2]string]int{}
	causes := map[verify.Cause]int{}
	for i, cause := range verify.Causes {
		t.Causes = append(t.Causes, Cause{Cause: cause})
		causes[cause] = i
	}
	for _, s := range sessions {
		t.Counts.add(s.Counts)
		t.Extending += s.Extending
		t.Usage.Add(s.Usage)
		for _, tool := range s.Tools {
			i, ok := tools[tool.Name]
			if !ok {
				i = len(t.Tools)
				tools[tool.Name] = i
				t.Tools = append(t.Tools, Tool{Name: tool.Name})
			}
			sum := &t.Tools[i]
			sum.Calls += tool.Calls
			sum.Errors += tool.Errors
			sum.Timed += tool.Timed
			sum.TotalMS += tool.TotalMS
			sum.MaxMS = max(sum.MaxMS, tool.MaxMS)
		}
		for _, m := range s.Models {
			key := [2]string{m.Provider, m.Model}
			i, ok := models[key]
			if !ok {
				i = len(t.Models)
				models[key] = i
				t.Models = append(t.Models, Model{Provider: m.Provider, Model: m.Model})
			}
			t.Models[i].Requests += m.Requests
			t.Models[i].Usage.Add(m.Usage)
		}
		for _, b := range s.Breaks {
			i, ok := causes[b.Cause]
			if !ok { // a cause verify.Causes does not list
				i = len(t.Causes)
				causes[b.Cause] = i
				t.Causes = append(t.Causes, Cause{Cause: b.Cause})
			}
			c := &t.Causes[i]
			c.Breaks++
			c.PutBack += b.PutBack
			if !b.UsageLogged {
				c.Unlogged++
			}
		}
	}
	sort.Slice(t.Tools, func(i, j int) bool { return t.Tools[i].Name < t.Tools[j].Name })
	sort.Slice(t.Models, func(i, j int) bool {
		a, b := t.Models[i], t.Models[j]
		if a.Provider != b.Provider {
			return a.Provider < b.Provider
		}
		return a.Model < b.Model
	})
	return t
}
