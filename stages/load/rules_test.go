package load

import (
	"github.com/cairn-kb/cairn/artifacts"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

const rulesSection = "<!-- cairn:rules -->\n- Write \"Harbor\".\n<!-- /cairn:rules -->\n"

func TestRulesFilesAreReadNotInputs(t *testing.T) {
	fsys := mapBase(map[string]string{
		"cairn.yaml":        runConfig,
		"AGENTS.md":         "# Mine\n\n" + rulesSection,
		"docs/guide.md":     "# Guide\n",
		"docs/CLAUDE.md":    "@AGENTS.md\n",
		"wiki/AGENTS.md":    "wiki notes for agents\n",
		"broken/AGENTS.md":  "top\n<!-- cairn:rules -->\nno end\n",
		".hidden/CLAUDE.md": rulesSection,
	})
	out := runBase(t, fsys, nil, nil)
	if d := cmp.Diff([]string{"cairn.yaml", "docs/guide.md"}, inputPaths(out)); d != "" {
		t.Errorf("inputs (-want +got):\n%s", d)
	}
	want := []model.RulesFile{
		{Path: "AGENTS.md", Text: "# Mine\n\n" + rulesSection},
		{Path: "docs/CLAUDE.md", Text: "@AGENTS.md\n"},
		{Path: "wiki/AGENTS.md", Text: "wiki notes for agents\n"},
	}
	if d := cmp.Diff(want, out.Base.RulesFiles); d != "" {
		t.Errorf("rules files (-want +got):\n%s", d)
	}
	wantDiag := []string{"broken/AGENTS.md:2:1: error: the cairn section opened here is never closed; add a line <!-- /cairn:rules --> where it ends, or delete the section and build again [rules-section]"}
	if d := cmp.Diff(wantDiag, diagLines(out.Diagnostics)); d != "" {
		t.Errorf("diagnostics (-want +got):\n%s", d)
	}
}

// TestRulesKey: the key moves with the shape of the rules files, never with
// the text around a section.
func TestRulesKey(t *testing.T) {
	files := func(agents, claude string) []model.RulesFile {
		return []model.RulesFile{{Path: "docs/AGENTS.md", Text: agents}, {Path: "docs/CLAUDE.md", Text: claude}}
	}
	base := RulesKey("g", "k", files("# Mine\n"+rulesSection, rulesSection))
	same := map[string]string{
		"text around a section": RulesKey("g", "k", files("# Mine, edited\n"+rulesSection+"P.S.\n", rulesSection)),
		"the section's lines":   RulesKey("g", "k", files("# Mine\n"+strings.Replace(rulesSection, "Harbor", "harbor", 1), rulesSection)),
		"listed in any order":   RulesKey("g", "k", []model.RulesFile{files("", rulesSection)[1], files("# Mine\n"+rulesSection, "")[0]}),
	}
	for what, k := range same {
		if k != base {
			t.Errorf("%s changed the key", what)
		}
	}
	moved := map[string]string{
		"the content key":          RulesKey("g", "k2", files("# Mine\n"+rulesSection, rulesSection)),
		"the governance key":       RulesKey("g2", "k", files("# Mine\n"+rulesSection, rulesSection)),
		"a CLAUDE.md that imports": RulesKey("g", "k", files("# Mine\n"+rulesSection, "@AGENTS.md\n"+rulesSection)),
		"a section removed":        RulesKey("g", "k", files("# Mine\n", rulesSection)),
		"a file removed":           RulesKey("g", "k", files("# Mine\n"+rulesSection, rulesSection)[:1]),
		"a link":                   RulesKey("g", "k", []model.RulesFile{files("# Mine\n"+rulesSection, "")[0], {Path: "docs/CLAUDE.md", Text: rulesSection, Symlink: true, SameAsAgents: true}}),
	}
	for what, k := range moved {
		if k == base {
			t.Errorf("%s left the key as it was", what)
		}
	}
}

func TestRulesFileLinks(t *testing.T) {
	dir := t.TempDir()
	write := func(p, data string) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cairn.yaml", runConfig)
	write("sym/AGENTS.md", rulesSection)
	write("hard/AGENTS.md", rulesSection)
	write("apart/AGENTS.md", rulesSection)
	write("apart/CLAUDE.md", rulesSection)
	if err := os.Symlink("AGENTS.md", filepath.Join(dir, "sym", "CLAUDE.md")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	if err := os.Link(filepath.Join(dir, "hard", "AGENTS.md"), filepath.Join(dir, "hard", "CLAUDE.md")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	out := runBase(t, root.FS(), nil, nil)
	got := map[string][2]bool{}
	for _, f := range out.Base.RulesFiles {
		got[f.Path] = [2]bool{f.Symlink, f.SameAsAgents}
	}
	want := map[string][2]bool{
		"apart/AGENTS.md": {false, false}, "apart/CLAUDE.md": {false, false},
		"hard/AGENTS.md": {false, false}, "hard/CLAUDE.md": {false, true},
		"sym/AGENTS.md": {false, false}, "sym/CLAUDE.md": {true, true},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("{symlink, same as AGENTS.md} (-want +got):\n%s", d)
	}
}

// TestScanThenParseContent: parsing content alone (what a stale rules
// stage needs) parses governance with it, and not the corpus. A first
// scan leaves the content files to the parse, which hashes them as it
// reads them (each is read once), so its rules key is one no build
// recorded, and the parse gives the key; once a build recorded them,
// Scan gives the rules key before anything is parsed.
func TestScanThenParseContent(t *testing.T) {
	fsys := mapBase(map[string]string{"cairn.yaml": runConfig, "docs/guide.md": "# Guide\n", "AGENTS.md": rulesSection})
	s, err := Scan(t.Context(), Input{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	first := s.RulesKey
	out, err := s.Parse(t.Context(), []string{GroupContent})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"content", "governance"}, out.Parsed); d != "" {
		t.Errorf("parsed (-want +got):\n%s", d)
	}
	key := RulesKey(out.Keys[GroupGovernance], out.Keys[GroupContent], out.Base.RulesFiles)
	if out.RulesKey != key || out.Keys[GroupContent] == "" {
		t.Errorf("the parse gave the rules key %q and content key %q; the rules key is %q", out.RulesKey, out.Keys[GroupContent], key)
	}
	if first == key {
		t.Errorf("a first scan gave the rules key %q before reading the content it covers", first)
	}
	if len(out.Base.Content) != 1 {
		t.Errorf("content = %v", out.Base.Content)
	}
	again, err := Scan(t.Context(), Input{FS: fsys, Previous: &artifacts.Manifest{Format: artifacts.FormatVersion, Inputs: out.Inputs}})
	if err != nil {
		t.Fatal(err)
	}
	if again.RulesKey != key {
		t.Errorf("a scan after a build gave the rules key %q, want %q", again.RulesKey, key)
	}
}
