package stages

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/cairn-kb/cairn/stages/diag"
	"github.com/cairn-kb/cairn/stages/graph"
	"github.com/cairn-kb/cairn/stages/index"
	"github.com/cairn-kb/cairn/stages/model"
	"github.com/cairn-kb/cairn/stages/project"
)

// unit is one run of items that are consecutive in URI order, reduced to
// what the index and the graph need: a document's records, or pages that
// sort between documents.
type unit struct {
	first string // the run's first URI
	seg   index.Segment
	nodes []graph.Node
}

// projectCorpus projects every document on its own core and turns its
// items at once into an index segment and graph nodes, so a large base's
// items never all live at once; then it does the same for the pages and
// puts the runs in URI order. A document's URIs all start with its path
// and #, which no other path holds, so each document is one run.
func projectCorpus(ctx context.Context, b model.Base) ([]index.Segment, []graph.Node, []diag.Diagnostic, error) {
	p := project.NewProjector(b)
	units := make([]unit, len(b.Documents))
	lists := make([]diag.List, len(b.Documents))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), max(len(b.Documents), 1)) {
		wg.Go(func() {
			var s project.Scratch
			for i := range next {
				items := p.Document(b.Documents[i], &s, &lists[i], true)
				units[i] = toUnit(items)
			}
		})
	}
	for i := range b.Documents {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	var ds diag.List
	ds.Merge(p.Diagnostics())
	for i := range lists {
		ds.Merge(lists[i].Sorted())
	}
	docs := slices.DeleteFunc(units, func(u unit) bool { return u.first == "" })
	slices.SortFunc(docs, func(a, b unit) int { return strings.Compare(a.first, b.first) })

	// Pages fall between documents in URI order; each stretch of pages
	// between two documents is one run.
	var s project.Scratch
	pages := p.Pages(&s, true)
	var ordered []unit
	for _, d := range docs {
		n := 0
		for n < len(pages) && pages[n].URI < d.first {
			n++
		}
		if n > 0 {
			ordered = append(ordered, toUnit(pages[:n]))
			pages = pages[n:]
		}
		ordered = append(ordered, d)
	}
	if len(pages) > 0 {
		ordered = append(ordered, toUnit(pages))
	}
	segs := make([]index.Segment, len(ordered))
	var nodes []graph.Node
	for i, u := range ordered {
		segs[i] = u.seg
		nodes = append(nodes, u.nodes...)
	}
	return segs, nodes, ds.Sorted(), nil
}

// toUnit reduces a run of items, sorted by URI, to its segment and nodes.
func toUnit(items []project.Item) unit {
	if len(items) == 0 {
		return unit{}
	}
	u := unit{first: items[0].URI, seg: index.NewSegment(items), nodes: make([]graph.Node, len(items))}
	for i := range items {
		u.nodes[i] = graph.NodeOf(&items[i])
	}
	return u
}
