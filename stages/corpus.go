package stages

import (
	"context"
	"maps"
	"slices"
	"strings"
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
	seg   index.Segment
	nodes graph.NodeRun
	err   error // the run could not be spilled
}

// projectCorpus projects every batch of documents or pages on its own
// core and turns its items at once into an index segment and graph nodes,
// so a large base's items never all live at once, and puts the runs in
// URI order (project.ProjectRuns). The pages go first, and each page's
// text is let go of once it is projected (project.DropPageText), as a
// document's is below.
//
// Each run is spilled to scratch as soon as it is reduced: its postings
// and rows (index.NewSpilledSegment) and its nodes (graph.SpillNodes).
// What stays in memory until the index and graph read the runs back is
// what places each item among the others (project.Placing), so a build's
// memory grows with its largest run and that, not with the base's items.
//
// The documents may be listed and not read yet (load.Scanned.
// DeferDocuments): read then reads each as its batch projects it, so the
// base's text is never all in memory either. Each document's row of
// documents.tsv is made as it is projected.
//
// progress, when not nil, is called as each document is projected, on
// whichever core projected it, one call at a time.
func projectCorpus(ctx context.Context, b model.Base, read func(d model.Document, ds *diag.List) (model.Document, bool),
	scratch *artifacts.Scratch, progress func(done, total int)) ([]index.Segment, []graph.NodeRun, []artifacts.Document, []diag.Diagnostic, error) {
	p := project.NewProjector(b)
	p.DropPageText()
	var mu sync.Mutex
	projected := 0
	rows := make([]artifacts.Document, len(b.Documents)) // a document not read has none
	shapes := documentShapes{seen: map[string]artifacts.Document{}}
	document := func(i int, d model.Document, items []project.Item, s *project.Scratch, ds *diag.List, alone func([]project.Item)) []project.Item {
		if read != nil {
			var ok bool
			if d, ok = read(d, ds); !ok {
				return items
			}
		}
		// A document of several runs is projected and reduced a run at a
		// time, its records in URI order; a smaller one joins its batch.
		if len(d.Records) >= 2*runRecords {
			p.DocumentRuns(d, s, ds, true, runRecords, alone)
		} else {
			items = p.AppendDocument(items, d, s, ds, true)
		}
		rows[i] = shapes.own(index.DocumentRow(b.Config, d))
		// What outlives projection is spilled, so the document's text is
		// dropped here.
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
	reduce := func(items []project.Item, terms project.Dict) unit {
		var u unit
		if u.seg, u.err = index.NewSpilledSegment(items, terms, scratch, b.Config); u.err != nil {
			return u
		}
		nodes := make([]graph.Node, len(items))
		for i := range items {
			nodes[i] = graph.NodeOf(&items[i])
		}
		u.nodes, u.err = graph.SpillNodes(scratch, nodes)
		return u
	}
	units, diags, err := project.ProjectRuns(ctx, p, b.Documents, true, document, reduce)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	segs := make([]index.Segment, len(units))
	runs := make([]graph.NodeRun, len(units))
	for i, u := range units {
		if u.err != nil {
			return nil, nil, nil, nil, u.err
		}
		segs[i], runs[i] = u.seg, u.nodes
	}
	var docs []artifacts.Document
	for _, r := range rows {
		if r.Path != "" {
			docs = append(docs, r)
		}
	}
	return segs, runs, docs, diags, nil
}

// runRecords is how many records of a large document are projected and
// reduced at a time (a variable so that a test can cut the demo's small
// documents too).
var runRecords = project.MinRunRecords

// documentShapes keeps one copy of each fields map and relations list the
// documents' rows of documents.tsv hold: a base's documents mostly share a
// few (one per source), and a row outlives its document's text, which
// its strings share and must not keep alive.
type documentShapes struct {
	mu   sync.Mutex
	seen map[string]artifacts.Document // by fields and relations, spelled out
	key  []byte
}

// own returns r with its strings copied and its fields map and relations
// those of the first row of the same shape.
func (sh *documentShapes) own(r artifacts.Document) artifacts.Document {
	r.Path, r.Layer, r.Source, r.Date = strings.Clone(r.Path), strings.Clone(r.Layer), strings.Clone(r.Source), strings.Clone(r.Date)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	key := sh.key[:0]
	for _, rel := range r.Relations {
		key = append(append(key, rel...), 0)
	}
	key = append(key, 1)
	for _, k := range slices.Sorted(maps.Keys(r.Fields)) {
		key = append(append(key, k...), 0)
		for _, p := range r.Fields[k] {
			key = append(append(key, p...), 0)
		}
		key = append(key, 1)
	}
	sh.key = key
	if same, ok := sh.seen[string(key)]; ok {
		r.Fields, r.Relations = same.Fields, same.Relations
		return r
	}
	relations := make([]string, len(r.Relations))
	for i, rel := range r.Relations {
		relations[i] = strings.Clone(rel)
	}
	fields := make(map[string][]string, len(r.Fields))
	for k, paths := range r.Fields {
		owned := make([]string, len(paths))
		for j, p := range paths {
			owned[j] = strings.Clone(p)
		}
		fields[strings.Clone(k)] = owned
	}
	r.Fields, r.Relations = fields, relations
	sh.seen[string(key)] = r
	return r
}
