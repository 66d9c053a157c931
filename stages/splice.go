package stages

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/diag"
	"github.com/cairn-kb/cairn/stages/emit"
	"github.com/cairn-kb/cairn/stages/graph"
	"github.com/cairn-kb/cairn/stages/index"
	"github.com/cairn-kb/cairn/stages/load"
	"github.com/cairn-kb/cairn/stages/project"
)

// spliceShare sets the share of the inputs' bytes (1/spliceShare) above
// which changed record documents are indexed with the whole corpus rather
// than spliced into the previous index: splicing reads and rewrites every
// artifact whatever changed, while projecting costs in proportion to what
// is projected. (A variable so that tests can splice small bases.)
var spliceShare int64 = 4

// splicing decides, before anything is parsed, whether the corpus stage
// can replace the changed units in the previous build's index and graph:
// only record documents and pages changed, and the previous index and
// graph are on disk as that build wrote them. Then only the changed
// documents are parsed.
func (b *build) splicing(scanned *load.Scanned) *load.CorpusChanges {
	prev := b.in.Previous
	if b.in.whole || prev == nil || b.in.Intact == nil {
		return nil
	}
	for _, name := range []string{StageIndex, StageGraph} {
		st, ok := prev.Stage(name)
		if !ok {
			return nil
		}
		for _, p := range st.Outputs {
			if !b.in.Intact(p) {
				return nil
			}
		}
	}
	c, ok := scanned.CorpusChanges(prev)
	if !ok {
		return nil
	}
	var total int64
	for _, in := range prev.Inputs {
		total += in.Bytes
	}
	if spliceShare > 1 && c.Bytes*spliceShare > total {
		return nil
	}
	return &c
}

// spliceCorpus is the corpus stage when only some units changed: the
// changed documents and pages are projected and spliced into the previous
// index and graph. errWhole when the splice cannot give what a whole
// build would.
func (b *build) spliceCorpus(ctx context.Context) ([]emit.Stage, error) {
	base := b.loaded.Base
	c := b.changes
	read := func(path string) ([]byte, error) { return fs.ReadFile(b.in.FS, path) }
	var prev index.Previous
	var edges, edgesDst []byte
	for _, f := range []struct {
		path string
		to   *[]byte
	}{{artifacts.DocsPath, &prev.Docs}, {artifacts.DocsKeyPath, &prev.Key}, {artifacts.FieldsPath, &prev.Fields},
		{artifacts.TermsPath, &prev.Terms}, {artifacts.PostingsPath, &prev.Postings}, {artifacts.DocumentsPath, &prev.Documents},
		{artifacts.EdgesPath, &edges}, {artifacts.EdgesDstPath, &edgesDst}} {
		data, err := read(f.path)
		if err != nil {
			return nil, errWhole
		}
		*f.to = data
	}
	// A cached body whose record document is gone is reported by a whole
	// build; so is one of a changed document, which the projector checks.
	here := map[string]bool{}
	for _, d := range base.Documents {
		here[d.Path] = true
	}
	for _, body := range base.Bodies {
		doc, _, _ := strings.Cut(body.URI, "#")
		if slices.Contains(c.Documents, doc) && !here[doc] {
			return nil, errWhole
		}
	}
	p := project.NewProjector(base)
	var ds diag.List
	var s project.Scratch
	var segs []index.Segment
	var items [][]project.Item
	for _, d := range base.Documents {
		its := p.Document(d, &s, &ds, true)
		items = append(items, its)
		segs = append(segs, index.NewSegment(its))
	}
	for _, it := range p.Pages(&s, true) {
		if _, ok := slices.BinarySearch(c.Pages, it.URI); ok {
			items = append(items, []project.Item{it})
			segs = append(segs, index.NewSegment([]project.Item{it}))
		}
	}
	for _, pg := range base.Pages {
		if _, ok := slices.BinarySearch(c.Pages, pg.Path); ok && len(pg.Front.Supersedes) > 0 {
			return nil, errWhole // it may flag items this build keeps
		}
	}
	b.mark("project")
	if b.ds.Merge(ds.Sorted()); b.ds.HasErrors() {
		return nil, nil
	}
	idx, err := index.Splice(ctx, index.SpliceInput{Config: base.Config, Previous: prev, Documents: c.Documents, Pages: c.Pages,
		Segments: segs, Current: base.Documents})
	if errors.Is(err, index.ErrNoSplice) {
		return nil, errWhole
	}
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	gone := map[string]bool{}
	var nodes []graph.Node
	var ords []int32
	for _, its := range items {
		for i := range its {
			nodes = append(nodes, graph.NodeOf(&its[i]))
		}
	}
	for _, n := range nodes {
		o, ok := idx.Renumber.New(n.URI)
		if !ok {
			return nil, fmt.Errorf("index: %s has no ordinal", n.URI)
		}
		ords = append(ords, o)
	}
	for _, u := range idx.Renumber.Gone() {
		gone[u] = true
	}
	gr, err := graph.Splice(ctx, graph.SpliceInput{Config: base.Config, Edges: edges, EdgesDst: edgesDst,
		Renumber: idx.Renumber.Old, Gone: gone, At: func(o int32) string { return idx.Stamps[o] }, Nodes: nodes, Ords: ords})
	if errors.Is(err, graph.ErrNoSplice) {
		return nil, errWhole
	}
	if err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	files := append(idx.Files, artifacts.File{Path: artifacts.BodiesPath, Data: artifacts.EncodeBodies(index.BodyRows(base.Bodies))})
	b.out.Items, b.out.Edges, b.out.Spliced = idx.Items, gr.Edges, len(c.Documents)+len(c.Pages)
	key := b.keys[load.GroupCorpus]
	return []emit.Stage{{Name: StageIndex, Key: key, Files: files}, {Name: StageGraph, Key: key, Files: gr.Files}}, nil
}

// errWhole is the splice giving way to a whole build of the corpus.
var errWhole = errors.New("the corpus must be built whole")
