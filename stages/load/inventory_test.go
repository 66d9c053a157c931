package load

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/diag"
)

// t0 is the modification time of every file in the test bases.
var t0 = time.Date(2026, 11, 2, 9, 14, 0, 0, time.UTC)

// mapBase builds a base with every file at t0.
func mapBase(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for p, data := range files {
		fsys[p] = &fstest.MapFile{Data: []byte(data), ModTime: t0}
	}
	return fsys
}

// countingFS counts the opens of each regular file, so a test can prove a
// file was never read.
type countingFS struct {
	fs.FS
	mu    sync.Mutex
	opens map[string]int
}

// Stat is not counted: it reads no byte of the file.
func (c *countingFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(c.FS, name) }

func (c *countingFS) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if err == nil {
		if st, err := f.Stat(); err == nil && !st.IsDir() {
			c.mu.Lock()
			c.opens[name]++
			c.mu.Unlock()
		}
	}
	return f, err
}

const runConfig = "sources:\n  github:\n    category: created\n    visibility: shared\n"

const goodDocument = `{"cairn": 1, "source": "github", "fields": {"id": ".id", "title": ".title", "time": ".time"}, "records": [
  {"id": "HAR-142", "title": "Fix the Harbor build", "time": "2026-11-02T09:14:00Z"}
]}
`

func runBase(t *testing.T, fsys fs.FS, stat artifacts.StatCache, current func(group, key string) bool) Output {
	t.Helper()
	s, err := Scan(context.Background(), Input{FS: fsys, Stat: stat})
	if err != nil {
		t.Fatal(err)
	}
	var groups []string
	for _, g := range []string{GroupCorpus, GroupGovernance, GroupContent} {
		if current == nil || !current(g, s.Keys[g]) {
			groups = append(groups, g)
		}
	}
	out, err := s.Parse(context.Background(), groups)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func inputPaths(out Output) []string {
	var ps []string
	for _, s := range out.Inputs {
		ps = append(ps, s.Path)
	}
	return ps
}

func TestRunParsesEveryGroup(t *testing.T) {
	fsys := mapBase(map[string]string{
		"cairn.yaml":                           runConfig,
		"events/2026-11-02/github.json":        goodDocument,
		"wiki/index.md":                        "---\ntitle: Index\n---\nStart here.\n",
		"projects/harbor.md":                   "# Harbor\n",
		"tasks/2026-11-02/fix-ci/TASKS.md":     "# Fix CI\n",
		"docs/guide.md":                        "# Guide\n",
		"governance/terms.yaml":                "- id: kb\n  term: knowledge base\n  status: preferred\n",
		"bodies/manifest.json":                 "{}\n",
		"index/people.json":                    `{"cairn": 1, "source": "people", "fields": {"id": ".id", "title": ".name"}, "records": []}`,
		"governance/voices/plain.yaml":         "name: plain\n",
		"events/2026-11-01/github.json":        goodDocument,
		"tasks/2026-11-02/fix-ci/TASKS.md.bak": "stray",
	})
	out := runBase(t, fsys, nil, nil)
	wantDiags := []string{"tasks/2026-11-02/fix-ci/TASKS.md.bak:1:1: warning: not a task page, so cairn does not read it; task pages are tasks/YYYY-MM-DD/<slug>/TASKS.md [stray-file]"}
	if diff := cmp.Diff(wantDiags, diagLines(out.Diagnostics)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{GroupContent, GroupCorpus, GroupGovernance}, out.Parsed); diff != "" {
		t.Errorf("parsed (-want +got):\n%s", diff)
	}
	wantInputs := []string{
		"bodies/manifest.json", "cairn.yaml", "docs/guide.md",
		"events/2026-11-01/github.json", "events/2026-11-02/github.json",
		"governance/terms.yaml", "governance/voices/plain.yaml", "index/people.json",
		"projects/harbor.md", "tasks/2026-11-02/fix-ci/TASKS.md", "wiki/index.md",
	}
	if diff := cmp.Diff(wantInputs, inputPaths(out)); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	for _, s := range out.Inputs {
		data := fsys[s.Path].Data
		if s.Bytes != int64(len(data)) || s.XXHash != artifacts.Hash(data) {
			t.Errorf("%s stamp = %+v, want %d bytes %s", s.Path, s, len(data), artifacts.Hash(data))
		}
		if c := out.Stat[s.Path]; c.Bytes != s.Bytes || c.XXHash != s.XXHash || c.MtimeNS != t0.UnixNano() {
			t.Errorf("%s stat cache = %+v", s.Path, c)
		}
	}
	var docs, pages []string
	for _, d := range out.Base.Documents {
		docs = append(docs, d.Path)
	}
	for _, p := range out.Base.Pages {
		pages = append(pages, p.Path)
	}
	if diff := cmp.Diff([]string{"events/2026-11-01/github.json", "events/2026-11-02/github.json", "index/people.json"}, docs); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"projects/harbor.md", "tasks/2026-11-02/fix-ci/TASKS.md", "wiki/index.md"}, pages); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
	if len(out.Base.Content) != 1 || out.Base.Content[0].Path != "docs/guide.md" {
		t.Errorf("content = %+v", out.Base.Content)
	}
	if len(out.Base.Terms) != 1 || len(out.Base.Voices) != 1 {
		t.Errorf("governance: %d terms, %d voices", len(out.Base.Terms), len(out.Base.Voices))
	}
	if out.Base.Config.Sources["github"].Category != "created" || out.Base.ConfigPath != ConfigFile {
		t.Errorf("config not kept: %+v", out.Base.Config.Sources)
	}
	if out.SemanticsDigest != SemanticsDigest(out.Base.Config) {
		t.Errorf("semantics digest %s is not SemanticsDigest(config)", out.SemanticsDigest)
	}
}

func TestRunSkipsCurrentGroups(t *testing.T) {
	files := map[string]string{
		"cairn.yaml":                    runConfig,
		"events/2026-11-02/github.json": goodDocument,
		// A broken document: its diagnostic appears only when the corpus is parsed.
		"events/2026-11-02/broken.json": `{"cairn": 1,`,
		"wiki/index.md":                 "# Index\n",
		"docs/guide.md":                 "---\npoint: nowhere\n---\n",
		"governance/terms.yaml":         "- id: kb\n  term: knowledge base\n  status: preferred\n",
	}
	const brokenDiag = "events/2026-11-02/broken.json:1:13: error: invalid JSON: expected a member name; fix the document so that it parses [json-syntax]"
	const pointDiag = `docs/guide.md:2:1: error: point "nowhere" is not declared in cairn.yaml governance.points; declare it or fix the name [unknown-point]`
	cases := []struct {
		name    string
		current []string
		parsed  []string
		diags   []string
	}{
		{"nothing current", nil, []string{"content", "corpus", "governance"}, []string{pointDiag, brokenDiag}},
		{"corpus current", []string{"corpus"}, []string{"content", "governance"}, []string{pointDiag}},
		{"content current", []string{"content"}, []string{"corpus", "governance"}, []string{brokenDiag}},
		// Content validation needs governance, so governance is parsed again.
		{"governance current", []string{"governance"}, []string{"content", "corpus", "governance"}, []string{pointDiag, brokenDiag}},
		{"everything current", []string{"content", "corpus", "governance"}, []string{}, []string{}},
	}
	// The stat cache of a first run vouches for every file, so that each
	// group's key is known before parsing: without it the corpus files
	// are hashed as their parse reads them (TestReadOnce).
	stat := runBase(t, mapBase(files), nil, nil).Stat
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			asked := map[string]string{}
			current := func(group, key string) bool {
				asked[group] = key
				return slices.Contains(c.current, group)
			}
			out := runBase(t, mapBase(files), stat, current)
			if diff := cmp.Diff(c.parsed, append([]string{}, out.Parsed...)); diff != "" {
				t.Errorf("parsed (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.diags, diagLines(out.Diagnostics)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			for g, key := range asked {
				if out.Keys[g] != key {
					t.Errorf("Current(%q) was asked with key %s, Keys holds %s", g, key, out.Keys[g])
				}
			}
			corpusParsed := slices.Contains(out.Parsed, GroupCorpus)
			if !corpusParsed && (out.Base.Documents != nil || out.Base.Pages != nil || out.Base.Bodies != nil) {
				t.Errorf("corpus is current but was parsed: %d documents, %d pages", len(out.Base.Documents), len(out.Base.Pages))
			}
			if corpusParsed && (len(out.Base.Documents) != 1 || len(out.Base.Pages) != 1) {
				t.Errorf("corpus parsed: %d documents, %d pages; want 1 good document and 1 page", len(out.Base.Documents), len(out.Base.Pages))
			}
			if !slices.Contains(out.Parsed, GroupContent) && out.Base.Content != nil {
				t.Errorf("content is current but was parsed")
			}
			// Inputs are listed and hashed whatever is current.
			if len(out.Inputs) != len(files) {
				t.Errorf("%d inputs, want %d", len(out.Inputs), len(files))
			}
		})
	}
}

func TestGroupKeys(t *testing.T) {
	base := map[string]string{
		"cairn.yaml":                    runConfig,
		"events/2026-11-02/github.json": goodDocument,
		"wiki/index.md":                 "# Index\n",
		"docs/guide.md":                 "# Guide\n",
		"governance/terms.yaml":         "- id: kb\n  term: knowledge base\n  status: preferred\n",
	}
	keys := func(change map[string]string) map[string]string {
		files := map[string]string{}
		for k, v := range base {
			files[k] = v
		}
		for k, v := range change {
			if v == "" {
				delete(files, k)
			} else {
				files[k] = v
			}
		}
		all := func(string, string) bool { return true } // hash only
		return runBase(t, mapBase(files), nil, all).Keys
	}
	before := keys(nil)
	if len(before) != 3 || before[GroupCorpus] == before[GroupContent] || before[GroupCorpus] == before[GroupGovernance] {
		t.Fatalf("keys = %v; want three distinct group keys", before)
	}
	if again := keys(nil); !cmp.Equal(before, again) {
		t.Fatalf("keys differ between two runs: %v %v", before, again)
	}
	cases := []struct {
		name    string
		change  map[string]string
		changed []string
	}{
		{"a page edited", map[string]string{"wiki/index.md": "# Index!\n"}, []string{"corpus"}},
		{"a document added", map[string]string{"events/2026-11-03/github.json": goodDocument}, []string{"corpus"}},
		{"a body file added", map[string]string{"bodies/x.txt": "body"}, []string{"corpus"}},
		{"a content file edited", map[string]string{"docs/guide.md": "# Guide!\n"}, []string{"content"}},
		{"a content file removed", map[string]string{"docs/guide.md": ""}, []string{"content"}},
		{"governance edited", map[string]string{"governance/terms.yaml": "- id: kb\n  term: kb\n  status: approved\n"}, []string{"content", "governance"}},
		{"configuration edited", map[string]string{"cairn.yaml": runConfig + "# a comment\n"}, []string{"content", "corpus", "governance"}},
		{"a stray file added", map[string]string{"wiki/img.png": "png"}, nil},
		{"a hidden file added", map[string]string{".cairn/docs.tsv": "x", "wiki/.draft.md": "x"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			after := keys(c.change)
			var changed []string
			for _, g := range []string{GroupContent, GroupCorpus, GroupGovernance} {
				if before[g] != after[g] {
					changed = append(changed, g)
				}
			}
			if diff := cmp.Diff(c.changed, changed); diff != "" {
				t.Errorf("changed keys (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStatFirstHashing(t *testing.T) {
	const page = "# A\n"
	const fakeHash = "cafebabecafebabe" // not the hash of page: proves the cache was used
	cases := []struct {
		name     string
		cached   artifacts.StatEntry
		wantHash string
		opens    int
	}{
		{"size and mtime match: cached hash, no read", artifacts.StatEntry{Bytes: int64(len(page)), MtimeNS: t0.UnixNano(), XXHash: fakeHash}, fakeHash, 0},
		{"mtime changed: re-hashed", artifacts.StatEntry{Bytes: int64(len(page)), MtimeNS: t0.UnixNano() - 1, XXHash: fakeHash}, artifacts.Hash([]byte(page)), 1},
		{"size changed: re-hashed", artifacts.StatEntry{Bytes: int64(len(page)) + 1, MtimeNS: t0.UnixNano(), XXHash: fakeHash}, artifacts.Hash([]byte(page)), 1},
		{"no cached hash: re-hashed", artifacts.StatEntry{Bytes: int64(len(page)), MtimeNS: t0.UnixNano()}, artifacts.Hash([]byte(page)), 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fsys := &countingFS{FS: mapBase(map[string]string{"cairn.yaml": runConfig, "wiki/a.md": page}), opens: map[string]int{}}
			stat := artifacts.StatCache{"wiki/a.md": c.cached}
			// Every group current: a file is read only to be hashed, by
			// hashing or by the parse that hashes it as it reads.
			all := func(string, string) bool { return true }
			out := runBase(t, fsys, stat, all)
			i := slices.IndexFunc(out.Inputs, func(s artifacts.FileStamp) bool { return s.Path == "wiki/a.md" })
			if i < 0 {
				t.Fatalf("wiki/a.md is not an input: %v", inputPaths(out))
			}
			want := artifacts.FileStamp{Path: "wiki/a.md", Bytes: int64(len(page)), XXHash: c.wantHash}
			if out.Inputs[i] != want {
				t.Errorf("stamp = %+v, want %+v", out.Inputs[i], want)
			}
			wantStat := artifacts.StatEntry{Bytes: int64(len(page)), MtimeNS: t0.UnixNano(), XXHash: c.wantHash}
			if out.Stat["wiki/a.md"] != wantStat {
				t.Errorf("refreshed stat = %+v, want %+v", out.Stat["wiki/a.md"], wantStat)
			}
			if n := fsys.opens["wiki/a.md"]; n != c.opens {
				t.Errorf("wiki/a.md opened %d times, want %d", n, c.opens)
			}
			if stat["wiki/a.md"] != c.cached {
				t.Errorf("Run changed the caller's stat cache")
			}
		})
	}
}

func TestStatCacheDropsRemovedFiles(t *testing.T) {
	stat := artifacts.StatCache{"wiki/gone.md": {Bytes: 3, MtimeNS: 1, XXHash: "0000000000000000"}}
	out := runBase(t, mapBase(map[string]string{"cairn.yaml": runConfig}), stat, func(string, string) bool { return true })
	if _, ok := out.Stat["wiki/gone.md"]; ok {
		t.Errorf("the refreshed stat cache keeps a file that is gone")
	}
	if _, ok := out.Stat[ConfigFile]; !ok {
		t.Errorf("the refreshed stat cache lacks cairn.yaml")
	}
}

func TestStrayAndHiddenFiles(t *testing.T) {
	fsys := mapBase(map[string]string{
		"cairn.yaml":                         runConfig,
		"events/notes.txt":                   "x",
		"events/2026-11-02/github.json.bak":  "x",
		"events/2026-11-02/sub/x.json":       "x",
		"events/latest/github.json":          "x",
		"index/sub/x.json":                   "x",
		"index/readme.md":                    "x",
		"wiki/img.png":                       "x",
		"projects/notes.txt":                 "x",
		"tasks/2026-11-02/TASKS.md":          "x",
		"tasks/2026-11-02/fix-ci/notes.md":   "x",
		"governance/readme.md":               "x",
		"governance/voices/sub/x.yaml":       "x",
		"bodies/anything.bin":                "x", // bodies hold any file; the manifest names them
		".git/config":                        "x",
		".cairn/docs.tsv":                    "x",
		".env":                               "x",
		"wiki/.drafts/draft.md":              "x",
		"wiki/.hidden.md":                    "x",
		"events/.tmp/2026-11-02/github.json": "x",
		"AGENTS.md":                          "x",
		"docs/CLAUDE.md":                     "x",
		"wiki/AGENTS.md":                     "x", // rules files are never pages,
		"events/CLAUDE.md":                   "x", // nor stray files of a layer
		"governance/AGENTS.md":               "x",
		"tasks/2026-11-02/fix-ci/CLAUDE.md":  "x",
		"docs/guide.md":                      "x",
		"README.md":                          "x",
		"notes.txt":                          "x",
		"docs/a\tb.md":                       "x",
	})
	out := runBase(t, fsys, nil, func(string, string) bool { return true })
	wantInputs := []string{"README.md", "bodies/anything.bin", "cairn.yaml", "docs/guide.md"}
	if diff := cmp.Diff(wantInputs, inputPaths(out)); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	want := []string{
		`"docs/a\tb.md":1:1: error: the path holds a tab, newline or backslash, which cairn's artifacts cannot carry; rename it [bad-path]`,
		"events/2026-11-02/github.json.bak:1:1: warning: not a record document, so cairn does not read it; record documents go in events/YYYY-MM-DD/<source>.json [stray-file]",
		"events/2026-11-02/sub/x.json:1:1: warning: not a record document, so cairn does not read it; record documents go in events/YYYY-MM-DD/<source>.json [stray-file]",
		"events/latest/github.json:1:1: warning: not a record document, so cairn does not read it; record documents go in events/YYYY-MM-DD/<source>.json [stray-file]",
		"events/notes.txt:1:1: warning: not a record document, so cairn does not read it; record documents go in events/YYYY-MM-DD/<source>.json [stray-file]",
		"governance/readme.md:1:1: warning: not a governance file, so cairn does not read it; governance holds voices/<name>.yaml, terms.yaml and log.jsonl [stray-file]",
		"governance/voices/sub/x.yaml:1:1: warning: not a governance file, so cairn does not read it; governance holds voices/<name>.yaml, terms.yaml and log.jsonl [stray-file]",
		"index/readme.md:1:1: warning: not a snapshot document, so cairn does not read it; snapshots go in index/<source>.json [stray-file]",
		"index/sub/x.json:1:1: warning: not a snapshot document, so cairn does not read it; snapshots go in index/<source>.json [stray-file]",
		"projects/notes.txt:1:1: warning: not a Markdown page, so cairn does not read it; pages in projects/ end in .md [stray-file]",
		"tasks/2026-11-02/TASKS.md:1:1: warning: not a task page, so cairn does not read it; task pages are tasks/YYYY-MM-DD/<slug>/TASKS.md [stray-file]",
		"tasks/2026-11-02/fix-ci/notes.md:1:1: warning: not a task page, so cairn does not read it; task pages are tasks/YYYY-MM-DD/<slug>/TASKS.md [stray-file]",
		"wiki/img.png:1:1: warning: not a Markdown page, so cairn does not read it; pages in wiki/ end in .md [stray-file]",
	}
	if diff := cmp.Diff(want, diagLines(out.Diagnostics)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

func TestStrayFilesFollowRenamedLayers(t *testing.T) {
	fsys := mapBase(map[string]string{
		"cairn.yaml":    "layers:\n  wiki: kb\n",
		"kb/img.png":    "x",
		"kb/page.md":    "# Page\n",
		"wiki/other.md": "# Now a content file\n",
	})
	out := runBase(t, fsys, nil, func(string, string) bool { return true })
	if diff := cmp.Diff([]string{"cairn.yaml", "kb/page.md", "wiki/other.md"}, inputPaths(out)); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	want := []string{"kb/img.png:1:1: warning: not a Markdown page, so cairn does not read it; pages in kb/ end in .md [stray-file]"}
	if diff := cmp.Diff(want, diagLines(out.Diagnostics)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

func TestRunWithoutUsableConfig(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"no cairn.yaml":  {"wiki/a.md": "# A\n"},
		"broken YAML":    {"cairn.yaml": "schema: {\n", "wiki/a.md": "# A\n"},
		"not UTF-8 YAML": {"cairn.yaml": "title: \xff\n", "wiki/a.md": "# A\n"},
	} {
		t.Run(name, func(t *testing.T) {
			out := runBase(t, mapBase(files), nil, nil)
			if out.Inputs != nil || out.Parsed != nil || out.Keys != nil {
				t.Errorf("inputs %v parsed %v keys %v; want nothing past the configuration", out.Inputs, out.Parsed, out.Keys)
			}
			if len(out.Diagnostics) != 1 || out.Diagnostics[0].File != ConfigFile {
				t.Errorf("diagnostics %q; want one about cairn.yaml", diagLines(out.Diagnostics))
			}
		})
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, Input{FS: mapBase(map[string]string{"cairn.yaml": runConfig, "wiki/a.md": "# A\n"})})
	if err != context.Canceled {
		t.Errorf("Run on a cancelled context = %v, want context.Canceled", err)
	}
}

// TestSymlinkedGovernanceIsNotRead: the walk does not follow a symlinked
// governance folder and says so; the terms behind it must then not be read
// either, or editing them would change the rules without changing the
// governance key, and a no-op build would keep stale rules files.
func TestSymlinkedGovernanceIsNotRead(t *testing.T) {
	dir := t.TempDir()
	write := func(p, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cairn.yaml", runConfig)
	write("elsewhere/terms.yaml", "- id: harbor\n  term: Harbor\n  status: preferred\n")
	if err := os.Symlink("elsewhere", filepath.Join(dir, "governance")); err != nil {
		t.Fatal(err)
	}
	out := runBase(t, os.DirFS(dir), nil, nil)
	if len(out.Base.Terms) != 0 {
		t.Errorf("read %d terms from behind the symlinked folder", len(out.Base.Terms))
	}
	if slices.Contains(inputPaths(out), "governance/terms.yaml") {
		t.Errorf("inputs %q list a file behind the symlink", inputPaths(out))
	}
	if len(out.Diagnostics) != 1 || out.Diagnostics[0].Code != "symlink-dir" || out.Diagnostics[0].File != "governance" {
		t.Errorf("diagnostics %v, want only the symlink-dir warning for governance", out.Diagnostics)
	}
}

// TestBodyOutsideTheWalkIsNotRead: a body in a hidden folder is not in the
// corpus key, so it must not reach ranking either; it is left out with a
// warning that says where bodies belong.
func TestBodyOutsideTheWalkIsNotRead(t *testing.T) {
	text := "the full body"
	sum := sha256.Sum256([]byte(text))
	manifest := fmt.Sprintf(`{"index/a.json#1": {"path": ".cache/b.txt", "sha256": %q, "bytes": %d},
 "index/a.json#2": {"path": "c.txt", "sha256": %q, "bytes": %d}}`,
		hex.EncodeToString(sum[:]), len(text), hex.EncodeToString(sum[:]), len(text))
	out := runBase(t, mapBase(map[string]string{
		"cairn.yaml":           runConfig,
		"bodies/manifest.json": manifest,
		"bodies/.cache/b.txt":  text,
		"bodies/c.txt":         text,
	}), nil, nil)
	if len(out.Base.Bodies) != 1 || out.Base.Bodies[0].Path != "bodies/c.txt" {
		t.Errorf("bodies %+v, want only bodies/c.txt", out.Base.Bodies)
	}
	if len(out.Diagnostics) != 1 || out.Diagnostics[0].Code != "body-unverified" ||
		!strings.Contains(out.Diagnostics[0].Message, "hidden or symlinked folder") {
		t.Errorf("diagnostics %v, want one body-unverified warning for the hidden body", out.Diagnostics)
	}
}

// TestNameShapes holds the hand-written shape checks to the patterns they
// stand for.
func TestNameShapes(t *testing.T) {
	for _, c := range []struct {
		name    string
		check   func(string) bool
		pattern string
	}{
		{"isDay", isDay, `^[0-9]{4}-[0-9]{2}-[0-9]{2}$`},
		{"isSourceName", isSourceName, `^[A-Za-z0-9][A-Za-z0-9._-]*$`},
		{"IsFieldName", IsFieldName, `^[a-z][a-z0-9_-]*$`},
	} {
		re := regexp.MustCompile(c.pattern)
		for _, s := range []string{"", "2026-11-02", "2026-11-2", "2026-11-022", "2026/11/02", "２０２６-11-02", "a026-11-02", "2026-1a-02",
			"github", "GitHub", "ci-runs", "mail.v2", "_x", ".x", "-x", "x y", "x\n", "é", "a/b", "0", "x_y-z.9", "Ax", "a", "a:b", "a\x00"} {
			if got, want := c.check(s), re.MatchString(s); got != want {
				t.Errorf("%s(%q) = %v, the pattern says %v", c.name, s, got, want)
			}
		}
	}
}

// TestReadOnce: a build with no stat cache reads each record document and
// page once, hashing the bytes its parse reads, and ends with the stamps,
// stat cache and corpus key of a run that hashed first.
func TestReadOnce(t *testing.T) {
	files := map[string]string{
		"cairn.yaml":                    runConfig,
		"events/2026-11-02/github.json": goodDocument,
		"wiki/index.md":                 "\ufeff# Index\n", // the stamp is of the bytes on disk, mark included
		"projects/p.md":                 "# P\n",
	}
	fsys := &countingFS{FS: mapBase(files), opens: map[string]int{}}
	s, err := Scan(t.Context(), Input{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	if s.Keys[GroupCorpus] != "" {
		t.Errorf("corpus key before the parse = %q, want none", s.Keys[GroupCorpus])
	}
	out, err := s.Parse(t.Context(), nil) // the corpus is parsed, though not named
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(out.Parsed, GroupCorpus) || len(out.Base.Documents) != 1 || len(out.Base.Pages) != 2 {
		t.Fatalf("parsed %v: %d documents, %d pages", out.Parsed, len(out.Base.Documents), len(out.Base.Pages))
	}
	for _, p := range []string{"events/2026-11-02/github.json", "wiki/index.md", "projects/p.md"} {
		if n := fsys.opens[p]; n != 1 {
			t.Errorf("%s opened %d times, want 1", p, n)
		}
		i := slices.IndexFunc(out.Inputs, func(s artifacts.FileStamp) bool { return s.Path == p })
		want := artifacts.FileStamp{Path: p, Bytes: int64(len(files[p])), XXHash: artifacts.Hash([]byte(files[p]))}
		if i < 0 || out.Inputs[i] != want {
			t.Errorf("stamp of %s: %+v, want %+v", p, out.Inputs, want)
		}
		if got := out.Stat[p]; got.XXHash != want.XXHash || got.Bytes != want.Bytes {
			t.Errorf("stat row of %s = %+v, want hash %s", p, got, want.XXHash)
		}
	}
	// A query's inventory hashes every file before anything is parsed
	// (its folder is absent: it walks fsys).
	hashed, err := Take(t.Context(), filepath.Join(t.TempDir(), "absent"), mapBase(files), artifacts.StatCache{}, artifacts.ConfigCache{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Keys[GroupCorpus] == "" || out.Keys[GroupCorpus] != hashed.Keys[GroupCorpus] {
		t.Errorf("corpus key %q, want %q as an inventory that hashed first", out.Keys[GroupCorpus], hashed.Keys[GroupCorpus])
	}
	if diff := cmp.Diff(hashed.Inputs, out.Inputs); diff != "" {
		t.Errorf("stamps differ from an inventory that hashed first (-hashed +read once):\n%s", diff)
	}
	// With the last build's stamps, a file of the same size whose stat
	// the cache does not vouch for may be unchanged: it is hashed first,
	// and the key is known before any parse. One of another size is not.
	prev := &artifacts.Manifest{Inputs: out.Inputs}
	again, err := Scan(t.Context(), Input{FS: mapBase(files), Previous: prev})
	if err != nil {
		t.Fatal(err)
	}
	if again.Keys[GroupCorpus] != out.Keys[GroupCorpus] {
		t.Errorf("same sizes: corpus key before the parse %q, want %q", again.Keys[GroupCorpus], out.Keys[GroupCorpus])
	}
	files["projects/p.md"] = "# P, longer\n"
	grown, err := Scan(t.Context(), Input{FS: mapBase(files), Previous: prev})
	if err != nil {
		t.Fatal(err)
	}
	if grown.Keys[GroupCorpus] != "" {
		t.Errorf("a page of another size: corpus key before the parse %q, want none", grown.Keys[GroupCorpus])
	}
}

// deniedFS is a base whose folder denied cannot be listed, as a folder
// without read permission is for a user who is not root.
type deniedFS struct {
	fstest.MapFS
	denied string
}

func (f deniedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == f.denied {
		return nil, &fs.PathError{Op: "readdirent", Path: name, Err: fs.ErrPermission}
	}
	return f.MapFS.ReadDir(name)
}

// TestPathsThatAreNotInputsDoNotBlock: a file outside every layer whose
// name holds a tab or a backslash, a folder so named, and a folder that
// cannot be listed outside the layers are skipped with a warning naming
// them; the same inside a layer, where records and pages would be lost,
// still stop the build.
func TestPathsThatAreNotInputsDoNotBlock(t *testing.T) {
	files := map[string]string{
		"cairn.yaml":                    runConfig,
		"events/2026-11-02/github.json": goodDocument,
		"wiki/index.md":                 "---\ntitle: Index\n---\nStart here.\n",
		"notes\ttab.txt":                "x",
		"back\\slash.txt":               "x",
		"scratch\\dir/a.txt":            "x",
		"private/keys.txt":              "x",
	}
	out := runBase(t, deniedFS{mapBase(files), "private"}, nil, nil)
	want := []string{
		`back\slash.txt:1:1: warning: the path holds a tab, newline or backslash, which cairn's artifacts cannot carry; it is not an input, so cairn skips it [bad-path]`,
		`"notes\ttab.txt":1:1: warning: the path holds a tab, newline or backslash, which cairn's artifacts cannot carry; it is not an input, so cairn skips it [bad-path]`,
		"private:1:1: warning: cannot list this path (permission denied), so cairn reads nothing below it and its content files are not counted; make it readable, or move it out of the base [unreadable]",
		`scratch\dir:1:1: warning: the path holds a tab, newline or backslash, which cairn's artifacts cannot carry; it is not an input, so cairn skips it [bad-path]`,
	}
	if diff := cmp.Diff(want, diagLines(out.Diagnostics)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	if !slices.Contains(inputPaths(out), "wiki/index.md") {
		t.Errorf("inputs %v lack the page", inputPaths(out))
	}

	// Inside a layer, the same are errors: what they hide is an input.
	files["wiki/a\tb.md"] = "x"
	out = runBase(t, deniedFS{mapBase(files), "events/2026-11-02"}, nil, nil)
	var errs []string
	for _, d := range out.Diagnostics {
		if d.Severity == diag.Error {
			errs = append(errs, d.String())
		}
	}
	wantErrs := []string{
		`events/2026-11-02:1:1: error: cannot list this path: permission denied [read]`,
		`"wiki/a\tb.md":1:1: error: the path holds a tab, newline or backslash, which cairn's artifacts cannot carry; rename it [bad-path]`,
	}
	if diff := cmp.Diff(wantErrs, errs); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestContentReadOnce: a first scan leaves the content files to the
// parse, which hashes each as it reads it (the stamp is of the bytes on
// disk, mark included), whether it parses content or, not naming it,
// only hashes them; the key is the one a scan that hashed them first
// gives.
func TestContentReadOnce(t *testing.T) {
	files := map[string]string{"cairn.yaml": runConfig, "docs/guide.md": "\ufeff# Guide\n", "docs/b.md": "# B\n"}
	for _, groups := range [][]string{{GroupContent}, {GroupCorpus}} {
		fsys := &countingFS{FS: mapBase(files), opens: map[string]int{}}
		s, err := Scan(t.Context(), Input{FS: fsys})
		if err != nil {
			t.Fatal(err)
		}
		if s.Keys[GroupContent] != "" {
			t.Errorf("parsing %v: content key before the parse = %q, want none", groups, s.Keys[GroupContent])
		}
		out, err := s.Parse(t.Context(), groups)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"docs/guide.md", "docs/b.md"} {
			if n := fsys.opens[p]; n != 1 {
				t.Errorf("parsing %v: %s opened %d times, want 1", groups, p, n)
			}
			i := slices.IndexFunc(out.Inputs, func(s artifacts.FileStamp) bool { return s.Path == p })
			want := artifacts.FileStamp{Path: p, Bytes: int64(len(files[p])), XXHash: artifacts.Hash([]byte(files[p]))}
			if i < 0 || out.Inputs[i] != want {
				t.Errorf("parsing %v: stamp of %s: %+v, want %+v", groups, p, out.Inputs, want)
			}
		}
		again, err := Scan(t.Context(), Input{FS: mapBase(files), Previous: &artifacts.Manifest{Inputs: out.Inputs}})
		if err != nil {
			t.Fatal(err)
		}
		if out.Keys[GroupContent] == "" || again.Keys[GroupContent] != out.Keys[GroupContent] {
			t.Errorf("parsing %v: content key %q, a scan that hashed first %q", groups, out.Keys[GroupContent], again.Keys[GroupContent])
		}
	}
}
