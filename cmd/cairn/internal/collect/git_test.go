package collect

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// quietToday is an as-of day 103 days after the last commit generateRepo
// writes (benchToday less one day), so a default window holds none.
var quietToday = benchToday.AddDate(0, 0, 102)

// collectQuiet runs the git collector alone over repo at quietToday.
func collectQuiet(t *testing.T, repo string, days int) Result {
	t.Helper()
	in := Input{Dir: t.TempDir(), Config: model.Config{}.WithDefaults(), Sources: []string{"git"}, Today: quietToday,
		Days: days, Now: quietToday, Repo: repo, Environ: os.Environ()}
	out, err := Run(context.Background(), in)
	if err != nil || out.Failed() {
		t.Fatalf("collect: %v %v", err, out.Results[0].Err)
	}
	return out.Results[0]
}

// TestGitQuietWindow: a window without a commit carries the author day of
// the newest commit before it; a window with commits carries nothing.
func TestGitQuietWindow(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	generateRepo(t, repo, 20, 10)
	r := collectQuiet(t, repo, DefaultDays)
	if want := benchToday.AddDate(0, 0, -1); r.Quiet == nil || r.Quiet.NoCommit || !r.Quiet.Newest.Equal(want) {
		t.Errorf("a quiet window gave %+v, want the newest commit's day %s", r.Quiet, want.Format(time.DateOnly))
	}
	if r := collectQuiet(t, repo, 103); r.Quiet != nil || len(r.Written) == 0 {
		t.Errorf("the window reaching the commits wrote %d documents and gave %+v", len(r.Written), r.Quiet)
	}
}

// TestGitNoCommit: a repository with no commit says so.
func TestGitNoCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("the git binary is not installed")
	}
	repo := filepath.Join(t.TempDir(), "repo")
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	if r := collectQuiet(t, repo, DefaultDays); r.Quiet == nil || !r.Quiet.NoCommit || !r.Quiet.Newest.IsZero() {
		t.Errorf("an empty repository gave %+v", r.Quiet)
	}
}

// TestGitOutputCap: git's output is held to the cap too.
func TestGitOutputCap(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	generateRepo(t, repo, 200, 10)
	defer func(max int) { maxOutputBytes = max }(maxOutputBytes)
	maxOutputBytes = 4 << 10
	in := Input{Dir: t.TempDir(), Config: model.Config{}.WithDefaults(), Sources: []string{"git"}, Today: benchToday,
		Days: 10, Now: benchToday, Repo: repo, Environ: os.Environ()}
	out, err := Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Results[0].Err; got == nil || !strings.Contains(got.Error(), "more than 4096 bytes") {
		t.Errorf("git printing past a 4 KiB cap gave %v, want the cap's error", got)
	}
}
