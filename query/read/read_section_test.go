package read

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cairn-kb/cairn/query/internal/querytest"
)

// TestSectionAnchors: GitHub's anchors for the edge base's page of
// colliding headings, fenced code skipped, setext headings read.
func TestSectionAnchors(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(querytest.GoldenDir(), "edge", "base", "wiki", "anchors.md"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sections(string(data)) {
		got = append(got, fmt.Sprintf("%d %s", s.Level, s.Anchor))
	}
	want := []string{"1 heading-anchors", "2 setup", "2 setup-1", "2 setup-2", "2 setup-3", "2 über-uns--ça-va",
		"2 -launch", "2 cairn-build-output", "2 heading-anchors-1", "2 setext-heading"}
	if !slices.Equal(got, want) {
		t.Errorf("anchors\n got %q\nwant %q", got, want)
	}
	sec, ok := sectionOf(string(data), "Setup-2")
	if !ok || sec.text != "## Setup!\n\nPunctuation is dropped, so this is `setup-2`.\n" {
		t.Errorf("section setup-2: %v %q", ok, sec.text)
	}
}

// TestSectionAnchorsOfRenderedText: GitHub takes an anchor from the text a
// heading shows, so a link gives its words and an HTML tag nothing; a
// heading in a quote has one too; "#no space" is no heading.
func TestSectionAnchorsOfRenderedText(t *testing.T) {
	page := "---\ntitle: T\n---\n# See [the guide](guide.md) and <b>this</b>\n\n> ## Quoted *heading*\n\n#no space\n\nText\n---\n"
	var got []string
	for _, s := range sections(page) {
		got = append(got, fmt.Sprintf("%d %s %d", s.Level, s.Anchor, s.line))
	}
	want := []string{"1 see-the-guide-and-this 3", "2 quoted-heading 5", "2 text 9"}
	if !slices.Equal(got, want) {
		t.Errorf("sections\n got %q\nwant %q", got, want)
	}
}
