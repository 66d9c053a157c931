package project

import (
	"fmt"
	"slices"
	"strings"
	"testing"

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
