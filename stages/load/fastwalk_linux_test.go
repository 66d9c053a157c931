package load

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// diskBase writes files into a new folder and returns it.
func diskBase(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, data := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// corpusTops is the top map Take walks for the default layers.
func corpusTops() (classifier, map[string]bool) {
	cfg := model.Config{}.WithDefaults()
	l := cfg.Layers
	top := map[string]bool{}
	for _, d := range []string{l.Events, l.Index, l.Wiki, l.Projects, l.Tasks, l.Bodies} {
		top[d] = true
	}
	return newClassifier(cfg), top
}

// bothWalks walks dir with fastWalk and with walkOnly through os.Root.
func bothWalks(t *testing.T, dir string) (fast, slow []entry, fastDiags, slowDiags []diag.Diagnostic, ok bool) {
	t.Helper()
	c, top := corpusTops()
	fast, fds, ok := fastWalk(dir, c, top, nil)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var sds diag.List
	slow = walkOnly(root.FS(), c, &sds, top, nil)
	return fast, slow, fds.Sorted(), sds.Sorted(), ok
}

// TestFastWalkMatchesWalk: on a base of plain folders and files, strays,
// hidden files, a FIFO and empty folders included, the descriptor walk
// finds what the os walk finds and reports the same.
func TestFastWalkMatchesWalk(t *testing.T) {
	dir := diskBase(t, map[string]string{
		"cairn.yaml":                         runConfig,
		"events/2026-11-02/github.json":      goodDocument,
		"events/2026-11-03/github.json":      goodDocument,
		"events/notes.txt":                   "x",
		"events/2026-11-02/github.json.bak":  "x",
		"events/2026-11-02/sub/x.json":       "x",
		"events/.tmp/2026-11-02/github.json": "x",
		"index/github.json":                  "{}",
		"index/sub/x.json":                   "x",
		"wiki/a.md":                          "# A\n",
		"wiki/nested/b.md":                   "# B\n",
		"wiki/img.png":                       "x",
		"wiki/.drafts/draft.md":              "x",
		"wiki/.hidden.md":                    "x",
		"wiki/AGENTS.md":                     "x",
		"projects/p.md":                      "# P\n",
		"tasks/2026-11-02/fix-ci/TASKS.md":   "- [ ] x\n",
		"tasks/2026-11-02/fix-ci/notes.md":   "x",
		"bodies/manifest.json":               "{}",
		"bodies/b/1.txt":                     "x",
		"docs/guide.md":                      "x",
		"docs/a\tb.md":                       "x", // not a corpus folder: never walked
		"README.md":                          "x",
		".git/config":                        "x",
	})
	for _, empty := range []string{"events/2026-11-04", "wiki/empty"} {
		if err := os.MkdirAll(filepath.Join(dir, empty), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "wiki", "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	fast, slow, fd, sd, ok := bothWalks(t, dir)
	if !ok {
		t.Fatal("fastWalk declined a base of plain folders and files")
	}
	if diff := cmp.Diff(slow, fast, cmp.AllowUnexported(entry{})); diff != "" {
		t.Errorf("entries (-os walk +fast walk):\n%s", diff)
	}
	if diff := cmp.Diff(diagLines(sd), diagLines(fd)); diff != "" {
		t.Errorf("diagnostics (-os walk +fast walk):\n%s", diff)
	}
	if len(fast) < 10 || len(fd) < 5 {
		t.Errorf("the base should give inputs and stray warnings: %d entries, %d diagnostics", len(fast), len(fd))
	}
}

// TestFastWalkDeclines: what needs judgement (links, refused paths) is
// left to the os walk, which reports it.
func TestFastWalkDeclines(t *testing.T) {
	base := map[string]string{"cairn.yaml": runConfig, "wiki/a.md": "# A\n", "elsewhere/x.md": "# X\n"}
	for name, change := range map[string]func(dir string) error{
		"a linked page":   func(dir string) error { return os.Symlink("a.md", filepath.Join(dir, "wiki", "b.md")) },
		"a linked folder": func(dir string) error { return os.Symlink("../elsewhere", filepath.Join(dir, "wiki", "more")) },
		"a linked layer":  func(dir string) error { return os.Symlink("elsewhere", filepath.Join(dir, "projects")) },
		"a linked cairn.yaml": func(dir string) error {
			os.Rename(filepath.Join(dir, "cairn.yaml"), filepath.Join(dir, "c.yaml"))
			return os.Symlink("c.yaml", filepath.Join(dir, "cairn.yaml"))
		},
		"a tab in a path":    func(dir string) error { return os.WriteFile(filepath.Join(dir, "wiki", "a\tb.md"), nil, 0o644) },
		"a file for a layer": func(dir string) error { return os.WriteFile(filepath.Join(dir, "index"), nil, 0o644) },
	} {
		dir := diskBase(t, base)
		if err := change(dir); err != nil {
			t.Fatal(err)
		}
		if _, _, _, _, ok := bothWalks(t, dir); ok {
			t.Errorf("%s: fastWalk took it; the os walk should judge it", name)
		}
	}
}

// TestFastWalkOfTheWholeBase: a build walks the whole base; the
// descriptor walk of it (top nil) finds what the os walk finds, top-level
// files, .gitignore files, content and rules files included, reports the
// same, and logs the same folders.
func TestFastWalkOfTheWholeBase(t *testing.T) {
	dir := diskBase(t, map[string]string{
		"cairn.yaml":                    runConfig,
		"README.md":                     "# Read me\n",
		"AGENTS.md":                     "x",
		"CLAUDE.md":                     "x",
		".gitignore":                    "drafts/\n",
		".env":                          "x",
		"notes.txt":                     "x",
		"events/2026-11-02/github.json": goodDocument,
		"events/notes.txt":              "x",
		"wiki/a.md":                     "# A\n",
		"wiki/.gitignore":               "*.tmp\n",
		"wiki/.drafts/draft.md":         "x",
		"docs/guide.md":                 "# Guide\n",
		"docs/api/tokens.md":            "# Tokens\n",
		"docs/api/AGENTS.md":            "x",
		"docs/drafts/idea.md":           "x",
		"docs/.gitignore":               "*.bak\n",
		"docs/old.md.bak":               "x",
		"governance/voices/blog.yaml":   "x",
		".git/config":                   "x",
		".cairn/docs.tsv":               "x",
	})
	for _, empty := range []string{"docs/empty", "tasks"} {
		if err := os.MkdirAll(filepath.Join(dir, empty), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "docs", "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ := corpusTops()
	fastLog, slowLog := newFolderLog(), newFolderLog()
	fast, fds, ok := fastWalk(dir, c, nil, fastLog)
	if !ok {
		t.Fatal("fastWalk declined a base of plain folders and files")
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var sds diag.List
	slow := walkOnly(root.FS(), c, &sds, nil, slowLog)
	if diff := cmp.Diff(slow, fast, cmp.AllowUnexported(entry{})); diff != "" {
		t.Errorf("entries (-os walk +fast walk):\n%s", diff)
	}
	if diff := cmp.Diff(diagLines(sds.Sorted()), diagLines(fds.Sorted())); diff != "" {
		t.Errorf("diagnostics (-os walk +fast walk):\n%s", diff)
	}
	if diff := cmp.Diff(slowLog.stamps, fastLog.stamps); diff != "" {
		t.Errorf("folders logged (-os walk +fast walk):\n%s", diff)
	}
	kinds := map[fileKind]int{}
	for _, e := range fast {
		kinds[e.kind]++
	}
	if kinds[kindGitignore] != 3 || kinds[kindRules] != 3 || kinds[kindContent] < 3 {
		t.Errorf("the walk should list 3 .gitignore files, 3 rules files and the content: %v", kinds)
	}
	// A link at the top is the os walk's to judge.
	if err := os.Symlink("README.md", filepath.Join(dir, "LINK.md")); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := fastWalk(dir, c, nil, nil); ok {
		t.Error("fastWalk took a base with a linked top-level file")
	}
}
