package check

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/stages/load"
)

// testBase is a small base: a voice with a prohibited and a required
// pattern, a name, a forbidden term everywhere and a rename scoped to
// cli/.
var testBase = fstest.MapFS{
	"cairn.yaml": {Data: []byte("governance:\n  default_voice: docs\n")},
	"governance/voices/docs.yaml": {Data: []byte(`name: docs
patterns:
  prohibited:
    - regex: '(?i)\bsimply\b'
      description: Minimising words.
  required:
    - regex: '(?m)^# \S'
      description: A title heading.
      severity: error
`)},
	"governance/terms.yaml": {Data: []byte(`- id: ferry
  term: Ferry
  status: preferred
  kind: name
- id: whitelist
  term: whitelist
  status: forbidden
  replacement: allowlist
- id: switch
  term: switch
  status: forbidden
  replacement: flag
  paths: ["cli/**"]
- id: option
  term: option
  status: deprecated
  replacement: setting
  paths: ["cli/**"]
- id: setting
  term: setting
  status: preferred
  paths: ["admin/**"]
`)},
}

// runCheck checks files of base with extra files added, as text.
func runCheck(t *testing.T, files map[string]string) string {
	t.Helper()
	fsys := fstest.MapFS{}
	for p, f := range testBase {
		fsys[p] = f
	}
	var paths []string
	for p, text := range files {
		fsys[p] = &fstest.MapFile{Data: []byte(text)}
		paths = append(paths, p)
	}
	g := load.ReadGovernance(fsys)
	if len(g.Diagnostics) > 0 {
		t.Fatalf("the test base has mistakes: %v", g.Diagnostics)
	}
	sel, err := Select(fsys, g.Config, paths)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Run(context.Background(), Input{FS: fsys, Governance: g, Files: sel.Files, AsOf: time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Diagnostics) > 0 {
		t.Fatalf("diagnostics: %v", out.Diagnostics)
	}
	return string(Text(out))
}

func TestCheckFindings(t *testing.T) {
	cases := []struct {
		name, path, text, want string
	}{
		{"a clean file is silent", "a.md", "# Ferry\n\nNothing to see.\n", ""},
		{"columns count runes", "a.md", "# Café\n\nÉtait whitelist.\n",
			"a.md:3:7: error: write \"allowlist\", not \"whitelist\" [terms.forbidden:whitelist]\n"},
		{"code is not prose", "a.md", "# Ferry\n\nRun `ferry --whitelist`.\n\n```\nferry simply whitelist\n```\n\n~~~~\nferry\n~~~~\n", ""},
		{"frontmatter is not prose", "a.md", "---\ntitle: ferry whitelist\n---\n# Ferry\n", ""},
		{"an unclosed backtick is text", "a.md", "# Ferry\n\nA ` then ferry.\n\nNext `x`.\n",
			"a.md:3:10: error: write \"Ferry\" exactly as shown, not \"ferry\": it is a name [terms.name:ferry]\n"},
		{"a name in capitals, a pattern, a missing heading", "a.md", "Simply\nFERRY.\n",
			"a.md:1:1: warning: avoid \"Simply\": Minimising words [voice.prohibited:docs#1]\n" +
				"a.md:1:1: error: missing: A title heading [voice.required:docs#1]\n" +
				"a.md:2:1: error: write \"Ferry\" exactly as shown, not \"FERRY\": it is a name [terms.name:ferry]\n"},
		{"the rename holds in cli/", "cli/a.md", "# A\n\nThe switch.\n",
			"cli/a.md:3:5: error: write \"flag\", not \"switch\" [terms.forbidden:switch]\n"},
		{"outside it, the new wording is the finding", "b.md", "# B\n\nThe flag and the switch.\n",
			"b.md:3:5: error: \"flag\" renames \"switch\" only in cli/**; here \"switch\" is correct [terms.keep:switch]\n"},
		{"a deprecated rule's rename warns", "b.md", "# B\n\nThe setting.\n",
			"b.md:3:5: warning: \"setting\" renames \"option\" only in cli/**; here \"option\" is correct [terms.keep:option]\n"},
		{"a wording in force here is no kept rename", "admin/b.md", "# B\n\nThe setting.\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, runCheck(t, map[string]string{c.path: c.text})); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMaskKeepsOffsets: blanking keeps every byte's offset and every line
// break.
func TestMaskKeepsOffsets(t *testing.T) {
	text := "---\na: é\n---\n`é` x\n```\ncode é\n```\nend\n"
	got := maskCode(text, 4)
	if len(got) != len(text) || strings.Count(got, "\n") != strings.Count(text, "\n") {
		t.Fatalf("mask changed the shape: %q", got)
	}
	if want := "\x00\x00\x00\n\x00\x00\x00\x00\x00\n\x00\x00\x00\n\x00\x00\x00\x00 x\n\x00\x00\x00\n\x00\x00\x00\x00\x00\x00\x00\n\x00\x00\x00\nend\n"; got != want {
		t.Errorf("mask:\n got %q\nwant %q", got, want)
	}
}

// BenchmarkCheck measures a check's throughput over generated Markdown
// content: -benchtime decides the runs; b.SetBytes makes the figure MB/s
// of content. go test ./cmd/cairn/internal/check -run '^$' -bench Check
func BenchmarkCheck(b *testing.B) {
	fsys := fstest.MapFS{}
	for p, f := range testBase {
		fsys[p] = f
	}
	var files []string
	var size int64
	for i := range 2000 {
		var text strings.Builder
		fmt.Fprintf(&text, "---\ntitle: Page %d\n---\n# Page %d\n\n", i, i)
		// Prose that mostly keeps the rules: one finding a page.
		for j := range 40 {
			fmt.Fprintf(&text, "Paragraph %d of page %d: the Ferry client copies a folder to the remote, and `ferry sync` "+
				"prints what changed since the last run, file by file, with the bytes each one moved.\n\n", j, i)
		}
		text.WriteString("A whitelist of paths is read as an allowlist.\n\n")
		text.WriteString("```\nferry sync --whitelist\n```\n")
		p := fmt.Sprintf("docs/%02d/page-%d.md", i%50, i)
		if i%3 == 0 {
			p = fmt.Sprintf("cli/page-%d.md", i)
		}
		fsys[p] = &fstest.MapFile{Data: []byte(text.String())}
		files = append(files, p)
		size += int64(text.Len())
	}
	g := load.ReadGovernance(fsys)
	in := Input{FS: fsys, Governance: g, Files: files, AsOf: time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)}
	b.SetBytes(size)
	for b.Loop() {
		out, err := Run(context.Background(), in)
		if err != nil || out.Checked != len(files) {
			b.Fatalf("checked %d of %d: %v", out.Checked, len(files), err)
		}
	}
}
