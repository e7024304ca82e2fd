package inspect

// The summaries as they were written before they were built in one buffer,
// kept as the oracle the appending code must agree with, byte for byte.

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// refDescribe returns the description of ev.
func refDescribe(ev session.Event) Description {
	data := ev.Data()
	d := Description{Seq: ev.Seq, Time: ev.Time, Type: ev.Type, Surface: ev.SurfaceOp()}
	d.Turn, d.HasTurn = data.Field("turn").SafeInt()
	d.Step, d.HasStep = data.Field("step").SafeInt()
	summary := refSummarize(ev.Type, data)
	if seqs, ok := ev.SourceEventSeqs(); ok {
		summary = refJoin(summary, "(from "+refSeqList(seqs)+")")
	}
	if ev.Ignorable() {
		summary = refJoin(summary, "(ignorable)")
	}
	d.Summary = refTruncate(summary, summaryRunes)
	return d
}

// refSeqList writes seqs compactly: runs of three or more as "a..b", the rest
// one by one, comma-separated ("5,8..10,13").
func refSeqList(seqs []int64) string {
	var parts []string
	for i := 0; i < len(seqs); {
		j := i + 1
		for j < len(seqs) && seqs[j] == seqs[j-1]+1 {
			j++
		}
		if j-i >= 3 {
			parts = append(parts, refSeqSpan(seqs[i], seqs[j-1]))
		} else {
			for _, s := range seqs[i:j] {
				parts = append(parts, refItoa(s))
			}
		}
		i = j
	}
	return strings.Join(parts, ",")
}

// refSummarize picks the summary of an event type; types without their own
// summary list their scalar data fields.
func refSummarize(eventType string, data jsonv.Value) string {
	switch eventType {
	case "user/message":
		return refMessage(data)
	case "system/message", "assistant/message", "tool/result":
		s := refMessage(data.Field("message"))
		if data.Field("interrupted").IsTrue() {
			s = refJoin(s, "[interrupted]")
		}
		if code := data.Field("error").Field("code").Text(); code != "" {
			s = refJoin(s, "error "+code)
		}
		return s
	case "assistant/attempt":
		return refAttempt(data)
	case "tool/call":
		return refCall(data.Field("name").Text(), data.Field("callId").Text(), data.Field("arguments"))
	case "turn/end":
		return refReason(data.Field("reason"))
	case "request/header":
		return refRequestHeader(data)
	case "request/context":
		return refRequestContext(data)
	case "agent/inbox/spliced":
		return refSpliced(data)
	case "session/title":
		return refQuote(data.Field("title").Text()) + " (messages " + refSeqList(refCounts(data.Field("messageSeqs"))) + ")"
	case "compaction/summary":
		return refCompactionSummary(data)
	case "working-directory/change":
		return "working directory changed to " + refQuote(data.Field("cwd").Text())
	}
	return refFields(data)
}

// refDefaultSource is the source kind a message of each role usually has; the
// summary names the source only when it is another one.
var refDefaultSource = map[string]string{
	"system":    "system-prompt",
	"user":      "user",
	"assistant": "model",
	"tool":      "tool",
}

// refMessage summarizes a message: its role (and unusual source), the tool call
// a tool message answers, a text preview and the tool calls it makes.
func refMessage(m jsonv.Value) string {
	role := m.Field("role").Text()
	head := role
	if kind := m.Field("source").Field("kind").Text(); kind != "" && kind != refDefaultSource[role] {
		head += " (" + kind + ")"
	}
	if id := m.Field("toolCallId").Text(); id != "" {
		head += " " + id
	}
	var texts []string
	var calls []string
	for _, block := range m.Field("content").Elements() {
		// Peek: a block skipped (reasoning) is not decoded, its text not copied.
		typ, _ := block.Peek("type")
		switch typ.Text() {
		case "text":
			texts = append(texts, block.Field("text").Text())
		case "tool-call":
			calls = append(calls, block.Field("name").Text()+"("+block.Field("id").Text()+")")
		case "tool-result": // the v0..v3 tool message shape
			head = refJoin(head, block.Field("toolCallId").Text())
			texts = append(texts, refContentText(block.Field("content")))
		}
	}
	s := head + ":"
	if len(texts) > 0 {
		s = refJoin(s, strconv.Quote(refCutJoined(texts, previewRunes)))
	}
	if len(calls) > 0 {
		s = refJoin(s, "calls "+strings.Join(calls, ", "))
	}
	if m.Field("isError").IsTrue() {
		s = refJoin(s, "[error]")
	}
	return s
}

// refContentText joins the text of a content value: a string or a block list.
func refContentText(content jsonv.Value) string {
	if s, ok := content.Str(); ok {
		return s
	}
	var texts []string
	for _, block := range content.Elements() {
		if text, ok := block.Field("text").Str(); ok {
			texts = append(texts, text)
		}
	}
	return strings.Join(texts, " ")
}

// refAttempt summarizes a failed model request by its finish reason.
func refAttempt(data jsonv.Value) string {
	for _, entry := range data.Field("stream").Elements() {
		chunk := entry.Field("chunk")
		if chunk.Field("type").Text() != "finish" {
			continue
		}
		r := chunk.Field("reason")
		failure := r.Field("failure")
		if code := failure.Field("code").Text(); code != "" {
			return refJoin("failed "+code, refQuote(failure.Field("message").Text()))
		}
		return "finished " + refReason(r)
	}
	return refItoa(int64(data.Field("stream").Len())) + " stream entries, no finish"
}

// refCall summarizes a tool call: name(id) and an argument preview.
func refCall(name, id string, arguments jsonv.Value) string {
	args, ok := arguments.Str()
	if !ok {
		args = arguments.String()
	}
	return refJoin(name+"("+id+")", refPreview(args))
}

// refReason writes a reason object by its kind, nested reasons in parentheses:
// "completed", "aborted (user)".
func refReason(r jsonv.Value) string {
	kind := r.Field("kind").Text()
	if inner := r.Field("reason"); inner.Kind() == jsonv.Object {
		return kind + " (" + refReason(inner) + ")"
	}
	if kind == "" {
		return r.String()
	}
	return kind
}

func refRequestHeader(data jsonv.Value) string {
	header := data.Field("header")
	s := data.Field("reason").Text() + ":"
	if model := refProviderModel(header.Field("config")); model != "" {
		s = refJoin(s, model)
	}
	tools := header.Field("tools")
	switch tools.Kind() {
	case jsonv.Array:
		s = refJoin(s+",", refPlural(tools.Len(), "tool"))
	case jsonv.String: // a snapshot's {{tools}} placeholder
		s = refJoin(s+",", "tools "+tools.Text())
	}
	return s
}

func refRequestContext(data jsonv.Value) string {
	s := refProviderModel(data)
	if window, ok := data.Field("contextWindow").SafeInt(); ok {
		s = refJoin(s+",", "context window "+refItoa(window))
	}
	if data.Has("systemPromptUpdate") {
		s = refJoin(s+",", "system prompt update")
	}
	return s
}

func refProviderModel(v jsonv.Value) string {
	provider, model := v.Field("provider").Text(), v.Field("model").Text()
	if provider == "" && model == "" {
		return ""
	}
	return provider + "/" + model
}

// refSpliced summarizes an inbox splice: its target, what it removed and the
// messages it inserted.
func refSpliced(data jsonv.Value) string {
	s := data.Field("target").Text() + ":"
	if removed, ok := data.Field("removedCount").SafeInt(); ok {
		s = refJoin(s, "removed "+refItoa(removed))
	}
	inserted := data.Field("inserted").Elements()
	switch {
	case len(inserted) == 0 && data.Has("removedCount"):
		return s
	case len(inserted) == 0:
		return s + " inserted none"
	}
	if len(inserted) > 1 {
		return refJoin(s, "inserted "+refItoa(int64(len(inserted)))+", first "+refMessage(inserted[0]))
	}
	return refJoin(s, "inserted "+refMessage(inserted[0]))
}

func refCompactionSummary(data jsonv.Value) string {
	s := data.Field("compactionId").Text()
	if shadowed := refCounts(data.Field("shadowedSeqs")); len(shadowed) > 0 {
		s = refJoin(s, "shadows "+refSeqList(shadowed))
	}
	return refJoin(s+":", refQuote(refContentText(data.Field("summary"))))
}

// refFields lists the data's members other than turn and step: scalars as
// key=value, objects as key={…}, arrays as key=[n].
func refFields(data jsonv.Value) string {
	if data.Kind() != jsonv.Object {
		if data.IsNull() {
			return ""
		}
		return refPreview(data.String())
	}
	var parts []string
	for _, m := range data.Members() {
		if m.Key == "turn" || m.Key == "step" {
			continue
		}
		switch m.Value.Kind() {
		case jsonv.Object:
			if kind := m.Value.Field("kind").Text(); kind != "" {
				parts = append(parts, m.Key+"="+kind)
			} else {
				parts = append(parts, m.Key+"={…}")
			}
		case jsonv.Array:
			parts = append(parts, m.Key+"=["+refItoa(int64(m.Value.Len()))+"]")
		case jsonv.String:
			parts = append(parts, m.Key+"="+refPreview(m.Value.Text()))
		default:
			parts = append(parts, m.Key+"="+m.Value.String())
		}
	}
	return strings.Join(parts, " ")
}

// refCounts returns the non-negative safe integers of an array.
func refCounts(v jsonv.Value) []int64 {
	var out []int64
	for _, e := range v.Elements() {
		if n, ok := e.Count(); ok {
			out = append(out, n)
		}
	}
	return out
}

// refQuote previews text in double quotes, on one line and cut short.
func refQuote(text string) string { return strconv.Quote(refPreview(text)) }

// refPreview is text on one line and cut short, without quotes.
func refPreview(text string) string { return refCutLine(text, previewRunes) }

// refCutLine collapses every run of white space (newlines included) in text
// to one space, trims the ends and cuts the result as truncate does,
// reading only as much of text as it keeps: a message of megabytes costs
// its first n runes.
func refCutLine(text string, n int) string { return refCutJoined([]string{text}, n) }

// refCutJoined is cutLine of the texts joined by spaces, without joining
// them: the texts after the first n runes are never read.
func refCutJoined(texts []string, n int) string {
	var b strings.Builder
	b.Grow(n + 4)        // the cut of an ASCII text, in one allocation
	runes, cutAt := 0, 0 // cutAt: the bytes of the first n-1 runes
	add := func(s string) {
		b.WriteString(s)
		if runes++; runes == n-1 {
			cutAt = b.Len()
		}
	}
	space := false // white space since the last rune kept
	for k, text := range texts {
		if runes > n {
			break
		}
		if k > 0 { // the space that joins text to the one before
			space = b.Len() > 0
		}
		for i := 0; i < len(text) && runes <= n; {
			r, size := rune(text[i]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(text[i:])
			}
			switch {
			case refIsSpace(r):
				space = b.Len() > 0
			case space && runes == n:
				runes++ // the space would be rune n+1
			default:
				if space {
					add(" ")
					space = false
				}
				add(text[i : i+size])
			}
			i += size
		}
	}
	if runes <= n {
		return b.String()
	}
	// As truncate does, by way of []rune: a byte that is not UTF-8 becomes
	// U+FFFD (valid UTF-8 goes through unchanged).
	kept := b.String()[:cutAt]
	if !utf8.ValidString(kept) {
		kept = string([]rune(kept))
	}
	return kept + "…"
}

// refIsSpace is unicode.IsSpace, without a call for ASCII.
func refIsSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || '\t' <= r && r <= '\r'
	}
	return unicode.IsSpace(r)
}

// refTruncate cuts s to at most n runes, ending with "…" when it cut.
func refTruncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := []rune(s)
	return string(runes[:n-1]) + "…"
}

func refJoin(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}

func refPlural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return refItoa(int64(n)) + " " + noun + "s"
}

func refSeqSpan(start, end int64) string { return refItoa(start) + ".." + refItoa(end) }

func refItoa(n int64) string { return strconv.FormatInt(n, 10) }

// agreeWithReference fails unless Describe and refDescribe describe the row
// the same way.
func agreeWithReference(t *testing.T, row []byte) {
	t.Helper()
	v, err := jsonv.Parse(row)
	if err != nil {
		return
	}
	seq, _ := v.Field("seq").SafeInt()
	time, _ := v.Field("time").SafeInt()
	ev := session.Event{Type: v.Field("type").Text(), Seq: seq, Time: time, Row: v}
	// Each on its own parse: what one decodes must not help the other.
	fresh, _ := jsonv.Parse(row)
	want := refDescribe(session.Event{Type: ev.Type, Seq: seq, Time: time, Row: fresh})
	if got := Describe(ev); got != want {
		t.Errorf("row %s\n got %+v\nwant %+v", row, got, want)
	}
}

// TestDescribeAgreesWithReference describes every row of every JSON-lines
// file under testdata (every format, good and bad logs) and the rows of the
// summary table as the reference does.
func TestDescribeAgreesWithReference(t *testing.T) {
	var files []string
	for _, root := range []string{"../testdata", "testdata"} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.Contains(d.Name(), ".jsonl") && !strings.HasSuffix(d.Name(), ".zst") && !strings.HasSuffix(d.Name(), ".gz") {
				files = append(files, path)
			}
			return nil
		})
	}
	if len(files) < 100 {
		t.Fatalf("found %d session files under testdata, expected the corpus", len(files))
	}
	rows := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			agreeWithReference(t, line)
			rows++
		}
	}
	for _, row := range referenceRows {
		agreeWithReference(t, []byte(row))
	}
	t.Logf("%d files, %d rows", len(files), rows)
}

// referenceRows are rows in the corners of the summaries: a tool-result
// block's id joining an empty head, inside a splice and alone, unknown
// roles, cuts of long and odd texts at every step of the summary, empty and
// odd reasons, sources and fields.
var referenceRows = []string{
	// Texts longer than previewText's first look, cut by it or read whole.
	`{"type":"user/message","data":{"content":[{"type":"text","text":"` + strings.Repeat("a", 2000) + `"},{"type":"text","text":"b"}]}}`,
	`{"type":"user/message","data":{"content":[{"type":"text","text":"` + strings.Repeat(" ", 600) + `late"}]}}`,
	`{"type":"user/message","data":{"content":[{"type":"text","text":"` + strings.Repeat("\\n", 300) + `late ` + strings.Repeat("x", 600) + `"}]}}`,
	`{"type":"user/message","data":{"content":[{"type":"text","text":"` + strings.Repeat("\\ud83d\\ude00", 200) + `"}]}}`,
	`{"type":"user/message","data":{"content":[{"type":"text","text":"` + strings.Repeat("w"+strings.Repeat(" ", 13), 39) + strings.Repeat("y", 600) + `"}]}}`,
	`{"type":"user/message","data":{"content":[{"type":"text","text":"` + strings.Repeat("日 ", 300) + `"}]}}`,
	`{"type":"user/message","data":{"content":[{"type":"text","text":"` + strings.Repeat("w", 40) + strings.Repeat(" ", 600) + `zzz"}]}}`,
	`{"type":"user/message","data":{"content":[{"type":"text","text":"` + strings.Repeat("w", 41) + strings.Repeat(" ", 600) + `zzz"}]}}`,
	`{"type":"user/message","data":{"content":[{"type":"text","text":"` + strings.Repeat("\\u00e9\\t", 200) + `"}]}}`,
	`{"type":"user/message","data":{"content":[{"type":"tool-result","toolCallId":"c1","content":"x"}]}}`,
	`{"type":"user/message","data":{"content":[{"type":"tool-result","content":"x"},{"type":"tool-result","toolCallId":"c2","content":[{"type":"text","text":"y"},{"text":1}]}]}}`,
	`{"type":"agent/inbox/spliced","data":{"target":"t","inserted":[{"content":[{"type":"tool-result","toolCallId":"c1","content":"x"}]}]}}`,
	`{"type":"agent/inbox/spliced","data":{"inserted":[{"content":[{"type":"tool-result","content":"x"}]},{}]}}`,
	`{"type":"agent/inbox/spliced","data":{"target":"t","removedCount":2,"inserted":[{"role":"user","content":[{"type":"text","text":"` + strings.Repeat("é ", 80) + `"}]}]}}`,
	`{"type":"assistant/message","data":{"message":{"role":"robot","source":{"kind":"x","kind":"y"},"content":[{"type":"tool-call","name":"a"},{"type":"tool-call","id":"1"},{"type":"tool-call","name":"b","id":"2"},{"type":"tool-call","name":"c","id":"3"},{"type":"tool-call","name":"d","id":"4"},{"type":"text","text":"` + strings.Repeat("\\ud800", 50) + `"}],"isError":true},"interrupted":true,"error":{"code":"E"}},"sourceEventSeqs":[1,2,[4,9]],"ignorable":true}`,
	`{"type":"tool/result","data":{"message":"not an object"},"sourceEventSeqs":"x"}`,
	`{"type":"system/message","data":{"message":{"role":"system","source":"flat","content":[{"type":"text","text":"` + strings.Repeat("a", 200) + `"},{"type":"text","text":"b"},{"type":"text","text":"c"},{"type":"text","text":"d"},{"type":"text","text":"e"}]}}}`,
	`{"type":"assistant/attempt","data":{"stream":[{"chunk":{"type":"finish","reason":{"kind":"length","reason":{"kind":"x"}}}}]}}`,
	`{"type":"assistant/attempt","data":{"stream":[{"chunk":{"type":"finish","reason":{"failure":{"code":"C","message":"` + strings.Repeat("m ", 60) + `"}}}}]}}`,
	`{"type":"assistant/attempt","data":{"stream":[1,2]}}`,
	`{"type":"assistant/attempt","data":{"stream":[{"chunk":{"type":"finish","reason":{"n":1}}}]}}`,
	`{"type":"turn/end","data":{"reason":null}}`,
	`{"type":"turn/end","data":{"reason":{"reason":{"reason":{}}}}}`,
	`{"type":"tool/call","data":{"name":"n","callId":"c","arguments":{"a":[1,2,"` + strings.Repeat("z", 90) + `"]}}}`,
	`{"type":"tool/call","data":{}}`,
	`{"type":"request/header","data":{"header":{"config":{"model":"m"},"tools":[{}]}}}`,
	`{"type":"request/header","data":{"header":{"tools":"{{tools}}"},"reason":"r"}}`,
	`{"type":"request/header","data":null}`,
	`{"type":"request/context","data":{"contextWindow":5}}`,
	`{"type":"request/context","data":{"provider":"p","systemPromptUpdate":null}}`,
	`{"type":"request/context","data":{}}`,
	`{"type":"session/title","data":{"title":"` + strings.Repeat("t\n", 50) + `","messageSeqs":[1,2,3,5,-1,"x",7,8]}}`,
	`{"type":"compaction/summary","data":{"summary":"s","shadowedSeqs":[1,2,3]}}`,
	`{"type":"compaction/summary","data":{"compactionId":"","summary":[{"text":"a"},{"text":"b"}],"shadowedSeqs":[]}}`,
	`{"type":"working-directory/change","data":{"cwd":"/` + strings.Repeat("d/", 30) + `"}}`,
	`{"type":"x/y","data":{"":1,"turn":1,"step":2,"a":{"kind":""},"b":{"kind":"k"},"c":[],"d":"` + strings.Repeat("w ", 40) + `","e":null,"f":true,"g":1e21}}`,
	`{"type":"x/y","data":"` + strings.Repeat("q", 45) + `"}`,
	`{"type":"x/y","data":[1,2]}`,
	`{"type":"x/y","data":{"` + strings.Repeat("k", 120) + `":1},"ignorable":false,"surfaceOp":{"op":"replace","startSeq":1,"endSeq":4}}`,
	`{"type":"x/y","surfaceOp":"append","ignorable":true}`,
	`{"type":"step/start","data":{"turn":1.5,"step":-0}}`,
	`{"type":"user/message","data":{"role":"user","content":[{"type":"text","text":"\u00a0 x\u2028y"},{"type":"text","text":""},{"type":"text","text":"\u00a0"}]},"sourceEventSeqs":[[1,3],[5,2],7]}`,
	`[]`, `"row"`, `null`, `{}`,
}

// appendCutJoined after other bytes appends what cutJoined returns.
func TestAppendCutJoinedAfterAPrefix(t *testing.T) {
	texts := []string{"a b", strings.Repeat("é", 50), "\xff\xfe" + strings.Repeat("x", 45)}
	for _, text := range texts {
		for _, n := range []int{1, 2, 5, previewRunes} {
			got := string(appendCutJoined([]byte("prefix: "), []string{text, text}, n))
			if want := "prefix: " + cutJoined([]string{text, text}, n); got != want {
				t.Errorf("appendCutJoined(%q, %d) = %q, want %q", text, n, got, want)
			}
		}
	}
}

// FuzzDescribeAgreesWithReference requires Describe to agree with the reference on any row.
func FuzzDescribeAgreesWithReference(f *testing.F) {
	for _, row := range referenceRows {
		f.Add([]byte(row))
	}
	f.Fuzz(func(t *testing.T, row []byte) { agreeWithReference(t, row) })
}
