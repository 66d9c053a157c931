// Package roff writes man pages: the man macros of a page's frame, plain
// text escaped for troff, and Markdown (the reference topics, GitHub's
// dialect with its tables) turned into sections, paragraphs, lists and
// literal blocks.
//
// In: text. Out: troff source, ASCII only (every other rune is written as
// its \[uXXXX] escape, so no renderer has to guess the encoding). It must
// not read or write anything.
package roff

import (
	"fmt"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// Escape writes s for a troff text line: backslashes and hyphens
// escaped (a hyphen-minus stays one, so flags copy as typed), every rune
// outside printable ASCII as its Unicode escape.
func Escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\e`)
		case r == '-':
			b.WriteString(`\-`)
		case r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f:
			// a control character has no place on a page
		case r > 0x7e:
			fmt.Fprintf(&b, `\[u%04X]`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Line makes s safe as input lines: a line that starts with a period or
// an apostrophe would be read as a request. The .br a hard line break
// writes is kept.
func Line(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != ".br" && (strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'")) {
			lines[i] = `\&` + l
		}
	}
	return strings.Join(lines, "\n")
}

// Page is a man page being written.
type Page struct {
	b strings.Builder
}

// NewPage starts a page: its title line. The date is left out so that the
// same cairn writes the same bytes.
func NewPage(name string, section int, source, manual string) *Page {
	p := &Page{}
	fmt.Fprintf(&p.b, ".TH %s %d \"\" %q %q\n", quote(strings.ToUpper(name)), section, source, manual)
	return p
}

// quote writes a macro argument, quoted when it holds a space.
func quote(s string) string {
	s = Escape(s)
	if strings.ContainsAny(s, " \"") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// Section starts a section, .SH.
func (p *Page) Section(title string) { fmt.Fprintf(&p.b, ".SH %s\n", quote(title)) }

// Subsection starts a subsection, .SS.
func (p *Page) Subsection(title string) { fmt.Fprintf(&p.b, ".SS %s\n", quote(title)) }

// Paragraph writes one paragraph of troff text (already escaped).
func (p *Page) Paragraph(roff string) {
	p.b.WriteString(".PP\n")
	p.b.WriteString(Line(roff) + "\n")
}

// Tagged writes a tagged paragraph: the tag on its own line, then the text
// indented below it (both already escaped).
func (p *Page) Tagged(tag, roff string) {
	p.b.WriteString(".TP\n")
	p.b.WriteString(Line(tag) + "\n")
	p.b.WriteString(Line(roff) + "\n")
}

// Literal writes lines as they are, indented, in a fixed-width font.
func (p *Page) Literal(lines []string) {
	p.b.WriteString(".PP\n.RS 4\n.nf\n")
	for _, l := range lines {
		p.b.WriteString(Line(Escape(l)) + "\n")
	}
	p.b.WriteString(".fi\n.RE\n")
}

// Raw appends troff source as it is.
func (p *Page) Raw(roff string) { p.b.WriteString(roff) }

// String is the page's source.
func (p *Page) String() string { return p.b.String() }

// Text writes plain text of the command tree's help: paragraphs split at
// blank lines, and lines indented four spaces or more (the examples) as
// literal blocks.
func (p *Page) Text(s string) {
	var para, lit []string
	flush := func() {
		if len(para) > 0 {
			p.Paragraph(Escape(strings.Join(para, " ")))
			para = nil
		}
		if len(lit) > 0 {
			p.Literal(lit)
			lit = nil
		}
	}
	for _, l := range strings.Split(s, "\n") {
		switch {
		case strings.TrimSpace(l) == "":
			flush()
		case strings.HasPrefix(l, "    "):
			if len(para) > 0 {
				flush()
			}
			lit = append(lit, strings.TrimPrefix(l, "    "))
		default:
			if len(lit) > 0 {
				flush()
			}
			para = append(para, strings.TrimSpace(l))
		}
	}
	flush()
}

// markdown parses GitHub's Markdown: CommonMark and its tables.
var markdown = goldmark.New(goldmark.WithExtensions(extension.Table))

// Markdown writes a Markdown text into the page. The first level-1
// heading is left out (the page's NAME says it); what comes before the
// first level-2 heading is the DESCRIPTION; level-2 headings become
// sections and deeper ones subsections.
func (p *Page) Markdown(src string) {
	b := []byte(src)
	doc := markdown.Parser().Parse(text.NewReader(b))
	w := &mdWriter{p: p, src: b}
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); !w.sectioned && !(ok && h.Level == 1 && !w.titled) {
			w.sectioned = true
			if !ok || h.Level > 2 {
				w.p.Section("DESCRIPTION")
			}
		}
		w.block(n, 0)
	}
}

// mdWriter turns goldmark's blocks into the page's macros.
type mdWriter struct {
	p         *Page
	src       []byte
	titled    bool // the first level-1 heading was seen
	sectioned bool // a section has been started
}

// block writes one block node; depth is how many lists hold it.
func (w *mdWriter) block(n ast.Node, depth int) {
	switch n := n.(type) {
	case *ast.Heading:
		t := w.plain(n)
		switch {
		case n.Level == 1 && !w.titled:
			w.titled = true
		case n.Level <= 2:
			w.p.Section(t)
		default:
			w.p.Subsection(t)
		}
	case *ast.Paragraph, *ast.TextBlock:
		w.p.Paragraph(w.inline(n))
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		var lines []string
		for i := 0; i < n.Lines().Len(); i++ {
			seg := n.Lines().At(i)
			lines = append(lines, strings.TrimRight(string(seg.Value(w.src)), "\n"))
		}
		w.p.Literal(lines)
	case *ast.List:
		if depth > 0 {
			w.p.Raw(".RS 2\n")
		}
		k := n.Start
		for item := n.FirstChild(); item != nil; item = item.NextSibling() {
			mark := `\(bu`
			if n.IsOrdered() {
				mark = fmt.Sprintf("%d.", k)
				k++
			}
			w.p.Raw(fmt.Sprintf(".IP %s 3\n", mark))
			first := true
			for c := item.FirstChild(); c != nil; c = c.NextSibling() {
				switch c.(type) {
				case *ast.Paragraph, *ast.TextBlock:
					if !first {
						w.p.Raw(".IP \"\" 3\n")
					}
					w.p.Raw(Line(w.inline(c)) + "\n")
				default:
					w.block(c, depth+1)
				}
				first = false
			}
		}
		if depth > 0 {
			w.p.Raw(".RE\n")
		}
	case *ast.Blockquote:
		w.p.Raw(".RS 4\n")
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			w.block(c, depth)
		}
		w.p.Raw(".RE\n")
	case *east.Table:
		w.table(n)
	case *ast.ThematicBreak, *ast.HTMLBlock:
		// a rule or raw HTML has nothing to say on a terminal
	default:
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			w.block(c, depth)
		}
	}
}

// table writes each row as a tagged paragraph: the first cell bold, the
// others below it. With three columns or more, each of those is named by
// its header.
func (w *mdWriter) table(t *east.Table) {
	var header []string
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, w.inline(c))
		}
		if _, ok := row.(*east.TableHeader); ok {
			header = cells
			continue
		}
		if len(cells) == 0 {
			continue
		}
		rest := cells[1:]
		if len(cells) > 2 {
			for i := range rest {
				if i+1 < len(header) && header[i+1] != "" {
					rest[i] = header[i+1] + ": " + rest[i]
				}
			}
		}
		w.p.Tagged(`\fB`+cells[0]+`\fR`, strings.Join(rest, `; `))
	}
}

// inline writes a block's inline content as one line of troff text.
func (w *mdWriter) inline(n ast.Node) string {
	var b strings.Builder
	w.inlines(n, &b)
	return strings.TrimSpace(b.String())
}

func (w *mdWriter) inlines(n ast.Node, b *strings.Builder) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			b.WriteString(Escape(string(c.Value(w.src))))
			switch {
			case c.HardLineBreak():
				b.WriteString("\n.br\n")
			case c.SoftLineBreak():
				b.WriteByte(' ')
			}
		case *ast.String:
			b.WriteString(Escape(string(c.Value)))
		case *ast.CodeSpan:
			b.WriteString(`\fB`)
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if s, ok := t.(*ast.Text); ok {
					b.WriteString(Escape(string(s.Value(w.src))))
				}
			}
			b.WriteString(`\fR`)
		case *ast.Emphasis:
			font := `\fI`
			if c.Level > 1 {
				font = `\fB`
			}
			b.WriteString(font)
			w.inlines(c, b)
			b.WriteString(`\fR`)
		case *ast.Link:
			w.inlines(c, b)
			if dest := string(c.Destination); strings.Contains(dest, "://") {
				b.WriteString(" <" + Escape(dest) + ">")
			}
		case *ast.AutoLink:
			b.WriteString(Escape(string(c.URL(w.src))))
		case *ast.RawHTML:
			// left out, as a browser would not show it
		default:
			w.inlines(c, b)
		}
	}
}

// plain is a heading's words without markup, unescaped.
func (w *mdWriter) plain(n ast.Node) string {
	var b strings.Builder
	var walk func(ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				b.Write(t.Value(w.src))
				continue
			}
			walk(c)
		}
	}
	walk(n)
	return b.String()
}
