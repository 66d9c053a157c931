package collect

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// benchCommits and benchDays shape the generated repository: 10,000
// commits spread over 100 author days.
const (
	benchCommits = 10_000
	benchDays    = 100
)

// benchToday is the as-of day of the benchmark; its commits end the day before.
var benchToday = time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)

// generateRepo writes a repository of n commits with git fast-import, one
// file changed each, with ticket references and a trailer now and then.
func generateRepo(tb testing.TB, dir string, n, days int) {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("the git binary is not installed")
	}
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		tb.Fatalf("git init: %v\n%s", err, out)
	}
	if out, err := exec.Command("git", "-C", dir, "symbolic-ref", "HEAD", "refs/heads/main").CombinedOutput(); err != nil {
		tb.Fatalf("git symbolic-ref: %v\n%s", err, out)
	}
	var b strings.Builder
	start := benchToday.AddDate(0, 0, -days).Unix()
	step := int64(days*86400) / int64(n)
	for i := range n {
		when := start + int64(i)*step
		msg := fmt.Sprintf("Change %d of the sync engine (FER-%d)\n\nTouches module %d; see #%d.\n", i, i%500, i%37, i%90)
		if i%10 == 0 {
			msg += "\nCo-authored-by: Grace Hopper <grace@example.test>\n"
		}
		content := fmt.Sprintf("revision %d\n", i)
		fmt.Fprintf(&b, "commit refs/heads/main\nauthor Ada <ada@example.test> %d +0000\ncommitter Ada <ada@example.test> %d +0000\ndata %d\n%s", when, when, len(msg), msg)
		fmt.Fprintf(&b, "M 644 inline src/module%d/file%d.go\ndata %d\n%s\n", i%37, i%200, len(content), content)
	}
	cmd := exec.Command("git", "-C", dir, "fast-import", "--quiet")
	cmd.Stdin = strings.NewReader(b.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("git fast-import: %v\n%s", err, out)
	}
}

// BenchmarkCollectGit10k is `cairn collect git --refresh --days 100` over
// a repository of 10,000 commits: one git log for the window, then a
// document per day. Run it with
// `go test ./cmd/cairn/internal/collect -run '^$' -bench CollectGit -benchtime 5x`.
func BenchmarkCollectGit10k(b *testing.B) {
	repo := filepath.Join(b.TempDir(), "repo")
	generateRepo(b, repo, benchCommits, benchDays)
	base := b.TempDir()
	in := Input{Dir: base, Config: model.Config{}.WithDefaults(), Sources: []string{"git"}, Today: benchToday,
		Days: benchDays, Refresh: true, Now: benchToday, Repo: repo, Environ: os.Environ()}
	for b.Loop() {
		out, err := Run(context.Background(), in)
		if err != nil || out.Failed() {
			b.Fatalf("collect: %v %v", err, out.Results[0].Err)
		}
		records := 0
		for _, w := range out.Results[0].Written {
			records += w.Count
		}
		if records != benchCommits {
			b.Fatalf("collected %d commits, want %d", records, benchCommits)
		}
	}
	b.ReportMetric(float64(benchCommits)*float64(b.N)/b.Elapsed().Seconds(), "commits/s")
}
