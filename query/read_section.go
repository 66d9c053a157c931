package query

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	gtext "github.com/yuin/goldmark/text"
)

// ReadSection is one heading of a page: its anchor as GitHub writes it,
// its level and its text.
type ReadSection struct {
	Anchor  string `json:"anchor"`
	Level   int    `json:"level"`
	Heading string `json:"heading"`
	// line and end are the section's lines in the page: the heading's,
	// and the first line after the section.
	line, end int
}

// ReadSectionRef says which section of which page a section read is.
type ReadSectionRef struct {
	Page    string `json:"page"`
	Anchor  string `json:"anchor"`
	Heading string `json:"heading"`
	Level   int    `json:"level"`
}

// section is a section found, with its text.
type pageSection struct {
	ReadSection
	text string
}

// sections lists a page's headings outside its frontmatter, as CommonMark
// reads them (ATX and setext, none in code, those in quotes and lists
// too), each with its GitHub anchor: the heading's text lowercased, every
// character but letters, digits, spaces, hyphens and underscores dropped,
// spaces made hyphens, and a repeated anchor suffixed -1, -2, … in page
// order. A section runs from its heading's first line to the next heading
// of its level or above.
func sections(text string) []ReadSection {
	lines := strings.Split(text, "\n")
	start := 0
	if len(lines) > 0 && strings.TrimRight(lines[0], " \r") == "---" {
		for i := 1; i < len(lines); i++ {
			if t := strings.TrimRight(lines[i], " \r"); t == "---" || t == "..." {
				start = i + 1
				break
			}
		}
	}
	// Where each line starts in text, to turn a heading's offset into its
	// line.
	starts := make([]int, len(lines))
	for i := 1; i < len(lines); i++ {
		starts[i] = starts[i-1] + len(lines[i-1]) + 1
	}
	base := len(text)
	if start < len(lines) {
		base = starts[start]
	}
	src := []byte(text[base:])
	var out []ReadSection
	used := map[string]int{}
	ast.Walk(headingParser.Parse(gtext.NewReader(src)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !entering || !ok || h.Lines().Len() == 0 {
			return ast.WalkContinue, nil
		}
		var b strings.Builder
		plainText(h, src, &b)
		heading := strings.TrimSpace(b.String())
		at := base + h.Lines().At(0).Start
		line, found := slices.BinarySearch(starts, at)
		if !found {
			line-- // the heading's text starts inside its line
		}
		anchor := githubAnchor(heading)
		if n, dup := used[anchor]; dup {
			used[anchor] = n + 1
			anchor = fmt.Sprintf("%s-%d", anchor, n+1)
		}
		used[anchor] = max(used[anchor], 0)
		out = append(out, ReadSection{Anchor: anchor, Level: h.Level, Heading: heading, line: line})
		return ast.WalkSkipChildren, nil
	})
	for k := range out {
		out[k].end = len(lines)
		for j := k + 1; j < len(out); j++ {
			if out[j].Level <= out[k].Level {
				out[k].end = out[j].line
				break
			}
		}
	}
	return out
}

// headingParser reads pages for their headings: every block parser, and
// the inline ones that decide a heading's text (code spans, links,
// autolinks, raw HTML, emphasis).
var headingParser = parser.NewParser(
	parser.WithBlockParsers(parser.DefaultBlockParsers()...),
	parser.WithInlineParsers(parser.DefaultInlineParsers()...),
	parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
)

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

// githubAnchor is the anchor GitHub gives a heading.
func githubAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// sectionOf finds the section of text with the anchor; case does not
// count, as in a browser following a link's fragment to GitHub's anchors.
func sectionOf(text, anchor string) (pageSection, bool) {
	lines := strings.Split(text, "\n")
	for _, s := range sections(text) {
		if s.Anchor == strings.ToLower(anchor) {
			body := strings.Join(lines[s.line:s.end], "\n")
			return pageSection{ReadSection: s, text: strings.TrimRight(body, "\n") + "\n"}, true
		}
	}
	return pageSection{}, false
}

// nearestAnchors names the page's anchors nearest to the one asked for.
func nearestAnchors(secs []ReadSection, anchor string) string {
	if len(secs) == 0 {
		return "the page has no headings; read it whole"
	}
	var names []string
	for _, s := range secs {
		names = append(names, s.Anchor)
	}
	near := nearest(strings.ToLower(anchor), names, maxNearest)
	for i := range near {
		near[i] = "#" + near[i]
	}
	return "the nearest: " + strings.Join(near, ", ")
}
