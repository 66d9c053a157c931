package collect

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// testGit runs git in repo outside any user or system configuration, with
// a fixed identity and both dates set to when (unless zero), and returns
// its stdout.
func testGit(t *testing.T, repo, stdin string, when time.Time, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=Ada", "-c", "user.email=ada@example.test",
		"-c", "init.defaultBranch=main", "-c", "commit.gpgSign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	if !when.IsZero() {
		date := fmt.Sprintf("%d +0000", when.Unix())
		cmd.Env = append(cmd.Env, "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	}
	cmd.Stdin = strings.NewReader(stdin)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// newTestRepo makes an empty repository on branch main.
func newTestRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the git binary is not installed")
	}
	repo := filepath.Join(t.TempDir(), "repo")
	if out, err := exec.Command("git", "init", "-q", "-b", "main", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return repo
}

// commitFile commits one new file with message msg, authored and
// committed at when, and returns the commit's sha.
func commitFile(t *testing.T, repo, file, msg string, when time.Time) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(repo, file), []byte(msg), 0o644); err != nil {
		t.Fatal(err)
	}
	testGit(t, repo, "", when, "add", file)
	testGit(t, repo, msg, when, "commit", "-q", "--cleanup=verbatim", "-F", "-")
	return testGit(t, repo, "", when, "rev-parse", "HEAD")
}

// commitRaw writes a commit object by hand on top of HEAD, with HEAD's
// tree, the author and committer lines given and any more header lines,
// and moves the branch to it: the way to get what git itself would not
// write.
func commitRaw(t *testing.T, repo, author, committer, more, msg string) string {
	t.Helper()
	head := testGit(t, repo, "", time.Time{}, "rev-parse", "HEAD")
	tree := testGit(t, repo, "", time.Time{}, "rev-parse", "HEAD^{tree}")
	obj := fmt.Sprintf("tree %s\nparent %s\nauthor %s\ncommitter %s\n%s\n%s", tree, head, author, committer, more, msg)
	sha := testGit(t, repo, obj, time.Time{}, "hash-object", "--literally", "-t", "commit", "-w", "--stdin")
	testGit(t, repo, "", time.Time{}, "update-ref", "refs/heads/main", sha)
	return sha
}

// ident is an author or committer line's value for when, in zone.
func ident(name string, when time.Time, zone string) string {
	return fmt.Sprintf("%s <%s@example.test> %d %s", name, strings.ToLower(name), when.Unix(), zone)
}

// collectedCommits runs the git collector over repo for the days before
// today and returns its result and the records it wrote, by sha.
func collectedCommits(t *testing.T, repo string, today time.Time, days int) (Result, map[string]map[string]any) {
	t.Helper()
	in := Input{Dir: t.TempDir(), Config: model.Config{}.WithDefaults(), Sources: []string{"git"}, Today: today,
		Days: days, Now: today, Repo: repo, Environ: os.Environ()}
	out, err := Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	recs := map[string]map[string]any{}
	filepath.WalkDir(filepath.Join(in.Dir, "events"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct{ Records []map[string]any }
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, r := range doc.Records {
			recs[r["sha"].(string)] = r
		}
		return nil
	})
	return out.Results[0], recs
}

// strs is a record's list field as strings.
func strs(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

// TestGitOddCommits: commits git accepts but a field-separated git log
// misread are each collected as they are, and a commit whose author date
// cannot be read is named and left out while the others are kept.
func TestGitOddCommits(t *testing.T) {
	repo := newTestRepo(t)
	day := func(d, h int) time.Time { return time.Date(2026, 11, d, h, 0, 0, 0, time.UTC) }
	first := commitFile(t, repo, "a.go", "Start the sync engine\n", day(20, 10))
	second := commitFile(t, repo, "b.go", "Read the config file\n", day(21, 10))
	// A committer clock in 1970: git log --since stopped here and dropped
	// the two commits before it.
	epoch := commitRaw(t, repo, ident("Ada", day(22, 10), "+0000"), ident("Ada", time.Unix(86400, 0), "+0000"), "", "Commit with a stopped clock\n")
	separator := commitFile(t, repo, "c.go", "Handle the record separator\n\nA body with \x1e in it.\n", day(23, 10))
	forged := "Rename\x1fforged body\x1fCo-authored-by: Eve <eve@example.test>\x1fevil/path"
	unit := commitFile(t, repo, "d.go", forged+"\n", day(23, 11))
	// A zone git takes but time.Parse does not: the instant is the seconds.
	zone := commitRaw(t, repo, ident("Ada", day(24, 10), "+9959"), ident("Ada", day(24, 10), "+9959"), "", "Commit from a far zone\n")
	bad := commitRaw(t, repo, "Mallory <mallory@example.test> soon +0000", ident("Ada", day(25, 10), "+0000"), "", "Commit with no author date\n")
	// A message in the encoding its header names: git log printed it as
	// UTF-8, and so does cairn.
	latin := commitRaw(t, repo, ident("Ada", day(26, 9), "+0000"), ident("Ada", day(26, 9), "+0000"), "encoding ISO-8859-1\n", "Caf\xe9 au lait\n")
	last := commitFile(t, repo, "e.go", "Exclude hidden folders\n", day(26, 10))

	res, recs := collectedCommits(t, repo, day(28, 0), 10)
	if res.Err != nil {
		t.Fatalf("collect: %v", res.Err)
	}
	for _, sha := range []string{first, second, epoch, separator, unit, zone, latin, last} {
		if recs[sha] == nil {
			t.Errorf("commit %s was not collected", sha)
		}
	}
	if len(recs) != 8 {
		t.Errorf("collected %d commits, want 8", len(recs))
	}
	if got := recs[separator]["body"]; got != "A body with \x1e in it." {
		t.Errorf("the body with a record separator is %q", got)
	}
	if r := recs[unit]; r != nil {
		if r["subject"] != forged || r["co_authors"] != nil || !slices.Equal(strs(r["paths"]), []string{"d.go"}) {
			t.Errorf("a subject with unit separators gave subject %q, co-authors %v, paths %v", r["subject"], r["co_authors"], r["paths"])
		}
	}
	if r := recs[zone]; r != nil && r["time"] != "2026-11-24T10:00:00Z" {
		t.Errorf("the commit of zone +9959 has the time %v", r["time"])
	}
	if r := recs[epoch]; r != nil && r["time"] != "2026-11-22T10:00:00Z" {
		t.Errorf("the commit committed in 1970 has the time %v", r["time"])
	}
	if r := recs[latin]; r != nil && r["subject"] != "Café au lait" {
		t.Errorf("the ISO-8859-1 subject is %q", r["subject"])
	}
	if len(res.BadCommits) != 1 || res.BadCommits[0].SHA != bad || !strings.Contains(res.BadCommits[0].Problem, "author") {
		t.Errorf("the commit without an author date is reported as %+v, want %s named", res.BadCommits, bad)
	}
}

// TestSplitMessageAsGit: a message splits into the subject, body and
// trailers git log prints for it (%s, %b and %(trailers:only,unfold)).
func TestSplitMessageAsGit(t *testing.T) {
	repo := newTestRepo(t)
	messages := []string{
		"Subject only",
		"Subject\n\nBody line\n",
		"A subject\nover two lines  \n\nbody\n\nCo-authored-by: Grace <grace@example.test>\nSigned-off-by: Ada <ada@example.test>\n",
		"S\n\nbody\n\nSigned-off-by: Ada <ada@example.test>\nnot a trailer\nanother\n",
		"S\n\nbody\n\nSigned-off-by: Ada <ada@example.test>\nnot a trailer\nanother\nand more\n",
		"S\n\nbody\n\nKey: v\nnot a trailer\n",
		"S\n\nbody\n\nSigned-off-by: Ada <ada@example.test>\none\ntwo\nthree\nfour\n",
		"S\n\nKey: folded\n  over a line\nOther-Key : spaced\n",
		"S\n\n(cherry picked from commit 0123abc)\nFixes: #3\n",
		"Key: value\n",
		"\nKey: value\n",
		"\n\nS\n\nK: v\n\n\n",
		"S\n\nbody\n# not a comment to git log\nK: v\n",
		"S \t\n\n  indented body   \n",
		"S\n\nbody\n\nK: v\n \n",
		"S\n\nsee\n\nhttps://example.test/x: y\n",
		"S\n\nK: v\nK2 x: no\n",
		"S\n\n K: leading blank\n",
	}
	for i, msg := range messages {
		sha := commitFile(t, repo, fmt.Sprintf("f%d", i), msg, time.Date(2026, 11, 20, 10, i, 0, 0, time.UTC))
		out := testGit(t, repo, "", time.Time{}, "log", "-1", "--format=%s%x00%b%x00%(trailers:only,unfold)%x00", sha)
		want := strings.Split(out, "\x00")
		m := splitMessage(msg)
		trailers := strings.TrimRight(want[2], "\n")
		if m.subject != want[0] || m.rawBody != want[1] || strings.Join(m.trailers, "\n") != trailers {
			t.Errorf("%q: subject %q, body %q, trailers %q; git gives %q, %q, %q", msg, m.subject, m.rawBody, m.trailers, want[0], want[1], trailers)
		}
	}
}
