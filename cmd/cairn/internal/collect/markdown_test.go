package collect

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNoteTitle: a note without a frontmatter title takes its first
// level-one heading as CommonMark reads it, never a "# line" of a code
// block, else its file name.
func TestNoteTitle(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ file, text, want string }{
		{"fenced.md", "```sh\n# install the tools\nmake tools\n```\n\n# Deploying\n\nSteps.\n", "Deploying"},
		{"second.md", "## Background\n\n# The runbook\n", "The runbook"},
		{"setext.md", "Release notes\n=============\n\nText.\n", "Release notes"},
		{"nothing.md", "Just text.\n", "nothing"},
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.file)
		if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		n, skipped, err := readNote(p, "notes/"+c.file)
		if err != nil || skipped != nil {
			t.Fatalf("%s: %v %v", c.file, err, skipped)
		}
		if n.Title != c.want {
			t.Errorf("%s: title %q, want %q", c.file, n.Title, c.want)
		}
	}
}
