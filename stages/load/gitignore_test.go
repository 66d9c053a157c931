package load

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/stages/lib/diag"
)

// gitignoreCases are patterns with the paths git ignores and keeps under
// them; TestGitignoreAgreesWithGit asks git itself.
var gitignoreCases = []struct {
	name     string
	patterns string
	ignored  []string
	kept     []string
}{
	{"a name at any depth", "build\n", []string{"build", "build/a.md", "docs/build/a.md"}, []string{"builder/a.md", "docs/a.md"}},
	{"a glob within one element", "*.log\n", []string{"a.log", "x/y/b.log"}, []string{"a.md", "log/a.md"}},
	{"anchored by a leading slash", "/notes\n", []string{"notes/a.md"}, []string{"docs/notes/a.md"}},
	{"anchored by a middle slash", "docs/drafts\n", []string{"docs/drafts/a.md"}, []string{"x/docs/drafts/a.md"}},
	{"folders only", "tmp/\n", []string{"tmp/a.md", "x/tmp/b.md"}, []string{"tmp", "x/tmp"}},
	{"double star in the middle", "a/**/z.md\n", []string{"a/z.md", "a/b/c/z.md"}, []string{"b/a/z.md"}},
	{"leading double star", "**/gen/*.md\n", []string{"gen/a.md", "x/gen/a.md"}, []string{"gen/x/a.md"}},
	{"trailing double star keeps the folder", "vendor/**\n!vendor/keep.md\n", []string{"vendor/a.md", "vendor/x/b.md"}, []string{"vendor/keep.md"}},
	{"negation, the last match wins", "*.md\n!keep.md\n", []string{"a.md", "x/b.md"}, []string{"keep.md", "x/keep.md"}},
	{"no re-including inside an ignored folder", "out/\n!out/keep.md\n", []string{"out/keep.md", "out/a.md"}, []string{"a.md"}},
	{"comments, blanks, trailing spaces", "# out\n\n  \nsecret.md   \n", []string{"secret.md"}, []string{"out/a.md", "# out"}},
	{"escapes", "\\#hash.md\n\\!bang.md\n", []string{"#hash.md", "!bang.md"}, []string{"hash.md", "bang.md"}},
	{"braces are literal", "{a,b}.md\n", []string{"{a,b}.md"}, []string{"a.md", "b.md"}},
	{"CRLF lines", "a.md\r\nb.md\r\n", []string{"a.md", "b.md"}, []string{"c.md"}},
}

func TestGitignorePatterns(t *testing.T) {
	for _, c := range gitignoreCases {
		var ds diag.List
		g := &gitignore{rules: parseGitignore(GitignoreFile, "", c.patterns, &ds)}
		if got := diagLines(ds.Sorted()); len(got) != 0 {
			t.Errorf("%s: diagnostics %q", c.name, got)
		}
		for _, p := range c.ignored {
			if !g.ignores(p) {
				t.Errorf("%s: %s is not ignored", c.name, p)
			}
		}
		for _, p := range c.kept {
			if g.ignores(p) {
				t.Errorf("%s: %s is ignored", c.name, p)
			}
		}
	}
}

// TestNestedGitignore: a folder's own .gitignore applies below it only,
// and overrides the root's.
func TestNestedGitignore(t *testing.T) {
	var ds diag.List
	fsys := mapBase(map[string]string{
		".gitignore":      "*.draft.md\n",
		"docs/.gitignore": "!keep.draft.md\nlocal.md\n",
	})
	g := loadGitignore(fsys, []entry{{path: "docs/.gitignore"}, {path: ".gitignore"}}, &ds)
	for p, want := range map[string]bool{
		"a.draft.md": true, "docs/a.draft.md": true, "docs/keep.draft.md": false, "keep.draft.md": true,
		"docs/local.md": true, "docs/x/local.md": true, "local.md": false,
	} {
		if g.ignores(p) != want {
			t.Errorf("ignores(%s) = %v, want %v", p, !want, want)
		}
	}
	if len(ds.Sorted()) != 0 {
		t.Errorf("diagnostics %v", ds.Sorted())
	}
}

func TestBadGitignorePattern(t *testing.T) {
	var ds diag.List
	rules := parseGitignore("docs/.gitignore", "docs", "ok.md\nbad[.md\n", &ds)
	want := []string{`docs/.gitignore:2:1: warning: cairn cannot read the pattern "bad[.md", so it keeps no file out of the content; fix its brackets [bad-gitignore]`}
	if diff := cmp.Diff(want, diagLines(ds.Sorted())); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	if len(rules) != 1 {
		t.Errorf("%d rules, want the one good pattern", len(rules))
	}
}

// TestContentExclusionsAndGitignore: content is what the include globs
// match, minus the ! globs and what .gitignore ignores; layer folders
// and rules files are untouched by either.
func TestContentExclusionsAndGitignore(t *testing.T) {
	out := runBase(t, mapBase(map[string]string{
		"cairn.yaml":                    runConfig + "content: ['!node_modules/**', '**/*.md', '!**/CHANGELOG.md']\n",
		".gitignore":                    "dist/\nwiki/\n*.tmp.md\n",
		"docs/guide.md":                 "# Guide\n",
		"docs/CHANGELOG.md":             "# Changes\n",
		"docs/x.tmp.md":                 "# Tmp\n",
		"node_modules/pkg/readme.md":    "# Pkg\n",
		"dist/out.md":                   "# Out\n",
		"wiki/page.md":                  "# Page\n",
		"dist/AGENTS.md":                "# Agents\n",
		"governance/.gitignore":         "terms.yaml\n",
		"governance/terms.yaml":         "- id: kb\n  term: knowledge base\n  status: preferred\n",
		"events/2026-11-02/github.json": goodDocument,
	}), nil, nil)
	var content []string
	for _, f := range out.Base.Content {
		content = append(content, f.Path)
	}
	if diff := cmp.Diff([]string{"docs/guide.md"}, content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	if len(out.Base.Pages) != 1 || len(out.Base.Terms) != 1 || len(out.Base.Documents) != 1 {
		t.Errorf("%d pages, %d terms, %d documents; .gitignore must not touch the layers or governance", len(out.Base.Pages), len(out.Base.Terms), len(out.Base.Documents))
	}
	if len(out.Base.RulesFiles) != 1 || out.Base.RulesFiles[0].Path != "dist/AGENTS.md" {
		t.Errorf("rules files %v, want dist/AGENTS.md", out.Base.RulesFiles)
	}
	for _, in := range out.Inputs {
		if in.Path == ".gitignore" {
			t.Error(".gitignore is listed as an input")
		}
	}
	if errs := diag.ErrorsOnly(out.Diagnostics); len(errs) != 0 {
		t.Errorf("errors %v", errs)
	}
}

// TestGitignoreAgreesWithGit asks git (check-ignore, outside any index)
// about every path of gitignoreCases and requires cairn's matcher to
// answer the same. It is why the matcher is cairn's own: go-git's
// (plumbing/format/gitignore, v5.19.3) ignores vendor/keep.md under
// "vendor/**" and "!vendor/keep.md", where git keeps it.
func TestGitignoreAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is not on PATH (%v); the matcher is checked against it: install git", err)
	}
	for _, c := range gitignoreCases {
		dir := t.TempDir()
		run := func(args ...string) error {
			cmd := exec.Command("git", args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
			return cmd.Run()
		}
		if err := run("init", "-q"); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, GitignoreFile), []byte(c.patterns), 0o644); err != nil {
			t.Fatal(err)
		}
		var ds diag.List
		g := &gitignore{rules: parseGitignore(GitignoreFile, "", c.patterns, &ds)}
		for _, p := range slices.Concat(c.ignored, c.kept) {
			err := run("check-ignore", "-q", "--no-index", "--", p)
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatal(err)
			}
			if byGit := err == nil; g.ignores(p) != byGit {
				t.Errorf("%s: cairn ignores %s: %v, git: %v", c.name, p, !byGit, byGit)
			}
		}
	}
}
