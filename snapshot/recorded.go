package snapshot

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dshlog/dshlog/jsonv"
)

// Recorded is what the placeholders of a normalized log stood for, as
// Normalize found them: with it, Restore gives the log back byte for byte.
type Recorded struct {
	// Cwd is the header's cwd ({{cwd}}).
	Cwd string
	// IDs maps each placeholder to the id it replaced.
	IDs map[string]string
	// Prompts are the texts of the system messages, in order ({{system}}).
	Prompts []string
	// Tools are the tools of the first request/header and of each later
	// header that changes them (reason "change"), in order ({{tools}}).
	Tools []jsonv.Value
	// Clock is the rows' times, as runs.
	Clock []ClockRun
}

// ClockRun is a run of rows whose times tick by Step per seq: the row at
// seq Seq has time Time, a later one Time + (seq - Seq)×Step, up to the
// next run. A loop's fixed clock is one run; a fork child's two or three.
type ClockRun struct {
	Seq  int64   // the run's first seq
	Time float64 // that row's time (ms)
	Step float64 // the milliseconds a seq adds
}

// RestoreOptions are the options that restore the normalized log to the
// log it came from.
func (r Recorded) RestoreOptions() RestoreOptions {
	values := Defaults()
	values.Cwd, values.IDs, values.Clock = r.Cwd, r.IDs, r.Clock
	opts := RestoreOptions{Values: values}
	if r.Prompts != nil || r.Tools != nil {
		opts.Expected = &Expected{Prompts: r.Prompts, Tools: r.Tools}
	}
	return opts
}

// Encode writes r as one JSON object: {"cwd", "ids", "prompts", "tools",
// "clock"}, ids in placeholder order and each clock run as [seq, time, step].
func (r Recorded) Encode() []byte {
	var ids []jsonv.Member
	for _, tok := range slices.SortedFunc(maps.Keys(r.IDs), comparePlaceholders) {
		ids = append(ids, jsonv.M(tok, jsonv.StringValue(r.IDs[tok])))
	}
	prompts := make([]jsonv.Value, len(r.Prompts))
	for i, p := range r.Prompts {
		prompts[i] = jsonv.StringValue(p)
	}
	runs := make([]jsonv.Value, len(r.Clock))
	for i, run := range r.Clock {
		runs[i] = jsonv.ArrayValue(jsonv.IntValue(run.Seq), jsonv.NumberValue(run.Time), jsonv.NumberValue(run.Step))
	}
	return append(jsonv.ObjectValue(
		jsonv.M("cwd", jsonv.StringValue(r.Cwd)),
		jsonv.M("ids", jsonv.ObjectValue(ids...)),
		jsonv.M("prompts", jsonv.ArrayValue(prompts...)),
		jsonv.M("tools", jsonv.ArrayValue(r.Tools...)),
		jsonv.M("clock", jsonv.ArrayValue(runs...)),
	).Encode(), '\n')
}

// comparePlaceholders orders {{kind:N}} by kind, then by N.
func comparePlaceholders(a, b string) int {
	ma, mb := tokenPattern.FindStringSubmatch(a), tokenPattern.FindStringSubmatch(b)
	if ma == nil || mb == nil || ma[1] != mb[1] {
		return strings.Compare(a, b)
	}
	return atoi(ma[2]) - atoi(mb[2])
}

// ParseRecorded reads what Recorded.Encode writes.
func ParseRecorded(text []byte) (Recorded, error) {
	v, err := jsonv.Parse(text)
	if err != nil {
		return Recorded{}, err
	}
	var r Recorded
	bad := func(what string) (Recorded, error) {
		return Recorded{}, fmt.Errorf("values: %s", what)
	}
	if v.Kind() != jsonv.Object {
		return bad("not a JSON object")
	}
	cwd, ok := v.Field("cwd").Str()
	if !ok {
		return bad(`"cwd" is not a string`)
	}
	r.Cwd = cwd
	if ids := v.Field("ids"); ids.Kind() == jsonv.Object {
		r.IDs = map[string]string{}
		for _, m := range ids.Members() {
			id, ok := m.Value.Str()
			if !ok || !tokenPattern.MatchString(m.Key) {
				return bad(fmt.Sprintf("ids: %q is not a placeholder with a string id", m.Key))
			}
			r.IDs[m.Key] = id
		}
	} else if v.Has("ids") {
		return bad(`"ids" is not an object`)
	}
	for _, p := range v.Field("prompts").Elements() {
		text, ok := p.Str()
		if !ok {
			return bad("a prompt is not a string")
		}
		r.Prompts = append(r.Prompts, text)
	}
	for _, t := range v.Field("tools").Elements() {
		if t.Kind() != jsonv.Array {
			return bad("a tool list is not an array")
		}
		r.Tools = append(r.Tools, t)
	}
	for _, run := range v.Field("clock").Elements() {
		seq, ok1 := run.Index(0).Count()
		time, ok2 := run.Index(1).Number()
		step, ok3 := run.Index(2).Number()
		if !ok1 || !ok2 || !ok3 || run.Len() != 3 {
			return bad("a clock run is not [seq, time, step]")
		}
		r.Clock = append(r.Clock, ClockRun{seq, time, step})
	}
	return r, nil
}

// clock collects the rows' times as runs.
type clock struct {
	runs []ClockRun
	last int64 // the last row's seq
}

// see takes one row's seq and time, in seq order.
func (c *clock) see(seq int64, time float64) {
	n := len(c.runs)
	if n > 0 {
		run := &c.runs[n-1]
		switch {
		case run.Seq == c.last && seq > run.Seq:
			// a run of one row takes the step its second row gives it
			run.Step = (time - run.Time) / float64(seq-run.Seq)
			if run.Time+float64(seq-run.Seq)*run.Step == time {
				c.last = seq
				return
			}
			run.Step = 0
		case run.Time+float64(seq-run.Seq)*run.Step == time:
			c.last = seq
			return
		}
	}
	c.runs = append(c.runs, ClockRun{Seq: seq, Time: time})
	c.last = seq
}

// timeAt is the time the runs give the row at seq, and whether any does.
func timeAt(runs []ClockRun, seq int64) (float64, bool) {
	i, _ := slices.BinarySearchFunc(runs, seq, func(run ClockRun, seq int64) int { return cmp.Compare(run.Seq, seq) })
	if i < len(runs) && runs[i].Seq == seq {
		return runs[i].Time, true
	}
	if i == 0 {
		return 0, false
	}
	run := runs[i-1]
	return run.Time + float64(seq-run.Seq)*run.Step, true
}
