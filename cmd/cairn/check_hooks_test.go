package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// hooksFile is the pre-commit framework's hook manifest, at the repo root.
const hooksFile = "../../.pre-commit-hooks.yaml"

// preCommitHook is one entry of .pre-commit-hooks.yaml, the fields this
// test relies on.
type preCommitHook struct {
	ID            string   `yaml:"id"`
	Name          string   `yaml:"name"`
	Entry         string   `yaml:"entry"`
	Language      string   `yaml:"language"`
	PassFilenames *bool    `yaml:"pass_filenames"`
	Types         []string `yaml:"types"`
}

// TestPreCommitHooks: the shipped hooks run cairn check on the files
// passed and cairn build --check on nothing, and fail a commit that breaks
// a rule or leaves the build stale. With the pre-commit framework on PATH
// (Debian's pre-commit package; .ci/run installs it), a repository uses
// the hooks through it; without, each hook's entry is run as the
// framework would run it.
func TestPreCommitHooks(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skipf("git is not on PATH: %v", err)
	}
	data, err := os.ReadFile(hooksFile)
	if err != nil {
		t.Fatal(err)
	}
	var hooks []preCommitHook
	if err := yaml.Unmarshal(data, &hooks); err != nil {
		t.Fatalf("%s: %v", hooksFile, err)
	}
	byID := map[string]preCommitHook{}
	for _, h := range hooks {
		if h.ID == "" || h.Name == "" || h.Entry == "" || h.Language == "" {
			t.Errorf("%s: hook %+v lacks one of id, name, entry, language (the framework requires them)", hooksFile, h)
		}
		byID[h.ID] = h
	}
	check, build := byID["cairn-check"], byID["cairn-build-check"]
	if check.Entry != "cairn check" || build.Entry != "cairn build --check" || build.PassFilenames == nil || *build.PassFilenames {
		t.Fatalf("%s: want cairn-check running `cairn check` on the files and cairn-build-check running `cairn build --check` with pass_filenames: false; got %+v", hooksFile, hooks)
	}

	bin := readmeBuild(t)
	repo := checkedBase(t, "demo")
	git := gitIn(t, repo)
	git("init", "-q")
	if code, _, stderr := cairn(t, "--base", repo, "build", "--quiet"); code != 0 {
		t.Fatalf("build: exit %d\n%s", code, stderr)
	}
	if err := os.WriteFile(filepath.Join(repo, ".gitignore"), []byte(".cairn/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "-A")
	git("commit", "-qm", "demo", "--no-verify")
	clean := filepath.Join(repo, "docs/clean.md")
	if err := os.WriteFile(clean, []byte("# Clean\n\nA push token per pipeline.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(repo, "docs/bad.md")
	if err := os.WriteFile(bad, []byte("# Bad\n\nA blacklist of tags.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "CAIRN_AS_OF="+goldenAsOf,
		"HOME="+t.TempDir(), "PRE_COMMIT_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir())

	// CAIRN_TEST_HOOKS_DIRECT=1 takes the direct path even where the
	// framework is installed, so that both paths can be run here.
	if _, err := exec.LookPath("pre-commit"); err == nil && os.Getenv("CAIRN_TEST_HOOKS_DIRECT") == "" {
		preCommitFramework(t, repo, env, git)
		return
	}
	t.Log("pre-commit is not on PATH (apt-get install pre-commit); running the hooks' entries directly")
	run := func(h preCommitHook, files ...string) (int, string) {
		args := strings.Fields(h.Entry)
		if h.PassFilenames == nil || *h.PassFilenames {
			args = append(args, files...)
		}
		if args[0] == "cairn" {
			args[0] = filepath.Join(bin, "cairn") // as the framework finds it on the hook's PATH
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir, cmd.Env = repo, env
		return exitAndOutput(t, cmd)
	}
	if code, out := run(check, "docs/clean.md", ".gitignore"); code != 0 || strings.Contains(out, "error") {
		t.Errorf("cairn-check on a clean file: exit %d\n%s", code, out)
	}
	if code, out := run(check, "docs/bad.md"); code != 1 || !strings.Contains(out, "docs/bad.md:3:3: error:") {
		t.Errorf("cairn-check on a file breaking a rule: exit %d, want 1 naming it\n%s", code, out)
	}
	if code, out := run(build); code != 1 || !strings.Contains(out, "would change") {
		t.Errorf("cairn-build-check with new content: exit %d, want 1\n%s", code, out)
	}
}

// preCommitFramework installs the hooks through the pre-commit framework
// from a hooks repository holding the shipped manifest, and commits.
func preCommitFramework(t *testing.T, repo string, env []string, git func(...string) string) {
	hooksRepo := t.TempDir()
	data, err := os.ReadFile(hooksFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hooksRepo, ".pre-commit-hooks.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	hg := gitIn(t, hooksRepo)
	hg("init", "-q")
	hg("add", "-A")
	hg("commit", "-qm", "hooks")
	rev := strings.TrimSpace(hg("rev-parse", "HEAD"))
	config := "repos:\n  - repo: " + hooksRepo + "\n    rev: " + rev + "\n    hooks:\n      - id: cairn-check\n      - id: cairn-build-check\n"
	if err := os.WriteFile(filepath.Join(repo, ".pre-commit-config.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	preCommit := func(args ...string) (int, string) {
		cmd := exec.Command("pre-commit", args...)
		cmd.Dir, cmd.Env = repo, env
		return exitAndOutput(t, cmd)
	}
	if code, out := preCommit("install"); code != 0 {
		t.Fatalf("pre-commit install: exit %d\n%s", code, out)
	}
	commit := func() (int, string) {
		cmd := exec.Command("git", "commit", "-qm", "docs")
		cmd.Dir = repo
		cmd.Env = append(env, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.test", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.test")
		return exitAndOutput(t, cmd)
	}
	// A file breaking a rule: cairn-check fails the commit, naming it.
	git("add", ".pre-commit-config.yaml", "docs/bad.md")
	code, out := commit()
	if code == 0 || !strings.Contains(out, "docs/bad.md:3:3: error: write \"denylist\", not \"blacklist\"") {
		t.Fatalf("a commit with a rule broken went through or did not name it: exit %d\n%s", code, out)
	}
	// Fixed, the rules files the new files change are stale: the build
	// check fails until they are built and staged.
	if err := os.WriteFile(filepath.Join(repo, "docs/bad.md"), []byte("# Fine\n\nA denylist of tags.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "docs/bad.md", "docs/clean.md")
	if code, out := preCommit("run", "cairn-check"); code != 0 {
		t.Errorf("cairn-check on fixed files: exit %d\n%s", code, out)
	}
	// New content changes what a build writes (the usage counts), so
	// cairn-build-check refuses until the base is built.
	if code, out = commit(); code == 0 || !strings.Contains(out, "would change") {
		t.Fatalf("cairn-build-check let a stale build through: exit %d\n%s", code, out)
	}
	if c, _, stderr := cairn(t, "--base", repo, "build", "--quiet"); c != 0 {
		t.Fatalf("build: %s", stderr)
	}
	git("add", "-A")
	if code, out = commit(); code != 0 {
		t.Fatalf("the commit after a build failed: exit %d\n%s", code, out)
	}
	if got := git("log", "--format=%s"); !strings.HasPrefix(got, "docs\n") {
		t.Errorf("no commit went through: git log says\n%s", got)
	}
}

// exitAndOutput runs cmd and returns its exit status and what it printed,
// stdout and stderr together; a command that cannot run fails the test.
func exitAndOutput(t *testing.T, cmd *exec.Cmd) (int, string) {
	t.Helper()
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}
