package markdown

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// mask blanks the code of src with '#', keeping line breaks.
func mask(src string) string {
	b := []byte(src)
	for _, c := range Code(src) {
		for i := c.From; i < c.To; i++ {
			if b[i] != '\n' {
				b[i] = '#'
			}
		}
	}
	return string(b)
}

// TestCode: fenced blocks from fence to fence, indented blocks, inline
// spans with their backticks, a fence in a list item, an unclosed fence
// to the end; nothing else.
func TestCode(t *testing.T) {
	src := strings.Join([]string{
		"Text with `span` and ``a ` tick``.",
		"",
		"```go",
		"term inside",
		"```",
		"",
		"    indented code",
		"",
		"- item",
		"",
		"  ~~~",
		"  listed code",
		"  ~~~",
		"",
		"After.",
		"",
		"````",
		"unclosed",
	}, "\n")
	want := strings.Join([]string{
		"Text with ###### and ############.",
		"",
		"#####",
		"###########",
		"###",
		"",
		"    #############",
		"",
		"- item",
		"",
		"#####",
		"#############",
		"#####",
		"",
		"After.",
		"",
		"####",
		"########",
	}, "\n")
	if got := mask(src); got != want {
		t.Errorf("masked\n%s\nwant\n%s", got, want)
	}
}

// TestHeadings: CommonMark's headings, their shown text, GitHub's anchors
// made unique, and their lines.
func TestHeadings(t *testing.T) {
	src := "# Setup\n\n## Setup\n\n```\n# not a heading\n```\n\nSetup-1\n-------\n\n> ### Quoted `code` [link](x.md)\n"
	var got []string
	for _, h := range Read(src).Headings {
		got = append(got, strings.Join([]string{h.Text, h.Anchor, strconv.Itoa(h.Line)}, "|"))
	}
	want := []string{"Setup|setup|0", "Setup|setup-1|2", "Setup-1|setup-1-1|8", "Quoted code link|quoted-code-link|11"}
	if !slices.Equal(got, want) {
		t.Errorf("headings\n got %q\nwant %q", got, want)
	}
}
