package project

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// TestDocumentRunsIsDocumentCut: a large document projected a run at a
// time gives Document's items, in the same order, cut into runs of at
// most the size asked, each sorted and after the last; and the same
// diagnostics, a duplicate id across a cut included, once.
func TestDocumentRunsIsDocumentCut(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var records []string
	for i := range 40 {
		id := fmt.Sprintf("c%04x", r.IntN(1<<16)) // random, as commit ids are
		if i == 17 || i == 31 {
			id = "dup" // a duplicate, far apart in the file
		}
		records = append(records, fmt.Sprintf(`{"id": %q, "title": "run %d", "author": "marc", "at": "2026-11-02T10:%02d:00Z"}`, id, i, i))
	}
	records = append(records, `{"title": "no id", "at": "2026-11-02T11:00:00Z"}`, `{"id": "broken", `)
	r.Shuffle(len(records), func(i, j int) { records[i], records[j] = records[j], records[i] })
	doc := document(githubDoc, model.LayerEvents, "github", "2026-11-02", fields("id=.id", "title=.title", "author=.author", "time=.at"), records...)
	p := NewProjector(model.Base{Config: testConfig()})
	var want diag.List
	whole := p.Document(doc, &Scratch{}, &want, true)
	if len(whole) < 30 || !want.HasErrors() {
		t.Fatalf("the whole document gave %d items and errors %v", len(whole), want.Sorted())
	}
	for _, size := range []int{1, 3, 7, 16, len(records) - 1, len(records), 1000} {
		var got diag.List
		var runs [][]Item
		p.DocumentRuns(doc, &Scratch{}, &got, true, size, func(items []Item) { runs = append(runs, slices.Clone(items)) })
		if size <= len(whole)/2 && len(runs) < 2 {
			t.Fatalf("run size %d: %d runs", size, len(runs))
		}
		for i, run := range runs {
			if size < len(records) && len(run) > size {
				t.Errorf("run size %d: a run of %d items", size, len(run))
			}
			if !slices.IsSortedFunc(run, compareURI) || i > 0 && runs[i-1][len(runs[i-1])-1].URI > run[0].URI {
				t.Errorf("run size %d: run %d is out of URI order", size, i)
			}
		}
		// A term's number is the tokenizer's, which starts again per run.
		if diff := cmp.Diff(whole, slices.Concat(runs...), cmpopts.IgnoreFields(TermFreq{}, "ID")); diff != "" {
			t.Errorf("run size %d: items differ from Document's (-want +got):\n%s", size, diff)
		}
		if diff := cmp.Diff(want.Sorted(), got.Sorted()); diff != "" {
			t.Errorf("run size %d: diagnostics differ (-want +got):\n%s", size, diff)
		}
	}
}
