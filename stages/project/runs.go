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

// ProjectRuns projects every document and page on every core and reduces
// the items of each batch of them, sorted by URI, at once, so a large
// base's items never all live together. A document's URIs all start with
// its path and #, which no other path holds, so a batch of documents
// consecutive in path order, with no page between them, is one run, as is
// a batch of consecutive pages, and the reduced runs come back in URI
// order. project projects document i, docs[i] (AppendDocument,
// DocumentWhere, ...), appending its items to its batch's, into, and
// returning them; it may instead give runs of them to alone, each sorted
// and after the last, to be reduced on their own (DocumentRuns). termsOnly
// applies to pages. A document listed but not read yet (with Bytes and no
// records: see load.Scanned.DeferDocuments) weighs in its batch by its
// bytes; project reads it. reduce is given a run's items and the
// dictionary that numbered their terms (see Dict), both for the call only:
// a worker's next batch reuses their memory (the items' own strings and
// slices stay valid). The batches of pages are projected first.
func ProjectRuns[U any](ctx context.Context, p *Projector, docs []model.Document, termsOnly bool,
	project func(i int, d model.Document, into []Item, s *Scratch, ds *diag.List, alone func([]Item)) []Item, reduce func(items []Item, terms Dict) U) ([]U, []diag.Diagnostic, error) {
	type run struct {
		first string
		value U
	}
	batches := batchUnits(docs, p.pages)
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
				for _, i := range batches[b].docs {
					items = project(i, docs[i], items, &s, &lists[i], alone)
				}
				for _, k := range batches[b].pages {
					items = append(items, p.page(p.pages[k], &s, termsOnly))
					if p.dropText {
						p.pages[k].Body = ""
					}
				}
				flush(true)
				clear(items) // what they hold is not kept for the next batch
				items = items[:0]
			}
		})
	}
	// The batches of pages go first: the pages were loaded together, and
	// those of a projector that drops their text (a build's) are let go
	// of then, before the documents are read. The runs are put in URI
	// order below, whatever order they were reduced in.
	for _, pages := range []bool{true, false} {
		for b := range batches {
			if ctx.Err() != nil {
				break
			}
			if (len(batches[b].pages) > 0) == pages {
				next <- b
			}
		}
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
	out := make([]U, len(all))
	for i, r := range all {
		out[i] = r.value
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

// batch is a unit of ProjectRuns' work: documents or pages, by index,
// consecutive in URI order.
type batch struct {
	docs, pages []int
}

// batchUnits groups the documents and pages into batches of consecutive
// URIs, each of documents or of pages alone: a batch of documents holds at
// least MinRunRecords records (or minRunBytes of documents not read yet),
// one of pages that many pages or minRunBytes of their text, the last of
// a stretch fewer. A document's URIs sort as its path and # do, so a page
// whose path sorts between two documents' ends the batch of the first.
func batchUnits(docs []model.Document, pages []model.Page) []batch {
	order := make([]int, len(docs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(docs[a].Path, docs[b].Path) })
	pageOrder := make([]int, len(pages))
	for i := range pageOrder {
		pageOrder[i] = i
	}
	slices.SortStableFunc(pageOrder, func(a, b int) int { return strings.Compare(pages[a].Path, pages[b].Path) })
	var out []batch
	var cur batch
	count, bytes := 0, int64(0)
	end := func() {
		if len(cur.docs)+len(cur.pages) > 0 {
			out = append(out, cur)
		}
		cur, count, bytes = batch{}, 0, 0
	}
	for len(order)+len(pageOrder) > 0 {
		if len(pageOrder) == 0 || len(order) > 0 && docs[order[0]].Path+"#" < pages[pageOrder[0]].Path {
			i := order[0]
			order = order[1:]
			if len(cur.pages) > 0 || count >= MinRunRecords || bytes >= minRunBytes {
				end()
			}
			d := &docs[i]
			cur.docs = append(cur.docs, i)
			count += len(d.Records)
			if len(d.Records) == 0 {
				bytes += d.Bytes
			}
			continue
		}
		k := pageOrder[0]
		pageOrder = pageOrder[1:]
		if len(cur.docs) > 0 || count >= MinRunRecords || bytes >= minRunBytes {
			end()
		}
		cur.pages = append(cur.pages, k)
		count++
		bytes += int64(len(pages[k].Body))
	}
	end()
	return out
}
