package stats

import (
	"io"
	"slices"

	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/session"
	"github.com/dshlog/dshlog/verify"
)

// Live counts a session in one pass, an event at a time, as it is read:
// for a session dsh is still writing (dshlog stats --follow), where the
// figures and each prefix-cache break are shown as they arrive. Each event
// is judged by a verify.Checker (the request chain) and then counted, so a
// break is known, with the input tokens it put back, when its request's
// settlement is read. It holds what Collect holds.
type Live struct {
	s       Session
	checker *verify.Checker
	counter *counter
	breaks  map[int64]int // break index by settlement seq
	ended   bool
}

// Step is what one event added to a live session's figures.
type Step struct {
	Event session.Event
	// Request is the number (from 1) of the request the event settles, 0
	// when it settles none; Usage is that request's usage, when Logged.
	Request int
	Usage   Usage
	Logged  bool
	// Break is the prefix-cache break the request is, or nil.
	Break *Break
}

// NewLive returns the Live count of the session src reads; path names it
// in the Session.
func NewLive(src *migrate.Reader, path string) *Live {
	l := &Live{s: Session{Path: path, ID: src.Header.ID, Format: src.SourceVersion, Complete: true,
		Tools: []Tool{}, Models: []Model{}, Breaks: []Break{}}, breaks: map[int64]int{}}
	l.checker = verify.NewChecker(src, func(f verify.Finding) {
		if l.s.Problem == "" && f.Refuses() {
			l.s.Problem = f.Message
		}
	})
	l.counter = newCounter(&l.s, l.breaks)
	return l
}

// Next reads, judges and counts the next event; io.EOF after the last one
// (or after a refusal, which Session's Problem then says). Any other error
// means the input could not be read.
func (l *Live) Next() (Step, error) {
	ev, err := l.checker.Next()
	if err == io.EOF && !l.ended {
		l.ended = true
		l.s.Complete = l.checker.Chain().Complete && l.s.Problem == ""
	}
	if err != nil {
		return Step{}, err
	}
	chain := l.checker.Chain()
	l.s.Extending = chain.Extending
	for _, b := range chain.Breaks[len(l.s.Breaks):] {
		l.breaks[b.Seq] = len(l.s.Breaks)
		l.s.Breaks = append(l.s.Breaks, Break{Break: b})
	}
	step := Step{Event: ev}
	if !fold.IsSettlement(ev.Type) {
		l.counter.event(ev)
		return step, nil
	}
	before := l.s.Usage
	l.counter.event(ev)
	step.Request = l.s.Requests
	step.Logged = l.s.Usage.Logged > before.Logged
	step.Usage = l.s.Usage
	step.Usage.subtract(before)
	if i, ok := l.breaks[ev.Seq]; ok {
		b := l.s.Breaks[i]
		step.Break = &b
	}
	return step, nil
}

// Session returns the statistics of the events read so far.
func (l *Live) Session() Session {
	s := l.s
	s.Tools, s.Models = l.counter.ordered()
	s.Breaks = slices.Clone(l.s.Breaks)
	return s
}

// subtract takes o, a part of u, off u.
func (u *Usage) subtract(o Usage) {
	u.InputTokens -= o.InputTokens
	u.OutputTokens -= o.OutputTokens
	u.CacheReadTokens -= o.CacheReadTokens
	u.CacheWriteTokens -= o.CacheWriteTokens
	u.ReasoningTokens -= o.ReasoningTokens
	u.Logged -= o.Logged
	u.CacheLogged -= o.CacheLogged
	u.CacheLoggedInput -= o.CacheLoggedInput
}
