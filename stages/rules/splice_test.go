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

// TestSpliceReplacesKapiSections: the section replaces what kapi left in a
// rules file, its rules and its voice pointer, taking the place of the
// first; a kapi section cairn writes nothing over stays, as does one
// whose delimiters do not pair.
func TestSpliceReplacesKapiSections(t *testing.T) {
	sec := artifacts.RulesOpen + "\nnew\n" + artifacts.RulesClose + "\n"
	ours := artifacts.RulesOpen + "\nold\n" + artifacts.RulesClose + "\n"
	voice := "<!-- kapi:voice -->\nVoice: see governance/voices/docs.yaml\n<!-- /kapi:voice -->\n"
	rules := "<!-- kapi:rules -->\n## Writing rules\n- old rule\n<!-- /kapi:rules -->\n"
	cases := []struct {
		name, text, section, want string
	}{
		{"the voice pointer is replaced in place", "# Mine\n\n" + voice + "\nAfter.\n", sec, "# Mine\n\n" + sec + "\nAfter.\n"},
		{"kapi's rules then its pointer: the first takes the section", "# Mine\n\n" + rules + "\n" + voice, sec, "# Mine\n\n" + sec},
		{"the pointer before cairn's section goes with its blank line", voice + "\nmid\n\n" + ours, sec, "mid\n\n" + sec},
		{"the pointer between two paragraphs goes with one blank line", "a\n\n" + voice + "\nb\n\n" + ours, sec, "a\n\nb\n\n" + sec},
		{"cairn's section before kapi's pointer", ours + "\nmid\n" + voice + "end\n", sec, sec + "\nmid\nend\n"},
		{"in CRLF", crlf("# Mine\n\n" + voice), sec, crlf("# Mine\n\n" + sec)},
		{"nothing written: kapi's sections stay", "# Mine\n\n" + voice, "", "# Mine\n\n" + voice},
		{"an unpaired kapi delimiter is the user's text", "# Mine\n<!-- kapi:voice -->\n", sec, "# Mine\n<!-- kapi:voice -->\n\n" + sec},
		{"a delimiter in a code fence is an example", "```\n" + voice + "```\n", sec, "```\n" + voice + "```\n\n" + sec},
	}
	for _, c := range cases {
		if got := splice(c.text, c.section); got != c.want {
			t.Errorf("%s: splice = %q, want %q", c.name, got, c.want)
		}
	}
}
