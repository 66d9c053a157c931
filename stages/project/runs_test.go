package project

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// TestBatchUnits: documents are batched in path order until a batch holds
// MinRunRecords records, and a page whose URI sorts between two documents
// ends the batch there and starts one of pages, so runs of documents and
// of pages interleave in URI order; pages are batched until they hold
// MinRunRecords pages or minRunBytes of text.
func TestBatchUnits(t *testing.T) {
	docs := []model.Document{}
	for i := range 5 {
		docs = append(docs, model.Document{Path: fmt.Sprintf("events/2026-11-0%d/a.json", 5-i), Records: make([]model.Record, MinRunRecords/2)})
	}
	docs = append(docs, model.Document{Path: "index/z.json", Records: make([]model.Record, 1)})
	pages := []model.Page{{Path: "wiki/a.md"}, {Path: "events/2026-11-03/notes.md"}, {Path: "wiki/c.md"},
		{Path: "wiki/b.md", Body: strings.Repeat("x", minRunBytes)}}
	got := batchUnits(docs, pages)
	// Paths in order are documents 4, 3, 2, 1, 0 (days 01..05), then 5. A
	// page sits between day 03 and day 04; the wiki's pages come last,
	// b's text ending its batch.
	want := []batch{{docs: []int{4, 3}}, {docs: []int{2}}, {pages: []int{1}}, {docs: []int{1, 0}}, {docs: []int{5}},
		{pages: []int{0, 3}}, {pages: []int{2}}}
	if !slices.EqualFunc(got, want, func(a, b batch) bool { return slices.Equal(a.docs, b.docs) && slices.Equal(a.pages, b.pages) }) {
		t.Errorf("batches %v, want %v", got, want)
	}
}

// TestDropPageText: a projector that drops its pages' text reduces the
// same runs, pages first or not, and leaves every page of the base it was
// given without a body; one that does not leaves them as they were. It
// refuses to project a page again.
func TestDropPageText(t *testing.T) {
	base := func() model.Base {
		var pages []model.Page
		for i := range 5 {
			pages = append(pages, page(fmt.Sprintf("wiki/p%d.md", i), model.LayerWiki, fmt.Sprintf("p%d", i),
				model.Frontmatter{Title: fmt.Sprintf("Page %d", i)}, fmt.Sprintf("The body of page %d, with [a link](p%d.md).\n", i, (i+1)%5)))
		}
		doc := document(githubDoc, model.LayerEvents, "github", "2026-11-02", fields("id=.id", "title=.title"),
			`{"id": "a1", "title": "first"}`, `{"id": "b2", "title": "second"}`)
		return model.Base{Config: testConfig(), Pages: pages, Documents: []model.Document{doc}}
	}
	project := func(b model.Base, drop bool) [][]Item {
		p := NewProjector(b)
		if drop {
			p.DropPageText()
		}
		document := func(i int, d model.Document, into []Item, s *Scratch, ds *diag.List, alone func([]Item)) []Item {
			return p.AppendDocument(into, d, s, ds, true)
		}
		runs, _, err := ProjectRuns(context.Background(), p, b.Documents, true, document,
			func(items []Item, _ Dict) []Item { return slices.Clone(items) })
		if err != nil {
			t.Fatal(err)
		}
		return runs
	}
	kept, dropped := base(), base()
	want, got := project(kept, false), project(dropped, true)
	if len(want) != 2 {
		t.Fatalf("%d runs, want one of the document and one of the pages", len(want))
	}
	// A term's number is its worker's dictionary's, which numbers in the
	// order the batches come.
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(TermFreq{}, "ID")); diff != "" {
		t.Errorf("dropping the text changed the runs (-kept +dropped):\n%s", diff)
	}
	for i := range kept.Pages {
		if kept.Pages[i].Body == "" || dropped.Pages[i].Body != "" {
			t.Errorf("page %s: body %q kept, %q dropped", kept.Pages[i].Path, kept.Pages[i].Body, dropped.Pages[i].Body)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("PagesNamed projected a page whose text was dropped")
		}
	}()
	p := NewProjector(dropped)
	p.DropPageText()
	p.PagesNamed([]string{"wiki/p1.md"}, &Scratch{}, true)
}

// TestSharedFieldsMapCompiledPerSchema: documents sharing one fields map
// (as load hands it out) are projected alike through one scratch, except
// where a document's own schema makes a field a relation: its map is
// compiled for it alone; and a scratch compiles again for a projector
// whose configuration is another.
func TestSharedFieldsMapCompiledPerSchema(t *testing.T) {
	shared := fields("id=.id", "title=.title", "reviewer=.reviewer")
	doc := func(day string) model.Document {
		return document("events/"+day+"/github.json", model.LayerEvents, "github", day, shared,
			`{"id": "r-`+day+`", "title": "a record", "reviewer": "person:email/ana@x.test"}`)
	}
	plain, declared, after := doc("2026-11-01"), doc("2026-11-02"), doc("2026-11-03")
	declared.Schema = map[string]model.FieldSpec{"reviewer": {Relation: true}}
	p := NewProjector(model.Base{Config: testConfig()})
	var s Scratch
	var ds diag.List
	var got []int
	for _, d := range []model.Document{plain, declared, after} {
		items := p.AppendDocument(nil, d, &s, &ds, false)
		if len(items) != 1 {
			t.Fatalf("%s: %d items, diagnostics %v", d.Path, len(items), ds.Sorted())
		}
		got = append(got, len(items[0].Relations))
	}
	if !slices.Equal(got, []int{0, 1, 0}) {
		t.Errorf("relations per document %v, want only the one whose schema declares reviewer", got)
	}
	// The same scratch for a projector whose configuration makes reviewer
	// a relation: its compilation is that projector's own.
	cfg := testConfig()
	cfg.Schema["reviewer"] = model.FieldSpec{Relation: true}
	items := NewProjector(model.Base{Config: cfg}).AppendDocument(nil, plain, &s, &ds, false)
	if len(items) != 1 || len(items[0].Relations) != 1 {
		t.Errorf("another projector through the same scratch gave %d items, relations %v", len(items), items)
	}
}
