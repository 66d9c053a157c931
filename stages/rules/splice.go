package rules

import (
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
func splice(text, section string) string {
	nl := "\n"
	if strings.Contains(text, "\r\n") {
		nl = "\r\n"
		section = strings.ReplaceAll(section, "\n", nl)
	}
	start, end, found, _ := artifacts.FindRulesSection([]byte(text))
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
