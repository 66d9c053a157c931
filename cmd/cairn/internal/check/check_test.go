package check

import (
	"context"
	"fmt"
	"regexp"
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
- id: flag-manager
  term: Flag Manager
  status: preferred
  kind: name
- id: banned-list
  term: whitelist editor
  status: preferred
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
		{"a longer wording the store prescribes is no kept rename", "b.md", "# B\n\nAsk the Flag Manager, then set the flag.\n",
			"b.md:3:36: error: \"flag\" renames \"switch\" only in cli/**; here \"switch\" is correct [terms.keep:switch]\n"},
		{"nor a forbidden word inside it", "b.md", "# B\n\nOpen the whitelist editor; the whitelist goes.\n",
			"b.md:3:32: error: write \"allowlist\", not \"whitelist\" [terms.forbidden:whitelist]\n"},
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

// TestSuppressions: which lines each directive covers, how a selector
// names rules, and that an enable closes only what it names.
func TestSuppressions(t *testing.T) {
	prose := strings.Join([]string{
		"<!-- cairn-disable-next-line terms.forbidden:sprint, voice -->", // 1
		"x",                                  // 2
		"y <!-- cairn-disable-line -->",      // 3
		"<!-- cairn-disable terms voice -->", // 4
		"z",                                  // 5
		"<!-- cairn-enable voice -->",        // 6
		"w",                                  // 7
		"/* cairn-enable */",                 // 8
		"v",                                  // 9
	}, "\n")
	s := suppressions(prose)
	for _, c := range []struct {
		line int
		id   string
		want bool
	}{
		{1, "terms.forbidden:sprint", false},
		{2, "terms.forbidden:sprint", true},
		{2, "terms.forbidden:sprints", false},
		{2, "voice.prohibited:docs#1", true},
		{2, "terms.deprecated:sprint", false},
		{3, "anything.at:all", true},
		{5, "terms.name:harbor", true},
		{5, "voice.required:docs#2", true},
		{7, "terms.name:harbor", true},
		{7, "voice.required:docs#2", false},
		{9, "terms.name:harbor", false},
	} {
		if got := s.leaves(c.line, c.id); got != c.want {
			t.Errorf("line %d, rule %s: left out %v, want %v", c.line, c.id, got, c.want)
		}
	}
	if masked := maskDirectives(prose); strings.Contains(masked, "sprint") || !strings.Contains(masked, "-->") {
		t.Errorf("the directives' rule names are read as wording, or the comment ends were blanked:\n%q", masked)
	}
}

// TestPatternWording: a finding quotes what a pattern's first group
// matched, or the match without white space at its edges, never the
// characters the pattern needs only as context.
func TestPatternWording(t *testing.T) {
	for _, c := range []struct{ pattern, text, want string }{
		{`(?i)\b(simply|just)\b`, "You simply run it.", "simply"},
		{`[^a-z](foo)[^a-z]`, "a foo.", "foo"},
		{`\s!{2,}`, "Done !!", "!!"},
		{`(x)?y`, "zy", "y"},
	} {
		re := regexp.MustCompile(c.pattern)
		loc := re.FindStringSubmatchIndex(c.text)
		if start, end := wording(c.text, loc); c.text[start:end] != c.want {
			t.Errorf("%s in %q: quoted %q, want %q", c.pattern, c.text, c.text[start:end], c.want)
		}
	}
}
