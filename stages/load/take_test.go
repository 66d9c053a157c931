package load

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/artifacts"
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

// TestTakeOnDisk: the query's inventory walks an os.Root, in sorted
// order, lists only the corpus folders and the configuration, reports
// strays, refuses links out of the base and does not follow a linked
// folder.
func TestTakeOnDisk(t *testing.T) {
	dir := diskBase(t, map[string]string{
		"cairn.yaml":                         runConfig,
		"events/2026-11-03/github.json":      goodDocument,
		"events/2026-11-02/github.json":      goodDocument,
		"events/notes.txt":                   "x",
		"events/.tmp/2026-11-02/github.json": "x",
		"index/github.json":                  "{}",
		"wiki/nested/b.md":                   "# B\n",
		"wiki/a.md":                          "# A\n",
		"wiki/.hidden.md":                    "x",
		"wiki/AGENTS.md":                     "x",
		"projects/p.md":                      "# P\n",
		"tasks/2026-11-02/fix-ci/TASKS.md":   "- [ ] x\n",
		"bodies/manifest.json":               "{}",
		"docs/guide.md":                      "x", // content: not walked for a query
		".git/config":                        "x",
	})
	outside := diskBase(t, map[string]string{"x.md": "# X\n", "more/y.md": "# Y\n"})
	if err := os.Symlink(filepath.Join(outside, "x.md"), filepath.Join(dir, "wiki", "out.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "more"), filepath.Join(dir, "wiki", "far")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("nested", filepath.Join(dir, "wiki", "more")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.md", filepath.Join(dir, "wiki", "same.md")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	inv, err := Take(t.Context(), root.FS(), artifacts.StatCache(nil), artifacts.ConfigCache{})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, in := range inv.Inputs {
		paths = append(paths, in.Path)
	}
	want := []string{"bodies/manifest.json", "cairn.yaml", "events/2026-11-02/github.json", "events/2026-11-03/github.json",
		"index/github.json", "projects/p.md", "tasks/2026-11-02/fix-ci/TASKS.md", "wiki/a.md", "wiki/nested/b.md", "wiki/same.md"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	if !slices.IsSortedFunc(inv.Inputs, func(a, b artifacts.FileStamp) int { return strings.Compare(a.Path, b.Path) }) {
		t.Error("inputs are not sorted")
	}
	var codes []string
	for _, d := range inv.Diagnostics {
		codes = append(codes, d.File+" "+d.Code)
	}
	wantCodes := []string{"events/notes.txt stray-file", "wiki/far path-escape", "wiki/more symlink-dir", "wiki/out.md path-escape"}
	if diff := cmp.Diff(wantCodes, codes); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}
