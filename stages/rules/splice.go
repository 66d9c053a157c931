package rules

import (
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
)

// splice returns text with cairn's section set to section: replaced where
// the text holds one, appended after a blank line where it does not, and
// removed when section is empty. Every byte around the section is kept;
// removal also takes back the blank line an append put before a section
// that ended the file. text's delimiters are known to pair (load refuses
// a file where they do not).
//
// A file whose lines end in CRLF (a Windows checkout) gets the section in
// CRLF too, so that the file keeps one line ending and a checkout that
// converts line endings does not make the section look edited.
//
// A section written also replaces the sections kapi left in the file (its
// rules and its voice pointer, artifacts.LegacySections): it takes the
// place of the first of them when the file holds no cairn section yet,
// and the others go.
func splice(text, section string) string {
	nl := "\n"
	if strings.Contains(text, "\r\n") {
		nl = "\r\n"
		section = strings.ReplaceAll(section, "\n", nl)
	}
	start, end, found, _ := artifacts.FindRulesSection([]byte(text))
	if legacy := artifacts.LegacySections([]byte(text)); section != "" && len(legacy) > 0 {
		// Every span goes; the section takes the place of cairn's own, or
		// of the first of kapi's when the file holds none of cairn's.
		spans := slices.Clone(legacy)
		if found {
			spans = append(spans, [2]int{start, end})
			slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
		}
		var b strings.Builder
		pos := 0
		for _, sp := range spans {
			b.WriteString(text[pos:sp[0]])
			pos = sp[1]
			if found && sp[0] == start || !found && sp == legacy[0] {
				b.WriteString(section)
				continue
			}
			// A span removed takes a blank line with it, as an append
			// would have put one before it: the one after it, or at the
			// end of the file the one before.
			if before := b.String(); before == "" || strings.HasSuffix(before, nl+nl) {
				if strings.HasPrefix(text[pos:], nl) {
					pos += len(nl)
				} else if pos == len(text) && before != "" {
					b.Reset()
					b.WriteString(before[:len(before)-len(nl)])
				}
			}
		}
		b.WriteString(text[pos:])
		return b.String()
	}
	switch {
	case found && section != "":
		return text[:start] + section + text[end:]
	case found:
		before, after := text[:start], text[end:]
		if after == "" && strings.HasSuffix(before, nl+nl) {
			before = before[:len(before)-len(nl)]
		}
		return before + after
	case section == "":
		return text
	case text == "":
		return section
	case !strings.HasSuffix(text, "\n"):
		text += nl
	}
	return text + nl + section
}

// holdsOnlySection reports whether nothing but white space would be left
// of text without its section.
func holdsOnlySection(text string) bool { return strings.TrimSpace(splice(text, "")) == "" }
