package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// collectNow is the instant the collection tests record as collected_at.
var collectNow = time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)

// gitCommit is one commit a test repository gets: its author instant,
// message and the file it writes.
type gitCommit struct {
	when, msg, file string
}

// runGit runs git in dir with a fixed identity and the commit's dates,
// outside any user or system configuration.
func runGit(t *testing.T, dir, when string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Ada Lovelace", "-c", "user.email=Ada@Example.test",
		"-c", "init.defaultBranch=main", "-c", "commit.gpgSign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_DATE="+when, "GIT_COMMITTER_DATE="+when)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// gitBase makes a cairn base that is a git repository holding commits.
func gitBase(t *testing.T, commits []gitCommit) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the git binary is not installed")
	}
	dir := filepath.Join(t.TempDir(), "repo")
	if code, _, stderr := cairn(t, "init", dir); code != 0 {
		t.Fatalf("init: %s", stderr)
	}
	runGit(t, dir, "2026-11-01T00:00:00Z", "init", "-q")
	for _, c := range commits {
		p := filepath.Join(dir, filepath.FromSlash(c.file))
		os.MkdirAll(filepath.Dir(p), 0o755)
		f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(c.msg + "\n")
		f.Close()
		runGit(t, dir, c.when, "add", "-A")
		runGit(t, dir, c.when, "commit", "-q", "-m", c.msg)
	}
	return dir
}

var testCommits = []gitCommit{
	{"2026-11-23T09:15:00+01:00", "Stream uploads in chunks\n\nThe loop read whole files; FER-12 saw stalls.\n\nCo-authored-by: Grace Hopper <grace@example.test>", "src/upload.go"},
	{"2026-11-23T17:40:00Z", "Retry a chunk after a timeout (#7)", "src/retry.go"},
	{"2026-11-25T08:00:00Z", "Document the dry-run flag", "docs/cli/sync.md"},
	{"2026-11-26T23:59:59Z", "Exclude hidden folders only when asked", "src/exclude.go"},
	{"2026-11-28T10:00:00Z", "Today's work is not collected yet", "src/today.go"},
}

// collectedTree reads the events folder of a base.
func collectedTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	return readTree(t, filepath.Join(dir, "events"))
}

// TestCollectGitThenBuild: `cairn collect git` with nothing configured
// writes a document per author day (UTC) before the as-of day, the build
// reads them, a pack cites a commit, and collecting again changes nothing.
func TestCollectGitThenBuild(t *testing.T) {
	isolate(t)
	dir := gitBase(t, testCommits)
	code, stdout, stderr := cairnAt(t, collectNow, "--base", dir, "collect", "git", "--as-of", "2026-11-28")
	if code != 0 {
		t.Fatalf("collect exited %d:\n%s", code, stderr)
	}
	wantOut := "events/2026-11-23/git.json\nevents/2026-11-25/git.json\nevents/2026-11-26/git.json\n"
	if stdout != wantOut {
		t.Errorf("collect printed %q, want %q", stdout, wantOut)
	}
	if want := "cairn: collect git: 3 written (4 records), 0 present, 27 without commits\n"; stderr != want {
		t.Errorf("collect reported %q, want %q", stderr, want)
	}
	first := collectedTree(t, dir)
	doc := decodeDoc(t, first["2026-11-23/git.json"])
	if doc.Count != 2 || len(doc.Records) != 2 || doc.WindowStart != "2026-11-23T00:00:00Z" || doc.WindowEnd != "2026-11-24T00:00:00Z" || doc.CollectedAt != "2026-11-28T06:00:00Z" {
		t.Errorf("envelope of 2026-11-23: %+v", doc)
	}
	c := doc.Records[0]
	if c["time"] != "2026-11-23T08:15:00Z" || c["author"] != "person:email/ada@example.test" || c["subject"] != "Stream uploads in chunks" {
		t.Errorf("first commit of the day: %v", c)
	}
	if got := strings.Join(anyStrings(c["tickets"]), ","); got != "ticket:FER-12" {
		t.Errorf("tickets %q, want ticket:FER-12", got)
	}
	if got := strings.Join(anyStrings(c["co_authors"]), ","); got != "person:email/grace@example.test" {
		t.Errorf("co_authors %q", got)
	}
	if got := strings.Join(anyStrings(c["paths"]), ","); !strings.HasSuffix(got, ",src/upload.go") {
		t.Errorf("paths %q", got)
	}
	if got := strings.Join(anyStrings(doc.Records[1]["tickets"]), ","); got != "ticket:#7" {
		t.Errorf("tickets of the second commit %q, want ticket:#7", got)
	}

	mustBuild(t, dir)
	code, pack, stderr := cairnAt(t, collectNow, "--base", dir, "context", "FER-12", "--as-of", "2026-11-28")
	sha := c["sha"].(string)
	if code != 0 || !strings.Contains(pack, "events/2026-11-23/git.json#"+sha+" Stream uploads in chunks") {
		t.Errorf("the pack does not cite the commit %s (exit %d):\n%s%s", sha, code, pack, stderr)
	}
	code, pack, _ = cairnAt(t, collectNow, "--base", dir, "context", "person:email/grace@example.test", "--as-of", "2026-11-28")
	if code != 0 || !strings.Contains(pack, "#"+sha) {
		t.Errorf("a co-author's URI does not find the commit:\n%s", pack)
	}

	stamps := mtimes(t, filepath.Join(dir, "events"))
	code, stdout, stderr = cairnAt(t, collectNow.Add(time.Hour), "--base", dir, "collect", "git", "--as-of", "2026-11-28")
	if code != 0 || stdout != "" {
		t.Fatalf("a second collect exited %d and printed %q:\n%s", code, stdout, stderr)
	}
	if want := "cairn: collect git: 0 written (0 records), 3 present, 27 without commits\n"; stderr != want {
		t.Errorf("second collect reported %q, want %q", stderr, want)
	}
	if again := collectedTree(t, dir); !equalTrees(first, again) || !equalStamps(stamps, mtimes(t, filepath.Join(dir, "events"))) {
		t.Error("a second collect changed the events folder")
	}
	if code, out, stderr := cairn(t, "--base", dir, "build", "--check"); code != 0 {
		t.Errorf("the build is stale after a collect that changed nothing: %s%s", out, stderr)
	}
	// --refresh collects the days again: same commits, a new collected_at.
	code, stdout, _ = cairnAt(t, collectNow.Add(time.Hour), "--base", dir, "collect", "git", "--as-of", "2026-11-28", "--refresh")
	if code != 0 || stdout != wantOut {
		t.Errorf("--refresh exited %d and printed %q", code, stdout)
	}
	if d := decodeDoc(t, collectedTree(t, dir)["2026-11-23/git.json"]); d.CollectedAt != "2026-11-28T07:00:00Z" {
		t.Errorf("--refresh kept collected_at %s", d.CollectedAt)
	}
}

// TestCollectGitQuiet: a repository whose last commit is older than the
// window says how far back it is and which --days reaches it, and that
// command does; a commit of the as-of day, never collected, does not count.
// A repository with no commit says that instead.
func TestCollectGitQuiet(t *testing.T) {
	isolate(t)
	dir := gitBase(t, []gitCommit{
		{"2026-08-10T12:00:00Z", "Start the sync tool", "src/main.go"},
		{"2026-08-17T23:30:00+02:00", "Read the config file", "src/config.go"},
		{"2026-11-28T08:00:00Z", "Pick the project up again", "src/main.go"},
	})
	code, stdout, stderr := cairnAt(t, collectNow, "--base", dir, "collect", "git", "--as-of", "2026-11-28")
	want := "cairn: collect git: 0 written (0 records), 0 present, 30 without commits\n" +
		"cairn: collect git: no commit in the last 30 days; the newest is from 2026-08-17, 103 days ago: run cairn collect git --days 103 --as-of 2026-11-28 to reach it\n"
	if code != 0 || stdout != "" || stderr != want {
		t.Fatalf("collect exited %d, printed %q and reported %q, want %q", code, stdout, stderr, want)
	}
	// The same as data: nothing on stderr, the newest day and the hint.
	code, stdout, stderr = cairnAt(t, collectNow, "--base", dir, "collect", "git", "--as-of", "2026-11-28", "--format", "json")
	var rep collectReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != 0 || stderr != "" || len(rep.Sources) != 1 ||
		rep.Sources[0].Newest != "2026-08-17" || rep.Sources[0].Empty != 30 || !strings.HasPrefix(rep.Sources[0].Hint, "no commit in the last 30 days") {
		t.Errorf("--format json: exit %d, %v, %+v, stderr %q", code, err, rep, stderr)
	}
	code, stdout, stderr = cairnAt(t, collectNow, "--base", dir, "collect", "git", "--days", "103", "--as-of", "2026-11-28")
	if code != 0 || stdout != "events/2026-08-17/git.json\n" {
		t.Errorf("the hint's command exited %d and printed %q:\n%s", code, stdout, stderr)
	}

	empty := gitBase(t, nil)
	code, _, stderr = cairnAt(t, collectNow, "--base", empty, "collect", "git", "--as-of", "2026-11-28")
	want = "cairn: collect git: 0 written (0 records), 0 present, 30 without commits\n" +
		"cairn: collect git: the repository has no commit yet, so there is nothing to collect; commit, or name another repository with --repo\n"
	if code != 0 || stderr != want {
		t.Errorf("an empty repository: exit %d, %q, want %q", code, stderr, want)
	}
}

// TestCollectGitMerge: a merge commit is flagged, and --repo reads another
// repository than the base's.
func TestCollectGitMerge(t *testing.T) {
	isolate(t)
	repo := gitBase(t, testCommits[:1])
	runGit(t, repo, "2026-11-24T10:00:00Z", "checkout", "-q", "-b", "topic")
	os.WriteFile(filepath.Join(repo, "topic.txt"), []byte("x\n"), 0o644)
	runGit(t, repo, "2026-11-24T10:00:00Z", "add", "-A")
	runGit(t, repo, "2026-11-24T10:00:00Z", "commit", "-q", "-m", "Topic work")
	runGit(t, repo, "2026-11-24T11:00:00Z", "checkout", "-q", "main")
	runGit(t, repo, "2026-11-24T12:00:00Z", "merge", "-q", "--no-ff", "-m", "Merge topic (ABC-9)", "topic")
	base := filepath.Join(t.TempDir(), "kb")
	if code, _, stderr := cairn(t, "init", base); code != 0 {
		t.Fatal(stderr)
	}
	code, _, stderr := cairnAt(t, collectNow, "--base", base, "collect", "git", "--repo", repo, "--as-of", "2026-11-28", "--days", "5")
	if code != 0 {
		t.Fatalf("collect exited %d: %s", code, stderr)
	}
	doc := decodeDoc(t, collectedTree(t, base)["2026-11-24/git.json"])
	if len(doc.Records) != 2 {
		t.Fatalf("2026-11-24 holds %d commits, want 2", len(doc.Records))
	}
	merge := doc.Records[1]
	if merge["merge"] != true || len(anyStrings(merge["parents"])) != 2 || strings.Join(anyStrings(merge["tickets"]), ",") != "ticket:ABC-9" {
		t.Errorf("the merge commit is %v", merge)
	}
	if doc.Records[0]["merge"] != nil {
		t.Errorf("a plain commit is flagged a merge: %v", doc.Records[0])
	}
}

// collectConfig declares three command sources: one that works, one that
// fails with a message on stderr and one that prints broken JSON.
const collectConfig = `sources:
  tickets:
    run: [sh, scripts/tickets.sh, --project, FER]
    fields: {id: .key, title: .title, time: .opened, summary: [.body, .note]}
    recency: {half_life_days: 7}
  broken:
    run: [sh, -c, 'echo "token expired for $CAIRN_SOURCE" >&2; exit 3']
    fields: {id: .id, title: .title, time: .at}
  garbled:
    run: [sh, -c, 'printf "[\n  {\"id\": \"a\",\n   \"title\": oops}\n]\n"']
    fields: {id: .id, title: .title, time: .at}
`

// ticketsScript prints one ticket for the day it is asked for, from its
// arguments (--project FER --since DAY --until DAY) and its environment.
const ticketsScript = `#!/bin/sh
[ "$3" = --since ] && [ "$4" = "$CAIRN_SINCE" ] && [ "$5" = --until ] && [ "$6" = "$CAIRN_UNTIL" ] || { echo "bad arguments: $*" >&2; exit 2; }
printf '{"records": [{"key": "%s-%s", "title": "Ticket of %s", "opened": "%sT12:00:00Z", "body": "Filed on %s."}]}\n' "$2" "$CAIRN_SINCE" "$CAIRN_SINCE" "$CAIRN_SINCE" "$CAIRN_SINCE"
`

func commandBase(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "kb")
	if code, _, stderr := cairn(t, "init", dir); code != 0 {
		t.Fatal(stderr)
	}
	writeFile(t, filepath.Join(dir, "cairn.yaml"), collectConfig)
	writeFile(t, filepath.Join(dir, "scripts", "tickets.sh"), ticketsScript)
	return dir
}

func writeFile(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCollectFailingSources: a source that fails and one that prints
// invalid JSON are each reported, by name, with the stderr or the
// position; the working source's days are written; the exit is 1.
func TestCollectFailingSources(t *testing.T) {
	isolate(t)
	dir := commandBase(t)
	code, stdout, stderr := cairnAt(t, collectNow, "--base", dir, "collect", "--days", "3", "--as-of", "2026-11-28")
	if code != 1 {
		t.Fatalf("collect exited %d, want 1:\n%s", code, stderr)
	}
	wantOut := "events/2026-11-25/tickets.json\nevents/2026-11-26/tickets.json\nevents/2026-11-27/tickets.json\n"
	if stdout != wantOut {
		t.Errorf("collect printed %q, want %q", stdout, wantOut)
	}
	for _, want := range []string{
		"cairn: collect broken: 0 written (0 records), 0 present\n" +
			"cairn: source broken: 2026-11-25: the command \"sh -c echo \\\"token expired for $CAIRN_SOURCE\\\" >&2; exit 3\" failed (exit status 3); its stderr:\ntoken expired for broken\n",
		"cairn: source garbled: 2026-11-25: output line 3, column 13: invalid JSON: invalid character 'o' looking for beginning of value; the command must print one JSON document\n",
		"cairn: collect tickets: 3 written (3 records), 0 present\n",
		"cairn: 2 of 3 sources failed (broken, garbled); the others' documents are written; fix the source and run cairn collect again\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	doc := decodeDoc(t, collectedTree(t, dir)["2026-11-26/tickets.json"])
	if doc.Source != "tickets" || doc.Date != "2026-11-26" || len(doc.Records) != 1 || doc.Records[0]["key"] != "FER-2026-11-26" {
		t.Errorf("tickets of 2026-11-26: %+v", doc)
	}
	mustBuild(t, dir)
	code, pack, _ := cairnAt(t, collectNow, "--base", dir, "context", "FER-2026-11-26", "--as-of", "2026-11-28")
	if code != 0 || !strings.Contains(pack, "events/2026-11-26/tickets.json#FER-2026-11-26") {
		t.Errorf("the pack does not cite the collected ticket:\n%s", pack)
	}
	// Naming one source runs only that one; its days are present now.
	code, stdout, stderr = cairnAt(t, collectNow, "--base", dir, "collect", "tickets", "--days", "3", "--as-of", "2026-11-28")
	if code != 0 || stdout != "" || stderr != "cairn: collect tickets: 0 written (0 records), 3 present\n" {
		t.Errorf("collect tickets again: exit %d, %q, %q", code, stdout, stderr)
	}
}

// TestCollectRefusals: an unknown source, a bad --days and a source with
// no command are usage errors, and nothing runs.
func TestCollectRefusals(t *testing.T) {
	isolate(t)
	dir := commandBase(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"collect", "tickts"}, `cairn: no source "tickts": the collectable sources are broken, garbled, git, markdown, tickets` + "\n"},
		{[]string{"collect", "--days", "0"}, "cairn: --days 0; give a number of days from 1 to 36525\n"},
	} {
		code, stdout, stderr := cairnAt(t, collectNow, append([]string{"--base", dir}, tc.args...)...)
		if code != 2 || stdout != "" || stderr != tc.want {
			t.Errorf("%v: exit %d, %q, %q; want 2 and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "events", "2026-11-27")); err == nil {
		t.Error("a refused collect wrote a day")
	}
}

// TestCollectTimeout: a command that runs past its timeout is stopped and
// reported as such.
func TestCollectTimeout(t *testing.T) {
	isolate(t)
	dir := filepath.Join(t.TempDir(), "kb")
	if code, _, stderr := cairn(t, "init", dir); code != 0 {
		t.Fatal(stderr)
	}
	writeFile(t, filepath.Join(dir, "cairn.yaml"), "sources:\n  slow:\n    run: [sh, -c, 'exec sleep 30']\n    timeout: 1s\n    fields: {id: .id, title: .t, time: .at}\n")
	code, _, stderr := cairnAt(t, collectNow, "--base", dir, "collect", "--days", "1", "--as-of", "2026-11-28")
	if code != 1 || !strings.Contains(stderr, `cairn: source slow: 2026-11-27: the command "sh -c exec sleep 30" timed out after 1s; raise its timeout in cairn.yaml or make it faster`) {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
}

// TestCollectMarkdown: a notes folder becomes one snapshot, rewritten only
// when a note changes.
func TestCollectMarkdown(t *testing.T) {
	isolate(t)
	dir := filepath.Join(t.TempDir(), "kb")
	if code, _, stderr := cairn(t, "init", dir); code != 0 {
		t.Fatal(stderr)
	}
	writeFile(t, filepath.Join(dir, "notes", "retro.md"), "---\ntitle: November retro\ntags: [team]\n---\n\nWe keep the chunk size at 8 MiB.\n")
	writeFile(t, filepath.Join(dir, "notes", "ideas", "sync.md"), "# Faster sync\n\nHash files in parallel.\n")
	code, stdout, stderr := cairnAt(t, collectNow, "--base", dir, "collect", "markdown", "--as-of", "2026-11-28")
	if code != 0 || stdout != "index/markdown.json\n" {
		t.Fatalf("collect markdown: exit %d, %q\n%s", code, stdout, stderr)
	}
	p := filepath.Join(dir, "index", "markdown.json")
	first, _ := os.ReadFile(p)
	doc := decodeDoc(t, first)
	if doc.Layer != "index" || len(doc.Records) != 2 || doc.Records[0]["path"] != "notes/ideas/sync.md" || doc.Records[0]["title"] != "Faster sync" || doc.Records[1]["title"] != "November retro" {
		t.Errorf("snapshot: %s", first)
	}
	code, stdout, _ = cairnAt(t, collectNow.Add(time.Hour), "--base", dir, "collect", "markdown", "--as-of", "2026-11-29")
	if again, _ := os.ReadFile(p); code != 0 || stdout != "" || !bytes.Equal(first, again) {
		t.Errorf("an unchanged notes folder rewrote the snapshot (exit %d, %q)", code, stdout)
	}
	writeFile(t, filepath.Join(dir, "notes", "retro.md"), "# November retro\n\nWe moved to 16 MiB chunks.\n")
	if code, stdout, _ = cairnAt(t, collectNow, "--base", dir, "collect", "markdown", "--as-of", "2026-11-28"); stdout != "index/markdown.json\n" {
		t.Errorf("an edited note did not rewrite the snapshot (exit %d)", code)
	}
	mustBuild(t, dir)
	if code, pack, _ := cairnAt(t, collectNow, "--base", dir, "context", "chunks", "--as-of", "2026-11-28"); code != 0 || !strings.Contains(pack, "index/markdown.json#notes/retro.md") {
		t.Errorf("the pack does not cite the note:\n%s", pack)
	}
}

// TestCollectMarkdownExtensions: .md, .markdown and .mdx files are notes,
// titled by frontmatter, heading or file name without its extension; a
// file of another extension is not a note; a note over the cap or that
// cannot be read is left out, counted and named on stderr.
func TestCollectMarkdownExtensions(t *testing.T) {
	isolate(t)
	dir := filepath.Join(t.TempDir(), "kb")
	if code, _, stderr := cairn(t, "init", dir); code != 0 {
		t.Fatal(stderr)
	}
	writeFile(t, filepath.Join(dir, "notes", "a.md"), "# Alpha\n\nThe first note.\n")
	writeFile(t, filepath.Join(dir, "notes", "b.markdown"), "---\ntitle: Beta\ntags: [team]\n---\n\nThe second note.\n")
	writeFile(t, filepath.Join(dir, "notes", "guides", "c.mdx"), "import {Tabs} from './tabs'\nexport const meta = {draft: true}\n\n<Tabs>Install with the script.</Tabs>\n")
	writeFile(t, filepath.Join(dir, "notes", "d.txt"), "# Not a note\n")
	writeFile(t, filepath.Join(dir, "notes", "huge.md"), "# Huge\n"+strings.Repeat("x", 4<<20))
	// A link to nowhere cannot be read, whoever runs the test (root reads
	// a file without permissions).
	if err := os.Symlink("moved-away.md", filepath.Join(dir, "notes", "gone.md")); err != nil {
		t.Fatal(err)
	}
	// A note that cannot be read fails the source, naming it, and writes
	// nothing: a snapshot without it would drop its record from the base.
	code, stdout, stderr := cairnAt(t, collectNow, "--base", dir, "collect", "markdown", "--as-of", "2026-11-28")
	if code != 1 || stdout != "" || !strings.Contains(stderr, "notes/gone.md cannot be read (no such file or directory); fix its permissions or move it out of the notes folder") {
		t.Fatalf("collect markdown with an unreadable note: exit %d, %q\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "index", "markdown.json")); !os.IsNotExist(err) {
		t.Fatalf("a snapshot was written without the unreadable note: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "notes", "gone.md")); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = cairnAt(t, collectNow, "--base", dir, "collect", "markdown", "--as-of", "2026-11-28")
	if code != 0 || stdout != "index/markdown.json\n" {
		t.Fatalf("collect markdown: exit %d, %q\n%s", code, stdout, stderr)
	}
	wantErr := "cairn: collect markdown: 1 written (3 records), 0 present, 1 skipped\n" +
		"cairn: collect markdown: skipped notes/huge.md: 4194311 bytes, over the 4194304-byte cap of a note; split it or move it out of the notes folder\n"
	if stderr != wantErr {
		t.Errorf("stderr %q, want %q", stderr, wantErr)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "index", "markdown.json"))
	doc := decodeDoc(t, data)
	var got []string
	for _, r := range doc.Records {
		got = append(got, r["path"].(string)+"="+r["title"].(string))
	}
	if want := "notes/a.md=Alpha notes/b.markdown=Beta notes/guides/c.mdx=c"; strings.Join(got, " ") != want {
		t.Errorf("notes %q, want %q", strings.Join(got, " "), want)
	}
	if body, _ := doc.Records[2]["body"].(string); !strings.HasPrefix(body, "import {Tabs} from './tabs'\n") || !strings.Contains(body, "<Tabs>Install") {
		t.Errorf("the MDX note's body is %q, want its text as written", body)
	}
}

// collectedDoc is what the tests read of a written document.
type collectedDoc struct {
	Cairn       int              `json:"cairn"`
	Source      string           `json:"source"`
	Layer       string           `json:"layer"`
	Date        string           `json:"date"`
	WindowStart string           `json:"window_start"`
	WindowEnd   string           `json:"window_end"`
	CollectedAt string           `json:"collected_at"`
	Count       int              `json:"count"`
	Fields      map[string]any   `json:"fields"`
	Records     []map[string]any `json:"records"`
}

func decodeDoc(t *testing.T, data []byte) collectedDoc {
	t.Helper()
	var d collectedDoc
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil && !strings.Contains(err.Error(), "schema") {
		t.Fatalf("document: %v\n%s", err, data)
	}
	if d.Cairn != 1 {
		t.Fatalf("document has no cairn marker:\n%s", data)
	}
	return d
}

func anyStrings(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

func mtimes(t *testing.T, dir string) map[string]time.Time {
	t.Helper()
	out := map[string]time.Time{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			out[p] = info.ModTime()
		}
		return err
	})
	return out
}

func equalTrees(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

func equalStamps(a, b map[string]time.Time) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !v.Equal(b[k]) {
			return false
		}
	}
	return true
}

// TestCollectGitBadCommit: a commit whose author date cannot be read is
// named on stderr and left out; the commits around it are collected and
// the exit is 0.
func TestCollectGitBadCommit(t *testing.T) {
	isolate(t)
	dir := gitBase(t, testCommits[:2])
	git := func(stdin string, args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=Ada", "-c", "user.email=ada@example.test"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	obj := fmt.Sprintf("tree %s\nparent %s\nauthor Mallory <mallory@example.test> soon +0000\ncommitter Ada <ada@example.test> %d +0000\n\nUndated\n",
		git("", "rev-parse", "HEAD^{tree}"), git("", "rev-parse", "HEAD"), time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC).Unix())
	bad := git(obj, "hash-object", "--literally", "-t", "commit", "-w", "--stdin")
	git("", "update-ref", "HEAD", bad)
	code, stdout, stderr := cairnAt(t, collectNow, "--base", dir, "collect", "git", "--as-of", "2026-11-28")
	want := "cairn: collect git: 1 written (2 records), 0 present, 29 without commits, 1 left out\n" +
		"cairn: collect git: left out commit " + bad + `: its author line "Mallory <mallory@example.test> soon +0000" has the date "soon", which is not seconds since 1970; the other commits are collected` + "\n"
	if code != 0 || stdout != "events/2026-11-23/git.json\n" || stderr != want {
		t.Errorf("exit %d, %q, stderr %q; want %q", code, stdout, stderr, want)
	}
	code, stdout, _ = cairnAt(t, collectNow, "--base", dir, "collect", "git", "--as-of", "2026-11-28", "--refresh", "--format", "json")
	var rep collectReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != 0 || len(rep.Sources[0].BadCommits) != 1 || rep.Sources[0].BadCommits[0].SHA != bad {
		t.Errorf("--format json: exit %d, %v, %+v", code, err, rep)
	}
}
