package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// walkAsOf is the day the walk-through on a repository is asked on.
const walkAsOf = "2026-11-28"

// walkRepository makes a project the way a newcomer has one: a git
// repository with code, docs and three weeks of history, one commit a
// working day or more, some naming tickets, one co-authored; and no cairn
// in it yet. It returns the folder and the sha of the commit that fixed
// the stall the test asks about.
func walkRepository(t *testing.T, git func(dir string, when string, args ...string) string) (string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ferry")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	git(dir, "2026-11-02T09:00:00Z", "init", "-q")
	write := func(p, text string) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(full, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(text); err != nil {
			t.Fatal(err)
		}
	}
	write("README.md", "# Ferry\n\nFerry copies a folder to a remote, in chunks.\n")
	write("docs/guide.md", "# Guide\n\nAdd the host to the whitelist, then run `ferry sync`.\n")
	git(dir, "2026-11-02T09:00:00Z", "add", "-A")
	git(dir, "2026-11-02T09:00:00Z", "commit", "-qm", "Start Ferry")
	subjects := []string{
		"Read the config file once", "Log each chunk's checksum", "Name the remote in errors",
		"Skip unreadable files with a warning", "Print a summary after sync", "Keep file modes on copy",
		"Parallel uploads, four at a time", "Document the exclude patterns (FER-9)",
	}
	var sha string
	for day := 3; day <= 27; day++ {
		when := fmt.Sprintf("2026-11-%02dT%02d:30:00Z", day, 8+day%9)
		switch day {
		case 16:
			write("src/upload.go", "package sync // streamed\n")
			git(dir, when, "add", "-A")
			git(dir, when, "commit", "-qm", "Stream uploads in 8 MiB chunks (FER-12)",
				"-m", "Reading a whole file into memory stalled uploads of files over 4 GiB on 32-bit builds.",
				"-m", "Co-authored-by: Ana Lima <ana@ferry.test>")
			sha = strings.TrimSpace(git(dir, when, "rev-parse", "HEAD"))
		default:
			if day%7 == 0 || day%7 == 6 {
				continue // the weekend
			}
			subject := subjects[day%len(subjects)]
			write(fmt.Sprintf("src/day%02d.go", day), "package sync\n")
			git(dir, when, "add", "-A")
			git(dir, when, "commit", "-qm", subject)
		}
	}
	return dir, sha
}

// TestWalkThroughOnARepository tries the README's walk-through as a new
// user would, on a project of their own: a generated git repository with
// history and docs, no cairn in it, and the built binary on PATH. Step by
// step: init the base in the repository, collect its commits, build, ask
// a question and get the commit that answers it; add a writing rule and
// read it back from the rules file, from --at and from cairn check; commit
// through the README's pre-commit hook; then, in a fresh clone as CI has
// it, pass the build --check gate and get a session-start hook's context.
func TestWalkThroughOnARepository(t *testing.T) {
	needTool(t, "git", "install git")
	bin := builtCairn(t)
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_STATE_HOME="+filepath.Join(home, ".state"), "CAIRN_AS_OF="+walkAsOf,
		"PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=Ada Lovelace", "GIT_AUTHOR_EMAIL=ada@ferry.test",
		"GIT_COMMITTER_NAME=Ada Lovelace", "GIT_COMMITTER_EMAIL=ada@ferry.test")
	run := func(dir, when, name string, args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = env
		if when != "" {
			cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], "GIT_AUTHOR_DATE="+when, "GIT_COMMITTER_DATE="+when)
		}
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if err != nil {
			if _, ok := err.(*exec.ExitError); !ok {
				t.Fatalf("%s %v: %v", name, args, err)
			}
		}
		return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
	}
	git := func(dir, when string, args ...string) string {
		t.Helper()
		code, out, errOut := run(dir, when, "git", append([]string{"-c", "init.defaultBranch=main", "-c", "commit.gpgSign=false"}, args...)...)
		if code != 0 {
			t.Fatalf("git %v: exit %d\n%s%s", args, code, out, errOut)
		}
		return out
	}
	repo, fix := walkRepository(t, git)
	// step runs cairn in the repository and fails the test unless it
	// exits with want.
	step := func(dir string, want int, args ...string) (string, string) {
		t.Helper()
		code, out, errOut := run(dir, "", bin, args...)
		if code != want {
			t.Fatalf("cairn %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out, errOut)
		}
		return out, errOut
	}

	// 1. A base in the repository itself.
	if out, _ := step(repo, 0, "init"); !strings.Contains(out, "initialised a cairn base") {
		t.Errorf("init printed %q", out)
	}
	if data, err := os.ReadFile(filepath.Join(repo, ".gitignore")); err != nil || !strings.Contains(string(data), ".cairn/") {
		t.Errorf("init left no .gitignore for .cairn/ (%v): %q", err, data)
	}

	// 2. The history as records: every day with commits in the 30 before
	// the as-of day, one document each.
	out, errOut := step(repo, 0, "collect", "git")
	days := strings.Count(out, "\n")
	if days < 15 || !strings.Contains(out, "events/2026-11-16/git.json\n") {
		t.Errorf("collect git wrote %d documents:\n%s%s", days, out, errOut)
	}

	// 3. Build, and ask: the commit that fixed the stall answers first.
	step(repo, 0, "build", "--quiet")
	out, _ = step(repo, 0, "context", "why did uploads of large files stall")
	first, _, _ := strings.Cut(out, "\n")
	if want := "events/2026-11-16/git.json#" + fix + " Stream uploads in 8 MiB chunks (FER-12)"; !strings.Contains(first, want) {
		t.Errorf("the pack's first item is not the fix:\n%s", out)
	}
	if !strings.Contains(out, "index=.cairn/manifest.json used") {
		t.Errorf("the pack was not answered from the build:\n%s", out)
	}
	out, _ = step(repo, 0, "context", "person:email/ana@ferry.test")
	if !strings.Contains(out, "#"+fix) {
		t.Errorf("the co-author's address does not find the fix:\n%s", out)
	}

	// 4. A writing rule: the rules file says it, --at says it, and check
	// finds the word in the docs.
	rule := "- id: whitelist\n  term: whitelist\n  status: forbidden\n  replacement: allowlist\n"
	if err := os.WriteFile(filepath.Join(repo, "governance", "terms.yaml"), []byte(rule), 0o644); err != nil {
		t.Fatal(err)
	}
	step(repo, 0, "build", "--quiet")
	agents, err := os.ReadFile(filepath.Join(repo, "AGENTS.md"))
	if err != nil || !strings.Contains(string(agents), `Write "allowlist", not "whitelist".`) {
		t.Errorf("the rules file lacks the rule (%v):\n%s", err, agents)
	}
	if out, _ := step(repo, 0, "context", "--at", "docs/guide.md"); !strings.Contains(out, `Write "allowlist", not "whitelist".`) {
		t.Errorf("--at docs/guide.md lacks the rule:\n%s", out)
	}
	if out, _ := step(repo, 1, "check"); !strings.Contains(out, "docs/guide.md:3:21: error: write \"allowlist\", not \"whitelist\" [terms.forbidden:whitelist]") {
		t.Errorf("check does not find the word:\n%s", out)
	}
	if err := os.WriteFile(filepath.Join(repo, "docs", "guide.md"), []byte("# Guide\n\nAdd the host to the allowlist, then run `ferry sync`.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	step(repo, 0, "check")

	// 5. Commit through the README's pre-commit hook: refused while the
	// rules files are unstaged, accepted once they are.
	hook := readmeHook(t)
	if err := os.MkdirAll(filepath.Join(repo, ".githooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".githooks", "pre-commit"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	git(repo, "", "config", "core.hooksPath", ".githooks")
	git(repo, "", "add", "cairn.yaml", ".gitignore", ".githooks", "events", "governance", "docs")
	if code, out, errOut := run(repo, "2026-11-28T10:00:00Z", "git", "commit", "-qm", "Add a cairn base"); code != 1 || !strings.Contains(errOut, "?? AGENTS.md") {
		t.Fatalf("the hook let the unstaged rules files through: exit %d\n%s%s", code, out, errOut)
	}
	git(repo, "", "add", "-A")
	git(repo, "2026-11-28T10:00:00Z", "commit", "-qm", "Add a cairn base")
	if status := git(repo, "", "status", "--porcelain"); status != "" {
		t.Errorf("the tree is not clean after the commit:\n%s", status)
	}

	// 6. A fresh clone, as CI has it: no .cairn/, and the gate passes.
	clone := filepath.Join(t.TempDir(), "clone")
	git(filepath.Dir(clone), "", "clone", "-q", repo, clone)
	if _, err := os.Stat(filepath.Join(clone, ".cairn")); !os.IsNotExist(err) {
		t.Fatalf("the clone has a .cairn/ (%v)", err)
	}
	if _, errOut := step(clone, 0, "build", "--check"); !strings.Contains(errOut, "up to date") {
		t.Errorf("build --check on the fresh clone: %s", errOut)
	}
	step(clone, 0, "check")

	// 7. An agent's session start in the clone: the hook's context holds
	// the rule and a pack on recent work.
	out, _ = step(clone, 0, "hook", "claude")
	var envelope struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &envelope); err != nil || envelope.HookSpecificOutput.HookEventName != "SessionStart" {
		t.Fatalf("cairn hook claude printed no SessionStart envelope (%v):\n%s", err, out)
	}
	if ctx := envelope.HookSpecificOutput.AdditionalContext; !strings.Contains(ctx, `Write "allowlist", not "whitelist".`) || !strings.Contains(ctx, "events/") {
		t.Errorf("the session's context lacks the rule or the pack:\n%s", ctx)
	}
}

// readmeHook is the README's pre-commit script.
func readmeHook(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range readmeBlocks("README.md", string(data)) {
		if b.file() == readmeHookPath {
			return strings.Join(b.lines, "\n") + "\n"
		}
	}
	t.Fatalf("the README has no block with file=%s", readmeHookPath)
	return ""
}
