package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query"
	"github.com/cairn-kb/cairn/stages/lib/escape"
)

// HookCmd is `cairn hook HARNESS`: what an agent harness's session-start
// hook prints into the session, for agents that never connect to MCP.
type HookCmd struct {
	Harness string        `arg:"" name:"HARNESS" help:"The agent harness whose envelope to print: claude, codex, gemini, cursor or copilot." enum:"claude,codex,gemini,cursor,copilot"`
	Budget  int           `help:"Token budget of everything printed: the header lines, the pack and the rules (a token is 4 bytes)." default:"2400" placeholder:"TOKENS"`
	Timeout time.Duration `help:"Give up after this long and print a short note instead: a hook never holds up a session." default:"3s" placeholder:"DURATION"`
}

// Help is the detail under the summary of `cairn hook --help`.
func (HookCmd) Help() string {
	return `The pack's question is what changed lately in the working folder: the
subjects of its last 5 commits (else the repository's owner/name and
branch). The rules are those of the working folder, or of the base's root
when the working folder is outside the base. Everything printed fits
--budget: the rules take up to half of it (cut at a line, saying so), the
pack the rest (left out, saying so, when too little is left). The default,
2400 tokens, keeps the text under the 10,000 characters Claude Code passes
on whole. It always exits 0: a missing or busy base gives a one-line note
instead.

Examples:

    cairn hook claude                  # Claude Code's SessionStart JSON
    cairn --base ~/notes hook codex    # the base from elsewhere

In Claude Code's .claude/settings.json:

    {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "cairn hook claude"}]}]}}`
}

// Run prints the envelope. Whatever goes wrong, the session goes on: the
// note says what happened and the exit status is 0.
func (c *HookCmd) Run(env *Env) error {
	done := make(chan hookResult, 1)
	ctx, cancel := context.WithTimeout(context.Background(), c.Timeout)
	defer cancel()
	go func() {
		text, err := c.context(ctx, env)
		done <- hookResult{text, err}
	}()
	return writeEnvelope(env, c.Harness, settle(ctx, done, c.Timeout))
}

// hookResult is what the hook's worker produced.
type hookResult struct {
	text string
	err  error
}

// settle waits for the worker or the deadline and says which text the
// session gets. A select alone picks at random between two ready cases,
// and at the deadline both often are (the worker returns the context's
// error as it expires), so the deadline is checked after the wait: once
// it has passed, the timeout note wins whatever arrived, and the same
// run always prints the same kind of note.
func settle(ctx context.Context, done <-chan hookResult, timeout time.Duration) string {
	var r hookResult
	select {
	case r = <-done:
	case <-ctx.Done():
	}
	if ctx.Err() != nil {
		return fmt.Sprintf("cairn: no context this time: the base did not answer within %s; run `cairn build` if it has not been built lately.", timeout)
	}
	if r.err != nil {
		return "cairn: no context this time: " + r.err.Error()
	}
	return r.text
}

// errBusy is a base whose build lock is held: its artifacts are being
// written, and a scan of a large base would hold up the session.
var errBusy = errors.New("the base is busy (a build or a note holds its lock); the next session gets its pack")

// context is the hook's text: a header line, the pack for what changed
// lately in the working folder, then the rules of the working folder, the
// whole within the budget (see fitHook).
func (c *HookCmd) context(ctx context.Context, env *Env) (string, error) {
	root, err := env.findBase()
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return "", errors.New(ee.msg)
		}
		return "", err
	}
	if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(artifacts.LockPath))); err == nil {
		return "", errBusy
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	asOf, err := asOfDay("", env)
	if err != nil {
		return "", err
	}
	wd, err := env.Getwd()
	if err != nil {
		return "", err
	}
	repo := repositoryOf(ctx, wd)
	q := questionOf(ctx, wd, repo)
	at, place, whole := wd, "the working folder", "`cairn context --at .` prints them whole"
	if rel, err := filepath.Rel(resolved(root), resolved(wd)); err != nil || !filepath.IsLocal(rel) && rel != "." {
		at, place = root, "the base's root (the working folder is outside the base)"
		whole = "`cairn context --at .` in the base's folder prints them whole"
	}
	rules, err := query.At(ctx, root, query.AtRequest{Path: at, Format: query.FormatMarkdown, AsOf: asOf})
	if err != nil {
		return "", err
	}
	return fitHook(hookParts{
		budget:    c.Budget,
		head:      fmt.Sprintf("cairn: context for %s, from the knowledge base %s; the pack's question is %s.\n\n", repo.describe(), filepath.Base(root), q.about),
		rulesHead: fmt.Sprintf("\ncairn: what applies where you write, at %s:\n\n", place),
		rules:     rules,
		whole:     whole,
		pack: func(budget int) ([]byte, error) {
			return query.Context(ctx, root, query.Request{
				Words: []string{q.words}, Budget: budget, AsOf: asOf, Format: query.FormatText, ToolVersion: Version,
			})
		},
	})
}

// question is the pack's query and how the header names it.
type question struct {
	words string
	about string
}

// recentCommits is how many of the working folder's latest commits make
// the pack's question: enough to name the work in progress, few enough
// that one old topic does not drown it.
const recentCommits = 5

// maxQuestionWords and maxQuestionBytes bound the question made of commit
// subjects, under the query's own limits (64 words, 1024 bytes) with room
// for the repository's name at each end.
const (
	maxQuestionWords = 48
	maxQuestionBytes = 768
)

// questionOf is what an agent starting a session here most needs to know
// about: what changed lately in this folder. It is made of the subjects of
// the last recentCommits commits (merges left out) that touch the working
// folder, newest first, each word once; a word that is not UTF-8 (an old
// commit in another encoding) is left out, as the query would refuse it. A
// repository with none, or no git, falls back to the repository's name and
// branch.
//
// The repository's name opens and closes the question: the query reads a
// day, "yesterday" or "last week" at either end as its window, and a
// commit subject ending in one must not narrow the pack to it.
func questionOf(ctx context.Context, dir string, r gitRepo) question {
	log := git(ctx, dir, "log", "-n", strconv.Itoa(recentCommits), "--no-merges", "--format=%s", "--", ".")
	var words []string
	seen := map[string]bool{}
	size, commits := 0, 0
	for _, subject := range strings.Split(log, "\n") {
		if strings.TrimSpace(subject) == "" {
			continue
		}
		commits++
		for _, w := range strings.Fields(subject) {
			key := strings.ToLower(w)
			if seen[key] || !utf8.ValidString(w) || len(words) == maxQuestionWords || size+len(w)+1 > maxQuestionBytes {
				continue
			}
			seen[key] = true
			words = append(words, w)
			size += len(w) + 1
		}
	}
	if len(words) == 0 {
		return question{words: r.query(), about: "the repository's name and branch (" + r.query() + ")"}
	}
	about := fmt.Sprintf("what changed lately in this folder: the subjects of its last %d commits", commits)
	if commits == 1 {
		about = "what changed lately in this folder: the subject of its last commit"
	}
	return question{words: r.name + " " + strings.Join(words, " ") + " " + r.name, about: about}
}

// gitRepo is what the hook's query is made of.
type gitRepo struct {
	name   string // owner/name from the remote, else the folder's name
	branch string
}

func (r gitRepo) query() string { return strings.TrimSpace(r.name + " " + r.branch) }

func (r gitRepo) describe() string {
	if r.branch == "" {
		return r.name
	}
	return fmt.Sprintf("%s (branch %s)", r.name, r.branch)
}

// gitTimeout bounds each git call: a repository on a slow disk must not
// use the hook's whole time.
const gitTimeout = time.Second

// repositoryOf reads the repository at dir: the remote origin's
// owner/name and the current branch, with the folder's name when there is
// no remote (or no git).
func repositoryOf(ctx context.Context, dir string) gitRepo {
	r := gitRepo{name: filepath.Base(dir)}
	if top := git(ctx, dir, "rev-parse", "--show-toplevel"); top != "" {
		r.name = filepath.Base(top)
	}
	if url := git(ctx, dir, "config", "--get", "remote.origin.url"); url != "" {
		if name := ownerRepo(url); name != "" {
			r.name = name
		}
	}
	// symbolic-ref names the branch of a repository with no commit yet
	// too, and nothing on a detached HEAD.
	r.branch = git(ctx, dir, "symbolic-ref", "--short", "-q", "HEAD")
	return r
}

// git runs one git command in dir and returns its trimmed output, "" on
// any failure.
func git(ctx context.Context, dir string, args ...string) string {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// ownerRepo is the owner/name of a remote URL, in its https, ssh or scp
// form: github.com:acme/harbor.git and https://github.com/acme/harbor
// both give acme/harbor.
func ownerRepo(url string) string {
	u := strings.TrimSuffix(strings.TrimSuffix(url, "/"), ".git")
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	} else if i := strings.Index(u, ":"); i >= 0 {
		u = strings.ReplaceAll(u[:i], "/", "") + "/" + u[i+1:]
	}
	parts := strings.Split(u, "/")
	if len(parts) < 3 {
		return ""
	}
	return parts[len(parts)-2] + "/" + parts[len(parts)-1]
}

// writeEnvelope prints text in the shape the harness's session-start hook
// reads (see `cairn help hooks` for what each one is), with
// what could act on a reader's display escaped (escape.Bytes).
func writeEnvelope(env *Env, harness, text string) error {
	var v any
	switch harness {
	case "claude", "codex", "gemini":
		v = map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "SessionStart", "additionalContext": text}}
	case "cursor":
		v = map[string]any{"additional_context": text}
	default: // copilot reads plain text
		_, err := fmt.Fprint(env.Stdout, escape.Text(text))
		return err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := env.Stdout.Write(escape.Bytes(b.Bytes()))
	return err
}
