package provenance

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// TestIdentity: a configured name wins; else the git remote origin,
// written host/path whatever its form; else the folder's name.
func TestIdentity(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kb")
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Identity(dir, model.Config{}); got != "kb" {
		t.Errorf("no name, no remote: %q, want the folder's name", got)
	}
	for _, url := range []string{"git@github.com:acme/harbor.git", "https://ci-bot@github.com/acme/harbor.git", "ssh://git@github.com/acme/harbor", "https://github.com/acme/harbor/"} {
		cfg := "[core]\n\tbare = false\n[remote \"upstream\"]\n\turl = https://example.test/other.git\n[remote \"origin\"]\n\turl = " + url + "\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
		if err := os.WriteFile(filepath.Join(dir, ".git", "config"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := Identity(dir, model.Config{}); got != "github.com/acme/harbor" {
			t.Errorf("origin %s: %q, want github.com/acme/harbor", url, got)
		}
	}
	if got := Identity(dir, model.Config{Name: "harbor-docs"}); got != "harbor-docs" {
		t.Errorf("a configured name: %q", got)
	}
}
