package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// TestPreCommitHooks: the shipped hooks, in a repository cloned fresh
// (no .cairn/): an ordinary content commit passes; a commit breaking a
// rule is refused by cairn-check; a terms change is refused by cairn-rules,
// which regenerates the rules files in the working tree, and the commit
// passes once they are staged. With the pre-commit framework on PATH
// (Debian's pre-commit package; .ci/run installs it) the repository uses
// the hooks through it; without, each hook's entry is run as the framework
// would run it. In CI the framework must be there.
func TestPreCommitHooks(t *testing.T) {
	needTool(t, "git", "install git")
	hooks := shippedHooks(t)
	bin := readmeBuild(t)
	clone, git := freshRepository(t, "demo")
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "CAIRN_AS_OF="+goldenAsOf,
		"HOME="+t.TempDir(), "PRE_COMMIT_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir(),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.test", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.test")
	// CAIRN_TEST_HOOKS_DIRECT=1 takes the direct path even where the
	// framework is installed, so that both paths can be run here.
	_, lookErr := exec.LookPath("pre-commit")
	var commit func() (int, string)
	switch {
	case lookErr == nil && os.Getenv("CAIRN_TEST_HOOKS_DIRECT") == "":
		commit = preCommitFramework(t, clone, env, git)
	case os.Getenv("CI") == "true":
		t.Fatalf("pre-commit is not on PATH in CI (%v): .ci/run installs Debian's pre-commit package", lookErr)
	default:
		t.Logf("running the hooks' entries directly, not through the pre-commit framework (on PATH: %v)", lookErr == nil)
		commit = directHooks(t, clone, env, bin, hooks)
	}

	// An ordinary content commit passes: the first build of the clone
	// writes .cairn/, which is git-ignored, and no rules file changes.
	writeFile(t, filepath.Join(clone, "docs/clean.md"), "# Clean\n\nA push token per pipeline.\n")
	git("add", "docs/clean.md")
	if code, out := commit(); code != 0 {
		t.Fatalf("an ordinary content commit was refused: exit %d\n%s", code, out)
	}
	// A file breaking a rule: cairn-check refuses the commit, naming it.
	writeFile(t, filepath.Join(clone, "docs/bad.md"), "# Bad\n\nA blacklist of tags.\n")
	git("add", "docs/bad.md")
	if code, out := commit(); code == 0 || !strings.Contains(out, "docs/bad.md:3:3: error: write \"denylist\", not \"blacklist\"") {
		t.Fatalf("a commit with a rule broken went through or did not name it: exit %d\n%s", code, out)
	}
	git("rm", "-q", "--cached", "docs/bad.md")
	// A terms change is refused, with the rules files regenerated in the
	// working tree; staged, the commit passes.
	appendFile(t, filepath.Join(clone, "governance/terms.yaml"), forbiddenTermEntry)
	git("add", "governance/terms.yaml")
	code, out := commit()
	if code == 0 || !strings.Contains(out, "AGENTS.md") {
		t.Fatalf("a terms change that changes the rules files went through, or the refusal names no rules file: exit %d\n%s", code, out)
	}
	unstaged := strings.Fields(git("diff", "--name-only"))
	if !slices.Contains(unstaged, "AGENTS.md") || !slices.Contains(unstaged, "CLAUDE.md") {
		t.Fatalf("the rules files were not regenerated in the working tree: git diff names %v", unstaged)
	}
	git("add", "-u")
	if code, out := commit(); code != 0 {
		t.Fatalf("the commit with the regenerated rules files staged was refused: exit %d\n%s", code, out)
	}
	if got := git("log", "--format=%s"); !strings.HasPrefix(got, "docs\ndocs\n") || strings.Count(got, "docs\n") != 2 {
		t.Errorf("git log says\n%s\nwant the two commits above the clone's first", got)
	}
	if got := git("status", "--porcelain", "--untracked-files=no"); got != "" {
		t.Errorf("the working tree is not clean after the commits:\n%s", got)
	}
}

// shippedHooks reads .pre-commit-hooks.yaml and checks the fields the
// framework requires and the entries this test relies on.
func shippedHooks(t *testing.T) map[string]preCommitHook {
	t.Helper()
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
	rules, check, gate := byID["cairn-rules"], byID["cairn-check"], byID["cairn-build-check"]
	noFiles := func(h preCommitHook) bool { return h.PassFilenames != nil && !*h.PassFilenames }
	if rules.Entry != "cairn build --quiet --fail-on-change" || !noFiles(rules) || check.Entry != "cairn check" ||
		!strings.HasPrefix(gate.Entry, "cairn build --check") || !noFiles(gate) {
		t.Fatalf("%s: want cairn-rules running `cairn build --quiet --fail-on-change`, cairn-check running `cairn check` on the files and cairn-build-check running `cairn build --check`, the builds with pass_filenames: false; got %+v", hooksFile, hooks)
	}
	return byID
}

// freshRepository makes a repository of a golden base as a team commits it
// (rules files built and committed, .cairn/ ignored) and returns a fresh
// clone of it, with git run in the clone.
func freshRepository(t *testing.T, name string) (string, func(...string) string) {
	t.Helper()
	origin := copyBase(t, name)
	if code, _, stderr := cairn(t, "--base", origin, "build", "--quiet", "--as-of", goldenAsOf); code != 0 {
		t.Fatalf("build: exit %d\n%s", code, stderr)
	}
	writeFile(t, filepath.Join(origin, ".gitignore"), ".cairn/\n")
	og := gitIn(t, origin)
	og("init", "-q")
	og("add", "-A")
	og("commit", "-qm", "start")
	clone := filepath.Join(t.TempDir(), "clone")
	gitIn(t, filepath.Dir(clone))("clone", "-q", origin, clone)
	return clone, gitIn(t, clone)
}

// preCommitFramework installs the hooks through the pre-commit framework
// from a hooks repository holding the shipped manifest, as a team's
// .pre-commit-config.yaml names them, and returns the commit to try.
func preCommitFramework(t *testing.T, repo string, env []string, git func(...string) string) func() (int, string) {
	hooksRepo := t.TempDir()
	data, err := os.ReadFile(hooksFile)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(hooksRepo, ".pre-commit-hooks.yaml"), string(data))
	hg := gitIn(t, hooksRepo)
	hg("init", "-q")
	hg("add", "-A")
	hg("commit", "-qm", "hooks")
	rev := strings.TrimSpace(hg("rev-parse", "HEAD"))
	config := "repos:\n  - repo: " + hooksRepo + "\n    rev: " + rev + "\n    hooks:\n      - id: cairn-check\n      - id: cairn-rules\n"
	writeFile(t, filepath.Join(repo, ".pre-commit-config.yaml"), config)
	git("add", ".pre-commit-config.yaml")
	git("commit", "-qm", "pre-commit", "--no-verify")
	cmd := exec.Command("pre-commit", "install")
	cmd.Dir, cmd.Env = repo, env
	if code, out := exitAndOutput(t, cmd); code != 0 {
		t.Fatalf("pre-commit install: exit %d\n%s", code, out)
	}
	return func() (int, string) {
		cmd := exec.Command("git", "commit", "-qm", "docs")
		cmd.Dir, cmd.Env = repo, env
		return exitAndOutput(t, cmd)
	}
}

// directHooks returns a commit that runs the hooks' entries as the
// framework would (the files staged passed to those that take files, and
// a hook that changes a tracked file failing too), then commits with no
// hook when they pass.
func directHooks(t *testing.T, repo string, env []string, bin string, hooks map[string]preCommitHook) func() (int, string) {
	git := gitIn(t, repo)
	return func() (int, string) {
		staged := strings.Fields(git("diff", "--cached", "--name-only"))
		before := git("diff")
		var out strings.Builder
		failed := false
		for _, id := range []string{"cairn-check", "cairn-rules"} {
			h := hooks[id]
			args := strings.Fields(h.Entry)
			if h.PassFilenames == nil || *h.PassFilenames {
				args = append(args, staged...)
			}
			args[0] = filepath.Join(bin, "cairn") // as the framework finds it on the hook's PATH
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Dir, cmd.Env = repo, env
			code, text := exitAndOutput(t, cmd)
			out.WriteString(text)
			failed = failed || code != 0
		}
		if failed || git("diff") != before {
			return 1, out.String()
		}
		git("commit", "-qm", "docs", "--no-verify")
		return 0, out.String()
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
