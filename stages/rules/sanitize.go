package rules

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ellipsis ends a line cut at its cap.
const ellipsis = "…"

// inert are the sequences that could end cairn's section, open a comment
// or a code block: removed from stored text, repeatedly, since removing
// one can join the halves of another.
var inert = []string{"<!--", "-->", "--!>", "```", "~~~"}

// emDash matches a stored em dash and the space around it.
var emDash = regexp.MustCompile(`\s*—\s*`)

// plain turns stored text (a term, a note, a line of a voice brief) into
// one plain line: line breaks and control characters become spaces,
// comment delimiters and code fences are removed, an em dash becomes a
// comma, runs of space collapse, and leading heading markers go, so that
// the text can neither close the section nor read as structure of its own.
func plain(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == utf8.RuneError {
			return ' '
		}
		return r
	}, s)
	for changed := true; changed; {
		changed = false
		for _, seq := range inert {
			if strings.Contains(s, seq) {
				s, changed = strings.ReplaceAll(s, seq, ""), true
			}
		}
	}
	s = emDash.ReplaceAllString(s, ", ")
	s = strings.Join(strings.Fields(s), " ")
	return strings.TrimLeft(s, "# ")
}

// capLine cuts a line to at most limit runes, ending a cut line with an
// ellipsis.
func capLine(line string, limit int) string {
	if limit <= 0 || utf8.RuneCountInString(line) <= limit {
		return line
	}
	n := 0
	for i := range line {
		if n == limit-1 {
			return strings.TrimRight(line[:i], " ") + ellipsis
		}
		n++
	}
	return line
}
