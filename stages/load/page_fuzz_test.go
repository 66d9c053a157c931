package load

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// FuzzLoadPage feeds arbitrary bytes to the page loader: it must never
// panic, every diagnostic must point inside the file, and a page that loads
// must have a title and anchors that are unique.
func FuzzLoadPage(f *testing.F) {
	for _, s := range []string{
		"---\ntitle: T\ntags: [a, b]\n---\n# H\n## H\n",
		"---\ntags: [unclosed\n---\nbody",
		"\xef\xbb\xbf---\r\ntitle: crlf\r\n---\r\n# Café ☕\r\n",
		"```\n# not a heading\n```\n# Real #\n",
		"---\n- a list\n---\n",
		"# Learning F#\n",
		"# setup-1\n# setup\n# setup\n",
	} {
		f.Add(s)
	}
	cfg := model.Config{}.WithDefaults()
	f.Fuzz(func(t *testing.T, text string) {
		fsys := fstest.MapFS{"wiki/p.md": {Data: []byte(text)}}
		var ds diag.List
		p, ok := loadPage(fsys, cfg, "wiki/p.md", &ds)
		lines := strings.Count(text, "\n") + 1
		for _, d := range ds.Sorted() {
			if d.File != "wiki/p.md" || d.Line < 0 || d.Line > lines+1 {
				t.Fatalf("diagnostic outside the file: %v (file has %d lines)", d, lines)
			}
		}
		if !ok {
			return
		}
		if p.Front.Title == "" {
			t.Fatal("a loaded page has no title")
		}
		seen := map[string]bool{}
		for _, h := range p.Headings {
			if seen[h.Anchor] {
				t.Fatalf("anchor %q twice", h.Anchor)
			}
			seen[h.Anchor] = true
		}
	})
}
