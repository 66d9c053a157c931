package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
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

// TestCollectRefusesLinkedFolders: collect writes its documents only
// through real folders. A linked events/ or day folder, even one that
// stays inside the base (the build would not read through it), and a
// linked document are refused, the link named, and nothing is written
// where they point.
func TestCollectRefusesLinkedFolders(t *testing.T) {
	isolate(t)
	for _, c := range []struct{ link, target string }{
		{"events", "elsewhere"},
		{"events/2026-11-27", "../elsewhere"},
		{"events/2026-11-27/tickets.json", "../../elsewhere/tickets.json"},
	} {
		dir := commandBase(t)
		writeFile(t, filepath.Join(dir, "cairn.yaml"), strings.SplitN(collectConfig, "  broken:", 2)[0])
		writeFile(t, filepath.Join(dir, "elsewhere", "tickets.json"), `{"cairn": 1, "source": "tickets", "records": []}`)
		os.RemoveAll(filepath.Join(dir, "events"))
		link := filepath.Join(dir, filepath.FromSlash(c.link))
		os.MkdirAll(filepath.Dir(link), 0o755)
		if err := os.Symlink(c.target, link); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := cairnAt(t, collectNow, "--base", dir, "collect", "--days", "1", "--as-of", "2026-11-28")
		if code == 0 || !strings.Contains(stderr, c.link+" is a symbolic link") {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant the link named", c.link, code, stderr)
		}
		got := readTree(t, filepath.Join(dir, "elsewhere"))
		if len(got) != 1 || string(got["tickets.json"]) != `{"cairn": 1, "source": "tickets", "records": []}` {
			t.Errorf("%s: written through the link: elsewhere/ holds %v", c.link, got)
		}
	}
}

// escapingConfig makes the base's cairn.yaml a link to a file outside it.
func escapingConfig(t *testing.T, dir string) {
	t.Helper()
	outside := filepath.Join(t.TempDir(), "cairn.yaml")
	writeFile(t, outside, "sources:\n  tickets:\n    run: [sh, -c, 'echo {} > outside-ran']\n    fields: {id: .id, title: .t, time: .at}\n")
	os.Remove(filepath.Join(dir, "cairn.yaml"))
	if err := os.Symlink(outside, filepath.Join(dir, "cairn.yaml")); err != nil {
		t.Fatal(err)
	}
}

// TestCollectConfigStaysInside: collect reads cairn.yaml as the build
// does, inside the base: a cairn.yaml linked from outside is refused, and
// no command it names runs.
func TestCollectConfigStaysInside(t *testing.T) {
	isolate(t)
	dir := commandBase(t)
	escapingConfig(t, dir)
	code, _, stderr := cairnAt(t, collectNow, "--base", dir, "collect", "--days", "1", "--as-of", "2026-11-28")
	if code != 2 || !strings.Contains(stderr, "cairn.yaml") {
		t.Errorf("exit %d, stderr:\n%s\nwant 2 naming cairn.yaml", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "outside-ran")); err == nil {
		t.Error("a command of the cairn.yaml outside the base ran")
	}
}

// TestImportConfigStaysInside: import kapi reads cairn.yaml inside the
// base too, so a linked one from outside is refused before anything is
// written.
func TestImportConfigStaysInside(t *testing.T) {
	isolate(t)
	dir := kapiBaseWithoutImport(t)
	escapingConfig(t, dir)
	code, _, stderr := cairn(t, "--base", dir, "import", "kapi", kapiProject)
	if code != 2 || !strings.Contains(stderr, "cairn.yaml") {
		t.Errorf("exit %d, stderr:\n%s\nwant 2 naming cairn.yaml", code, stderr)
	}
}

// TestMCPReadsStayInside: a running MCP server, whose session keeps the
// artifacts open, never serves text through a link that leaves the base:
// not from the read or search tools, not from a context pack, not from
// the by-location tool or resource, even after a build that indexed a
// regular page at that path.
func TestMCPReadsStayInside(t *testing.T) {
	dir := builtDemo(t)
	ts := serve(t, dir)
	ts.call(t, "context", map[string]any{"query": "arm64"}) // warm the session
	secret := filepath.Join(t.TempDir(), "secret.md")
	writeFile(t, secret, "# Arm64 builds\n\nTOPSECRET arm64 builds nightly.\n")
	page := filepath.Join(dir, "wiki", "arm64-builds.md")
	if err := os.Remove(page); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, page); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"read", map[string]any{"uri": "wiki/arm64-builds.md"}},
		{"context", map[string]any{"query": "TOPSECRET arm64"}},
		{"context_search", map[string]any{"query": "TOPSECRET"}},
		{"context_read", map[string]any{"path": "wiki/arm64-builds.md"}},
	} {
		got, isErr := ts.call(t, c.tool, c.args)
		if strings.Contains(got, "TOPSECRET") {
			t.Errorf("%s served text through the link:\n%s", c.tool, got)
		}
		if !isErr || !strings.Contains(got, "wiki/arm64-builds.md") || !strings.Contains(got, "escapes") {
			t.Errorf("%s: error %v, %q; want an error naming the link that escapes", c.tool, isErr, got)
		}
	}
	if got, _, _ := ts.read(t, "context://wiki/arm64-builds.md"); strings.Contains(got, "TOPSECRET") {
		t.Errorf("the resource served text through the link:\n%s", got)
	}
}

// TestBuildRemovesKilledBuildsTemps: `cairn build`, under its lock,
// removes what a killed build left in .cairn and beside the rules files
// it writes, in the naming of today and of older versions, and leaves a
// user's lookalike and the notes log's (not the build's to judge).
func TestBuildRemovesKilledBuildsTemps(t *testing.T) {
	dir := builtDemo(t)
	var rules []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && (d.Name() == "AGENTS.md" || d.Name() == "CLAUDE.md") {
			rules = append(rules, p)
		}
		return err
	})
	if len(rules) == 0 {
		t.Fatal("the demo build wrote no rules file")
	}
	stale := []string{
		filepath.Join(dir, ".cairn", ".cairn-tmp-docs.tsv.0123456789ab"),
		filepath.Join(dir, ".cairn", ".docs.tsv.tmp-0123456789ab"),
		// A killed note's, beside the notes log: the build sweeps it too.
		filepath.Join(dir, "governance", ".cairn-tmp-log.jsonl.0123456789ab"),
	}
	for _, r := range rules {
		stale = append(stale, filepath.Join(filepath.Dir(r), ".cairn-tmp-"+filepath.Base(r)+".0123456789ab"),
			filepath.Join(filepath.Dir(r), "."+filepath.Base(r)+".tmp-0123456789ab"))
	}
	kept := []string{
		filepath.Join(filepath.Dir(rules[0]), "."+filepath.Base(rules[0])+".tmp-mine"),
		// Another command's file (import kapi's): not the build's to sweep.
		filepath.Join(dir, "governance", ".cairn-tmp-terms.yaml.0123456789ab"),
	}
	for _, p := range append(slices.Clone(stale), kept...) {
		writeFile(t, p, "half written")
	}
	mustBuild(t, dir)
	for _, p := range stale {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("the build left %s", p)
		}
	}
	for _, p := range kept {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("the build removed %s", p)
		}
	}
}

// TestBuildLeavesANoteAppendUnderWay: a note appends under the log's
// own lock, not the build lock, so a build that finds a temporary file
// beside the log while a note holds that lock leaves it (it may be the
// note's append under way) and removes it once the lock is free; and a
// build with nothing to sweep there leaves no lock file behind.
func TestBuildLeavesANoteAppendUnderWay(t *testing.T) {
	dir := builtDemo(t)
	if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(artifacts.LogLockPath))); err == nil {
		t.Errorf("a build with nothing to sweep beside the log made %s", artifacts.LogLockPath)
	}
	tmp := filepath.Join(dir, "governance", ".cairn-tmp-log.jsonl.0123456789ab")
	writeFile(t, tmp, "a note's append under way")
	lock, err := artifacts.LockLog(dir, "cairn note")
	if err != nil {
		t.Fatal(err)
	}
	mustBuild(t, dir)
	if _, err := os.Lstat(tmp); err != nil {
		t.Errorf("the build removed the temporary file of a note holding the log's lock: %v", err)
	}
	if err := lock.Release(); err != nil {
		t.Fatal(err)
	}
	mustBuild(t, dir)
	if _, err := os.Lstat(tmp); err == nil {
		t.Errorf("with the log's lock free the build left %s", tmp)
	}
}

// TestNoteRemovesKilledNotesTemps: `cairn note`, under the log's lock,
// removes the temp files a killed note left beside the log, of either
// naming, and no other file in governance/.
func TestNoteRemovesKilledNotesTemps(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	gov := filepath.Join(dir, "governance")
	stale := []string{".cairn-tmp-log.jsonl.0123456789ab", ".log.jsonl.tmp-0123456789ab"}
	kept := []string{".log.jsonl.tmp-draft", ".cairn-tmp-terms.yaml.0123456789ab"}
	for _, n := range append(slices.Clone(stale), kept...) {
		writeFile(t, filepath.Join(gov, n), "half written")
	}
	code, _, stderr := cairnAt(t, time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC), "--base", dir, "note", "suggest", "note:api-curl",
		"API", "examples", "use", "curl.", "--path", "docs/api/**", "--actor", "agent:claude-code")
	if code != 0 {
		t.Fatalf("note exited %d: %s", code, stderr)
	}
	for _, n := range stale {
		if _, err := os.Lstat(filepath.Join(gov, n)); err == nil {
			t.Errorf("the note left governance/%s", n)
		}
	}
	for _, n := range kept {
		if _, err := os.Lstat(filepath.Join(gov, n)); err != nil {
			t.Errorf("the note removed governance/%s", n)
		}
	}
}
