package transcript

import (
	"bytes"
	"flag"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	goldmarkhtml "github.com/yuin/goldmark/renderer/html"
)

var update = flag.Bool("update", false, "rewrite the expected HTML of the Markdown cases under testdata/markdown")

// TestRenderMarkdownGolden renders each testdata/markdown/NAME.md and
// compares it with NAME.html (rewritten only with -update); every output
// must also pass the inertness check.
func TestRenderMarkdownGolden(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join("testdata", "markdown", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 3 {
		t.Fatalf("only %d Markdown cases found", len(cases))
	}
	for _, path := range cases {
		t.Run(filepath.Base(path), func(t *testing.T) {
			source, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := renderMarkdown(string(source))
			if err != nil {
				t.Fatal(err)
			}
			if err := checkInert(string(got)); err != nil {
				t.Error(err)
			}
			golden := strings.TrimSuffix(path, ".md") + ".html"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			if string(got) != string(want) {
				t.Errorf("%s differs from %s (run with -update to rewrite it):\n%s", path, golden, got)
			}
		})
	}
}

// TestRenderMarkdownElements: the constructs a transcript needs become the
// elements a person expects, and what could act becomes text or loses its
// target.
func TestRenderMarkdownElements(t *testing.T) {
	for _, c := range []struct {
		name, markdown string
		want           []string
		absent         []string
	}{
		{"heading", "## Plan", []string{"<h2>Plan</h2>"}, []string{" id="}},
		{"heading attributes are text", "# Request 3 {#request-3}", []string{"<h1>Request 3 {#request-3}</h1>"}, []string{" id="}},
		{"fenced code with a language", "```go\nx := 1 < 2\n```", []string{`<pre><code class="language-go">x := 1 &lt; 2` + "\n</code></pre>"}, nil},
		{"fenced code without one", "```\nplain\n```", []string{"<pre><code>plain\n</code></pre>"}, nil},
		{"inline code", "run `go test`", []string{"<code>go test</code>"}, nil},
		{"line breaks kept", "one\ntwo", []string{"one<br>\ntwo"}, nil},
		{"list", "- a\n- b", []string{"<ul>\n<li>a</li>\n<li>b</li>\n</ul>"}, nil},
		{"table", "| a |\n| - |\n| b |", []string{"<table>", "<th>a</th>", "<td>b</td>"}, nil},
		{"strikethrough", "~~old~~", []string{"<del>old</del>"}, nil},
		{"autolink", "see https://example.com", []string{`<a href="https://example.com">https://example.com</a>`}, nil},
		{"script block", "<script>alert(1)</script>", []string{`<pre class="raw-html">&lt;script&gt;alert(1)&lt;/script&gt;</pre>`}, []string{"<script"}},
		{"inline tag", "a <img src=x onerror=alert(1)> b", []string{"a &lt;img src=x onerror=alert(1)&gt; b"}, []string{"<img"}},
		{"javascript link", "[x](javascript:alert(1))", []string{`<a href="">x</a>`}, []string{"javascript:"}},
		{"javascript autolink", "<javascript:alert(1)>", []string{`<a href="">javascript:alert(1)</a>`}, []string{`href="javascript`}},
		{"entity-hidden javascript link", "[x](&#106;avascript:alert(1))", []string{`<a href="">x</a>`}, nil},
		{"image as a link", "![chart](chart.png)", []string{`<a class="image" href="chart.png">[image: chart]</a>`}, []string{"<img"}},
		{"image with a dangerous URL", "![x](javascript:alert(1))", []string{"<p>[image: x]</p>"}, []string{"<a", "<img"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rendered, err := renderMarkdown(c.markdown)
			if err != nil {
				t.Fatal(err)
			}
			got := string(rendered)
			for _, want := range c.want {
				if !strings.Contains(got, want) {
					t.Errorf("missing %q in\n%s", want, got)
				}
			}
			for _, absent := range c.absent {
				if strings.Contains(got, absent) {
					t.Errorf("%q in\n%s", absent, got)
				}
			}
			if err := checkInert(got); err != nil {
				t.Error(err)
			}
		})
	}
}

// FuzzRenderMarkdownInert: whatever a message holds, its rendering passes
// the inertness check.
func FuzzRenderMarkdownInert(f *testing.F) {
	cases, _ := filepath.Glob(filepath.Join("testdata", "markdown", "*.md"))
	for _, path := range cases {
		source, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(source))
	}
	for _, seed := range []string{
		"<a href=x>[y](javascript:z)</a>", "[a](<java\nscript:x>)", "[a](java\tscript:x)",
		"![a](data:image/svg+xml,<svg onload=alert(1)>)", "<svg><script>alert(1)</script></svg>",
		"``` onload=x\ncode\n```", "```\"><script>\nx\n```", "[a]( javascript:x)", "<![CDATA[<script>]]>",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, markdown string) {
		rendered, err := renderMarkdown(markdown)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkInert(string(rendered)); err != nil {
			t.Errorf("%v\nin the rendering of %q:\n%s", err, markdown, rendered)
		}
	})
}

// TestCheckInertRejects: the inertness check itself catches what it is
// for, so that the golden and fuzz tests can fail: goldmark's unsafe mode
// on the inert case, and tags, handlers and links a browser would act on.
func TestCheckInertRejects(t *testing.T) {
	source, err := os.ReadFile(filepath.Join("testdata", "markdown", "inert.md"))
	if err != nil {
		t.Fatal(err)
	}
	var unsafe bytes.Buffer
	if err := goldmark.New(goldmark.WithRendererOptions(goldmarkhtml.WithUnsafe())).Convert(source, &unsafe); err != nil {
		t.Fatal(err)
	}
	for _, rendered := range []string{
		unsafe.String(),
		"<p>a <img src=x></p>",
		`<p onclick="x">a</p>`,
		`<a href="javascript:alert(1)">x</a>`,
		`<a href=" &#x4A;ava&#9;script:alert(1)">x</a>`,
		`<a href="data:text/html,x">x</a>`,
		`<h2 id="request-3">x</h2>`,
		`<p>a < b</p>`,
	} {
		if checkInert(rendered) == nil {
			t.Errorf("checkInert passes %q", rendered)
		}
	}
}

// tag matches one tag as goldmark writes it: a lowercase name and
// attributes whose values are quoted with " (goldmark escapes " inside).
var tag = regexp.MustCompile(`^<(/?)([a-z][a-z0-9]*)((?:\s+[a-z-]+(?:="[^"<>]*")?)*)\s*/?>`)

var attribute = regexp.MustCompile(`([a-z-]+)(?:="([^"]*)")?`)

// inertTags and inertAttributes are what a rendered message may hold:
// elements that show text, and attributes that do nothing by themselves.
var (
	inertTags = map[string]bool{
		"p": true, "br": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
		"em": true, "strong": true, "del": true, "code": true, "pre": true, "a": true, "ul": true,
		"ol": true, "li": true, "blockquote": true, "hr": true, "table": true, "thead": true,
		"tbody": true, "tr": true, "th": true, "td": true, "input": true,
	}
	classValue = regexp.MustCompile(`^(language-[^ ]+|raw-html|image)$`)
	styleValue = regexp.MustCompile(`^text-align:(left|center|right)$`)
)

// checkInert reads rendered HTML as a browser would read its tags and says
// what in it could run script, load anything, or take an id: every "<" must
// open one of inertTags, every attribute must be harmless, and no href may
// name a dangerous scheme once the browser has decoded its entities and
// dropped the characters URL parsing ignores.
func checkInert(rendered string) error {
	for rest := rendered; ; {
		i := strings.IndexByte(rest, '<')
		if i < 0 {
			return nil
		}
		rest = rest[i:]
		m := tag.FindStringSubmatch(rest)
		if m == nil {
			return fmt.Errorf("a %q that opens no tag goldmark writes", rest[:min(len(rest), 40)])
		}
		rest = rest[len(m[0]):]
		if !inertTags[m[2]] {
			return fmt.Errorf("element <%s>", m[2])
		}
		for _, a := range attribute.FindAllStringSubmatch(m[3], -1) {
			if err := checkAttribute(m[2], a[1], html.UnescapeString(a[2])); err != nil {
				return err
			}
		}
	}
}

func checkAttribute(element, name, value string) error {
	switch {
	case name == "href" && element == "a":
		if dangerousScheme(value) {
			return fmt.Errorf("href=%q", value)
		}
	case name == "title", name == "start", name == "checked", name == "disabled":
	case name == "type" && value == "checkbox":
	case name == "class" && classValue.MatchString(value):
	case name == "style" && styleValue.MatchString(value):
	default:
		return fmt.Errorf("attribute %s=%q on <%s>", name, value, element)
	}
	return nil
}

// dangerousScheme reports whether a browser would take href as a URL of a
// scheme that runs script or shows content of the link's own making.
func dangerousScheme(href string) bool {
	href = strings.TrimLeft(href, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
	href = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, strings.ToLower(href))
	for _, scheme := range []string{"javascript:", "vbscript:", "file:"} {
		if strings.HasPrefix(href, scheme) {
			return true
		}
	}
	if !strings.HasPrefix(href, "data:") {
		return false
	}
	for _, image := range []string{"data:image/png", "data:image/gif", "data:image/jpeg", "data:image/webp"} {
		if strings.HasPrefix(href, image) {
			return false
		}
	}
	return true
}
