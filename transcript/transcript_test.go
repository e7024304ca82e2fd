package transcript_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/listing"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/store"
	"github.com/dshlog/dshlog/transcript"
)

// export renders the session at path in format (md or html).
func export(path, format string) ([]byte, error) {
	src, err := migrate.Open(path, nil, migrate.OpenOptions{Options: migrate.Options{Recovery: v2.Recoverable}, AnyZstdFraming: true})
	if err != nil {
		return nil, err
	}
	defer src.Close()
	var out bytes.Buffer
	opts := transcript.Options{Name: filepath.Base(path)}
	r := transcript.NewMarkdown(&out, src.Header, opts)
	if format == "html" {
		r = transcript.NewHTML(&out, src.Header, opts)
	}
	if err := transcript.Render(r, src); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// corpusLogs returns every current session log of the test data: the
// corpus folders and the seed vectors.
func corpusLogs(t *testing.T) []store.Log {
	var logs []store.Log
	err := store.Walk(filepath.Join("..", "testdata"), func(d store.Dir) error {
		logs = append(logs, d.Current()...)
		return nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) < 100 {
		t.Fatalf("only %d logs found", len(logs))
	}
	return logs
}

// TestExportEveryCorpusSession: every session of the corpus and the seed
// vectors exports to Markdown and HTML when dsh accepts it, and is refused
// when dsh refuses it (as ls judges it). Every request and turn shows.
func TestExportEveryCorpusSession(t *testing.T) {
	for _, l := range corpusLogs(t) {
		t.Run(l.Path, func(t *testing.T) {
			summary, err := listing.Summarize(l, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, format := range []string{"md", "html"} {
				out, err := export(l.Path, format)
				if summary.State == listing.Refused {
					if err == nil {
						t.Errorf("%s: exported a session dsh refuses (%s)", format, summary.Problem)
					}
					continue
				}
				if err != nil && summary.State != listing.TornTail {
					t.Fatalf("%s: %v", format, err)
				}
				if err != nil {
					continue // a damaged row: the reader's issue, reported after what was read
				}
				requests, turns := "\n*Request ", "\n## Turn "
				if format == "html" {
					requests, turns = `<div class="request" `, `<section class="turn" `
				}
				if got := strings.Count(string(out), requests); got != summary.Requests {
					t.Errorf("%s: %d requests shown, ls counts %d", format, got, summary.Requests)
				}
				if got := strings.Count(string(out), turns); got != summary.Turns {
					t.Errorf("%s: %d turns shown, ls counts %d", format, got, summary.Turns)
				}
			}
		})
	}
}

// TestMarkdownSeedLoop: the four-turn seed session's transcript shows the
// request boundaries with the message counts of the seed README (2, 4, 6,
// 6, 8, 10), the failed attempt, the interrupted message and the aborted
// turn.
func TestMarkdownSeedLoop(t *testing.T) {
	out, err := export("../testdata/seed-vectors/loop-events.v4.jsonl", "md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, want := range []string{
		"*Request 1 (seq 8): 2 messages, mock/mock, header initial*",
		"*Request 2 (seq 13): 4 messages,",
		"*Request 3 (seq 21): 6 messages,",
		"> **Request failed** (seq 21): RATE_LIMIT: busy",
		"*Request 4 (seq 22): 6 messages,",
		"*Request 5 (seq 30): 8 messages,",
		"**Assistant** (seq 30) **[interrupted]**:",
		"> **Turn 3 ended: aborted (user).**",
		"*Request 6 (seq 38): 10 messages,",
		"**Tool result** `echo` `c1` (seq 10, 1ms):\n\n```\necho: one\n```",
		"*41 events; the model's view ends with 11 nodes.*",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q", want)
		}
	}
}

// TestMarkdownMarksCrashesAndCompaction: an open tail is marked, a
// compaction summary and the replace show, a long output is cut with a
// note.
func TestMarkdownMarksCrashesAndCompaction(t *testing.T) {
	crash, err := export("../testdata/seed-vectors/crash-persisted.v4.jsonl", "md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(crash), "> **Turn 1 is still open** at the end of the log") {
		t.Errorf("open tail not marked:\n%s", crash)
	}
	compaction, err := export("../testdata/corpus/restored/compaction-recovery/session.v4.jsonl", "md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"**Compaction summary** (shadows seq 8..9):\n\n> The request established a durable compaction premise.",
		"**Compaction summary (user message), replaces seq 8..9** (seq 21)",
		"header series*",
		"1 replace(s) shadowed earlier nodes",
	} {
		if !strings.Contains(string(compaction), want) {
			t.Errorf("missing %q", want)
		}
	}
	src, err := migrate.Open("../testdata/corpus/restored/compaction-recovery/session.v4.jsonl", nil, migrate.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var out bytes.Buffer
	if err := transcript.Render(transcript.NewMarkdown(&out, src.Header, transcript.Options{MaxOutput: 20}), src); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "… [cut: ") || !strings.Contains(out.String(), "more characters; the whole text is in event 7]") {
		t.Errorf("no cut note for the system prompt with MaxOutput 20")
	}
}

// hostileSession writes the seed loop with its first user message replaced
// by markup that would run script if it were not escaped, and the
// assistant's "done" (seq 13) by Markdown: a heading, a list, a fenced Go
// block, a table, a quote, a javascript: link, an image and an inline tag
// with an event handler.
func hostileSession(t *testing.T, dir string) string {
	data, err := os.ReadFile("../testdata/seed-vectors/loop-events.v4.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	hostile := `<script>window.__pwned=1</script><img src=x onerror=window.__pwned=2>`
	data = bytes.ReplaceAll(data, []byte(`"text":"go"`), []byte(`"text":"`+hostile+`"`))
	markdown, err := json.Marshal(hostileMarkdown)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.ReplaceAll(data, []byte(`"text":"done"`), append([]byte(`"text":`), markdown...))
	path := filepath.Join(dir, "hostile.v4.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// hostileMarkdown is the assistant text of hostileSession's seq 13.
const hostileMarkdown = "## Plan\n\nRun `make test` first, then:\n\n1. read the **log**\n2. fold it\n\n" +
	"```go\nfmt.Println(\"<b>hi</b>\")\n```\n\n" +
	"| step | state |\n| :--- | ---: |\n| fold | ~~pending~~ done |\n\n> quoted\n\n" +
	"[click me](javascript:window.__pwned=3) ![pixel](pixel.png) <img src=x onerror=window.__pwned=4>"

// TestHTMLEscapesTheLog: markup from the log never reaches the page as
// markup, and the page names nothing outside itself.
func TestHTMLEscapesTheLog(t *testing.T) {
	out, err := export(hostileSession(t, t.TempDir()), "html")
	if err != nil {
		t.Fatal(err)
	}
	page := string(out)
	if strings.Contains(page, "<script>window") || strings.Contains(page, "<img") {
		t.Error("markup from the log is in the page unescaped")
	}
	if !strings.Contains(page, "&lt;script&gt;window.__pwned=1&lt;/script&gt;") {
		t.Error("the hostile text is not shown escaped")
	}
	if strings.Count(page, "<script>") != 1 {
		t.Errorf("%d script elements, want the page's own one", strings.Count(page, "<script>"))
	}
	for _, external := range []string{"http://", "https://", "src=\"//", "href=\"//", "@import"} {
		if strings.Contains(page, external) {
			t.Errorf("the page names %q", external)
		}
	}
}

// TestHTMLCutMarkdown: a Markdown text cut inside a code block is rendered
// up to the cut, and the cut note follows it as a note, outside the block.
func TestHTMLCutMarkdown(t *testing.T) {
	path := hostileSession(t, t.TempDir())
	src, err := migrate.Open(path, nil, migrate.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	cut := strings.Index(hostileMarkdown, "Println") // inside the Go block
	var out bytes.Buffer
	if err := transcript.Render(transcript.NewHTML(&out, src.Header, transcript.Options{MaxOutput: cut}), src); err != nil {
		t.Fatal(err)
	}
	rest := len([]rune(hostileMarkdown)) - cut
	want := fmt.Sprintf("<pre><code class=\"language-go\">fmt.\n</code></pre>\n</div><p class=\"note\">… [cut: %d more characters; the whole text is in event 13 and in the request view]</p>", rest)
	if !strings.Contains(out.String(), want) {
		t.Errorf("missing %q in the page", want)
	}
}

// TestHTMLInBrowser opens the exported pages of several sessions in headless
// Chromium and checks what a person sees: the timeline lists every turn
// and request, clicking the last request shows exactly the messages the
// model saw for it, nothing is logged as an error or fetched from the
// network, and markup from the log stays inert text. A screenshot of each
// page is kept under $DSHLOG_TEST_ARTIFACTS (else the test's temp dir).
func TestHTMLInBrowser(t *testing.T) {
	browser := startChromium(t)
	artifacts := os.Getenv("DSHLOG_TEST_ARTIFACTS")
	if artifacts == "" {
		artifacts = t.TempDir()
	}
	dir := t.TempDir()
	hostile := hostileSession(t, dir)
	paths := []string{
		"../testdata/seed-vectors/loop-events.v4.jsonl",
		"../testdata/seed-vectors/crash-persisted.v4.jsonl",
		"../testdata/corpus/restored/compaction-recovery/session.v4.jsonl",
		"../testdata/corpus/restored/ralph-loop/session.v4.jsonl",
		"../testdata/corpus/mainline/ptc-python-turn/session.v4.jsonl",
		"../testdata/corpus/restored/skill-load/session.jsonl",
		hostile,
	}
	for i, path := range paths {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			l, ok := store.ParseName(filepath.Base(path))
			if !ok {
				l = store.Log{Version: 4}
			}
			l.Path = path
			summary, err := listing.Summarize(l, nil)
			if err != nil || summary.State == listing.Refused {
				t.Fatalf("%v %s", err, summary.Problem)
			}
			out, err := export(path, "html")
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, fmt.Sprintf("page-%d.html", i))
			if err := os.WriteFile(file, out, 0o644); err != nil {
				t.Fatal(err)
			}
			abs, _ := filepath.Abs(file)
			p := browser.open(t, "file://"+abs)

			var turns, requests, shown int
			p.eval(t, `document.querySelectorAll("#timeline .tl-turn").length`, &turns)
			p.eval(t, `document.querySelectorAll("#timeline .tl-request").length`, &requests)
			p.eval(t, `document.querySelectorAll("#transcript .request").length`, &shown)
			if turns != summary.Turns || requests != summary.Requests || shown != summary.Requests {
				t.Errorf("timeline shows %d turns and %d requests (%d in the transcript), the log has %d and %d",
					turns, requests, shown, summary.Turns, summary.Requests)
			}
			if summary.Requests > 0 {
				k := summary.Requests
				var got int
				p.eval(t, fmt.Sprintf(`(async () => {
					document.getElementById("request-%d").click();
					for (let i = 0; i < 250; i++) {
						const title = document.getElementById("request-title").textContent;
						if (title.startsWith("Request %d:")) return document.querySelectorAll("#request-messages .message").length;
						await new Promise(r => setTimeout(r, 20));
					}
					return -1;
				})()`, k, k), &got)
				want := requestSeqs(t, path)
				if got != len(want[k-1]) {
					t.Errorf("request %d shows %d messages, the model saw %d", k, got, len(want[k-1]))
				}
				// Every request's view, by the seqs of its messages.
				var views [][]int64
				p.eval(t, `(async () => {
					const out = [];
					for (const req of document.querySelectorAll("#transcript .request")) {
						location.hash = "request-" + req.dataset.index;
						for (let i = 0; i < 250 && !document.getElementById("request-title").textContent.startsWith("Request " + req.dataset.index + ":"); i++) {
							await new Promise(r => setTimeout(r, 10));
						}
						out.push(Array.from(document.querySelectorAll("#request-messages .role"), e => Number(e.textContent.split("seq ")[1])));
					}
					return out;
				})()`, &views)
				if !reflect.DeepEqual(views, want) {
					t.Errorf("the request views show the messages of seqs\n%v\nthe fold rebuilds\n%v", views, want)
				}
			}
			if path == hostile {
				checkHostilePage(t, p)
			}
			if n := p.pageScripts("file://" + abs); n != 1 {
				t.Errorf("%d scripts compiled from the page, want its own one: %v", n, p.scripts)
			}
			var ignored bool
			p.eval(t, `(window.scrollTo(0, 0), true)`, &ignored)
			shot := filepath.Join(artifacts, fmt.Sprintf("%02d-%s.png", i, strings.TrimSuffix(filepath.Base(filepath.Dir(path)), ".")))
			p.screenshot(t, shot)
			t.Logf("screenshot: %s", shot)
			if len(p.problems) > 0 {
				t.Errorf("the page misbehaved:\n%s", strings.Join(p.problems, "\n"))
			}
		})
	}
}

// checkHostilePage checks in the browser's DOM that hostileSession's
// markup stayed text and ran nothing, and that its Markdown rendered: a
// heading element, the Go block as pre > code, the list, the table, the
// quote, and a javascript: link left without a target.
func checkHostilePage(t *testing.T, p *page) {
	var pwned, elements, handlers, scripts int
	var text string
	p.eval(t, `window.__pwned === undefined ? 0 : window.__pwned`, &pwned)
	p.eval(t, `document.querySelectorAll("#transcript :is(script, img, style, iframe, object, embed, svg, link, meta, form), #request-view img").length`, &elements)
	p.eval(t, `Array.from(document.querySelectorAll("*")).filter(e => Array.from(e.attributes).some(a => a.name.startsWith("on"))).length`, &handlers)
	p.eval(t, `document.scripts.length`, &scripts)
	p.eval(t, `document.getElementById("seq-5").textContent`, &text)
	if pwned != 0 || elements != 0 || handlers != 0 || scripts != 1 || !strings.Contains(text, "<script>window.__pwned=1</script><img src=x onerror=window.__pwned=2>") {
		t.Errorf("hostile markup: __pwned=%d, %d script/img/style/… elements, %d elements with on* handlers, %d scripts, seq 5 shows %q",
			pwned, elements, handlers, scripts, text)
	}
	var md struct {
		Heading, HeadingSize, Code, CodeClass, CodeFont, Quote, Deleted, Dead, Inline string
		Items, Cells                                                                  int
		Protocols                                                                     []string
	}
	p.eval(t, `(() => {
		const m = document.getElementById("seq-13");
		const heading = m.querySelector(".md h2"), code = m.querySelector(".md pre > code");
		return {
			Heading: heading ? heading.textContent : "",
			HeadingSize: heading ? getComputedStyle(heading).fontSize : "",
			Code: code ? code.textContent : "", CodeClass: code ? code.className : "",
			CodeFont: code ? getComputedStyle(code).fontFamily : "",
			Items: m.querySelectorAll(".md ol > li").length,
			Cells: m.querySelectorAll(".md table td").length,
			Quote: (m.querySelector(".md blockquote") || {textContent: ""}).textContent.trim(),
			Deleted: (m.querySelector(".md del") || {textContent: ""}).textContent,
			Dead: String(Array.from(m.querySelectorAll(".md a"), a => a.textContent + "=" + a.getAttribute("href"))),
			Inline: (m.querySelector(".md > p:last-child") || {textContent: ""}).textContent,
			Protocols: Array.from(document.querySelectorAll("#transcript a[href]"), a => a.protocol),
		};
	})()`, &md)
	if md.Heading != "Plan" || md.HeadingSize != "16px" {
		t.Errorf("the Markdown heading renders as %q (font size %s), want an h2 Plan of 16px", md.Heading, md.HeadingSize)
	}
	if md.Code != "fmt.Println(\"<b>hi</b>\")\n" || md.CodeClass != "language-go" || !strings.Contains(md.CodeFont, "monospace") {
		t.Errorf("the fenced block renders as pre > code %q, class %q, font %q", md.Code, md.CodeClass, md.CodeFont)
	}
	if md.Items != 2 || md.Cells != 2 || md.Quote != "quoted" || md.Deleted != "pending" {
		t.Errorf("list items %d, table cells %d, quote %q, struck %q: want 2, 2, quoted, pending", md.Items, md.Cells, md.Quote, md.Deleted)
	}
	if md.Dead != "click me=,[image: pixel]=pixel.png" || !strings.Contains(md.Inline, "<img src=x onerror=window.__pwned=4>") {
		t.Errorf("links %s; the inline tag shows as %q", md.Dead, md.Inline)
	}
	for _, protocol := range md.Protocols {
		if protocol != "file:" {
			t.Errorf("a link of the page leads to a %s URL", protocol)
		}
	}
}

// requestSeqs returns, for every request, the seqs of the surface nodes
// whose messages the model saw, as the fold rebuilds them.
func requestSeqs(t *testing.T, path string) [][]int64 {
	src, err := migrate.Open(path, nil, migrate.OpenOptions{Options: migrate.Options{Recovery: v2.Recoverable}})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	f := fold.New()
	var out [][]int64
	for {
		ev, err := src.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if fold.IsSettlement(ev.Type) {
			req, err := f.Request(ev)
			if err != nil {
				t.Fatal(err)
			}
			seqs := []int64{}
			for _, n := range f.Surface() {
				if n.Visible {
					seqs = append(seqs, n.Seq)
				}
			}
			if len(seqs) != len(req.Messages) {
				t.Fatalf("request %d: %d visible nodes, %d messages", req.Index, len(seqs), len(req.Messages))
			}
			out = append(out, seqs)
		}
		if err := f.Load(ev); err != nil {
			t.Fatal(err)
		}
	}
}
