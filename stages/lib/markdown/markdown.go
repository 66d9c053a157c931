// Package markdown reads the structure of Markdown text the way CommonMark
// (and GitHub) does, with goldmark: its headings, with GitHub's anchors,
// and the targets of its links. Pages are read once, when they are
// loaded; a query reads a page's sections with the same function, so an
// anchor is the same whoever computes it.
//
// In: text. Out: plain values. It must not read or write anything.
package markdown

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Heading is one heading of a text.
type Heading struct {
	Level int
	// Text is what the heading shows: its words and code, without
	// markup; a link counts as its text, raw HTML as nothing.
	Text string
	// Anchor is GitHub's anchor for it, made unique in the text.
	Anchor string
	// Line is the 0-based line of text its words start on.
	Line int
}

// Doc is what a text's structure says.
type Doc struct {
	Headings []Heading
	// Links are the destinations of its links and images and the URLs of
	// its autolinks, in text order, as written (unresolved).
	Links []string
}

// reader parses with every block parser and the inline parsers that
// decide links and a heading's text; emphasis is read too, so that a
// heading's text is without its asterisks. A paragraph that cannot hold a
// link is not parsed inline at all (paragraphs).
var reader = parser.NewParser(
	parser.WithBlockParsers(parser.DefaultBlockParsers()...),
	parser.WithInlineParsers(parser.DefaultInlineParsers()...),
	parser.WithParagraphTransformers(util.Prioritized(paragraphs{}, 100)),
)

// paragraphs transforms each paragraph as it closes. One with a '[' in its
// lines goes to goldmark's transformer of link reference definitions
// (which all start with one) as in its default parser. One with no '['
// and no '<' holds no definition, link, image or autolink, and Read wants
// nothing else of a paragraph: it is cut to one empty line, so that
// goldmark's inline parse, which would cut every line into text nodes
// (most of the time and memory of reading prose), has nothing to do. The
// paragraph stays in the tree, since whether a list item has children
// decides how the lines after it are read.
//
// A paragraph that is no longer among the open blocks is not cut: that is
// one a setext underline is turning into a heading (goldmark closes it
// first, then transforms it), whose lines become the heading's text.
// TestLinklessReadsAsTheFullParse and FuzzLinkless hold Read to what the
// default parser gives.
type paragraphs struct{}

func (paragraphs) Transform(p *ast.Paragraph, r text.Reader, pc parser.Context) {
	src, lines := r.Source(), p.Lines()
	angle := false
	for i := range lines.Len() {
		s := lines.At(i)
		line := src[s.Start:s.Stop]
		if bytes.IndexByte(line, '[') >= 0 {
			parser.LinkReferenceParagraphTransformer.Transform(p, r, pc)
			return
		}
		angle = angle || bytes.IndexByte(line, '<') >= 0
	}
	if angle || lines.Len() == 0 || !slices.ContainsFunc(pc.OpenedBlocks(), func(b parser.Block) bool { return b.Node == p }) {
		return
	}
	start := lines.At(0).Start
	lines.Clear()
	lines.Append(text.NewSegment(start, start))
}

// codeReader parses for code alone: every block parser, and of the inline
// ones the code span's (a link or emphasis around a span changes nothing
// of it).
var codeReader = parser.NewParser(
	parser.WithBlockParsers(parser.DefaultBlockParsers()...),
	parser.WithInlineParsers(util.Prioritized(parser.NewCodeSpanParser(), 100)),
)

// Read parses src: its headings (ATX and setext, none in code, those in
// quotes and lists too) and its links (none in code).
func Read(src string) Doc {
	b := []byte(src)
	var d Doc
	// The walk meets headings in text order, so a heading's line is
	// counted on from the last one's.
	line, counted := 0, 0 // byte counted is on line line (0-based)
	headingLine := func(at int) int {
		if at < counted {
			line, counted = 0, 0
		}
		line += strings.Count(src[counted:at], "\n")
		counted = at
		return line
	}
	seen := map[string]int{}  // base anchor → highest suffix given
	used := map[string]bool{} // every anchor given so far
	ast.Walk(reader.Parse(text.NewReader(b)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			if n.Lines().Len() == 0 {
				return ast.WalkContinue, nil // "#" alone: no text, no anchor
			}
			var t strings.Builder
			plainText(n, b, &t)
			h := Heading{Level: n.Level, Text: strings.TrimSpace(t.String()), Line: headingLine(n.Lines().At(0).Start)}
			// A repeat gets -1, -2, ... as on GitHub, stepping over a
			// heading whose own text already reads like "setup-1", so
			// every anchor stays unique and addressable.
			base := Anchor(h.Text)
			h.Anchor = base
			for k := seen[base]; used[h.Anchor]; {
				k++
				h.Anchor = base + "-" + strconv.Itoa(k)
				seen[base] = k
			}
			used[h.Anchor] = true
			d.Headings = append(d.Headings, h)
		case *ast.Link:
			d.Links = append(d.Links, string(n.Destination))
		case *ast.Image:
			d.Links = append(d.Links, string(n.Destination))
		case *ast.AutoLink:
			if n.AutoLinkType == ast.AutoLinkURL {
				d.Links = append(d.Links, string(n.URL(b)))
			}
		}
		return ast.WalkContinue, nil
	})
	return d
}

// Anchor is GitHub's heading anchor: lowercase, keep letters, digits,
// combining marks, hyphens and underscores, then spaces become hyphens.
func Anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || r == '_' || r == '-':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// plainText writes the text a node shows: its text and code, without
// markup, links as their text, raw HTML left out.
func plainText(n ast.Node, src []byte, b *strings.Builder) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.AutoLink:
			b.Write(t.Label(src))
		case *ast.RawHTML:
		default:
			plainText(c, src, b)
		}
	}
}

// lineStarts lists where each line of s starts.
func lineStarts(s string) []int {
	starts := []int{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineOf is the line holding byte offset at.
func lineOf(starts []int, at int) int {
	i, found := slices.BinarySearch(starts, at)
	if !found {
		i-- // inside the line that starts before it
	}
	return i
}

// Span is a range of bytes of a text, [From, To).
type Span struct{ From, To int }

// Code lists the byte ranges of src that are code, as CommonMark reads
// them, in text order: a fenced block from its opening fence to the end of
// its closing one (or of its last line, unclosed), an indented block's
// lines, an inline code span's text.
func Code(src string) []Span {
	if !mayHoldCode(src) {
		return nil
	}
	b := []byte(src)
	starts := lineStarts(src)
	lineEnd := func(line int) int {
		if line+1 < len(starts) {
			return starts[line+1]
		}
		return len(src)
	}
	var out []Span
	ast.Walk(codeReader.Parse(text.NewReader(b)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.FencedCodeBlock:
			open := lineOf(starts, max(n.Pos(), 0))
			last := open
			if l := n.Lines(); l.Len() > 0 {
				last = lineOf(starts, l.At(l.Len()-1).Start)
			}
			if c := last + 1; c < len(starts) && closesFence(src[starts[c]:lineEnd(c)], src[starts[open]:lineEnd(open)]) {
				last = c
			}
			out = append(out, Span{starts[open], lineEnd(last)})
			return ast.WalkSkipChildren, nil
		case *ast.CodeBlock:
			for i := range n.Lines().Len() {
				s := n.Lines().At(i)
				out = append(out, Span{s.Start, s.Stop})
			}
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan:
			// Its text, and the backticks around it (with the space
			// CommonMark strips inside them).
			var segs []Span
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					segs = append(segs, Span{t.Segment.Start, t.Segment.Stop})
				}
			}
			if len(segs) == 0 {
				return ast.WalkSkipChildren, nil
			}
			from, to := segs[0].From, segs[len(segs)-1].To
			for from > 0 && src[from-1] == ' ' {
				from--
			}
			for from > 0 && src[from-1] == '`' {
				from--
			}
			for to < len(src) && src[to] == ' ' {
				to++
			}
			for to < len(src) && src[to] == '`' {
				to++
			}
			out = append(out, Span{from, segs[0].From})
			out = append(out, segs...)
			out = append(out, Span{segs[len(segs)-1].To, to})
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}

// closesFence reports whether line closes the fenced block that opening
// opens: the same character, at least as many, nothing else but spaces.
func closesFence(line, opening string) bool {
	o := strings.TrimLeft(opening, " ")
	if o == "" {
		return false
	}
	c := o[0]
	n := len(o) - len(strings.TrimLeft(o, string(c)))
	t := strings.TrimLeft(strings.TrimRight(line, "\r\n"), " ")
	m := len(t) - len(strings.TrimLeft(t, string(c)))
	return m >= n && n >= 3 && strings.TrimRight(t[m:], " \t") == ""
}

// mayHoldCode reports whether src has what every code block or span
// needs: a backtick, a tilde, or a line indented by a tab or four spaces.
// Most prose has none, and is not parsed.
func mayHoldCode(src string) bool {
	if strings.ContainsAny(src, "`~\t") {
		return true
	}
	return strings.HasPrefix(src, "    ") || strings.Contains(src, "\n    ")
}
