package transcript

import (
	"bytes"
	"html/template"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// messageMarkdown renders the Markdown of a message for the HTML page:
// CommonMark with GitHub's tables, strikethrough, autolinks and task
// lists, and a line break kept as a line break, as a chat shows it.
// Nothing from the log can act on the page: goldmark's safe mode (never
// html.WithUnsafe) gives a link to a javascript:, vbscript:, file: or data:
// URL no target, and inertNodes shows raw HTML as text and an image as a
// link to it, so the page still loads nothing. Headings get no id and
// attributes ({#id}) are not parsed, so a message cannot take an id the
// page's script looks up (request-K, seq-N).
var messageMarkdown = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithRendererOptions(
		html.WithHardWraps(),
		renderer.WithNodeRenderers(util.Prioritized(inertNodes{}, 100)), // before goldmark's own (1000)
	),
)

// renderMarkdown renders a message's Markdown text as HTML for the page.
func renderMarkdown(text string) (template.HTML, error) {
	var out bytes.Buffer
	if err := messageMarkdown.Convert([]byte(text), &out); err != nil {
		return "", err
	}
	return template.HTML(out.String()), nil // goldmark escaped every text and attribute; inertNodes the rest
}

// inertNodes renders the Markdown nodes that would make the page act or
// fetch: raw HTML, which shows as the text it is, and images, which become
// a link to the image (no link when its URL is dangerous).
type inertNodes struct{}

// RegisterFuncs registers the renderers of raw HTML and images.
func (inertNodes) RegisterFuncs(r renderer.NodeRendererFuncRegisterer) {
	r.Register(ast.KindHTMLBlock, renderHTMLBlockAsText)
	r.Register(ast.KindRawHTML, renderRawHTMLAsText)
	r.Register(ast.KindImage, renderImageAsLink)
}

// renderHTMLBlockAsText shows a block of HTML as preformatted text.
func renderHTMLBlockAsText(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.HTMLBlock)
	if !entering {
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString(`<pre class="raw-html">`)
	lines := n.Lines()
	for i := range lines.Len() {
		line := lines.At(i)
		_, _ = w.Write(util.EscapeHTML(line.Value(source)))
	}
	if n.HasClosure() {
		_, _ = w.Write(util.EscapeHTML(n.ClosureLine.Value(source)))
	}
	_, _ = w.WriteString("</pre>\n")
	return ast.WalkSkipChildren, nil
}

// renderRawHTMLAsText shows an inline HTML tag as text.
func renderRawHTMLAsText(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	segments := node.(*ast.RawHTML).Segments
	for i := range segments.Len() {
		segment := segments.At(i)
		_, _ = w.Write(util.EscapeHTML(segment.Value(source)))
	}
	return ast.WalkSkipChildren, nil
}

// renderImageAsLink writes an image as a link to it, labelled with its
// alternative text: the page loads nothing (its Content-Security-Policy
// would refuse it anyway).
func renderImageAsLink(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.Image)
	label := append([]byte("image: "), plainText(n, source)...)
	dest := util.URLEscape(n.Destination, true)
	if html.IsDangerousURL(dest) {
		_, _ = w.WriteString("[")
		_, _ = w.Write(util.EscapeHTML(label))
		_, _ = w.WriteString("]")
		return ast.WalkSkipChildren, nil
	}
	_, _ = w.WriteString(`<a class="image" href="`)
	_, _ = w.Write(util.EscapeHTML(dest))
	_, _ = w.WriteString(`">[`)
	_, _ = w.Write(util.EscapeHTML(label))
	_, _ = w.WriteString("]</a>")
	return ast.WalkSkipChildren, nil
}

// plainText returns the text under node without its markup (an image's
// alternative text).
func plainText(node ast.Node, source []byte) []byte {
	var out []byte
	_ = ast.Walk(node, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Text:
			out = append(out, n.Value(source)...)
			if n.SoftLineBreak() || n.HardLineBreak() {
				out = append(out, ' ')
			}
		case *ast.String:
			out = append(out, n.Value...)
		case *ast.AutoLink:
			out = append(out, n.Label(source)...)
		case *ast.RawHTML:
			for i := range n.Segments.Len() {
				segment := n.Segments.At(i)
				out = append(out, segment.Value(source)...)
			}
		case *ast.CodeSpan:
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					out = append(out, t.Value(source)...)
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}
