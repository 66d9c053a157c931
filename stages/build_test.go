package stages

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/project"
)

// shuffledFS lists every folder in a random order, to prove that nothing
// in the build depends on the order the file system returns.
type shuffledFS struct {
	fs.FS
	rng *rand.Rand
}

func (s shuffledFS) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(s.FS, name)
	s.rng.Shuffle(len(entries), func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })
	return entries, err
}

// buildFiles runs a full build and returns every planned file by path.
func buildFiles(t *testing.T, fsys fs.FS) map[string][]byte {
	t.Helper()
	out, err := Build(context.Background(), Input{FS: fsys, ToolVersion: "test", AsOf: time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)})
	var derr *diag.Errors
	if errors.As(err, &derr) {
		t.Fatalf("build failed: %v\n%v", err, derr.Diagnostics)
	}
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{out.Plan.Manifest.Path: out.Plan.Manifest.Data}
	for _, f := range slices.Concat(out.Plan.Files, out.Plan.Release) {
		files[f.Path] = f.Data
	}
	for _, p := range out.Plan.Delete {
		files["deleted:"+p] = nil
	}
	return files
}

// goldenBases lists the golden bases that build without errors.
func goldenBases(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, name := range []string{"demo", "edge", "rules"} {
		dir := filepath.Join("..", "golden", name, "base")
		if _, err := os.Stat(dir); err != nil {
			t.Fatal(err)
		}
		out = append(out, dir)
	}
	return out
}

// TestDeterministic builds every golden base twice, the second time with
// shuffled directory listings and GOMAXPROCS=1, and requires the same bytes.
func TestDeterministic(t *testing.T) {
	for _, dir := range goldenBases(t) {
		t.Run(filepath.Base(filepath.Dir(dir)), func(t *testing.T) {
			first := buildFiles(t, os.DirFS(dir))
			prev := runtime.GOMAXPROCS(1)
			second := buildFiles(t, shuffledFS{FS: os.DirFS(dir), rng: rand.New(rand.NewPCG(7, 11))})
			runtime.GOMAXPROCS(prev)
			if len(first) != len(second) {
				t.Fatalf("built %d files, then %d", len(first), len(second))
			}
			if _, ok := first["AGENTS.md"]; !ok {
				t.Fatal("no root rules file planned; the rules stage did not run")
			}
			for p, data := range first {
				if !bytes.Equal(data, second[p]) {
					t.Errorf("%s differs between the two builds", p)
				}
			}
		})
	}
}

// TestBuildSkipsCurrentStages checks the make-style contract on an
// in-memory base: with the previous manifest and intact outputs, nothing
// runs; changing one record reruns index and graph only.
func TestBuildSkipsCurrentStages(t *testing.T) {
	base := fstest.MapFS{
		"cairn.yaml": {Data: []byte("schema: {title: {weight: 5}}\n")},
		"events/2026-11-02/notes.json": {Data: []byte(`{"cairn": 1, "source": "notes", "fields": {"id": ".id", "title": ".t", "time": ".at"},
 "records": [{"id": "n1", "t": "first note", "at": "2026-11-02T10:00:00Z"}]}`)},
		"wiki/topic.md":  {Data: []byte("# Topic\n\nSome words.\n")},
		"docs/readme.md": {Data: []byte("Content.\n")},
	}
	ctx := context.Background()
	first, err := Build(ctx, Input{FS: base, ToolVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := artifacts.DecodeManifest(first.Plan.Manifest.Data)
	if err != nil {
		t.Fatal(err)
	}
	all := func(string) bool { return true }

	again, err := Build(ctx, Input{FS: base, Stat: first.Stat, Previous: &m, Intact: all, ToolVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Ran) != 0 || len(again.Plan.Files) != 0 {
		t.Errorf("no-op build ran %v and planned %d files", again.Ran, len(again.Plan.Files))
	}
	if !bytes.Equal(again.Plan.Manifest.Data, first.Plan.Manifest.Data) {
		t.Errorf("no-op build changed the manifest")
	}

	// A damaged output makes its stage run again even though its key holds.
	damaged, err := Build(ctx, Input{FS: base, Stat: first.Stat, Previous: &m, ToolVersion: "test",
		Intact: func(p string) bool { return p != artifacts.PostingsPath }})
	if err != nil {
		t.Fatal(err)
	}
	if got := damaged.Ran; len(got) != 2 || got[0] != StageIndex || got[1] != StageGraph {
		t.Errorf("with postings damaged, ran %v; want index and graph", got)
	}

	edited := fstest.MapFS{}
	for k, v := range base {
		edited[k] = v
	}
	edited["events/2026-11-02/notes.json"] = &fstest.MapFile{Data: bytes.Replace(base["events/2026-11-02/notes.json"].Data, []byte("first note"), []byte("first memo"), 1)}
	changed, err := Build(ctx, Input{FS: edited, Previous: &m, Intact: all, ToolVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if got := changed.Ran; len(got) != 2 || got[0] != StageIndex || got[1] != StageGraph {
		t.Errorf("after a record edit, ran %v; want index and graph", got)
	}
}

// openRecorder records every file opened through it, by path.
type openRecorder struct {
	fs.FS
	mu     sync.Mutex
	opened map[string]int
}

func (o *openRecorder) Open(name string) (fs.File, error) {
	o.mu.Lock()
	o.opened[name]++
	o.mu.Unlock()
	return o.FS.Open(name)
}

// readRecorder counts, by path, the files read through it: opened and
// read from, not merely stated.
type readRecorder struct {
	fs.FS
	mu   sync.Mutex
	read map[string]int
}

func (r *readRecorder) Open(name string) (fs.File, error) {
	f, err := r.FS.Open(name)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || st.IsDir() {
		return f, nil // a folder is listed, not read
	}
	return &readCounted{File: f, count: func() { r.mu.Lock(); r.read[name]++; r.mu.Unlock() }}, nil
}

// readCounted counts its first Read.
type readCounted struct {
	fs.File
	count func()
	once  sync.Once
}

func (f *readCounted) Read(p []byte) (int, error) {
	f.once.Do(f.count)
	return f.File.Read(p)
}

// TestUsageDoesNotReadUnchangedContent: after one content file changes, a
// build opens that file and no other content file, and writes the same
// usage.tsv as a build from scratch.
func TestUsageDoesNotReadUnchangedContent(t *testing.T) {
	t0 := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	base := fstest.MapFS{}
	add := func(p, data string, at time.Time) { base[p] = &fstest.MapFile{Data: []byte(data), ModTime: at} }
	add("cairn.yaml", "schema: {title: {weight: 5}}\n", t0)
	add("governance/terms.yaml", "- id: harbor\n  term: Harbor\n  status: preferred\n- id: push-token\n  term: push token\n  status: preferred\n", t0)
	add("wiki/topic.md", "# Topic\n\nHarbor is not content here: wiki pages are not counted.\n", t0)
	add("docs/a.md", "Harbor pushes with a push\ntoken.\n", t0)
	add("docs/b.md", "harbor, HARBOR.\n", t0)
	add("blog/c.md", "No terms.\n", t0)
	ctx := context.Background()
	build := func(fsys fs.FS, prev *Output) Output {
		t.Helper()
		in := Input{FS: fsys, ToolVersion: "test"}
		if prev != nil {
			m, err := artifacts.DecodeManifest(prev.Plan.Manifest.Data)
			if err != nil {
				t.Fatal(err)
			}
			in.Previous, in.Stat, in.Intact = &m, prev.Stat, func(string) bool { return true }
		}
		out, err := Build(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	usageOf := func(out Output) string {
		for _, f := range out.Plan.Files {
			if f.Path == artifacts.UsagePath {
				return string(f.Data)
			}
		}
		t.Fatalf("no usage.tsv planned; ran %v", out.Ran)
		return ""
	}
	first := build(base, nil)
	want := "#cairn usage v7\tterm\tpath\tcount\n" +
		"harbor\t.\t3\nharbor\tdocs/b.md\t2\nharbor\tdocs/a.md\t1\n" +
		"push-token\t.\t1\npush-token\tdocs/a.md\t1\n"
	if got := usageOf(first); got != want {
		t.Fatalf("first usage.tsv:\n%s\nwant:\n%s", got, want)
	}
	// The previous build's outputs are on disk, as Sync would leave them.
	for _, f := range first.Plan.Files {
		base[f.Path] = &fstest.MapFile{Data: f.Data, ModTime: t0}
	}

	rec := &openRecorder{FS: base, opened: map[string]int{}}
	noop := build(rec, &first)
	if len(noop.Ran) != 0 {
		t.Errorf("a build with nothing changed ran %v", noop.Ran)
	}
	for p := range rec.opened {
		if strings.HasSuffix(p, ".md") || strings.HasPrefix(p, artifacts.Dir+"/") {
			t.Errorf("a build with nothing changed opened %s", p)
		}
	}

	add("blog/c.md", "Now the Harbor blog.\n", t0.Add(time.Second))
	rec = &openRecorder{FS: base, opened: map[string]int{}}
	second := build(rec, &first)
	// The rules stage runs too: which files exist, and at which points,
	// decides its folders; it takes the kept files' points from
	// content.tsv, without opening them.
	if !slices.Equal(second.Ran, []string{StageUsage, StageRules}) {
		t.Errorf("after a content edit, ran %v; want usage and rules", second.Ran)
	}
	for _, p := range []string{"docs/a.md", "docs/b.md"} {
		if rec.opened[p] != 0 {
			t.Errorf("%s did not change but was opened %d times", p, rec.opened[p])
		}
	}
	if rec.opened["blog/c.md"] == 0 {
		t.Errorf("blog/c.md changed but was never read")
	}
	scratch := build(base, nil)
	if usageOf(second) != usageOf(scratch) {
		t.Errorf("incremental usage.tsv:\n%s\nfrom scratch:\n%s", usageOf(second), usageOf(scratch))
	}
	if !strings.Contains(usageOf(second), "harbor\tblog/c.md\t1\n") {
		t.Errorf("the edited file's use is not counted:\n%s", usageOf(second))
	}
	if !bytes.Equal(second.Plan.Manifest.Data, scratch.Plan.Manifest.Data) {
		t.Errorf("the incremental manifest differs from a build from scratch")
	}

	// A new terms store makes every content file be read and counted again.
	add("governance/terms.yaml", "- id: harbor\n  term: Harbor\n  status: preferred\n", t0.Add(2*time.Second))
	rec = &openRecorder{FS: base, opened: map[string]int{}}
	third := build(rec, &second)
	for _, p := range []string{"docs/a.md", "docs/b.md", "blog/c.md"} {
		if rec.opened[p] == 0 {
			t.Errorf("the terms store changed but %s was not read", p)
		}
	}
	if got := usageOf(third); got != "#cairn usage v7\tterm\tpath\tcount\nharbor\t.\t4\nharbor\tdocs/b.md\t2\nharbor\tblog/c.md\t1\nharbor\tdocs/a.md\t1\n" {
		t.Errorf("usage.tsv after the terms store changed:\n%s", got)
	}
}

// TestBuildProgress checks that load reports each file it parses (the
// page and the content file: a whole build reads each record document as
// it projects it) and project each record document, up to their totals,
// and nothing when every stage is current.
func TestBuildProgress(t *testing.T) {
	doc := func(src string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte(`{"cairn": 1, "source": "` + src + `", "fields": {"id": ".id", "title": ".t", "time": ".at"},
 "records": [{"id": "n1", "t": "a note", "at": "2026-11-02T10:00:00Z"}]}`)}
	}
	base := fstest.MapFS{
		"cairn.yaml":                   {Data: []byte("schema: {title: {weight: 5}}\n")},
		"events/2026-11-02/notes.json": doc("notes"),
		"events/2026-11-02/memos.json": doc("memos"),
		"wiki/topic.md":                {Data: []byte("# Topic\n")},
		"docs/readme.md":               {Data: []byte("Content.\n")},
	}
	var calls []string
	progress := func(stage string, done, total int) {
		calls = append(calls, fmt.Sprintf("%s %d/%d", stage, done, total))
	}
	first, err := Build(context.Background(), Input{FS: base, ToolVersion: "test", Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"load 1/2", "load 2/2", "project 1/2", "project 2/2"}
	if !slices.Equal(calls, want) {
		t.Errorf("progress calls %q, want %q", calls, want)
	}
	m, err := artifacts.DecodeManifest(first.Plan.Manifest.Data)
	if err != nil {
		t.Fatal(err)
	}
	calls = nil
	if _, err := Build(context.Background(), Input{FS: base, Stat: first.Stat, Previous: &m, Intact: func(string) bool { return true },
		ToolVersion: "test", Progress: progress}); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 0 {
		t.Errorf("a no-op build reported progress %q", calls)
	}
}

// TestStaleRulesAloneRerunRules: when only the rules files' shape changed,
// Build decides before parsing that the rules stage alone runs, and the
// record documents and pages are not opened.
func TestStaleRulesAloneRerunRules(t *testing.T) {
	t0 := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	base := fstest.MapFS{
		"cairn.yaml": {Data: []byte("schema: {title: {weight: 5}}\n"), ModTime: t0},
		"events/2026-11-02/notes.json": {Data: []byte(`{"cairn": 1, "source": "notes", "fields": {"id": ".id", "title": ".t", "time": ".at"},
 "records": [{"id": "n1", "t": "first note", "at": "2026-11-02T10:00:00Z"}]}`), ModTime: t0},
		"wiki/topic.md":         {Data: []byte("# Topic\n"), ModTime: t0},
		"docs/readme.md":        {Data: []byte("Content.\n"), ModTime: t0},
		"governance/terms.yaml": {Data: []byte("- id: kb\n  term: knowledge base\n  status: forbidden\n  replacement: cairn\n"), ModTime: t0},
	}
	ctx := context.Background()
	first, err := Build(ctx, Input{FS: base, ToolVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range slices.Concat(first.Plan.Files, first.Plan.Release) {
		base[f.Path] = &fstest.MapFile{Data: f.Data, ModTime: t0}
	}
	m, err := artifacts.DecodeManifest(first.Plan.Manifest.Data)
	if err != nil {
		t.Fatal(err)
	}
	base["CLAUDE.md"] = &fstest.MapFile{Data: []byte("@AGENTS.md\n"), ModTime: t0}
	rec := &openRecorder{FS: base, opened: map[string]int{}}
	again, err := Build(ctx, Input{FS: rec, Stat: first.Stat, Previous: &m, Intact: func(string) bool { return true }, ToolVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again.Ran, []string{StageRules}) {
		t.Errorf("with a new CLAUDE.md, ran %v; want the rules alone", again.Ran)
	}
	for _, p := range []string{"events/2026-11-02/notes.json", "wiki/topic.md"} {
		if rec.opened[p] != 0 {
			t.Errorf("%s was opened; the corpus is current", p)
		}
	}
	if rec.opened["governance/terms.yaml"] == 0 {
		t.Error("the terms were not read for the rules stage")
	}
}

// TestWholeBuildReadsEachDocumentOnce: a whole build reads each record
// document once, as it projects it, hashing it on the way when no stat
// cache vouches for it; its manifest and files are those of a build whose
// stat cache vouches for every file, and a document it cannot parse fails
// it as before, with nothing planned.
func TestWholeBuildReadsEachDocumentOnce(t *testing.T) {
	dir := filepath.Join("..", "golden", "demo", "base")
	base := os.DirFS(dir)
	rec := &readRecorder{FS: base, read: map[string]int{}}
	ctx := context.Background()
	asOf := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
	cold, err := Build(ctx, Input{FS: rec, ToolVersion: "test", AsOf: asOf})
	if err != nil {
		t.Fatal(err)
	}
	docs := 0
	for p, n := range rec.read {
		if strings.HasPrefix(p, "events/") && strings.HasSuffix(p, ".json") {
			docs++
			if n != 1 {
				t.Errorf("%s was read %d times", p, n)
			}
			if _, ok := cold.Stat[p]; !ok {
				t.Errorf("the stat cache has no entry for %s", p)
			}
		}
	}
	if docs < 3 {
		t.Fatalf("%d record documents read; the demo has more", docs)
	}
	vouched, err := Build(ctx, Input{FS: base, Stat: cold.Stat, ToolVersion: "test", AsOf: asOf})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(cold.Plan.Manifest.Data, vouched.Plan.Manifest.Data) {
		t.Error("the manifest of a build without a stat cache differs from one with")
	}

	broken := fstest.MapFS{
		"cairn.yaml":                   {Data: []byte("schema: {title: {weight: 5}}\n")},
		"events/2026-11-02/notes.json": {Data: []byte(`{"cairn": 1, "source": "notes", "fields": {"id": ".id"}, "records": [{"id": "n1"}`)},
		"wiki/topic.md":                {Data: []byte("# Topic\n")},
	}
	out, err := Build(ctx, Input{FS: broken, ToolVersion: "test"})
	var derr *diag.Errors
	if !errors.As(err, &derr) || !strings.Contains(fmt.Sprint(derr.Diagnostics), "events/2026-11-02/notes.json") {
		t.Fatalf("a broken document: %v", err)
	}
	if len(out.Plan.Files) > 0 {
		t.Errorf("a failed build planned %d files", len(out.Plan.Files))
	}
}

// TestDocumentsCutIntoRunsBuildTheSame: documents projected and reduced a
// few records at a time, their records put in URI order first, build
// byte for byte what they build whole.
func TestDocumentsCutIntoRunsBuildTheSame(t *testing.T) {
	for _, dir := range goldenBases(t) {
		want := buildFiles(t, os.DirFS(dir))
		for _, n := range []int{1, 3} {
			runRecords = n
			got := buildFiles(t, os.DirFS(dir))
			runRecords = project.MinRunRecords
			for p, data := range want {
				if !bytes.Equal(got[p], data) {
					t.Errorf("%s, runs of %d records: %s differs", dir, n, p)
				}
			}
			if len(got) != len(want) {
				t.Errorf("%s, runs of %d records: %d files, want %d", dir, n, len(got), len(want))
			}
		}
	}
}
