package load

import (
	"maps"
	"slices"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

const contentConfig = "governance:\n  points:\n    - name: docs\n      paths: [\"docs/**\"]\n"

// contentBase is a base with three content files, a terms store and a voice.
var contentBase = map[string]string{
	"cairn.yaml":                   contentConfig,
	"governance/terms.yaml":        "- id: harbor\n  term: Harbor\n  status: preferred\n",
	"governance/voices/plain.yaml": "name: plain\n",
	"docs/a.md":                    "---\npoint: docs\n---\nHarbor.\n",
	"docs/b.md":                    "Harbor, harbor.\n",
	"README.md":                    "No term here.\n",
}

// previousUsage is what the previous build's usage.tsv says. The counts
// are not what a count of contentBase gives, on purpose: loading passes
// them on without counting anything, and a test can tell.
var previousUsage = []artifacts.TermUsage{
	{Term: "harbor", Total: 17, Uses: []artifacts.Use{{Path: "docs/b.md", Count: 10}, {Path: "docs/a.md", Count: 7}}},
}

// previousBuild loads files as a first build would, and returns the base
// with that build's usage.tsv in it, the manifest that names it, and the
// stat cache: the state a second build starts from.
func previousBuild(t *testing.T, files map[string]string) (fstest.MapFS, *artifacts.Manifest, artifacts.StatCache) {
	t.Helper()
	fsys := mapBase(files)
	first := runBase(t, fsys, nil, nil)
	if len(first.Diagnostics) != 0 || first.KeptContent != nil {
		t.Fatalf("first load: diagnostics %v, kept %v", diagLines(first.Diagnostics), first.KeptContent)
	}
	data, err := artifacts.EncodeUsage(previousUsage)
	if err != nil {
		t.Fatal(err)
	}
	fsys[artifacts.UsagePath] = &fstest.MapFile{Data: data, ModTime: t0}
	var points []artifacts.ContentFile
	for _, f := range first.Base.Content {
		points = append(points, artifacts.ContentFile{Path: f.Path, Point: f.Point})
	}
	list, err := artifacts.EncodeContent(points)
	if err != nil {
		t.Fatal(err)
	}
	fsys[artifacts.ContentPath] = &fstest.MapFile{Data: list, ModTime: t0}
	m := &artifacts.Manifest{Format: artifacts.FormatVersion, Inputs: first.Inputs,
		Outputs: []artifacts.FileStamp{
			{Path: artifacts.ContentPath, Bytes: int64(len(list)), XXHash: artifacts.Hash(list)},
			{Path: artifacts.UsagePath, Bytes: int64(len(data)), XXHash: artifacts.Hash(data)},
		}}
	return fsys, m, first.Stat
}

// edit changes files (an empty value removes one) a second later than t0,
// so that their stat no longer matches the cache.
func edit(fsys fstest.MapFS, files map[string]string) {
	for p, data := range files {
		if data == "" {
			delete(fsys, p)
			continue
		}
		fsys[p] = &fstest.MapFile{Data: []byte(data), ModTime: t0.Add(time.Second)}
	}
}

// TestContentNotReadAgain: when some content files changed, the others are
// not opened at all; their counts come from the previous usage.tsv, as
// long as that file is intact and neither the terms store nor the
// configuration changed.
func TestContentNotReadAgain(t *testing.T) {
	all := []string{"README.md", "docs/a.md", "docs/b.md"}
	cases := []struct {
		name   string
		change map[string]string
		// damage changes the previous state after the first build.
		damage func(fsys fstest.MapFS, m *artifacts.Manifest)
		read   []string // content files read, in Base.Content
		kept   []string
		usage  []artifacts.TermUsage
		diags  []string
	}{
		{name: "one file edited", change: map[string]string{"README.md": "Harbor!\n"},
			read: []string{"README.md"}, kept: []string{"docs/a.md", "docs/b.md"}, usage: previousUsage},
		{name: "a file removed", change: map[string]string{"docs/b.md": ""},
			read: nil, kept: []string{"README.md", "docs/a.md"},
			usage: []artifacts.TermUsage{{Term: "harbor", Total: 7, Uses: []artifacts.Use{{Path: "docs/a.md", Count: 7}}}}},
		{name: "a file added", change: map[string]string{"docs/c.md": "Harbor\n"},
			read: []string{"docs/c.md"}, kept: all, usage: previousUsage},
		{name: "a counted file edited", change: map[string]string{"docs/a.md": "Nothing.\n"},
			read: []string{"docs/a.md"}, kept: []string{"README.md", "docs/b.md"},
			usage: []artifacts.TermUsage{{Term: "harbor", Total: 10, Uses: []artifacts.Use{{Path: "docs/b.md", Count: 10}}}}},
		{name: "an edited file names an unknown point", change: map[string]string{"docs/a.md": "---\npoint: nowhere\n---\n"},
			read: []string{"docs/a.md"}, kept: []string{"README.md", "docs/b.md"},
			usage: []artifacts.TermUsage{{Term: "harbor", Total: 10, Uses: []artifacts.Use{{Path: "docs/b.md", Count: 10}}}},
			diags: []string{`docs/a.md:2:1: error: point "nowhere" is not declared in cairn.yaml governance.points; declare it or fix the name [unknown-point]`}},
		{name: "a voice edited", change: map[string]string{"governance/voices/plain.yaml": "name: plain\ndescription: Plain.\n"},
			kept: all, usage: previousUsage},
		{name: "the terms store edited", change: map[string]string{"governance/terms.yaml": "- id: harbor\n  term: harbour\n  status: preferred\n"},
			read: all},
		{name: "the terms store removed", change: map[string]string{"governance/terms.yaml": ""},
			read: all},
		// Points may have gone: every file's point: is checked again.
		{name: "the configuration edited", change: map[string]string{"cairn.yaml": contentConfig + "# edited\n"},
			read: all},
		{name: "usage.tsv damaged", change: map[string]string{"README.md": "Harbor!\n"},
			damage: func(fsys fstest.MapFS, m *artifacts.Manifest) {
				data := fsys[artifacts.UsagePath].Data
				fsys[artifacts.UsagePath] = &fstest.MapFile{Data: []byte(string(data[:len(data)-2]) + "9\n"), ModTime: t0}
			},
			read: all},
		{name: "usage.tsv gone", change: map[string]string{"README.md": "Harbor!\n"},
			damage: func(fsys fstest.MapFS, m *artifacts.Manifest) { delete(fsys, artifacts.UsagePath) },
			read:   all},
		{name: "content.tsv gone", change: map[string]string{"README.md": "Harbor!\n"},
			damage: func(fsys fstest.MapFS, m *artifacts.Manifest) { delete(fsys, artifacts.ContentPath) },
			read:   all},
		{name: "usage.tsv not in the manifest", change: map[string]string{"README.md": "Harbor!\n"},
			damage: func(fsys fstest.MapFS, m *artifacts.Manifest) { m.Outputs = nil },
			read:   all},
		{name: "a manifest of another format", change: map[string]string{"README.md": "Harbor!\n"},
			damage: func(fsys fstest.MapFS, m *artifacts.Manifest) { m.Format = artifacts.FormatVersion + 1 },
			read:   all},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fsys, prev, stat := previousBuild(t, contentBase)
			if c.damage != nil {
				c.damage(fsys, prev)
			}
			edit(fsys, c.change)
			counting := &countingFS{FS: fsys, opens: map[string]int{}}
			out, err := Run(t.Context(), Input{FS: counting, Stat: stat, Previous: prev})
			if err != nil {
				t.Fatal(err)
			}
			var read []string
			for _, f := range out.Base.Content {
				read = append(read, f.Path)
			}
			if diff := cmp.Diff(c.read, read); diff != "" {
				t.Errorf("content read (-want +got):\n%s", diff)
			}
			var kept []string
			for _, f := range out.KeptContent {
				kept = append(kept, f.Path)
				// A kept file keeps the point the previous build read.
				if want := map[string]string{"docs/a.md": "docs"}[f.Path]; f.Point != want || f.Text != "" {
					t.Errorf("kept %s has point %q and %d bytes of text, want point %q and none", f.Path, f.Point, len(f.Text), want)
				}
			}
			if diff := cmp.Diff(c.kept, kept, cmpEmpty); diff != "" {
				t.Errorf("content kept (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.usage, out.KeptUsage); diff != "" {
				t.Errorf("kept usage (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.diags, diagLines(out.Diagnostics), cmpEmpty); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			// The proof: a kept file was never opened, not even to hash it.
			for _, p := range c.kept {
				if n := counting.opens[p]; n != 0 {
					t.Errorf("%s is kept but was opened %d times", p, n)
				}
			}
			for _, p := range read {
				if counting.opens[p] == 0 {
					t.Errorf("%s is read but was never opened", p)
				}
			}
			if out.Base.Terms == nil && fsys["governance/terms.yaml"] != nil {
				t.Errorf("the terms store was not loaded")
			}
		})
	}
}

// cmpEmpty treats a nil and an empty list alike.
var cmpEmpty = cmp.Comparer(func(a, b []string) bool { return slices.Equal(a, b) })

// TestContentKeyCoversTermsOnly: the content key changes with the terms
// store and the content files, not with the rest of governance.
func TestContentKeyCoversTermsOnly(t *testing.T) {
	key := func(change map[string]string) string {
		files := maps.Clone(contentBase)
		for p, data := range change {
			files[p] = data
		}
		return runBase(t, mapBase(files), nil, func(string, string) bool { return true }).Keys[GroupContent]
	}
	before := key(nil)
	for _, c := range []struct {
		name    string
		change  map[string]string
		changes bool
	}{
		{"a voice edited", map[string]string{"governance/voices/plain.yaml": "name: plain\ndescription: x\n"}, false},
		{"the log written", map[string]string{"governance/log.jsonl": "\n"}, false},
		{"the terms store edited", map[string]string{"governance/terms.yaml": "- id: kb\n  term: kb\n  status: preferred\n"}, true},
		{"a content file edited", map[string]string{"README.md": "Harbor.\n"}, true},
	} {
		if got := key(c.change) != before; got != c.changes {
			t.Errorf("%s: content key changed = %v, want %v", c.name, got, c.changes)
		}
	}
}

// TestContentFilesModel: a kept file stays out of Base.Content, whose
// files carry their text and point.
func TestContentFilesModel(t *testing.T) {
	out := runBase(t, mapBase(contentBase), nil, nil)
	want := []model.ContentFile{
		{Path: "README.md", Text: contentBase["README.md"]},
		{Path: "docs/a.md", Point: "docs", Text: contentBase["docs/a.md"]},
		{Path: "docs/b.md", Text: contentBase["docs/b.md"]},
	}
	if diff := cmp.Diff(want, out.Base.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
}
