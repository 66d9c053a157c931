package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/golden/goldentest"
	"github.com/google/go-cmp/cmp"
)

const (
	// readmePath is the README, relative to this package.
	readmePath = "../../README.md"
	// readmeAsOf is the day the README's examples are asked on; the
	// walk-through exports the same day.
	readmeAsOf = "2026-11-28"
	// readmeHome is how the session folder is written in the README.
	readmeHome = "/home/you"
	// readmeHookPath is the path the README's pre-commit recipe is written to.
	readmeHookPath = ".githooks/pre-commit"
	// readmeCommandTimeout bounds one command of the README.
	readmeCommandTimeout = 2 * time.Minute
)

var (
	readmeOpID     = regexp.MustCompile(`[0-9]{8}T[0-9]{6}\.[0-9]{3}Z-[0-9a-f]{6}`)
	readmeRevision = regexp.MustCompile(`(?m)^commit ([0-9a-f]{40}|unknown)$`)
	readmeExit     = regexp.MustCompile(`^\[exit ([0-9]+)\]$`)
)

// readmeBlock is one fenced block of the README or of a topic.
type readmeBlock struct {
	doc   string   // the file it is in, as messages name it
	line  int      // the line of its opening fence, counted from 1
	info  []string // the words of its info string
	lines []string // its text, one entry a line
}

// file returns the path a file block is written to, or "".
func (b readmeBlock) file() string {
	for _, w := range b.info {
		if p, ok := strings.CutPrefix(w, "file="); ok {
			return p
		}
	}
	return ""
}

func (b readmeBlock) console() bool { return len(b.info) == 1 && b.info[0] == "console" }

// readmeBlocks splits a Markdown text into its fenced blocks; doc names
// the file in messages.
func readmeBlocks(doc, text string) []readmeBlock {
	var blocks []readmeBlock
	var cur *readmeBlock
	fence := ""
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if cur == nil {
			if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
				n := len(trimmed) - len(strings.TrimLeft(trimmed, trimmed[:1]))
				fence = trimmed[:n]
				cur = &readmeBlock{doc: doc, line: i + 1, info: strings.Fields(trimmed[n:])}
			}
			continue
		}
		if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]+" ") == "" {
			blocks = append(blocks, *cur)
			cur = nil
			continue
		}
		cur.lines = append(cur.lines, line)
	}
	return blocks
}

// readmeCommand is one command of a console block and what it prints.
type readmeCommand struct {
	doc    string
	line   int // the line of its "$ "
	cmd    string
	want   []string // printed lines, without the [exit N] line
	status int
	// first, end are the indexes in the block's lines of the printed lines
	// (want and the exit line), for CAIRN_UPDATE_GOLDEN=1.
	first, end int
}

// readmeCommands parses a console block.
func readmeCommands(t *testing.T, b readmeBlock) []readmeCommand {
	var cmds []readmeCommand
	for i := 0; i < len(b.lines); {
		line := b.lines[i]
		if !strings.HasPrefix(line, "$ ") {
			t.Fatalf("%s:%d: a console block's first line must be a command starting with \"$ \", got %q", b.doc, b.line+1+i, line)
		}
		c := readmeCommand{doc: b.doc, line: b.line + 1 + i, cmd: strings.TrimPrefix(line, "$ ")}
		i++
		for strings.HasSuffix(c.cmd, "\\") && i < len(b.lines) {
			c.cmd += "\n" + b.lines[i]
			i++
		}
		c.first = i
		for i < len(b.lines) && !strings.HasPrefix(b.lines[i], "$ ") {
			c.want = append(c.want, b.lines[i])
			i++
		}
		c.end = i
		c.want = readmeTrim(c.want)
		if n := len(c.want); n > 0 {
			if m := readmeExit.FindStringSubmatch(c.want[n-1]); m != nil {
				c.status, _ = strconv.Atoi(m[1])
				c.want = c.want[:n-1]
			}
		}
		cmds = append(cmds, c)
	}
	return cmds
}

// readmeTrim drops spaces and tabs at line ends and blank lines at the end.
func readmeTrim(lines []string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, strings.TrimRight(l, " \t"))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// readmeNormalise applies the normalisations both sides share.
func readmeNormalise(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		l = readmeOpID.ReplaceAllString(l, "<op>")
		out[i] = readmeRevision.ReplaceAllString(l, "commit <revision>")
	}
	return out
}

// readmeMatch reports whether got matches want, where a want line "..."
// matches any run of lines.
func readmeMatch(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "..." {
		for k := 0; k <= len(got); k++ {
			if readmeMatch(want[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && want[0] == got[0] && readmeMatch(want[1:], got[1:])
}

// readmeBuild builds cairn from this package into dir and returns the
// folder holding the binary.
func readmeBuild(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "cairn"), ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return dir
}

// readmeSession is the state the README's commands share.
type readmeSession struct {
	home string // the session folder, shown as readmeHome
	wd   string
	env  map[string]string
}

func newReadmeSession(t *testing.T, bin string) *readmeSession {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gitconfig := "[user]\n\tname = You\n\temail = you@example.test\n[init]\n\tdefaultBranch = main\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(gitconfig), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(home, "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	return &readmeSession{home: home, wd: home, env: map[string]string{
		"PATH":                bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME":                home,
		"XDG_CACHE_HOME":      filepath.Join(home, ".cache"),
		"XDG_STATE_HOME":      filepath.Join(home, ".local", "state"),
		"TMPDIR":              filepath.Join(home, "tmp"),
		"CAIRN_AS_OF":         readmeAsOf,
		"LC_ALL":              "C",
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_DATE":     "2026-11-28T12:00:00Z",
		"GIT_COMMITTER_DATE":  "2026-11-28T12:00:00Z",
	}}
}

// environ is the session's environment for a child process.
func (s *readmeSession) environ() []string {
	var env []string
	for k, v := range s.env {
		env = append(env, k+"="+v)
	}
	return env
}

// path resolves a README path against the working folder.
func (s *readmeSession) path(p string) string {
	if strings.HasPrefix(p, readmeHome) {
		p = s.home + strings.TrimPrefix(p, readmeHome)
	}
	if p == "~" {
		p = s.home
	}
	if strings.HasPrefix(p, "~/") {
		p = filepath.Join(s.home, p[2:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.wd, p)
	}
	return p
}

// write writes a file block.
func (s *readmeSession) write(t *testing.T, b readmeBlock) {
	t.Helper()
	p := s.path(b.file())
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	text := strings.Join(b.lines, "\n") + "\n"
	mode := os.FileMode(0o644)
	if strings.HasPrefix(text, "#!") {
		mode = 0o755
	}
	if err := os.WriteFile(p, []byte(text), mode); err != nil {
		t.Fatalf("%s:%d: %v", b.doc, b.line, err)
	}
}

// run runs one command and returns what it printed and its exit status.
func (s *readmeSession) run(t *testing.T, c readmeCommand) ([]string, int) {
	t.Helper()
	if dir, ok := strings.CutPrefix(c.cmd, "cd "); ok && !strings.ContainsAny(dir, ";&|$") {
		p := s.path(strings.TrimSpace(dir))
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			return []string{fmt.Sprintf("cd: %s: no such folder", dir)}, 1
		}
		s.wd = p
		return nil, 0
	}
	if kv, ok := strings.CutPrefix(c.cmd, "export "); ok && !strings.ContainsAny(kv, ";&|$ ") {
		k, v, _ := strings.Cut(kv, "=")
		s.env[k] = v
		return nil, 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), readmeCommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", c.cmd)
	cmd.Dir, cmd.Env = s.wd, s.environ()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out // one pipe: the order a terminal shows
	status := 0
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%s:%d: %s: %v", c.doc, c.line, c.cmd, err)
		}
		status = ee.ExitCode()
	}
	text := strings.ReplaceAll(out.String(), s.home, readmeHome)
	return readmeTrim(strings.Split(text, "\n")), status
}

// TestREADME keeps the README and the reference topics honest: it builds
// the cairn binary once, replays the README from top to bottom in a fresh
// folder, then replays each topic of cmd/cairn/help in a copy of the
// folder the README left, and fails when the binary prints anything but
// what the text shows.
//
// Two kinds of fenced block take part; every other block is prose to the test.
//
//   - A block whose info string has a word file=PATH (```yaml file=cairn.yaml)
//     is a file: the test writes its text to PATH, relative to the session's
//     working folder, creating folders as needed (a text starting with #! is
//     made executable).
//   - A block whose info string is console is a terminal session. A line
//     starting with "$ " is a command; a command line ending in a backslash
//     continues on the next line. The lines after a command, up to the next
//     "$ " line, are what it prints, stdout and stderr together, as a terminal
//     shows them. A last line "[exit N]" is its exit status; without one the
//     command must exit 0. A line "..." stands for any number of lines.
//
// The README's blocks run in the order they appear, in one session: a
// temporary folder that is also $HOME (with a .gitconfig naming a user),
// with XDG_CACHE_HOME, XDG_STATE_HOME and TMPDIR inside it, CAIRN_AS_OF
// fixed at readmeAsOf, and the built binary first on PATH. Each command
// runs with sh -c in the session's working folder; "cd DIR" and
// "export NAME=VALUE", alone on their line, change the session instead, as
// they would a shell. A topic's blocks run the same way, in a session of
// its own that starts as the README's ends (a copy of its folder, in its
// working folder, with its variables), so that a topic's examples depend
// on the walk-through alone and never on another topic.
//
// Before comparing, both sides are normalised, and only so:
//
//   - the session folder is written readmeHome ("/home/you");
//   - notes-log operation ids, which hold the clock's time, read <op>;
//   - the revision `cairn version` reports, which go build stamps from the
//     checkout, reads <revision>;
//   - spaces and tabs at line ends, and blank lines at the end, are dropped.
//
// CAIRN_UPDATE_GOLDEN=1 go test ./cmd/cairn -run README rewrites the
// printed lines in the README and the topics from what the binary prints
// (a command whose lines hold "..." is left as it is); review the diff
// like code.
//
// The dependencies part checks that the develop topic's Dependencies
// section gives a reason for every module go.mod requires directly.
//
// The pre-commit part takes the README's block with
// file=.githooks/pre-commit, installs it as .git/hooks/pre-commit of a new
// repository and checks that it refuses a commit leaving a rules file new,
// changed or deleted and unstaged, and accepts the commit once they are
// staged.
func TestREADME(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("go is not on PATH, so the binary cannot be built: %v", err)
	}
	for _, tool := range []string{"git", "sh", "cp"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the README's examples need %s: %v", tool, err)
		}
	}
	data, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	blocks := readmeBlocks("README.md", string(data))
	bin := readmeBuild(t)
	// The session belongs to this test, not to the subtest, so that its
	// folder outlives the subtest for the topics to start from.
	end := newReadmeSession(t, bin)
	t.Run("examples", func(t *testing.T) {
		if ran := readmeExamples(t, end, readmePath, string(data), blocks); ran < 10 {
			t.Errorf("ran %d README commands; the walk-through alone has more: are the console blocks still marked ```console?", ran)
		}
	})
	if t.Failed() {
		t.Fatal("the README's walk-through failed, so the topics, which start where it ends, are not run")
	}
	snapshot := end.clone(t)
	t.Run("topics", func(t *testing.T) {
		for _, tp := range topics {
			t.Run(tp.name, func(t *testing.T) {
				t.Parallel()
				p := topicPath(tp.name)
				text, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				doc := "cmd/cairn/" + filepath.ToSlash(p)
				readmeExamples(t, snapshot.clone(t), p, string(text), readmeBlocks(doc, string(text)))
			})
		}
	})
	t.Run("pre-commit", func(t *testing.T) { readmePreCommit(t, bin, blocks) })
	t.Run("dependencies", func(t *testing.T) { readmeDependencies(t) })
}

// topicPath is a topic's file, relative to this package.
func topicPath(name string) string { return filepath.Join("help", name+".md") }

// clone copies the session's folder into a new one and returns a session
// there, in the same working folder (relative to home) and with the same
// variables.
func (s *readmeSession) clone(t *testing.T) *readmeSession {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", s.home+"/.", home).CombinedOutput(); err != nil {
		t.Fatalf("copying the session folder: %v\n%s", err, out)
	}
	rel, err := filepath.Rel(s.home, s.wd)
	if err != nil {
		t.Fatal(err)
	}
	c := &readmeSession{home: home, wd: filepath.Join(home, rel), env: map[string]string{}}
	for k, v := range s.env {
		if v == s.home || strings.HasPrefix(v, s.home+string(filepath.Separator)) {
			v = home + strings.TrimPrefix(v, s.home)
		}
		c.env[k] = v
	}
	return c
}

// readmeDependencies checks that the develop topic's Dependencies section
// names every module go.mod requires directly, each with a reason beside
// it.
func readmeDependencies(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	develop, err := os.ReadFile(topicPath("develop"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(develop), "\n## Dependencies\n")
	if !ok {
		t.Fatal("the develop topic has no ## Dependencies section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	inRequire := false
	for _, line := range strings.Split(string(mod), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "require (":
			inRequire = true
			continue
		case line == ")":
			inRequire = false
			continue
		case strings.HasPrefix(line, "require "):
			line = strings.TrimPrefix(line, "require ")
		case !inRequire:
			continue
		}
		if strings.Contains(line, "// indirect") || line == "" {
			continue
		}
		module := strings.Fields(line)[0]
		if !strings.Contains(section, "`"+module+"`:") {
			t.Errorf("go.mod requires %s, but the develop topic's Dependencies section has no line \"`%s`: why it is there\"", module, module)
		}
	}
}

// readmeExamples replays the file and console blocks of the text at path
// in order, in session s, and returns how many commands ran. With
// CAIRN_UPDATE_GOLDEN=1 it rewrites the printed lines that differ.
func readmeExamples(t *testing.T, s *readmeSession, path, text string, blocks []readmeBlock) int {
	lines := strings.Split(text, "\n")
	type edit struct {
		from, to int // line indexes in the text, to exclusive
		with     []string
	}
	var edits []edit
	ran := 0
	for _, b := range blocks {
		switch {
		case b.file() != "":
			s.write(t, b)
		case b.console():
			for _, c := range readmeCommands(t, b) {
				ran++
				got, status := s.run(t, c)
				if status == c.status && readmeMatch(readmeNormalise(c.want), readmeNormalise(got)) {
					continue
				}
				if goldentest.Update() && !slices.Contains(c.want, "...") {
					with := got
					if status != 0 {
						with = append(with, fmt.Sprintf("[exit %d]", status))
					}
					edits = append(edits, edit{b.line + c.first, b.line + c.end, with})
					continue
				}
				msg := fmt.Sprintf("%s:%d: $ %s\n", c.doc, c.line, c.cmd)
				if status != c.status {
					msg += fmt.Sprintf("exit status %d, the text says %d\n", status, c.status)
				}
				t.Errorf("%sprinted lines (-text +binary):\n%s", msg, cmp.Diff(c.want, got))
			}
		}
	}
	if len(edits) == 0 {
		return ran
	}
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		// A command's printed lines end before the next command or the
		// block's closing fence; keep a blank line that separated them.
		tail := lines[e.from:e.to]
		var blank []string
		for len(tail) > 0 && strings.TrimSpace(tail[len(tail)-1]) == "" {
			blank = append(blank, "")
			tail = tail[:len(tail)-1]
		}
		lines = slices.Concat(lines[:e.from], e.with, blank, lines[e.to:])
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("rewrote the printed lines of %d commands of %s; review the diff", len(edits), path)
	return ran
}

// readmePreCommit installs the README's pre-commit recipe in a new
// repository and commits a new folder of content whose rules differ.
func readmePreCommit(t *testing.T, bin string, blocks []readmeBlock) {
	var hook []readmeBlock
	for _, b := range blocks {
		if b.file() == readmeHookPath {
			hook = append(hook, b)
		}
	}
	if len(hook) != 1 {
		t.Fatalf("the README has %d blocks with file=%s, want exactly one: the pre-commit recipe", len(hook), readmeHookPath)
	}
	s := newReadmeSession(t, bin)
	s.wd = filepath.Join(s.home, "repo")
	files := map[string]string{
		"cairn.yaml": "content: [\"**/*.md\"]\n",
		"governance/terms.yaml": `- id: whitelist
  term: whitelist
  status: forbidden
  replacement: allowlist
- id: sprint
  term: sprint
  status: forbidden
  replacement: iteration
  paths: ["guides/**"]
`,
		"README.md":  "# The project\n",
		".gitignore": ".cairn/\n",
	}
	if err := os.Mkdir(s.wd, 0o755); err != nil {
		t.Fatal(err)
	}
	for p, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(s.wd, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(s.wd, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sh := func(cmd string, wantStatus int) string {
		t.Helper()
		got, status := s.run(t, readmeCommand{cmd: cmd})
		if status != wantStatus {
			t.Fatalf("$ %s: exit status %d, want %d; printed:\n%s", cmd, status, wantStatus, strings.Join(got, "\n"))
		}
		return strings.Join(got, "\n")
	}
	sh("git init -q", 0)
	hookFile := hook[0]
	hookFile.info = []string{"file=.git/hooks/pre-commit"}
	s.write(t, hookFile)
	if fi, err := os.Stat(filepath.Join(s.wd, ".git/hooks/pre-commit")); err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("the pre-commit recipe is not an executable script (does it start with #!?): %v", err)
	}

	// The first commit: the hook builds, and the root's rules files it
	// writes are new and unstaged, so it refuses.
	sh("git add -A", 0)
	out := sh("git commit -qm start", 1)
	for _, f := range []string{"AGENTS.md", "CLAUDE.md"} {
		if !strings.Contains(out, f) {
			t.Errorf("the hook refused the first commit without naming %s:\n%s", f, out)
		}
	}
	sh("git add AGENTS.md CLAUDE.md && git commit -qm start", 0)

	// A new folder whose rules differ: its rules files are new, untracked
	// files in a new folder, and the root's list of ruled folders changes.
	if err := os.MkdirAll(filepath.Join(s.wd, "guides"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.wd, "guides/setup.md"), []byte("# Setup\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sh("git add guides/setup.md", 0)
	out = sh("git commit -qm guides", 1)
	for _, f := range []string{"guides/AGENTS.md", "guides/CLAUDE.md"} {
		if _, err := os.Stat(filepath.Join(s.wd, f)); err != nil {
			t.Fatalf("the hook's build wrote no %s: %v", f, err)
		}
		if !strings.Contains(out, f) {
			t.Errorf("the hook refused the commit without naming %s:\n%s", f, out)
		}
	}
	if got := sh("git log --format=%s", 0); got != "start" {
		t.Fatalf("a refused commit was made: git log says\n%s", got)
	}
	// Staged as the build wrote them, the commit goes through and leaves
	// nothing behind.
	sh("git add -A -- ':(glob)**/AGENTS.md' ':(glob)**/CLAUDE.md' && git commit -qm guides", 0)
	if got := sh("git status --porcelain --untracked-files=all", 0); got != "" {
		t.Errorf("after the accepted commit, git status is not clean:\n%s", got)
	}

	// A folder that loses its rules: the build deletes its rules files,
	// and a commit that leaves the deletion unstaged is refused.
	sh("git rm -q guides/setup.md", 0)
	out = sh("git commit -qm 'no guides'", 1)
	if !strings.Contains(out, "guides/AGENTS.md") {
		t.Errorf("the hook let a deleted rules file go unstaged:\n%s", out)
	}
	sh("git add -A -- ':(glob)**/AGENTS.md' ':(glob)**/CLAUDE.md' && git commit -qm 'no guides'", 0)
}
