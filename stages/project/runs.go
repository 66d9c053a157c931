package project

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// ProjectRuns projects every document on every core and reduces the items
// of each batch of documents, sorted by URI, at once, so a large base's
// items never all live together; the pages are reduced in runs too, one
// per stretch of pages that falls between two batches. A document's URIs
// all start with its path and #, which no other path holds, so a batch of
// documents consecutive in path order, with no page between them, is one
// run, and the reduced runs come back in URI order. project projects
// document i, docs[i] (AppendDocument, DocumentWhere, ...), appending its
// items to its batch's, into, and returning them; it may instead give runs
// of them to alone, each sorted and after the last, to be reduced on their
// own (DocumentRuns). termsOnly applies to pages. A document listed but
// not read yet (with Bytes and no records: see
// load.Scanned.DeferDocuments) weighs in its batch by its bytes; project
// reads it. reduce is given a run's items and the dictionary that numbered
// their terms (see Dict), both for the call only: a worker's next batch
// reuses their memory (the items' own strings and slices stay valid).
func ProjectRuns[U any](ctx context.Context, p *Projector, docs []model.Document, termsOnly bool,
	project func(i int, d model.Document, into []Item, s *Scratch, ds *diag.List, alone func([]Item)) []Item, reduce func(items []Item, terms Dict) U) ([]U, []diag.Diagnostic, error) {
	type run struct {
		first string
		value U
	}
	batches := batchDocuments(docs, p.pages)
	runs := make([][]run, len(batches))
	lists := make([]diag.List, len(docs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), max(len(batches), 1)) {
		wg.Go(func() {
			var s Scratch
			// One slice serves every batch of the worker: memory written
			// once is cheaper than fresh memory, which the collector may
			// read before it is written (see tokenizer.count).
			var items []Item
			for b := range next {
				from := 0 // where the items not reduced yet start
				flush := func(reset bool) {
					if reset {
						defer s.tk.resetDict()
					}
					got := items[from:]
					if len(got) == 0 {
						return
					}
					from = len(items)
					// Each document's items are sorted and the batch's
					// documents are in path order; a path that is a
					// prefix of another's is sorted here, not assumed.
					if !slices.IsSortedFunc(got, compareURI) {
						slices.SortStableFunc(got, compareURI)
					}
					runs[b] = append(runs[b], run{got[0].URI, reduce(got, s.tk.terms)})
				}
				// A run reduced alone follows the items gathered so far,
				// which are reduced first: a run's items must not span
				// another's. Both were numbered by one dictionary, which
				// starts again once neither needs it.
				alone := func(r []Item) {
					flush(false)
					if len(r) > 0 {
						runs[b] = append(runs[b], run{r[0].URI, reduce(r, s.tk.terms)})
					}
					s.tk.resetDict()
				}
				for _, i := range batches[b] {
					items = project(i, docs[i], items, &s, &lists[i], alone)
				}
				flush(true)
				clear(items) // what they hold is not kept for the next batch
				items = items[:0]
			}
		})
	}
	for b := range batches {
		if ctx.Err() != nil {
			break
		}
		next <- b
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var ds diag.List
	ds.Merge(p.Diagnostics())
	for i := range lists {
		ds.Merge(lists[i].Sorted())
	}
	all := slices.Concat(runs...)
	slices.SortFunc(all, func(a, b run) int { return strings.Compare(a.first, b.first) })

	var s Scratch
	pages := p.Pages(&s, termsOnly)
	var out []U
	for _, r := range all {
		n := 0
		for n < len(pages) && pages[n].URI < r.first {
			n++
		}
		if n > 0 {
			out = append(out, reduce(pages[:n], s.tk.terms))
			pages = pages[n:]
		}
		out = append(out, r.value)
	}
	if len(pages) > 0 {
		out = append(out, reduce(pages, s.tk.terms))
	}
	return out, ds.Sorted(), nil
}

func compareURI(a, b Item) int { return strings.Compare(a.URI, b.URI) }

// MinRunRecords is how many records a batch of documents gathers before
// it is reduced: the index merges one segment per run, at a cost per
// term of each segment, so ten thousand one-record documents reduced one
// by one cost several times what the same records in a few large
// documents do (cairn-bench shapes, tiny-docs). Documents not read yet
// count by their bytes instead: minRunBytes is about what that many
// records take in the benchmark's bases and in the PEPs'.
const (
	MinRunRecords = 2048
	minRunBytes   = 1 << 20
)

// batchDocuments groups the documents, by index, into batches of
// consecutive paths holding at least MinRunRecords records each (the last
// may hold fewer). A batch never spans a page whose URI sorts between
// two of its documents, so batches and page stretches interleave in URI
// order as documents did.
func batchDocuments(docs []model.Document, pages []model.Page) [][]int {
	order := make([]int, len(docs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(docs[a].Path, docs[b].Path) })
	uris := make([]string, len(pages))
	for i, pg := range pages {
		uris[i] = pg.Path
	}
	slices.Sort(uris)
	var out [][]int
	var cur []int
	records, bytes := 0, int64(0)
	for _, i := range order {
		if len(cur) > 0 {
			prev := docs[cur[len(cur)-1]].Path
			// The first page after the previous document: one that sorts
			// before this document separates them.
			k, _ := slices.BinarySearch(uris, prev+"#\xff")
			if records >= MinRunRecords || bytes >= minRunBytes || (k < len(uris) && uris[k] < docs[i].Path+"#") {
				out = append(out, cur)
				cur, records, bytes = nil, 0, 0
			}
		}
		cur = append(cur, i)
		records += len(docs[i].Records)
		if len(docs[i].Records) == 0 {
			bytes += docs[i].Bytes
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}
