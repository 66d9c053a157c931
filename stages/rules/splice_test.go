package rules

import (
	"strings"
	"testing"

	"github.com/cairn-kb/cairn/artifacts"
)

func TestSplice(t *testing.T) {
	sec := artifacts.RulesOpen + "\nnew\n" + artifacts.RulesClose + "\n"
	old := artifacts.RulesOpen + "\nold\n" + artifacts.RulesClose + "\n"
	cases := []struct {
		name, text, section, want string
	}{
		{"a new file gets just the section", "", sec, sec},
		{"appended after a blank line", "# Mine\n", sec, "# Mine\n\n" + sec},
		{"appended to a file without a final LF", "# Mine", sec, "# Mine\n\n" + sec},
		{"replaced in place in a CRLF file, in CRLF, bytes around kept", "# Mine\r\n\r\n" + crlf(old) + "\r\nAfter.  \r\n", sec, "# Mine\r\n\r\n" + crlf(sec) + "\r\nAfter.  \r\n"},
		{"appended to a CRLF file in CRLF", "# Mine\r\n", sec, "# Mine\r\n\r\n" + crlf(sec)},
		{"removed from a CRLF file with its blank line", "# Mine\r\n\r\n" + crlf(old), "", "# Mine\r\n"},
		{"removed, the blank line an append added too", "# Mine\n\n" + old, "", "# Mine\n"},
		{"removed from the middle", "a\n\n" + old + "\nb\n", "", "a\n\n\nb\n"},
		{"nothing to remove", "# Mine\n", "", "# Mine\n"},
	}
	for _, c := range cases {
		if got := splice(c.text, c.section); got != c.want {
			t.Errorf("%s: splice = %q, want %q", c.name, got, c.want)
		}
	}
	// Appending then removing gives the file back.
	for _, text := range []string{"# Mine\n", "# Mine\n\nmore\n", "x"} {
		if got := splice(splice(text, sec), ""); got != text && got != text+"\n" {
			t.Errorf("append then remove: %q became %q", text, got)
		}
	}
	if !holdsOnlySection("\n"+old+"\n\n") || holdsOnlySection("x\n"+old) {
		t.Error("holdsOnlySection is wrong")
	}
}

func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
