package stages

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/load"
	"github.com/cairn-kb/cairn/stages/splice"
)

// memBase is a base in memory whose builds are synced into it, as
// artifacts.Sync would write them, so that the next build reads the
// previous one's artifacts.
type memBase struct {
	fs   fstest.MapFS
	prev *artifacts.Manifest
}

func loadMemBase(t *testing.T, dir string) *memBase {
	t.Helper()
	m := &memBase{fs: fstest.MapFS{}}
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(p, artifacts.Dir+"/") {
			return err
		}
		data, err := os.ReadFile(filepath.Join(dir, p))
		m.fs[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// build runs a build, with the previous manifest unless whole, syncs
// it into the base and returns what it ran.
func (m *memBase) build(t *testing.T, whole bool) Output {
	t.Helper()
	out, err := m.run(whole, false)
	var derr *diag.Errors
	if errors.As(err, &derr) {
		t.Fatalf("build failed: %v", derr.Diagnostics)
	}
	if err != nil {
		t.Fatal(err)
	}
	m.sync(t, out)
	return out
}

// run runs a build, with the previous manifest unless whole, and with
// Input.RulesOnly set as asked; it syncs nothing.
func (m *memBase) run(whole, rulesOnly bool) (Output, error) {
	in := Input{FS: m.fs, ToolVersion: "test", AsOf: time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC), RulesOnly: rulesOnly}
	if !whole {
		in.Previous = m.prev
		in.Intact = func(p string) bool { _, ok := m.fs[p]; return ok }
	}
	return Build(context.Background(), in)
}

// sync writes a build's plan into the base, as artifacts.Sync would.
func (m *memBase) sync(t *testing.T, out Output) {
	t.Helper()
	for _, f := range out.Plan.Files {
		m.fs[f.Path] = &fstest.MapFile{Data: f.Data}
	}
	for _, k := range out.Plan.Delete {
		delete(m.fs, k)
	}
	m.fs[out.Plan.Manifest.Path] = &fstest.MapFile{Data: out.Plan.Manifest.Data}
	prev, err := artifacts.DecodeManifest(out.Plan.Manifest.Data)
	if err != nil {
		t.Fatal(err)
	}
	m.prev = &prev
}

// units lists, sorted, the base's record documents (events layer) and
// pages (wiki and projects layers).
func (m *memBase) units() (docs, pages []string) {
	for p := range m.fs {
		switch {
		case strings.HasPrefix(p, "events/") && strings.HasSuffix(p, ".json"):
			docs = append(docs, p)
		case (strings.HasPrefix(p, "wiki/") || strings.HasPrefix(p, "projects/")) && strings.HasSuffix(p, ".md"):
			pages = append(pages, p)
		}
	}
	slices.Sort(docs)
	slices.Sort(pages)
	return docs, pages
}

// artifactsOf is every file under .cairn/.
func (m *memBase) artifactsOf() map[string][]byte {
	out := map[string][]byte{}
	for p, f := range m.fs {
		if strings.HasPrefix(p, artifacts.Dir+"/") {
			out[p] = f.Data
		}
	}
	return out
}

// sameAsWhole checks that m's artifacts are, byte for byte, those a whole
// build of the same files writes; step names the edit in errors.
func (m *memBase) sameAsWhole(t *testing.T, step string) {
	t.Helper()
	whole := &memBase{fs: fstest.MapFS{}}
	for p, f := range m.fs {
		if !strings.HasPrefix(p, artifacts.Dir+"/") {
			whole.fs[p] = f
		}
	}
	whole.build(t, true)
	got, want := m.artifactsOf(), whole.artifactsOf()
	for p, data := range want {
		if !bytes.Equal(got[p], data) {
			t.Errorf("%s: %s differs from a whole build's:\n%s", step, p, firstDiff(got[p], data))
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d artifacts, a whole build writes %d", step, len(got), len(want))
	}
}

// TestSpliceIsAWholeBuild edits each golden base unit by unit (a record
// changed, a record document added and removed, a page changed, added
// and removed) and requires, after each, that the build splicing the
// edit into the previous index writes the same artifacts, byte for byte,
// as a whole build of the same files: the artifacts are a function of
// the base, whatever history of edits led to it.
func TestSpliceIsAWholeBuild(t *testing.T) {
	defer func(share int64) { spliceShare = share }(spliceShare)
	spliceShare = 1 // the golden bases are small: a few documents are a large share
	// The edge base has a field whose every value has no words: nothing in
	// the index shows which items hold it, so a splice cannot prove that an
	// item still does, and each of its builds is whole. Its bytes are
	// checked all the same.
	splices := map[string]bool{"demo": true, "edge": false}
	for name, want := range splices {
		dir := filepath.Join("..", "golden", name, "base")
		t.Run(name, func(t *testing.T) {
			m := loadMemBase(t, dir)
			m.build(t, true)
			docs, pages := m.units()
			if len(docs) < 2 || len(pages) < 2 {
				t.Fatalf("%d record documents and %d pages; the steps need two of each", len(docs), len(pages))
			}
			edit := func(p string, f func([]byte) []byte) {
				m.fs[p] = &fstest.MapFile{Data: f(bytes.Clone(m.fs[p].Data))}
			}
			firstDoc, lastDoc := docs[0], docs[len(docs)-1]
			// A page that supersedes another makes a build whole (see
			// TestSpliceGivesWayToAWholeBuild); the removed one does not.
			plainPage := ""
			for _, p := range pages {
				if !bytes.Contains(m.fs[p].Data, []byte("supersedes:")) {
					plainPage = p
				}
			}
			if plainPage == "" {
				t.Fatal("every page supersedes another; the steps need one that does not")
			}
			saved := m.fs[lastDoc].Data
			steps := []struct {
				name string
				do   func()
				// graphKept says the edit leaves every item's URI, time and
				// links: the build keeps the edge tables, writing none.
				graphKept bool
				// spliceOnly is a step only for a base whose builds splice.
				spliceOnly bool
			}{
				{"a record edited", func() { edit(firstDoc, intoFirstValue("zebrafish ")) }, false, false},
				{"a record's words cut", func() { edit(docs[1], cutFirstWord) }, true, true},
				// The first of three records titled alike takes another title:
				// the next one heads their title group.
				{"a group's first item retitled", func() {
					edit("events/2026-11-02/tickets.json", func(b []byte) []byte {
						return bytes.Replace(b, []byte(`"summary": "arm64 nightly: cosign verification tests time out"`),
							[]byte(`"summary": "arm64 nightly: cosign tests time out again"`), 1)
					})
				}, true, true},
				{"a record document removed", func() { delete(m.fs, lastDoc) }, false, false},
				{"a record document added", func() { m.fs[lastDoc] = &fstest.MapFile{Data: saved} }, false, false},
				{"a record document added on a new day", func() {
					day := filepath.Base(filepath.Dir(lastDoc))
					m.fs["events/2026-12-30/"+filepath.Base(lastDoc)] = &fstest.MapFile{Data: bytes.ReplaceAll(saved, []byte(day), []byte("2026-12-30"))}
				}, false, false},
				{"a page edited", func() { edit(pages[0], func(b []byte) []byte { return append(b, "\nA line about walruses.\n"...) }) }, true, false},
				{"a page removed", func() { delete(m.fs, plainPage) }, false, false},
				{"a page added", func() {
					m.fs["wiki/zz-new-page.md"] = &fstest.MapFile{Data: []byte("# Otters\n\nA page about otters and walruses.\n")}
				}, false, false},
			}
			for _, s := range steps {
				if s.spliceOnly && !want {
					continue
				}
				s.do()
				out := m.build(t, false)
				if got := out.Spliced > 0; got != want {
					t.Errorf("%s: spliced %d units; want a splice: %v", s.name, out.Spliced, want)
				}
				wrote := slices.ContainsFunc(out.Plan.Files, func(f artifacts.File) bool { return f.Path == artifacts.EdgesDstPath })
				if want && wrote == s.graphKept {
					t.Errorf("%s: the edge tables were written: %v; want them kept: %v", s.name, wrote, s.graphKept)
				}
				m.sameAsWhole(t, s.name)
			}
		})
	}
}

// intoFirstValue puts text at the start of the first string value that
// follows a document's "records" key.
func intoFirstValue(text string) func([]byte) []byte {
	return func(b []byte) []byte {
		i := bytes.Index(b, []byte(`"records"`))
		j := bytes.Index(b[i:], []byte(`": "`))
		if i < 0 || j < 0 {
			panic("no string value in the records")
		}
		at := i + j + len(`": "`)
		return slices.Concat(b[:at], []byte(text), b[at:])
	}
}

// cutFirstWord removes the first word, with the space after it, of the
// first string value of several words that follows a document's
// "records" key.
func cutFirstWord(b []byte) []byte {
	i := bytes.Index(b, []byte(`"records"`))
	if i < 0 {
		panic("no records")
	}
	for {
		j := bytes.Index(b[i:], []byte(`": "`))
		if j < 0 {
			panic("no string value of several words in the records")
		}
		at := i + j + len(`": "`)
		end := at + bytes.IndexByte(b[at:], '"')
		if sp := bytes.IndexByte(b[at:end], ' '); sp > 0 {
			return slices.Concat(b[:at], b[at+sp+1:])
		}
		i = end
	}
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return "line " + itoa(i+1) + ":\n got " + g[i] + "\nwant " + w[i]
		}
	}
	return "lengths " + itoa(len(g)) + " and " + itoa(len(w)) + " lines"
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestSpliceGivesWayToAWholeBuild makes the edits a splice cannot take
// (the configuration, a cached body, a page that supersedes another) and
// requires a whole build, with the bytes a whole build of the same files
// writes.
func TestSpliceGivesWayToAWholeBuild(t *testing.T) {
	defer func(share int64) { spliceShare = share }(spliceShare)
	spliceShare = 1
	edits := []struct {
		name string
		do   func(m *memBase)
	}{
		{"the configuration", func(m *memBase) {
			m.fs["cairn.yaml"] = &fstest.MapFile{Data: append(bytes.Clone(m.fs["cairn.yaml"].Data), "\n# reviewed\n"...)}
		}},
		{"a cached body", func(m *memBase) {
			p := "bodies/meetings/2026-11-06-retro-sprint-22.md"
			m.fs[p] = &fstest.MapFile{Data: append(bytes.Clone(m.fs[p].Data), "\nOne more line.\n"...)}
		}},
		{"a page that supersedes", func(m *memBase) {
			p := "wiki/retention-policy.md"
			m.fs[p] = &fstest.MapFile{Data: append(bytes.Clone(m.fs[p].Data), "\nOne more line.\n"...)}
		}},
		{"a page that superseded and no longer does", func(m *memBase) {
			p := "wiki/retention-policy.md"
			m.fs[p] = &fstest.MapFile{Data: bytes.Replace(m.fs[p].Data, []byte("supersedes: [wiki/retention-policy-v1.md]\n"), nil, 1)}
		}},
		{"a page that superseded, removed", func(m *memBase) {
			delete(m.fs, "wiki/retention-policy.md")
		}},
	}
	for _, e := range edits {
		t.Run(e.name, func(t *testing.T) {
			m := loadMemBase(t, filepath.Join("..", "golden", "demo", "base"))
			m.build(t, true)
			e.do(m)
			if out := m.build(t, false); out.Spliced != 0 {
				t.Errorf("spliced %d files; want a whole build", out.Spliced)
			}
			m.sameAsWhole(t, e.name)
		})
	}
}

// TestSpliceKeepsWhatPagesSupersede: a build that splices parses only
// the changed pages, so what an unchanged page supersedes in a changed
// document comes from the previous edge tables; the record must still
// be flagged, as a whole build flags it.
func TestSpliceKeepsWhatPagesSupersede(t *testing.T) {
	defer func(share int64) { spliceShare = share }(spliceShare)
	spliceShare = 1
	m := loadMemBase(t, filepath.Join("..", "golden", "demo", "base"))
	doc := "events/2026-11-02/tickets.json"
	m.fs["wiki/push-tokens-decision.md"] = &fstest.MapFile{Data: []byte("---\ntitle: Push tokens decision\n" +
		"supersedes: [" + doc + "#HAR-142]\n---\n# Push tokens decision\n\nThe ticket is closed by this page.\n")}
	m.build(t, true)
	flagged := func() bool {
		documents, err := artifacts.DecodeDocuments(m.fs[artifacts.DocumentsPath].Data)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := artifacts.DecodeDocs(m.fs[artifacts.DocsPath].Data, artifacts.OriginsOf(documents))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range rows {
			if d.URI == doc+"#HAR-142" {
				return slices.Contains(d.Flags, "superseded")
			}
		}
		t.Fatalf("docs.tsv has no row for %s#HAR-142", doc)
		return false
	}
	if !flagged() {
		t.Fatal("a whole build does not flag the superseded record")
	}
	m.fs[doc] = &fstest.MapFile{Data: bytes.Replace(m.fs[doc].Data, []byte(`"description": "`), []byte(`"description": "Zebrafish. `), 1)}
	if out := m.build(t, false); out.Spliced != 1 {
		t.Fatalf("spliced %d files; want the one document", out.Spliced)
	}
	if !flagged() {
		t.Error("the spliced build lost the superseded flag")
	}
	m.sameAsWhole(t, "a document a page supersedes into, edited")
}

// TestSpliceChecksWhatItReads: a reader that holds no lock gives the
// manifest its artifacts must match; one that does not (a build replaced
// it while the reader read) makes the splice give way.
func TestSpliceChecksWhatItReads(t *testing.T) {
	m := loadMemBase(t, filepath.Join("..", "golden", "demo", "base"))
	m.build(t, true)
	p := "events/2026-11-02/tickets.json"
	m.fs[p] = &fstest.MapFile{Data: intoFirstValue("zebrafish ")(bytes.Clone(m.fs[p].Data))}
	run := func(written *artifacts.Manifest) error {
		scanned, err := load.Scan(context.Background(), load.Input{FS: m.fs, Previous: m.prev})
		if err != nil {
			t.Fatal(err)
		}
		changes, ok := scanned.CorpusChanges(m.prev)
		if !ok || len(changes.Documents) != 1 {
			t.Fatalf("changes %+v (%v); want the one document", changes, ok)
		}
		scanned.Narrow(changes.Documents)
		loaded, err := scanned.Parse(context.Background(), []string{load.GroupCorpus})
		if err != nil {
			t.Fatal(err)
		}
		_, err = splice.Run(context.Background(), splice.Input{FS: m.fs, Base: loaded.Base, Changes: changes, Written: written})
		return err
	}
	if err := run(m.prev); err != nil {
		t.Fatalf("with the manifest the artifacts match: %v", err)
	}
	other := *m.prev
	other.Outputs = slices.Clone(other.Outputs)
	for i := range other.Outputs {
		if other.Outputs[i].Path == artifacts.PostingsPath {
			other.Outputs[i].XXHash = "0000000000000000"
		}
	}
	if err := run(&other); !errors.Is(err, splice.ErrWhole) {
		t.Errorf("with a manifest postings.tsv does not match: %v, want ErrWhole", err)
	}
}

// TestSpliceRandomEdits makes 40 edits drawn with a fixed seed (records
// changed in any document, documents removed and put back, pages changed,
// added and removed), building after each, and requires the artifacts of
// a whole build of the same files every time: the bytes depend on the
// base, never on the history of edits that led to it.
func TestSpliceRandomEdits(t *testing.T) {
	defer func(share int64) { spliceShare = share }(spliceShare)
	spliceShare = 1
	m := loadMemBase(t, filepath.Join("..", "golden", "demo", "base"))
	m.build(t, true)
	docs, all := m.units()
	// A page that supersedes makes a build whole; these edits are meant to
	// be spliced.
	pages := slices.DeleteFunc(all, func(p string) bool {
		return !strings.HasPrefix(p, "wiki/") || bytes.Contains(m.fs[p].Data, []byte("supersedes:"))
	})
	rng := rand.New(rand.NewPCG(26, 1))
	removed := map[string][]byte{}
	spliced := 0
	for step := range 40 {
		var what string
		switch op := rng.IntN(5); {
		case op == 0 && len(removed) < len(docs)-1:
			p := docs[rng.IntN(len(docs))]
			if f, ok := m.fs[p]; ok {
				removed[p] = f.Data
				delete(m.fs, p)
				what = "removed " + p
			}
		case op == 1 && len(removed) > 0:
			for _, p := range slices.Sorted(maps.Keys(removed)) {
				m.fs[p] = &fstest.MapFile{Data: removed[p]}
				delete(removed, p)
				what = "put back " + p
				break
			}
		case op == 2:
			p := pages[rng.IntN(len(pages))]
			m.fs[p] = &fstest.MapFile{Data: append(bytes.Clone(m.fs[p].Data), fmt.Sprintf("\nStep %d adds a line about walruses.\n", step)...)}
			what = "changed " + p
		case op == 3:
			p := fmt.Sprintf("wiki/random-%d.md", rng.IntN(3))
			if _, ok := m.fs[p]; ok {
				delete(m.fs, p)
				what = "removed " + p
			} else {
				m.fs[p] = &fstest.MapFile{Data: []byte(fmt.Sprintf("# Page %d\n\nAbout otters, step %d.\n", step, step))}
				what = "added " + p
			}
		}
		if what == "" {
			p := docs[rng.IntN(len(docs))]
			if _, ok := m.fs[p]; !ok {
				continue
			}
			if rng.IntN(2) == 0 {
				m.fs[p] = &fstest.MapFile{Data: intoFirstValue(fmt.Sprintf("step%d ", step))(bytes.Clone(m.fs[p].Data))}
				what = "added a word to a record of " + p
			} else {
				// A word gone: its term's postings lose an item that no new
				// posting replaces.
				m.fs[p] = &fstest.MapFile{Data: cutFirstWord(bytes.Clone(m.fs[p].Data))}
				what = "cut a word from a record of " + p
			}
		}
		if m.build(t, false).Spliced > 0 {
			spliced++
		}
		m.sameAsWhole(t, fmt.Sprintf("step %d (%s)", step, what))
	}
	if spliced < 30 {
		t.Errorf("%d of 40 builds spliced; the edits were meant to be spliced", spliced)
	}
}
