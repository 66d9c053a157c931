package corpus

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/golden/goldentest"
	"github.com/cairn-kb/cairn/query/internal/querytest"
	"github.com/cairn-kb/cairn/query/tables"
	"github.com/cairn-kb/cairn/stages/load"
)

// TestOverlayReadsAsAWholeBuild edits golden bases in place, a record
// document at a time, a page at a time and several units at once, and
// requires the overlay of the edited units on the old artifacts to read,
// table by table, as the artifacts of a whole build of the edited base
// do: every row and key, every term with its document frequency and
// postings, every node's outgoing and inbound links. The edits keep each
// item's URI and place, so the overlay must take most of them; those it
// leaves to the splice are counted.
func TestOverlayReadsAsAWholeBuild(t *testing.T) {
	for _, name := range []string{"demo", "edge"} {
		t.Run(name, func(t *testing.T) {
			built := querytest.BuiltGolden(t, name)
			docs, pages := unitsOn(t, built)
			var edits []edit
			for _, d := range docs {
				edits = append(edits, edit{name: d, files: []string{d}})
			}
			for _, p := range pages {
				edits = append(edits, edit{name: p, files: []string{p}})
			}
			edits = append(edits, edit{name: "three units", files: []string{docs[0], docs[len(docs)-1], pages[len(pages)-1]}})
			if name == "demo" {
				edits = append(edits, retitles...)
			}
			taken, tried := 0, 0
			for _, e := range edits {
				dir := copyBase(t, built, true)
				if len(e.before) > 0 {
					for _, r := range e.before {
						querytest.Edit(t, dir, r[0], r[1], r[2])
					}
					goldentest.Build(t, dir)
				}
				edited := true
				for _, f := range e.files {
					edited = editUnit(t, dir, f) && edited
				}
				for _, r := range e.replace {
					querytest.Edit(t, dir, r[0], r[1], r[2])
				}
				if !edited {
					continue // a document with no text to change
				}
				tried++
				o := overlayOf(t, dir)
				if o == nil {
					t.Logf("left to the splice: %s", e.name)
					continue
				}
				taken++
				asWholeBuild(t, e.name, o, dir)
			}
			t.Logf("the overlay took %d of %d edits", taken, tried)
			if taken < tried*3/4 {
				t.Errorf("the overlay took %d of %d edits that keep every item's place", taken, tried)
			}
		})
	}
}

// edit is one change to a base: units edited by editUnit, and
// replacements (file, old, new) made by querytest.Edit.
type edit struct {
	name    string
	files   []string
	replace [][3]string
	// before are replacements made, and built, before the edit.
	before [][3]string
}

// retitles change the titles of demo records: the first item of a title
// group leaves it, so the group's next item heads it; an item joins a
// group ahead of its first item, which then follows it; a page is
// renamed.
var retitles = []edit{
	{name: "a group's first item retitled", replace: [][3]string{{"events/2026-11-02/tickets.json",
		`"summary": "arm64 nightly: cosign verification tests time out"`, `"summary": "arm64 nightly: cosign tests time out again"`}}},
	{name: "an item retitled ahead of a group", replace: [][3]string{{"events/2026-11-02/tickets.json",
		`"summary": "arm64 nightly: cosign verification tests time out"`, `"summary": "Pull-through cache for ghcr.io"`}}},
	{name: "a page supersedes no more", replace: [][3]string{{"wiki/retention-policy.md",
		"supersedes: [wiki/retention-policy-v1.md]\n", ""}},
		// The page it superseded then says nothing of it itself.
		before: [][3]string{{"wiki/retention-policy-v1.md", "status: superseded\nsuperseded_by: wiki/retention-policy.md\n", ""}}},
	{name: "a page another supersedes edited", replace: [][3]string{{"wiki/retention-policy-v1.md",
		"The original", "The first"}},
		before: [][3]string{{"wiki/retention-policy-v1.md", "status: superseded\nsuperseded_by: wiki/retention-policy.md\n", ""}}},
	{name: "a record moves to another assignee and gains a label", replace: [][3]string{{"events/2026-11-02/tickets.json",
		`"labels": ["security", "auth", "2.4"],
        "assignee": {"name": "Marc Dubois", "uri": "person:email/marc@x.test"},`,
		`"labels": ["security", "auth", "2.4", "tokens"],
        "assignee": {"name": "Inès Kovač", "uri": "person:email/ines@x.test"},`}}},
	{name: "a page links to two more", replace: [][3]string{{"wiki/arm64-builds.md", "Emulation stays for", "See [push tokens](push-tokens.md) and [the cache](pull-through-cache.md).\nEmulation stays for"}}},
	{name: "two items trade titles", replace: [][3]string{
		{"events/2026-11-09/tickets.json", `"summary": "Scope push tokens to a single repository"`, `"summary": "Pull-through cache for ghcr.io"`},
		{"events/2026-11-04/tickets.json", `"summary": "Pull-through cache for ghcr.io"`, `"summary": "Scope push tokens to a single repository"`}}},
}

// unitsOn lists the record documents and the pages that supersede nothing
// of the base at dir.
func unitsOn(t *testing.T, dir string) (docs, pages []string) {
	t.Helper()
	for _, glob := range []string{"events/*/*.json", "index/*.json", "wiki/*.md", "projects/*.md"} {
		found, _ := filepath.Glob(filepath.Join(dir, glob))
		for _, f := range found {
			rel, _ := filepath.Rel(dir, f)
			rel = filepath.ToSlash(rel)
			data, _ := os.ReadFile(f)
			switch {
			case strings.HasSuffix(rel, ".json"):
				docs = append(docs, rel)
			case !bytes.Contains(data, []byte("supersedes:")):
				pages = append(pages, rel)
			}
		}
	}
	if len(docs) < 2 || len(pages) < 1 {
		t.Fatalf("%d record documents and %d pages; the edits need more", len(docs), len(pages))
	}
	return docs, pages
}

// editUnit changes a unit's text but no item's place: in a record
// document, a word goes into its longest string value; a page gains a
// line at its end. It reports false for a document with no string value.
func editUnit(t *testing.T, dir, rel string) bool {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(rel, ".md") {
		data = append(data, "\nA line about walruses and zebrafish.\n"...)
	} else {
		at, best := -1, 0
		for i := bytes.Index(data, []byte(`"records"`)); i >= 0; {
			j := bytes.Index(data[i:], []byte(`": "`))
			if j < 0 {
				break
			}
			start := i + j + len(`": "`)
			end := start + bytes.IndexByte(data[start:], '"')
			if end-start > best {
				at, best = start, end-start
			}
			i = end + 1
		}
		if at < 0 {
			return false
		}
		data = slices.Concat(data[:at], []byte("zebrafish "), data[at:])
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return true
}

// copyBase copies the base at dir to a fresh folder, with its artifacts
// or without them.
func copyBase(t *testing.T, dir string, artifactsToo bool) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "base")
	if err := os.CopyFS(to, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if !artifactsToo {
		if err := os.RemoveAll(filepath.Join(to, artifacts.Dir)); err != nil {
			t.Fatal(err)
		}
	}
	return to
}

// overlayOf lays the changed units of the base at dir over its artifacts
// as a query does; nil when the overlay leaves the change to the splice.
func overlayOf(t *testing.T, dir string) *overlay {
	t.Helper()
	ctx := context.Background()
	prev, err := artifacts.ReadPrevious(dir)
	if err != nil || prev == nil {
		t.Fatalf("no manifest: %v", err)
	}
	d, err := load.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	scanned, err := load.Scan(ctx, load.Input{FS: d, Previous: prev})
	if err != nil {
		t.Fatal(err)
	}
	changes, ok := scanned.CorpusChanges(prev)
	if !ok {
		t.Fatal("the edit is not one of record documents and pages alone")
	}
	scanned.Narrow(changes.Documents)
	scanned.NarrowPages(changes.Pages)
	loaded, err := scanned.Parse(ctx, []string{load.GroupCorpus})
	if err != nil {
		t.Fatal(err)
	}
	r, err := tables.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	o, _, ok := overlayChanges(ctx, r, loaded, changes)
	if !ok {
		r.Close()
		return nil
	}
	return o
}

// asWholeBuild builds a copy of the edited base at dir whole and requires
// the overlay o of its edit to read as that build does (sameTables); it
// closes o.
func asWholeBuild(t *testing.T, what string, o *overlay, dir string) {
	t.Helper()
	defer o.Close()
	whole := copyBase(t, dir, false)
	goldentest.Build(t, whole)
	w, err := tables.Open(whole)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	sameTables(t, what, o, w, dir, whole)
}

// sameTables compares, exhaustively, what an overlay and a whole build's
// reader answer. Offsets into docs.tsv and postings.tsv are where the
// bytes are, and differ; what they lead to must not.
func sameTables(t *testing.T, what string, o *overlay, w *tables.Reader, dir, whole string) {
	t.Helper()
	if o.Items() != w.Items() || !reflect.DeepEqual(o.Fields(), w.Fields()) {
		t.Fatalf("%s: %d items and fields %v; a whole build has %d and %v", what, o.Items(), o.Fields(), w.Items(), w.Fields())
	}
	ords := make([]int, w.Items())
	for i := range ords {
		ords[i] = i
	}
	gotRows, err := o.Rows(ords)
	wantRows, err2 := w.Rows(ords)
	if err != nil || err2 != nil {
		t.Fatal(err, err2)
	}
	gotKeys, err := o.Keys(ords)
	wantKeys, err2 := w.Keys(ords)
	if err != nil || err2 != nil {
		t.Fatal(err, err2)
	}
	for i := range ords {
		gotKeys[i].Offset, wantKeys[i].Offset = 0, 0
		if !reflect.DeepEqual(gotRows[i], wantRows[i]) || !reflect.DeepEqual(gotKeys[i], wantKeys[i]) {
			t.Errorf("%s: item %d reads\n%+v %+v\na whole build's\n%+v %+v", what, i, gotRows[i], gotKeys[i], wantRows[i], wantKeys[i])
		}
	}
	gotTerms, err := o.TermsWith("")
	wantTerms, err2 := w.TermsWith("")
	if err != nil || err2 != nil {
		t.Fatal(err, err2)
	}
	if len(gotTerms) != len(wantTerms) {
		t.Errorf("%s: %d terms; a whole build has %d", what, len(gotTerms), len(wantTerms))
	}
	for i := range min(len(gotTerms), len(wantTerms)) {
		g, e := gotTerms[i], wantTerms[i]
		gp, err := o.Postings(g)
		wp, err2 := w.Postings(e)
		if err != nil || err2 != nil {
			t.Fatal(err, err2)
		}
		single, found, err := o.Term(e.Term)
		if g.Term != e.Term || g.DF != e.DF || !reflect.DeepEqual(gp, wp) || err != nil || !found || single.DF != e.DF {
			t.Errorf("%s: term %q (df %d, %v) reads as %q (df %d, %v; alone df %d); a whole build's", what, e.Term, e.DF, wp, g.Term, g.DF, gp, single.DF)
			break
		}
	}
	for _, node := range nodesOf(t, []string{dir, whole}, artifacts.EdgesPath) {
		got, gok, err := o.Outgoing(node)
		want, wok, err2 := w.Outgoing(node)
		if err != nil || err2 != nil || gok != wok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s links to %v (%v); a whole build's to %v (%v)", what, node, got, err, want, err2)
		}
	}
	for _, node := range nodesOf(t, []string{dir, whole}, artifacts.EdgesDstPath) {
		for _, limit := range []int{0, 1, 2} {
			got, gok, err := o.Incoming(node, limit)
			want, wok, err2 := w.Incoming(node, limit)
			if err != nil || err2 != nil || gok != wok || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %s (limit %d) is linked from %v (%v); a whole build's from %v (%v)", what, node, limit, got, err, want, err2)
			}
		}
	}
}

// nodesOf lists the nodes of an edge table in the bases at dirs, each once.
func nodesOf(t *testing.T, dirs []string, table string) []string {
	t.Helper()
	var nodes []string
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(table)))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")[1:] {
			node, _, _ := strings.Cut(line, "\t")
			nodes = append(nodes, node)
		}
	}
	slices.Sort(nodes)
	return slices.Compact(nodes)
}

// TestOverlayRandomEdits makes random edits to the demo's record
// documents, one to three documents at a time: a word put into a string
// value, or a value replaced by another of the same document (an id, a
// time, a relation, a title: whatever the draw gives). Each edit the
// overlay takes must read as a whole build of the edited base reads; the
// rest are left to the splice, which other tests hold to a whole build.
func TestOverlayRandomEdits(t *testing.T) {
	built := querytest.BuiltGolden(t, "demo")
	docs, _ := unitsOn(t, built)
	rng := rand.New(rand.NewPCG(26, 5))
	words := []string{"zebrafish", "walrus", "arm64", "harbor", "token", "Scope push tokens to a single repository", "person:email/marc@x.test"}
	taken, tried := 0, 24
	for i := range tried {
		dir := copyBase(t, built, true)
		var names []string
		for range 1 + rng.IntN(3) {
			rel := docs[rng.IntN(len(docs))]
			p := filepath.Join(dir, filepath.FromSlash(rel))
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			values := stringValues(data)
			if len(values) == 0 {
				continue
			}
			v := values[rng.IntN(len(values))]
			var with []byte
			if rng.IntN(2) == 0 {
				with = slices.Concat([]byte(words[rng.IntN(len(words))]+" "), data[v[0]:v[1]])
			} else {
				w := values[rng.IntN(len(values))]
				with = data[w[0]:w[1]]
			}
			data = slices.Concat(data[:v[0]], with, data[v[1]:])
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			names = append(names, rel)
		}
		o := overlayOf(t, dir)
		if o == nil {
			continue
		}
		taken++
		asWholeBuild(t, fmt.Sprintf("edit %d of %v", i, names), o, dir)
	}
	t.Logf("the overlay took %d of %d random edits", taken, tried)
	if taken == 0 {
		t.Error("the overlay took none of the random edits")
	}
}

// stringValues lists the byte ranges of the string values that follow a
// document's "records" key (the text between the quotes).
func stringValues(data []byte) [][2]int {
	var out [][2]int
	i := bytes.Index(data, []byte(`"records"`))
	for i >= 0 {
		j := bytes.Index(data[i:], []byte(`": "`))
		if j < 0 {
			break
		}
		start := i + j + len(`": "`)
		end := start + bytes.IndexByte(data[start:], '"')
		out = append(out, [2]int{start, end})
		i = end + 1
	}
	return out
}
