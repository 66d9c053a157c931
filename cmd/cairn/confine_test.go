package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestKilledWriteLeavesGitClean: the temporary files a killed build,
// note, collect or import leaves (named as artifacts names them; its
// TestKilledWriterTemps kills a real writer) are ignored by the
// .gitignore that init writes, wherever they sit, so `git add -A` after a
// crash commits none of them.
func TestKilledWriteLeavesGitClean(t *testing.T) {
	isolate(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the git binary is not installed")
	}
	dir := filepath.Join(t.TempDir(), "kb")
	if code, _, stderr := cairn(t, "init", dir); code != 0 {
		t.Fatal(stderr)
	}
	when := "2026-11-01T00:00:00Z"
	runGit(t, dir, when, "init", "-q")
	runGit(t, dir, when, "add", "-A")
	runGit(t, dir, when, "commit", "-q", "-m", "a new base")
	for _, p := range []string{
		".cairn-tmp-CLAUDE.md.0123456789ab",
		"docs/.cairn-tmp-AGENTS.md.0123456789ab",
		"governance/.cairn-tmp-log.jsonl.0123456789ab",
		"governance/voices/.cairn-tmp-docs.yaml.0123456789ab",
		"events/2026-11-27/.cairn-tmp-git.json.0123456789ab",
		".cairn/.cairn-tmp-docs.tsv.0123456789ab",
	} {
		writeFile(t, filepath.Join(dir, filepath.FromSlash(p)), "half written")
	}
	cmd := exec.Command("git", "status", "--porcelain", "--untracked-files=all")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git status: %v\n%s", err, out)
	}
	if s := strings.TrimSpace(string(out)); s != "" {
		t.Errorf("git status shows temp files a killed write left:\n%s", s)
	}
}
