package roff

import (
	"strings"
	"testing"
)

// TestEscape: backslashes and hyphens are escaped, other runes outside
// ASCII written as Unicode escapes, control characters dropped.
func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		`--budget`:    `\-\-budget`,
		`a\b`:         `a\eb`,
		"café · ≤ 3":  `caf\[u00E9] \[u00B7] \[u2264] 3`,
		"tab\there":   "tab here",
		"bell\a!":     "bell!",
		"emoji 🙂":     `emoji \[u1F642]`,
		"plain words": "plain words",
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMarkdown: headings become sections, a table's rows tagged
// paragraphs named by their headers, code literal lines whose leading
// period cannot be read as a request, and the page is ASCII.
func TestMarkdown(t *testing.T) {
	p := NewPage("cairn-x", 7, "cairn 0", "cairn manual")
	p.Markdown("# Title\n\nIntro with `--flag` and *words*.\n\n## A section\n\n| key | what | default |\n| --- | --- | --- |\n| `a` | the a | 1 |\n\n```sh\n.cairn/\n'quoted\n```\n\n### Deeper\n\n- one\n- two: [link](other.md) and <https://example.test>\n")
	got := p.String()
	for _, want := range []string{
		`.TH CAIRN\-X 7 "" "cairn 0" "cairn manual"` + "\n",
		".SH DESCRIPTION\n.PP\nIntro with \\fB\\-\\-flag\\fR and \\fIwords\\fR.\n",
		".SH \"A section\"\n",
		".TP\n\\fB\\fBa\\fR\\fR\nwhat: the a; default: 1\n",
		".nf\n\\&.cairn/\n\\&'quoted\n.fi\n",
		".SS Deeper\n",
		".IP \\(bu 3\ntwo: link and https://example.test\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the page lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Title") {
		t.Errorf("the level-1 title is written; NAME says it:\n%s", got)
	}
}
