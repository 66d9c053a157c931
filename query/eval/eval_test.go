package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/golden/goldentest"
	"github.com/cairn-kb/cairn/stages"
	"github.com/google/go-cmp/cmp"
)

const (
	// demoBase and demoSuite are the demo case, relative to this package.
	demoBase  = "../../golden/demo/base"
	demoSuite = "../../golden/demo/eval.yaml"
	// demoSuiteName is how reports name the demo suite: as from the
	// module root, whatever folder the test runs in.
	demoSuiteName = "golden/demo/eval.yaml"
)

// copyDemo copies the demo base into a fresh folder: a build writes
// .cairn, and the golden base must stay as it is.
func copyDemo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "base")
	if err := os.CopyFS(dir, os.DirFS(demoBase)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// build runs the pipeline on root and writes its artifacts, as cairn
// build does.
func build(t testing.TB, root string) {
	t.Helper()
	osRoot, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer osRoot.Close()
	out, err := stages.Build(context.Background(), stages.Input{FS: osRoot.FS(), ToolVersion: "test", AsOf: time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	out.Plan.Root = root
	if _, err := artifacts.Sync(out.Plan); err != nil {
		t.Fatal(err)
	}
}

func parseFile(t testing.TB, path, name string) Suite {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSuite(name, data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func run(t testing.TB, root string, s Suite, opts Options) Report {
	t.Helper()
	r, err := Run(context.Background(), root, s, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// golden compares got with testdata/name, or rewrites it under CAIRN_UPDATE_GOLDEN=1.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if goldentest.Update() {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; run CAIRN_UPDATE_GOLDEN=1 go test ./query/eval/ to write it", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (-want +got); if the change is intended, run CAIRN_UPDATE_GOLDEN=1 go test ./query/eval/ and review the diff:\n%s", path, cmp.Diff(string(want), string(got)))
	}
}

// TestDemoSuite runs golden/demo/eval.yaml over the demo base, from a scan
// (the copy is not built), and compares both reports with their goldens: a
// ranking change shows as a diff of these files.
func TestDemoSuite(t *testing.T) {
	s := parseFile(t, demoSuite, demoSuiteName)
	excerpts := 0
	for _, q := range s.Queries {
		excerpts += len(q.ExpectedExcerpts)
	}
	if len(s.Queries) < 15 || excerpts < 5 {
		t.Errorf("the demo suite has %d questions and %d excerpt checks; keep at least 15 and 5", len(s.Queries), excerpts)
	}
	r := run(t, copyDemo(t), s, Options{})
	golden(t, "demo.txt", RenderText(r))
	golden(t, "demo.json", RenderJSON(r))
}

// TestDemoIndexedMatchesScan: the artifacts and the scan give the same
// packs and the same windows, so they give the same report and the same
// candidate dump.
func TestDemoIndexedMatchesScan(t *testing.T) {
	s := parseFile(t, demoSuite, demoSuiteName)
	var scanDump, indexDump bytes.Buffer
	scanned := RenderJSON(run(t, copyDemo(t), s, Options{DumpCandidates: &scanDump}))
	root := copyDemo(t)
	build(t, root)
	if indexed := RenderJSON(run(t, root, s, Options{DumpCandidates: &indexDump})); !bytes.Equal(indexed, scanned) {
		t.Errorf("the indexed report differs from the scanned one (-scan +index):\n%s", cmp.Diff(string(scanned), string(indexed)))
	}
	if !bytes.Equal(indexDump.Bytes(), scanDump.Bytes()) {
		t.Errorf("the indexed candidate dump differs from the scanned one (-scan +index):\n%s", cmp.Diff(scanDump.String(), indexDump.String()))
	}
}

// TestFailingSuite runs a suite built to fail every way: each reason is in
// the report, and the run's error exits 1.
func TestFailingSuite(t *testing.T) {
	r := run(t, copyDemo(t), parseFile(t, "testdata/fail.yaml", "testdata/fail.yaml"), Options{})
	text := RenderText(r)
	golden(t, "fail.txt", text)
	golden(t, "fail.json", RenderJSON(r))
	for _, want := range []string{": not delivered", "beyond k=3", `lacks "no such words here"`, "forbidden wiki/index.md: delivered at rank", `read of wiki/pull-through-cache.md lacks "no such read words"`, "cairn refused the question"} {
		if !bytes.Contains(text, []byte(want)) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if r.Totals.Passed != 1 {
		t.Errorf("%d questions passed, want only the first", r.Totals.Passed)
	}
	var fe *FailedError
	if err := r.Err(); !errors.As(err, &fe) || fe.ExitCode() != 1 {
		t.Errorf("Err() = %v, want a failure that exits 1", err)
	}
}

// TestMalformedSuite: every mistake of a malformed suite, each at its
// file:line:col, in one error that exits 2.
func TestMalformedSuite(t *testing.T) {
	data, err := os.ReadFile("testdata/malformed.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = ParseSuite("testdata/malformed.yaml", data)
	var se *SuiteError
	if !errors.As(err, &se) || se.ExitCode() != 2 {
		t.Fatalf("err = %v, want a *SuiteError that exits 2", err)
	}
	golden(t, "malformed.err", []byte(err.Error()+"\n"))
}

// TestUnknownURI: a URI the base does not hold is an error at its line,
// found before any question is asked.
func TestUnknownURI(t *testing.T) {
	s, err := ParseSuite("s.yaml", []byte("as_of: 2026-11-10\nqueries:\n  - question: arm64\n    expected_uris: [wiki/arm64-builds.md, wiki/arm64.md]\n    forbidden_uris: [\"events/2026-11-06/ci-runs.json#run-1\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), copyDemo(t), s, Options{})
	var se *SuiteError
	if !errors.As(err, &se) || se.ExitCode() != 2 {
		t.Fatalf("err = %v, want a *SuiteError that exits 2", err)
	}
	want := "s.yaml:4:43: wiki/arm64.md is not an item of the base; write a record or page URI as cairn context prints it\n" +
		"s.yaml:5:22: events/2026-11-06/ci-runs.json#run-1 is not an item of the base; write a record or page URI as cairn context prints it"
	if err.Error() != want {
		t.Errorf("error:\n%s\nwant\n%s", err, want)
	}
}

// TestBaseline compares the demo report with a fixed earlier report
// (testdata/baseline-prev.json, edited by hand to move ranks, flip
// questions and rename one), and renders the diff in both forms.
func TestBaseline(t *testing.T) {
	data, err := os.ReadFile("testdata/baseline-prev.json")
	if err != nil {
		t.Fatal(err)
	}
	prev, err := DecodeReport("testdata/baseline-prev.json", data)
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, copyDemo(t), parseFile(t, demoSuite, demoSuiteName), Options{})
	d := Compare("testdata/baseline-prev.json", prev, r)
	if len(d.Moves) == 0 || len(d.NewlyFailing) == 0 || len(d.NewlyPassing) == 0 || len(d.Added) == 0 || len(d.Removed) == 0 {
		t.Errorf("the baseline should show moves, flips, an added and a removed question: %+v", d)
	}
	r.Baseline = &d
	golden(t, "demo-baseline.txt", RenderText(r))
	golden(t, "demo-baseline.json", RenderJSON(r))
	again, err := DecodeReport("x.json", RenderJSON(r))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(RenderJSON(again), RenderJSON(r)) {
		t.Error("a report does not survive RenderJSON and DecodeReport")
	}
	var be *BaselineError
	if _, err := DecodeReport("notes.txt", []byte("{}")); !errors.As(err, &be) || be.ExitCode() != 2 {
		t.Errorf("an empty object as a baseline: err = %v, want a *BaselineError", err)
	}
}

// TestCandidateDump checks the peers' input: each item once, before the
// first question whose window holds it; each question's candidates are its
// window, without received or private records.
func TestCandidateDump(t *testing.T) {
	s := parseFile(t, demoSuite, demoSuiteName)
	var buf bytes.Buffer
	r := run(t, copyDemo(t), s, Options{DumpCandidates: &buf})
	items := map[string]DumpItem{}
	var queries []DumpQuery
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var kind struct{ Kind string }
		if err := json.Unmarshal(sc.Bytes(), &kind); err != nil {
			t.Fatal(err)
		}
		switch kind.Kind {
		case "item":
			var it DumpItem
			json.Unmarshal(sc.Bytes(), &it)
			if _, dup := items[it.URI]; dup {
				t.Errorf("item %s is dumped twice", it.URI)
			}
			items[it.URI] = it
		case "query":
			var q DumpQuery
			json.Unmarshal(sc.Bytes(), &q)
			for _, c := range q.Candidates {
				if _, ok := items[c]; !ok {
					t.Errorf("question %d names %s before its item line", q.N, c)
				}
			}
			queries = append(queries, q)
		default:
			t.Fatalf("a line of kind %q", kind.Kind)
		}
	}
	if len(queries) != len(s.Queries) {
		t.Fatalf("%d question lines for %d questions", len(queries), len(s.Queries))
	}
	for i, q := range queries {
		if q.CairnRank != r.Queries[i].FirstRelevantRank || q.K != 5 || !slices.IsSorted(q.Candidates) {
			t.Errorf("question %d: cairn_rank %d (report %d), k %d, candidates sorted %v", q.N, q.CairnRank, r.Queries[i].FirstRelevantRank, q.K, slices.IsSorted(q.Candidates))
		}
		for _, c := range q.Candidates {
			if strings.Contains(c, "mail.json#") || strings.Contains(c, "#1on1-") {
				t.Errorf("question %d: %s is received or private, not a default candidate", q.N, c)
			}
		}
	}
	// "token rollout tasks for today": the window is today alone.
	i := slices.IndexFunc(queries, func(q DumpQuery) bool { return strings.HasSuffix(q.Question, " for today") })
	if i < 0 {
		t.Fatal("the demo suite lost its question about today")
	}
	today := queries[i]
	if !slices.Contains(today.Candidates, "tasks/2026-11-10/token-rollout/TASKS.md") || slices.ContainsFunc(today.Candidates, func(u string) bool { return strings.HasPrefix(u, "events/") }) {
		t.Errorf("today's window: %v", today.Candidates)
	}
	pt := items["wiki/push-tokens.md"]
	if pt.Title != "Push tokens" || !strings.Contains(pt.ID, "push-tokens") || !strings.Contains(pt.ID, "ticket:HAR-142") || !strings.Contains(pt.Body, "argon2id") {
		t.Errorf("wiki/push-tokens.md dumped as %+v", pt)
	}
}
