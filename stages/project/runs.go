package project

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/cairn-kb/cairn/stages/diag"
	"github.com/cairn-kb/cairn/stages/model"
)

// ProjectRuns projects every document on every core and reduces each
// document's items, sorted by URI, at once, so a large base's items never
// all live together; the pages are reduced in runs too, one per stretch of
// pages that falls between two documents. A document's URIs all start with
// its path and #, which no other path holds, so each document is one run,
// and the reduced runs come back in URI order. project projects one
// document (Document, DocumentWhere, ...); termsOnly applies to pages.
func ProjectRuns[U any](ctx context.Context, p *Projector, docs []model.Document, termsOnly bool,
	project func(d model.Document, s *Scratch, ds *diag.List) []Item, reduce func(items []Item) U) ([]U, []diag.Diagnostic, error) {
	type run struct {
		first string
		value U
	}
	runs := make([]run, len(docs))
	lists := make([]diag.List, len(docs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), max(len(docs), 1)) {
		wg.Go(func() {
			var s Scratch
			for i := range next {
				if items := project(docs[i], &s, &lists[i]); len(items) > 0 {
					runs[i] = run{items[0].URI, reduce(items)}
				}
			}
		})
	}
	for i := range docs {
		if ctx.Err() != nil {
			break
		}
		next <- i
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
	runs = slices.DeleteFunc(runs, func(r run) bool { return r.first == "" })
	slices.SortFunc(runs, func(a, b run) int { return strings.Compare(a.first, b.first) })

	var s Scratch
	pages := p.Pages(&s, termsOnly)
	var out []U
	for _, r := range runs {
		n := 0
		for n < len(pages) && pages[n].URI < r.first {
			n++
		}
		if n > 0 {
			out = append(out, reduce(pages[:n]))
			pages = pages[n:]
		}
		out = append(out, r.value)
	}
	if len(pages) > 0 {
		out = append(out, reduce(pages))
	}
	return out, ds.Sorted(), nil
}
