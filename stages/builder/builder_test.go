package builder

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
)

// TestSpliceKeepsUnchangedRows: an edit of a page's text alone leaves
// every row of docs.tsv as it was, and the splicing build keeps the file,
// neither writing it again nor reading it back to compare; an edit that
// moves a record's bytes changes the spans in its document's rows, and
// docs.tsv is written. Each build ends where a check of the base finds
// nothing to change.
func TestSpliceKeepsUnchangedRows(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := filepath.Join(t.TempDir(), "base")
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "..", "golden", "demo", "base"))); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, artifacts.Dir)); err != nil {
		t.Fatal(err)
	}
	opts := Options{Root: root, AsOf: time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC), ToolVersion: "test"}
	build := func(step string) Result {
		t.Helper()
		res, err := Run(context.Background(), opts)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		check := opts
		check.Check = true
		if c, err := Run(context.Background(), check); err != nil || len(c.Sync.Changes) > 0 {
			t.Errorf("%s: a check after the build found %v (%v)", step, c.Sync.Changes, err)
		}
		return res
	}
	edit := func(p, old, new string) {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(root, p))
		if err == nil && !strings.Contains(string(data), old) {
			t.Fatalf("%s does not hold %q", p, old)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(root, p), []byte(strings.Replace(string(data), old, new, 1)), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	build("the first build")
	for _, step := range []struct {
		name, path, old, new string
		kept                 bool
	}{
		{"a page's text", "wiki/push-tokens.md", "\n## ", "\nA line about zebracorns.\n\n## ", true},
		{"a record's text, moving the records after it", "events/2026-11-02/tickets.json",
			"a leaked token should not expose the rest", "a leaked token should not expose the rest of the zebracorns", false},
	} {
		edit(step.path, step.old, step.new)
		res := build(step.name)
		if res.Out.Spliced != 1 {
			t.Fatalf("%s: spliced %d files, want 1", step.name, res.Out.Spliced)
		}
		kept := slices.Contains(res.Out.Plan.Keep, artifacts.DocsPath)
		written := slices.ContainsFunc(res.Out.Plan.Files, func(f artifacts.File) bool { return f.Path == artifacts.DocsPath })
		if kept != step.kept || written == step.kept {
			t.Errorf("%s: docs.tsv kept %v, written %v; want kept %v", step.name, kept, written, step.kept)
		}
	}
}
