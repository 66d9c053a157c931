package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// realData is the shared real-data folder beside the repository (see its
// README); $CAIRN_REALDATA names it elsewhere, as from a worktree. The
// test skips on a clone without it.
func realData() string {
	if d := os.Getenv("CAIRN_REALDATA"); d != "" {
		return d
	}
	return "../../../shared/realdata"
}

// TestRealDataPEPs runs the PEPs suite over a built copy of the PEPs base
// in one process and logs the figures. It asserts that the suite parses
// and runs, not a floor: ranking version 2 is judged on these figures.
func TestRealDataPEPs(t *testing.T) {
	dir := realData()
	suite := filepath.Join(dir, "peps-eval.yaml")
	if _, err := os.Stat(suite); err != nil {
		t.Skipf("no real data at %s: %v", dir, err)
	}
	if testing.Short() {
		t.Skip("-short: the PEPs base takes seconds to copy and build")
	}
	root := filepath.Join(t.TempDir(), "peps")
	if err := os.CopyFS(root, os.DirFS(filepath.Join(dir, "peps"))); err != nil {
		t.Fatal(err)
	}
	build(t, root)
	s := parseFile(t, suite, "peps-eval.yaml")
	start := time.Now()
	r := run(t, root, s, Options{})
	elapsed := time.Since(start)
	if len(r.Queries) != len(s.Queries) {
		t.Fatalf("%d results for %d questions", len(r.Queries), len(s.Queries))
	}
	commits, delivered := 0, 0
	for _, q := range r.Queries {
		if len(q.Expected) > 0 && strings.HasPrefix(q.Expected[0].URI, "events/") {
			commits++
			if q.FirstRelevantRank > 0 {
				delivered++
			}
		}
	}
	t.Logf("%d questions in %v: passed %d, recall@%d %s, MRR %.3f, in-pack recall %s",
		len(r.Queries), elapsed.Round(time.Millisecond), r.Totals.Passed, r.K, ratioText(r.Totals.RecallAtK), r.Totals.MRR, ratioText(r.Totals.InPackRecall))
	t.Logf("odd questions %s; even questions %s", figures(r.Odd, r.K), figures(r.Even, r.K))
	t.Logf("commit questions with their commit in the pack: %d of %d", delivered, commits)
}
