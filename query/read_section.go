package query

import (
	"fmt"
	"strings"
	"unicode"
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

// sections lists a page's ATX headings outside its frontmatter and code
// blocks, each with its GitHub anchor: the heading lowercased, every
// character but letters, digits, spaces, hyphens and underscores dropped,
// spaces made hyphens, and a repeated anchor suffixed -1, -2, … in page
// order. A section runs to the next heading of its level or above.
func sections(text string) []ReadSection {
	lines := strings.Split(text, "\n")
	var out []ReadSection
	used := map[string]int{}
	fence := ""
	start := 0
	if len(lines) > 0 && strings.TrimRight(lines[0], " \r") == "---" {
		for i := 1; i < len(lines); i++ {
			if t := strings.TrimRight(lines[i], " \r"); t == "---" || t == "..." {
				start = i + 1
				break
			}
		}
	}
	for i := start; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], "\r")
		trimmed := strings.TrimLeft(line, " ")
		if len(line)-len(trimmed) <= 3 {
			if f := fenceOf(trimmed); f != "" {
				switch {
				case fence == "":
					fence = f
				case strings.HasPrefix(f, fence) && strings.TrimLeft(trimmed, f[:1]) == "":
					fence = ""
				}
				continue
			}
		}
		if fence != "" {
			continue
		}
		level, heading, ok := atxHeading(line)
		at := i
		if !ok {
			// A setext heading: a line of text underlined by = or -.
			if level = setextLevel(line); level == 0 || i == start || prose(lines[i-1]) == "" ||
				(len(out) > 0 && out[len(out)-1].line == i-1) {
				continue
			}
			if _, _, atx := atxHeading(lines[i-1]); atx || fenceOf(strings.TrimLeft(lines[i-1], " ")) != "" {
				continue
			}
			heading, at = prose(lines[i-1]), i-1
		}
		anchor := githubAnchor(heading)
		if n, dup := used[anchor]; dup {
			used[anchor] = n + 1
			anchor = fmt.Sprintf("%s-%d", anchor, n+1)
		}
		used[anchor] = max(used[anchor], 0)
		out = append(out, ReadSection{Anchor: anchor, Level: level, Heading: heading, line: at})
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

// fenceOf is the run of backticks or tildes (three or more) that opens or
// closes a code block on this line, or "".
func fenceOf(s string) string {
	for _, c := range []string{"`", "~"} {
		n := len(s) - len(strings.TrimLeft(s, c))
		if n >= 3 {
			return s[:n]
		}
	}
	return ""
}

// setextLevel is 1 for a line of =, 2 for a line of -, at most three
// spaces in, else 0.
func setextLevel(line string) int {
	t := strings.TrimSpace(line)
	if len(line)-len(strings.TrimLeft(line, " ")) > 3 || t == "" {
		return 0
	}
	switch {
	case strings.Trim(t, "=") == "":
		return 1
	case strings.Trim(t, "-") == "":
		return 2
	}
	return 0
}

// prose is a line's text without its indentation and line ending.
func prose(line string) string { return strings.TrimSpace(line) }

// atxHeading reads "## Heading ##" at most three spaces in.
func atxHeading(line string) (int, string, bool) {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return 0, "", false
	}
	n := len(t) - len(strings.TrimLeft(t, "#"))
	if n < 1 || n > 6 || (len(t) > n && t[n] != ' ' && t[n] != '\t') {
		return 0, "", false
	}
	h := strings.TrimSpace(t[n:])
	if trimmed := strings.TrimRight(h, "#"); trimmed == "" || strings.HasSuffix(trimmed, " ") {
		h = strings.TrimSpace(trimmed)
	}
	return n, h, true
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
