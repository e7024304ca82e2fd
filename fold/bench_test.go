package fold_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/dshlog/dshlog/fold"
)

// longSession builds a session of turns like the seed loop's first one
// (a user message, a tool call and its result, a closing answer), with a
// compaction replace every compactEvery turns (0: never).
func longSession(turns, compactEvery int) [][]byte {
	var events [][]byte
	add := func(format string, args ...any) {
		seq := len(events)
		row := fmt.Sprintf(`{"type":%q,"seq":%d,"time":%d,`, args[0], seq, 1000+seq) + fmt.Sprintf(format, args[1:]...) + "}"
		events = append(events, []byte(row))
	}
	stream := `"stream":[{"type":"chunk","time":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}},{"type":"chunk","time":2,"chunk":{"type":"text-delta","index":0,"text":"` + fmt.Sprintf("%0512d", 0) + `"}}]`
	add(`"data":{"turn":1,"step":1,"message":{"role":"system","content":[{"type":"text","text":"be brief"}],"source":{"kind":"system-prompt"},"id":"sys"}},"surfaceOp":"append"`, "system/message")
	firstNode := int64(0)
	for t := 1; t <= turns; t++ {
		add(`"data":{"turn":%d}`, "turn/start", t)
		add(`"data":{"turn":%d,"step":1}`, "step/start", t)
		user := len(events)
		add(`"data":{"content":[{"type":"text","text":"question %d"}],"source":{"kind":"user"},"role":"user","id":"u%d"},"surfaceOp":"append"`, "user/message", t, t)
		if t == 1 {
			add(`"data":{"header":{"config":{"provider":"p","model":"m"},"tools":[{"name":"bash","description":"run","parameters":{}}]},"reason":"initial"}`, "request/header")
		}
		add(`"data":{"turn":%d,"step":1,"message":{"role":"assistant","content":[{"type":"tool-call","id":"c%d","name":"bash","arguments":"{}"}],"source":{"kind":"model","provider":"p","model":"m"},"id":"a%d"},%s},"surfaceOp":"append"`, "assistant/message", t, t, t, stream)
		call := len(events)
		add(`"data":{"turn":%d,"step":1,"callId":"c%d","name":"bash","arguments":"{}"}`, "tool/call", t, t)
		add(`"data":{"turn":%d,"step":1,"message":{"role":"tool","source":{"kind":"tool","callId":"c%d"},"toolCallId":"c%d","content":[{"type":"text","text":"ok"}],"isError":false,"id":"r%d"}},"sourceEventSeqs":[%d],"surfaceOp":"append"`, "tool/result", t, t, t, t, call)
		add(`"data":{"turn":%d,"step":1}`, "step/end", t)
		add(`"data":{"turn":%d,"step":2}`, "step/start", t)
		last := len(events)
		add(`"data":{"turn":%d,"step":2,"message":{"role":"assistant","content":[{"type":"text","text":"answer %d"}],"source":{"kind":"model","provider":"p","model":"m"},"id":"b%d"},%s},"surfaceOp":"append"`, "assistant/message", t, t, t, stream)
		add(`"data":{"turn":%d,"step":2}`, "step/end", t)
		add(`"data":{"turn":%d,"reason":{"kind":"completed"}}`, "turn/end", t)
		if compactEvery > 0 && t%compactEvery == 0 {
			if firstNode == 0 {
				firstNode = int64(user)
			}
			add(`"data":{"content":[{"type":"text","text":"summary"}],"source":{"kind":"compaction"},"role":"user","id":"s%d"},"sourceEventSeqs":[[%d,%d]],"surfaceOp":{"op":"replace","startSeq":%d,"endSeq":%d}`, "user/message", t, firstNode, last, firstNode, last)
			firstNode = int64(len(events) - 1)
		}
	}
	return events
}

// foldRows parses each row as the session reader does (a fresh copy of the
// line each time) and folds it, so the fold keeps only what it chooses to.
func foldRows(b *testing.B, rows [][]byte) *fold.Fold {
	f := fold.New()
	for _, row := range rows {
		if err := f.Apply(event(b, string(row))); err != nil {
			b.Fatal(err)
		}
	}
	return f
}

// BenchmarkFold folds a long session (20,000 turns, 220,000 events, every
// assistant row carrying a 0.5 KB stream) from its rows and reports events
// per second and the heap the fold holds per surface node afterwards.
func BenchmarkFold(b *testing.B) {
	for _, tc := range []struct {
		name         string
		compactEvery int
	}{{"uncompacted", 0}, {"compacted-every-50-turns", 50}} {
		b.Run(tc.name, func(b *testing.B) {
			rows := longSession(20000, tc.compactEvery)
			b.ResetTimer()
			for range b.N {
				foldRows(b, rows)
			}
			b.StopTimer()
			b.ReportMetric(float64(len(rows)*b.N)/b.Elapsed().Seconds(), "events/s")
			// What a fold keeps once the rows it read are garbage.
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			f := foldRows(b, rows)
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric((float64(after.HeapAlloc)-float64(before.HeapAlloc))/float64(len(f.Surface())), "held-B/node")
			b.ReportMetric(float64(len(f.Surface())), "nodes")
			runtime.KeepAlive(f)
			runtime.KeepAlive(rows)
		})
	}
}
