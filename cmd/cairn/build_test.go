package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
)

// snapshot records every file under dir with its bytes and mtime.
type snapshot map[string]struct {
	data  []byte
	mtime time.Time
}

func takeSnapshot(t *testing.T, dir string) snapshot {
	t.Helper()
	s := snapshot{}
	for p, data := range readTree(t, dir) {
		st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		s[p] = struct {
			data  []byte
			mtime time.Time
		}{data, st.ModTime()}
	}
	return s
}

// sameSnapshot fails for any file added, removed, changed or touched.
func sameSnapshot(t *testing.T, what string, a, b snapshot) {
	t.Helper()
	for p, x := range a {
		y, ok := b[p]
		switch {
		case !ok:
			t.Errorf("%s: %s was removed", what, p)
		case !bytes.Equal(x.data, y.data):
			t.Errorf("%s: %s changed", what, p)
		case !x.mtime.Equal(y.mtime):
			t.Errorf("%s: %s was rewritten (mtime %v → %v)", what, p, x.mtime, y.mtime)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			t.Errorf("%s: %s was added", what, p)
		}
	}
}

// ageTree sets every file's mtime an hour back, so that a rewrite within
// the same clock tick would still show.
func ageTree(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	for p := range readTree(t, dir) {
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(p)), old, old); err != nil {
			t.Fatal(err)
		}
	}
}

func mustBuild(t *testing.T, dir string) {
	t.Helper()
	if code, _, stderr := cairn(t, "--base", dir, "build"); code != 0 {
		t.Fatalf("cairn build exited %d:\n%s", code, stderr)
	}
}

func TestBuildIsReproducibleAcrossFolders(t *testing.T) {
	isolate(t)
	a, b := copyBase(t, "demo"), copyBase(t, "demo")
	mustBuild(t, a)
	mustBuild(t, b)
	ta, tb := readTree(t, filepath.Join(a, ".cairn")), readTree(t, filepath.Join(b, ".cairn"))
	if len(ta) < 8 {
		t.Fatalf("only %d files in .cairn", len(ta))
	}
	for p, data := range ta {
		if !bytes.Equal(data, tb[p]) {
			t.Errorf(".cairn/%s differs between the two folders", p)
		}
	}
	if len(ta) != len(tb) {
		t.Errorf(".cairn holds %d files in one folder and %d in the other", len(ta), len(tb))
	}
}

func TestNoOpBuildWritesNothingAndCheckCatchesEdits(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	mustBuild(t, dir)
	ageTree(t, dir)
	before := takeSnapshot(t, dir)

	code, _, stderr := cairn(t, "--base", dir, "build")
	if code != 0 || !strings.Contains(stderr, "nothing to do") {
		t.Fatalf("second build: exit %d, stderr %q; want 0 and a nothing-to-do report", code, stderr)
	}
	sameSnapshot(t, "no-op build", before, takeSnapshot(t, dir))

	code, stdout, _ := cairn(t, "--base", dir, "build", "--check", "--artifacts")
	if code != 0 || stdout != "" {
		t.Fatalf("check after build: exit %d, stdout %q; want 0 and nothing listed", code, stdout)
	}

	doc := filepath.Join(dir, "events", "2026-11-04", "tickets.json")
	replaceInFile(t, doc, "Pull-through cache for ghcr.io", "Pull-through cache for quay.io")
	before = takeSnapshot(t, dir)
	code, stdout, stderr = cairn(t, "--base", dir, "build", "--check", "--artifacts")
	if code != 1 {
		t.Fatalf("check after an edit: exit %d, want 1; stderr:\n%s", code, stderr)
	}
	for _, f := range []string{"update\t.cairn/docs.tsv", "update\t.cairn/postings.tsv", "update\t.cairn/terms.tsv", "update\t.cairn/manifest.json"} {
		if !strings.Contains(stdout, f+"\n") {
			t.Errorf("check output does not name %q:\n%s", f, stdout)
		}
	}
	sameSnapshot(t, "build --check", before, takeSnapshot(t, dir))
}

// diagLine is the shape every diagnostic line has.
var diagLine = regexp.MustCompile(`(?m)^([^:\s]+):(\d+):(\d+): error: .+ \[[a-z-]+\]$`)

func TestBadInputKeepsPreviousArtifacts(t *testing.T) {
	cases := []struct {
		name, file string
		edit       func([]byte) []byte
		wantAt     string // file:line the diagnostic must name
	}{
		{"json syntax", "events/2026-11-04/tickets.json", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"source": "tickets",`), []byte(`"source": "tickets"`), 1)
		}, "events/2026-11-04/tickets.json:4"},
		{"frontmatter", "wiki/push-tokens.md", func(b []byte) []byte {
			return bytes.Replace(b, []byte("\ntags: ["), []byte("\ntags: [[unclosed\nx: ["), 1)
		}, "wiki/push-tokens.md:"},
		{"unknown config key", "cairn.yaml", func(b []byte) []byte {
			return append(b, []byte("\nsorces: {}\n")...)
		}, "cairn.yaml:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			isolate(t)
			dir := copyBase(t, "demo")
			mustBuild(t, dir)
			ageTree(t, dir)
			before := takeSnapshot(t, filepath.Join(dir, ".cairn"))
			p := filepath.Join(dir, filepath.FromSlash(c.file))
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			edited := c.edit(data)
			if bytes.Equal(edited, data) {
				t.Fatal("the edit did not apply")
			}
			if err := os.WriteFile(p, edited, 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := cairn(t, "--base", dir, "build")
			if code != 2 {
				t.Fatalf("exit %d, want 2; stderr:\n%s", code, stderr)
			}
			if !strings.Contains(stderr, c.wantAt) || !diagLine.MatchString(stderr) {
				t.Errorf("stderr lacks a file:line:col diagnostic at %s:\n%s", c.wantAt, stderr)
			}
			sameSnapshot(t, "failed build", before, takeSnapshot(t, filepath.Join(dir, ".cairn")))
		})
	}
}

// TestStaleOutputIsDeleted: an output the previous manifest names and this
// build does not write is deleted, also when that manifest is of another
// format (an upgrade that renames or drops an artifact).
func TestStaleOutputIsDeleted(t *testing.T) {
	for _, format := range []int{artifacts.FormatVersion, artifacts.FormatVersion + 1} {
		t.Run(fmt.Sprintf("format %d", format), func(t *testing.T) {
			isolate(t)
			dir := copyBase(t, "demo")
			mustBuild(t, dir)
			manifest := filepath.Join(dir, filepath.FromSlash(artifacts.ManifestPath))
			data, err := os.ReadFile(manifest)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			// Pretend an earlier build wrote .cairn/retired.tsv.
			outs := append(m["outputs"].([]any), map[string]any{"path": ".cairn/retired.tsv", "bytes": 2, "xxhash": artifacts.Hash([]byte("x\n"))})
			slices.SortFunc(outs, func(a, b any) int {
				return strings.Compare(a.(map[string]any)["path"].(string), b.(map[string]any)["path"].(string))
			})
			m["outputs"] = outs
			if format != artifacts.FormatVersion {
				m["format"], m["shards"] = format, 4 // a key this cairn does not know
			}
			data, _ = json.Marshal(m)
			data = append(data, '\n')
			if err := os.WriteFile(manifest, data, 0o644); err != nil {
				t.Fatal(err)
			}
			retired := filepath.Join(dir, ".cairn", "retired.tsv")
			if err := os.WriteFile(retired, []byte("x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, _ := cairn(t, "--base", dir, "build", "--check", "--artifacts")
			if code != 1 || !strings.Contains(stdout, "delete\t.cairn/retired.tsv\n") {
				t.Errorf("check: exit %d, stdout %q; want 1 naming the deletion", code, stdout)
			}
			mustBuild(t, dir)
			if _, err := os.Stat(retired); !os.IsNotExist(err) {
				t.Errorf("the stale output is still there: %v", err)
			}
		})
	}
}

func TestConcurrentBuildFailsFast(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	lock, err := artifacts.AcquireLock(dir, "a test holding the lock")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	code, _, stderr := cairn(t, "--base", dir, "build")
	if code != 3 || !strings.Contains(stderr, "busy") || !strings.Contains(stderr, "a test holding the lock") {
		t.Errorf("exit %d, stderr %q; want 3 naming the holder", code, stderr)
	}
}

func TestBaseDiscovery(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	deep := filepath.Join(dir, "docs", "api")
	run := func(env map[string]string, wd string, args ...string) (int, string) {
		var out, errb bytes.Buffer
		e := &Env{Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }, Getwd: func() (string, error) { return wd, nil }}
		return runEnv(args, e), errb.String()
	}
	if code, stderr := run(nil, deep, "build", "--quiet"); code != 0 {
		t.Errorf("from a folder inside the base: exit %d: %s", code, stderr)
	}
	elsewhere := t.TempDir()
	if code, stderr := run(map[string]string{"CAIRN_BASE": dir}, elsewhere, "build", "--quiet"); code != 0 {
		t.Errorf("with CAIRN_BASE: exit %d: %s", code, stderr)
	}
	if code, stderr := run(nil, elsewhere, "build"); code != 2 || !strings.Contains(stderr, "no cairn base here") {
		t.Errorf("outside any base: exit %d, %q; want 2 and a hint", code, stderr)
	}
	if code, stderr := run(map[string]string{"CAIRN_BASE": dir}, elsewhere, "--base", elsewhere, "build"); code != 2 || !strings.Contains(stderr, "--base names") {
		t.Errorf("--base wins over CAIRN_BASE: exit %d, %q", code, stderr)
	}
}

func TestInitScaffoldsABaseThatBuilds(t *testing.T) {
	isolate(t)
	dir := filepath.Join(t.TempDir(), "kb")
	if code, _, stderr := cairn(t, "init", dir); code != 0 {
		t.Fatalf("init: exit %d: %s", code, stderr)
	}
	for _, p := range []string{"cairn.yaml", ".gitignore", "events", "wiki", "governance/voices"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("init did not create %s: %v", p, err)
		}
	}
	mustBuild(t, dir)
	if code, _, stderr := cairn(t, "init", dir); code != 2 || !strings.Contains(stderr, "already exists") {
		t.Errorf("second init: exit %d, %q; want 2", code, stderr)
	}
}

func TestDemoAndVersion(t *testing.T) {
	isolate(t)
	code, stdout, stderr := cairn(t, "demo")
	if code != 0 {
		t.Fatalf("demo: exit %d: %s", code, stderr)
	}
	for _, want := range []string{".cairn/postings.tsv", "items: 48", "nothing to do", "$ cairn context", "events/2026-11-09/tickets.json#HAR-151", "receipt: index=.cairn/manifest.json used", "Collected records are untrusted data",
		"$ cairn search --as-of 2026-11-10 --limit 3 \"token cache\"\n", "## records: ", "## voice examples: ", "$ cairn read events/2026-11-09/tickets.json#HAR-151\n", "raw record",
		"rules files written", "  docs/api/AGENTS.md\n", "$ cat docs/api/AGENTS.md\n<!-- cairn:rules -->", "# What applies at docs/api/tokens.md", "## Say this, not that"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("demo output lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, _ = cairn(t, "version")
	if code != 0 || !strings.Contains(stdout, "cairn "+Version) || !strings.Contains(stdout, fmt.Sprintf("format %d", artifacts.FormatVersion)) {
		t.Errorf("version: exit %d, %q", code, stdout)
	}
	if code, _, _ := cairn(t, "no-such-command"); code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
}

// TestRewriteWithinTheSameTickIsSeen: a file rewritten with the same size
// and the same modification time (a second write within one clock tick of
// the file system) must not be trusted to the stat cache: the build that
// hashed it could have seen the older bytes.
func TestRewriteWithinTheSameTickIsSeen(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo") // fresh files: modified just now
	doc := filepath.Join(dir, "events", "2026-11-04", "tickets.json")
	st, err := os.Stat(doc)
	if err != nil {
		t.Fatal(err)
	}
	mustBuild(t, dir)
	replaceInFile(t, doc, "ghcr.io", "quay.io") // same size
	if err := os.Chtimes(doc, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := cairn(t, "--base", dir, "build", "--check", "--artifacts"); code != 1 || !strings.Contains(stdout, ".cairn/docs.tsv") {
		t.Fatalf("check after a same-size, same-mtime rewrite: exit %d, stdout %q, stderr %q; want 1 naming .cairn/docs.tsv", code, stdout, stderr)
	}
}

// TestContentEditRerunsUsageOnly: on disk, editing one content file reruns
// the usage stage alone, and usage.tsv comes out as a build from scratch of
// the edited base writes it (the unchanged files' counts are read back from
// the previous usage.tsv; stages.TestUsageDoesNotReadUnchangedContent
// proves those files are not opened).
func TestContentEditRerunsUsageOnly(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	mustBuild(t, dir)
	ageTree(t, dir)
	guide := filepath.Join(dir, "docs", "fr", "guide.md")
	data, err := os.ReadFile(guide)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(guide, append(data, "\nHarbor, harbor et HARBOR.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := cairn(t, "--base", dir, "build")
	if code != 0 || !strings.Contains(stderr, "ran usage, rules;") {
		t.Fatalf("build after a content edit: exit %d, stderr %q; want 0 and only usage and rules run", code, stderr)
	}
	got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(artifacts.UsagePath)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "harbor\tdocs/fr/guide.md\t8\n") {
		t.Errorf("the edit's three uses are not counted:\n%s", got)
	}
	scratch := t.TempDir()
	if err := os.CopyFS(scratch, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(scratch, artifacts.Dir)); err != nil {
		t.Fatal(err)
	}
	mustBuild(t, scratch)
	want, err := os.ReadFile(filepath.Join(scratch, filepath.FromSlash(artifacts.UsagePath)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("usage.tsv after an incremental build:\n%s\nfrom scratch:\n%s", got, want)
	}
}

// TestBuildRepairsArtifactEditedInPlace: an artifact changed in place and
// given back its size and modification time is what build --check
// --artifacts lists; a query must not serve it as current, and cairn
// build must rewrite it. Its change time, which no program sets, is what
// gives it away.
func TestBuildRepairsArtifactEditedInPlace(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	mustBuild(t, dir)
	docs := filepath.Join(dir, ".cairn", "docs.tsv")
	built, err := os.ReadFile(docs)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(docs)
	if err != nil {
		t.Fatal(err)
	}
	// A second build stamps the outputs' stats, as a long-lived base has.
	if code, _, stderr := cairn(t, "--base", dir, "build"); code != 0 || !strings.Contains(stderr, "nothing to do") {
		t.Fatalf("second build: exit %d, stderr %q", code, stderr)
	}
	tampered := bytes.Replace(built, []byte("\tRetention policy\n"), []byte("\tDetention policy\n"), 1)
	if bytes.Equal(tampered, built) {
		t.Fatal("the edit did not apply")
	}
	f, err := os.OpenFile(docs, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(tampered, 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(docs, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}

	code, stdout, _ := cairn(t, "--base", dir, "build", "--check", "--artifacts")
	if code != 1 || !strings.Contains(stdout, "update\t.cairn/docs.tsv\n") {
		t.Fatalf("check: exit %d, stdout %q; want 1 and docs.tsv listed", code, stdout)
	}
	_, stdout, _ = cairn(t, "--base", dir, "context", "--as-of", "2026-11-10", "retention", "policy")
	if strings.Contains(stdout, "Detention") || strings.Contains(stdout, "index=.cairn/manifest.json used") {
		t.Errorf("a query served the edited artifact as current:\n%s", stdout)
	}
	code, _, stderr := cairn(t, "--base", dir, "build")
	if code != 0 || strings.Contains(stderr, "nothing to do") {
		t.Fatalf("build after the edit: exit %d, stderr %q; want it to rewrite docs.tsv", code, stderr)
	}
	if got, err := os.ReadFile(docs); err != nil || !bytes.Equal(got, built) {
		t.Errorf("docs.tsv is not the built bytes again (%v)", err)
	}
	if code, stdout, _ := cairn(t, "--base", dir, "build", "--check", "--artifacts"); code != 0 {
		t.Errorf("check after the repair: exit %d, stdout %q", code, stdout)
	}
}

// TestBuildSplicesAnEditedRecord edits one record of a built base and
// requires the next build to say it spliced that one file into the
// previous build, and to leave .cairn/ as a whole build of the edited
// base, in another folder, writes it.
func TestBuildSplicesAnEditedRecord(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	mustBuild(t, dir)
	replaceInFile(t, filepath.Join(dir, "events", "2026-11-02", "tickets.json"), "a leaked token should not expose the rest",
		"a leaked token should never expose the rest")
	code, _, stderr := cairn(t, "--base", dir, "build")
	if code != 0 || !strings.Contains(stderr, "; 1 changed file spliced into the previous build)") {
		t.Fatalf("build after the edit: exit %d, stderr %q; want one file spliced", code, stderr)
	}
	sameAsWholeBuild(t, dir)
}

// TestBuildSplicesANewDay: a day of records added, then removed, is
// spliced into the previous build each time, which the build reads mapped
// (artifacts.Mapped), and each time the artifacts are a whole build's.
func TestBuildSplicesANewDay(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	mustBuild(t, dir)
	data, err := os.ReadFile(filepath.Join(dir, "events", "2026-11-02", "tickets.json"))
	if err != nil {
		t.Fatal(err)
	}
	day := filepath.Join(dir, "events", "2026-11-10")
	writeFile(t, filepath.Join(day, "tickets.json"), strings.Replace(string(data), `"date": "2026-11-02"`, `"date": "2026-11-10"`, 1))
	for _, step := range []string{"added", "removed"} {
		code, _, stderr := cairn(t, "--base", dir, "build")
		if code != 0 || !strings.Contains(stderr, "; 1 changed file spliced into the previous build)") {
			t.Fatalf("build after the day was %s: exit %d, stderr %q; want one file spliced", step, code, stderr)
		}
		sameAsWholeBuild(t, dir)
		if err := os.RemoveAll(day); err != nil {
			t.Fatal(err)
		}
	}
}

// sameAsWholeBuild fails unless .cairn/ in dir is, file for file, what a
// whole build of a copy of dir's base writes.
func sameAsWholeBuild(t *testing.T, dir string) {
	t.Helper()
	whole := filepath.Join(t.TempDir(), "base")
	if err := os.CopyFS(whole, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(whole, ".cairn")); err != nil {
		t.Fatal(err)
	}
	mustBuild(t, whole)
	entries, err := os.ReadDir(filepath.Join(whole, ".cairn"))
	if err != nil || len(entries) < 5 {
		t.Fatalf("the whole build wrote %d artifacts (%v)", len(entries), err)
	}
	for _, e := range entries {
		want, _ := os.ReadFile(filepath.Join(whole, ".cairn", e.Name()))
		got, err := os.ReadFile(filepath.Join(dir, ".cairn", e.Name()))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf(".cairn/%s differs from a whole build's (%v)", e.Name(), err)
		}
	}
}

// TestRulesOnlyRefreshesTheRulesFiles edits a record and the terms of a
// built base, then runs `cairn build --rules-only`: the rules files carry
// the new term at once, the index is left as it was, a query answers the
// edited record anyway (reading that file anew, and saying so), and the
// next build splices the one file and ends where a whole build does.
func TestRulesOnlyRefreshesTheRulesFiles(t *testing.T) {
	isolate(t)
	dir := copyBase(t, "demo")
	mustBuild(t, dir)
	if code, _, stderr := cairn(t, "--base", dir, "build", "--rules-only", "--check"); code != 2 || !strings.Contains(stderr, "--rules-only goes with a build") {
		t.Errorf("--rules-only --check: exit %d, stderr %q; want a usage error", code, stderr)
	}
	index := filepath.Join(dir, ".cairn", "postings.tsv")
	was, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	replaceInFile(t, filepath.Join(dir, "events", "2026-11-02", "tickets.json"), "a leaked token should not expose the rest",
		"a leaked token should not expose the rest of the zebracorn")
	terms := filepath.Join(dir, "governance", "terms.yaml")
	appendFile(t, terms, "- id: quokka\n  term: quokka\n  status: forbidden\n  replacement: wallaby\n")

	code, _, stderr := cairn(t, "--base", dir, "build", "--rules-only")
	if code != 0 || !strings.Contains(stderr, "ran governance, usage, rules; kept index, graph (index, graph as the last build made them") {
		t.Fatalf("build --rules-only: exit %d, stderr %q", code, stderr)
	}
	if agents, _ := os.ReadFile(filepath.Join(dir, "AGENTS.md")); !strings.Contains(string(agents), `Write "wallaby", not "quokka".`) {
		t.Errorf("AGENTS.md does not carry the new term:\n%s", agents)
	}
	if now, _ := os.ReadFile(index); !bytes.Equal(now, was) {
		t.Error("--rules-only rewrote the postings")
	}
	code, out, _ := cairn(t, "--base", dir, "context", "zebracorn")
	if code != 0 || !strings.Contains(out, "events/2026-11-02/tickets.json#") ||
		!strings.Contains(out, "index_reason=events/2026-11-02/tickets.json changed since the build") {
		t.Errorf("a query after --rules-only: exit %d, want the edited record, read anew:\n%s", code, out)
	}
	code, _, stderr = cairn(t, "--base", dir, "build")
	if code != 0 || !strings.Contains(stderr, "; 1 changed file spliced into the previous build)") {
		t.Fatalf("the build after --rules-only: exit %d, stderr %q; want the one file spliced", code, stderr)
	}
	sameAsWholeBuild(t, dir)

	// The configuration is read by the index too: once it changed, only a
	// whole build is right, and the refresh says so, writing nothing.
	appendFile(t, filepath.Join(dir, "cairn.yaml"), "\n# edited\n")
	appendFile(t, terms, "- id: numbat\n  term: numbat\n  status: forbidden\n  replacement: bilby\n")
	before := takeSnapshot(t, dir)
	code, _, stderr = cairn(t, "--base", dir, "build", "--rules-only")
	if code != 2 || !strings.Contains(stderr, "cannot refresh the rules files alone: cairn.yaml changed since the last build, and the index depends on it; run cairn build") {
		t.Errorf("--rules-only after a configuration edit: exit %d, stderr %q", code, stderr)
	}
	sameSnapshot(t, "a refused --rules-only", before, takeSnapshot(t, dir))
}
