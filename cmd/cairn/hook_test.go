package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/artifacts"
)

// hookGolden is the expected `cairn hook claude` output over the demo.
const hookGolden = "testdata/hook-claude.json"

// gitRepoDir is a git repository whose origin is the demo's repository,
// on the branch main, for the hook to take its query from.
func gitRepoDir(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := filepath.Join(t.TempDir(), "harbor")
	for _, args := range [][]string{
		{"init", "-q", dir},
		{"-C", dir, "symbolic-ref", "HEAD", "refs/heads/main"},
		{"-C", dir, "remote", "add", "origin", "git@github.com:acme/harbor.git"},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// runHook runs cairn hook in wd with the base in $CAIRN_BASE.
func runHook(t *testing.T, base, wd string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Getwd: func() (string, error) { return wd, nil },
		Getenv: func(k string) string {
			return map[string]string{"CAIRN_BASE": base, "CAIRN_AS_OF": goldenAsOf}[k]
		}}
	code := runEnv(append([]string{"hook"}, args...), env)
	return code, out.String(), errb.String()
}

// TestHookClaudeGolden: the pack for acme/harbor on main and the root's
// rules, in Claude Code's SessionStart envelope.
func TestHookClaudeGolden(t *testing.T) {
	base := builtDemo(t)
	code, out, stderr := runHook(t, base, gitRepoDir(t), "claude")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var env struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &env); err != nil || env.HookSpecificOutput.HookEventName != "SessionStart" {
		t.Fatalf("not the SessionStart envelope (%v): %s", err, out)
	}
	text := env.HookSpecificOutput.AdditionalContext
	for _, want := range []string{"context for acme/harbor (branch main)", "receipt: index=.cairn/manifest.json used", "at the base's root"} {
		if !strings.Contains(text, want) {
			t.Errorf("the hook's text lacks %q", want)
		}
	}
	if *update {
		if err := os.WriteFile(hookGolden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(hookGolden)
	if err != nil || string(want) != out {
		t.Errorf("cairn hook claude differs from %s (run with -update and review):\n%s", hookGolden, cmp.Diff(string(want), out))
	}
}

// TestHookEnvelopes: each harness gets its own shape around the same
// text.
func TestHookEnvelopes(t *testing.T) {
	base := builtDemo(t)
	wd := gitRepoDir(t)
	_, claude, _ := runHook(t, base, wd, "claude")
	var c struct {
		HookSpecificOutput struct{ AdditionalContext string }
	}
	json.Unmarshal([]byte(claude), &c)
	text := c.HookSpecificOutput.AdditionalContext
	for harness, check := range map[string]func(string) bool{
		"codex":   func(out string) bool { return out == claude },
		"gemini":  func(out string) bool { return out == claude },
		"copilot": func(out string) bool { return out == text },
		"cursor": func(out string) bool {
			var v map[string]string
			return json.Unmarshal([]byte(out), &v) == nil && v["additional_context"] == text && len(v) == 1
		},
	} {
		if code, out, stderr := runHook(t, base, wd, harness); code != 0 || !check(out) {
			t.Errorf("%s: exit %d %s\n%s", harness, code, stderr, out)
		}
	}
	if code, _, _ := runHook(t, base, wd, "vim"); code != 2 {
		t.Errorf("an unknown harness exited %d", code)
	}
}

// TestHookNeverBlocks: a missing base, a busy one and one that does not
// answer in time each give exit 0 and a one-line note in the envelope,
// within the hook's time bound (run as the built binary, under a deadline
// well past it).
func TestHookNeverBlocks(t *testing.T) {
	base := builtDemo(t)
	// Built before any deadline starts: a build on a loaded machine may
	// take longer than the deadline the hook is held to.
	bin := builtCairn(t)
	empty := t.TempDir()
	lock, err := artifacts.AcquireLock(base, "test build")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	for _, c := range []struct {
		name, base string
		args       []string
		want       string
	}{
		{"missing", "", nil, "no cairn base here"},
		{"busy", base, nil, "the base is busy"},
		// The base is locked, so the worker answers "busy" at once, as
		// the 1ns deadline passes: both are ready, and the deadline wins.
		{"slow", base, []string{"--timeout", "1ns"}, "did not answer within 1ns"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second+10*time.Second)
		cmd := exec.CommandContext(ctx, bin, append([]string{"hook", "claude"}, c.args...)...)
		cmd.Dir = empty
		cmd.Env = append(os.Environ(), "CAIRN_BASE="+c.base)
		out, err := cmd.Output()
		cancel()
		var env struct {
			HookSpecificOutput struct{ AdditionalContext string }
		}
		if err != nil || json.Unmarshal(out, &env) != nil || !strings.Contains(env.HookSpecificOutput.AdditionalContext, c.want) {
			t.Errorf("%s: %v, %s", c.name, err, out)
		}
		if strings.Count(env.HookSpecificOutput.AdditionalContext, "\n") > 0 {
			t.Errorf("%s: the note is more than one line: %q", c.name, env.HookSpecificOutput.AdditionalContext)
		}
	}
}

// settleRounds is how often TestHookDeadlineWins asks settle with both
// cases ready: a random pick among them would lose one round in two, so
// a settle that picks by luck fails here with a chance of 1 - 2^-200.
const settleRounds = 200

// TestHookDeadlineWins: once the deadline has passed, the timeout note is
// what the session gets even when the worker's answer is there too; an
// answer that arrives in time is printed.
func TestHookDeadlineWins(t *testing.T) {
	expired, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-expired.Done()
	for i := range settleRounds {
		done := make(chan hookResult, 1)
		done <- hookResult{text: "the pack"}
		if got := settle(expired, done, time.Nanosecond); !strings.Contains(got, "did not answer within 1ns") {
			t.Fatalf("round %d: past the deadline the session got %q, want the timeout note", i, got)
		}
	}
	live, cancelLive := context.WithTimeout(context.Background(), time.Hour)
	defer cancelLive()
	done := make(chan hookResult, 1)
	done <- hookResult{text: "the pack"}
	if got := settle(live, done, time.Hour); got != "the pack" {
		t.Errorf("an answer in time gave %q", got)
	}
	done <- hookResult{err: errBusy}
	if got := settle(live, done, time.Hour); got != "cairn: no context this time: "+errBusy.Error() {
		t.Errorf("an error in time gave %q", got)
	}
}

// TestOwnerRepo: the remote's owner/name in each URL form.
func TestOwnerRepo(t *testing.T) {
	for url, want := range map[string]string{
		"git@github.com:acme/harbor.git":        "acme/harbor",
		"https://github.com/acme/harbor":        "acme/harbor",
		"https://github.com/acme/harbor.git/":   "acme/harbor",
		"ssh://git@gitlab.example/acme/harbor":  "acme/harbor",
		"https://gitlab.example/group/sub/proj": "sub/proj",
		"/srv/git/harbor.git":                   "git/harbor",
		"harbor":                                "",
	} {
		if got := ownerRepo(url); got != want {
			t.Errorf("ownerRepo(%q) = %q, want %q", url, got, want)
		}
	}
}
