package stages

import (
	"context"
	"sync"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/graph"
	"github.com/cairn-kb/cairn/stages/index"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/project"
)

// unit is one run of items that are consecutive in URI order, reduced to
// what the index and the graph need: a document's records, or pages that
// sort between documents.
type unit struct {
	first string // the run's first URI
	seg   index.Segment
	nodes []graph.Node
	err   error // the segment could not be spilled
}

// projectCorpus projects every document on its own core and turns its
// items at once into an index segment and graph nodes, so a large base's
// items never all live at once; then it does the same for the pages and
// puts the runs in URI order. A document's URIs all start with its path
// and #, which no other path holds, so each document is one run.
//
// Each segment's postings are spilled to scratch as soon as it is made
// (index.Segment.Spill), so that the runs' postings, the largest thing a
// build makes, are never all in memory: the index merges them back from
// there.
//
// progress, when not nil, is called as each document is projected, on
// whichever core projected it, one call at a time.
func projectCorpus(ctx context.Context, b model.Base, scratch *artifacts.Scratch, progress func(done, total int)) ([]index.Segment, []graph.Node, []diag.Diagnostic, error) {
	p := project.NewProjector(b)
	var mu sync.Mutex
	projected := 0
	document := func(d model.Document, s *project.Scratch, ds *diag.List) []project.Item {
		items := p.Document(d, s, ds, true)
		// What outlives projection owns its bytes (toUnit), so the
		// document's text is dropped here.
		for i := range d.Records {
			d.Records[i].Raw = ""
		}
		if progress != nil {
			mu.Lock()
			projected++
			progress(projected, len(b.Documents))
			mu.Unlock()
		}
		return items
	}
	reduce := func(items []project.Item) unit {
		u := toUnit(items)
		u.err = u.seg.Spill(scratch)
		return u
	}
	units, diags, err := project.ProjectRuns(ctx, p, b.Documents, true, document, reduce)
	if err != nil {
		return nil, nil, nil, err
	}
	segs := make([]index.Segment, len(units))
	var nodes []graph.Node
	for i, u := range units {
		if u.err != nil {
			return nil, nil, nil, u.err
		}
		segs[i] = u.seg
		nodes = append(nodes, u.nodes...)
	}
	return segs, nodes, diags, nil
}

// toUnit reduces a run of items, sorted by URI, to its segment and nodes.
func toUnit(items []project.Item) unit {
	if len(items) == 0 {
		return unit{}
	}
	u := unit{first: items[0].URI, seg: index.NewSegment(items), nodes: make([]graph.Node, len(items))}
	var ptrs []*string
	for i := range items {
		n := &u.nodes[i]
		*n = graph.NodeOf(&items[i])
		ptrs = append(ptrs, &n.URI, &n.At)
		for j := range n.Links {
			ptrs = append(ptrs, &n.Links[j].Kind, &n.Links[j].Node)
		}
	}
	index.Own(ptrs)
	return u
}
