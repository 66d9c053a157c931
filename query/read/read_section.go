package read

import (
	"strings"

	"github.com/cairn-kb/cairn/stages/lib/markdown"
)

// Section is one heading of a page: its anchor as GitHub writes it,
// its level and its text.
type Section struct {
	Anchor  string `json:"anchor"`
	Level   int    `json:"level"`
	Heading string `json:"heading"`
	// line and end are the section's lines in the page: the heading's,
	// and the first line after the section.
	line, end int
}

// SectionRef says which section of which page a section read is.
type SectionRef struct {
	Page    string `json:"page"`
	Anchor  string `json:"anchor"`
	Heading string `json:"heading"`
	Level   int    `json:"level"`
}

// section is a section found, with its text.
type pageSection struct {
	Section
	text string
}

// sections lists a page's headings outside its frontmatter as package
// markdown reads them (CommonMark's headings, with GitHub's anchors, the
// same a build reads), each running from its heading's first line to the
// next heading of its level or above.
func sections(text string) []Section {
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
	var out []Section
	if start < len(lines) {
		for _, h := range markdown.Read(strings.Join(lines[start:], "\n")).Headings {
			out = append(out, Section{Anchor: h.Anchor, Level: h.Level, Heading: h.Text, line: start + h.Line})
		}
	}
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

// sectionOf finds the section of text with the anchor; case does not
// count, as in a browser following a link's fragment to GitHub's anchors.
func sectionOf(text, anchor string) (pageSection, bool) {
	lines := strings.Split(text, "\n")
	for _, s := range sections(text) {
		if s.Anchor == strings.ToLower(anchor) {
			body := strings.Join(lines[s.line:s.end], "\n")
			return pageSection{Section: s, text: strings.TrimRight(body, "\n") + "\n"}, true
		}
	}
	return pageSection{}, false
}

// nearestAnchors names the page's anchors nearest to the one asked for.
func nearestAnchors(secs []Section, anchor string) string {
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
