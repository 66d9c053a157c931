package project

import (
	"fmt"
	"slices"
	"testing"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// TestBatchDocuments: documents are batched in path order until a batch
// holds MinRunRecords records, and a page whose URI sorts between two
// documents ends the batch there, so runs and pages interleave in URI
// order.
func TestBatchDocuments(t *testing.T) {
	docs := []model.Document{}
	for i := range 5 {
		docs = append(docs, model.Document{Path: fmt.Sprintf("events/2026-11-0%d/a.json", 5-i), Records: make([]model.Record, MinRunRecords/2)})
	}
	docs = append(docs, model.Document{Path: "index/z.json", Records: make([]model.Record, 1)})
	pages := []model.Page{{Path: "events/2026-11-03/notes.md"}, {Path: "wiki/a.md"}}
	got := batchDocuments(docs, pages)
	// Paths in order are indexes 4, 3, 2, 1, 0 (days 01..05), then 5. A
	// page sits between day 03 and day 04.
	want := [][]int{{4, 3}, {2}, {1, 0}, {5}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("batches %v, want %v", got, want)
	}
}
