// Package splice makes the index and graph of a corpus from the previous
// build's, when only some record documents and pages changed: the changed
// units are projected and spliced in (index.Splice, graph.Splice), the
// rest is copied. The bytes are those a whole build writes. The build's
// corpus stage uses it, and so does a query that finds the artifacts
// stale, to answer from them and the few files that changed instead of
// scanning the whole base.
//
// In: the base as load parsed it for the changes (the changed documents
// and pages, the cached bodies), the changes, and an fs.FS that holds the
// previous artifacts; what unchanged pages supersede is read from the
// previous edge tables. Out: the files of the index and graph stages. It
// reads the previous artifacts and writes only through the spool it may
// be given.
package splice

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/graph"
	"github.com/cairn-kb/cairn/stages/index"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/load"
	"github.com/cairn-kb/cairn/stages/project"
)

// Input is what a splice reads.
type Input struct {
	// FS holds the previous artifacts, under artifacts.Dir.
	FS fs.FS
	// Base is the base as load parsed it after Scanned.Narrow and
	// Scanned.NarrowPages: the changed documents and pages that are still
	// there, every body. (Other pages, when given, change nothing.)
	Base    model.Base
	Changes load.CorpusChanges
	// Projected, when set, is called once the previous index is read and
	// the changed units are projected, before they are spliced in (for a
	// build's --timings). The index is read first: read after the
	// projection, it cost a new day's splice a fifth more CPU, in system
	// time.
	Projected func()
	// Written, when set, is the manifest the previous artifacts must
	// match, byte for byte: a reader that holds no lock (a query, a build
	// --check) checks that no build replaced them while it read. A build,
	// which holds the lock, leaves it nil.
	Written *artifacts.Manifest
	// Spool is where the large tables are written (a build's); nil writes
	// them in memory (a query's).
	Spool *artifacts.Spool
}

// Output is the spliced index and graph.
type Output struct {
	// Index and Graph are the files of the index and graph stages.
	Index, Graph []artifacts.File
	// GraphSame says the graph is the previous one, byte for byte: Graph
	// then holds the previous files as they were read (none when the
	// splice read only some of their rows, as a build's does), and a build
	// keeps them rather than writing them again.
	GraphSame bool
	// IndexKept names the previous index files a build's splice left as
	// they are, being the new ones (index.Spliced.Kept): the build keeps
	// them as the graph's when GraphSame.
	IndexKept    []string
	Items, Edges int
	// Diagnostics are the changed units' own, sorted.
	Diagnostics []diag.Diagnostic
}

// ErrWhole says the splice cannot give what a whole build would (the
// previous artifacts are unreadable, a page that changed supersedes, a
// field could lose its last item, ...): the corpus must be built whole.
var ErrWhole = errors.New("the corpus must be built whole")

// Run splices the changes into the previous index and graph. Mistakes in
// the changed units come back in Output.Diagnostics, with no files.
//
// A build's splice (one that spools) maps the previous artifacts rather
// than reading them into memory (artifacts.Mapped): it reads every table
// once to write it again, and what its output keeps of them it copies. A
// mapped file cut short by another program meanwhile makes the build
// whole. A reader that keeps what it reads (a query's) reads them.
func Run(ctx context.Context, in Input) (Output, error) {
	if in.Spool == nil {
		return run(ctx, in, func(path string) ([]byte, error) { return fs.ReadFile(in.FS, path) }, func(b []byte) []byte { return b })
	}
	var m artifacts.Mapped
	defer m.Release()
	var out Output
	err := m.Guard(func() (err error) {
		out, err = run(ctx, in, func(path string) ([]byte, error) { return m.Read(in.FS, path) }, bytes.Clone)
		return err
	})
	if errors.Is(err, artifacts.ErrMappedChanged) {
		return Output{}, ErrWhole
	}
	return out, err
}

// run is Run reading each artifact with readFile; keep gives what the
// output holds of bytes read so, which must outlive them.
func run(ctx context.Context, in Input, readFile func(path string) ([]byte, error), keep func([]byte) []byte) (out Output, err error) {
	base, c := in.Base, in.Changes
	// A cached body whose record document is gone is reported by a whole
	// build; so is one of a changed document, which the projector checks.
	here := map[string]bool{}
	for _, d := range base.Documents {
		here[d.Path] = true
	}
	for _, body := range base.Bodies {
		doc, _, _ := strings.Cut(body.URI, "#")
		if slices.Contains(c.Documents, doc) && !here[doc] {
			return out, ErrWhole
		}
	}
	// A page that supersedes flags the items it names, which the splice
	// may keep: one that does now, or did before it changed or left,
	// makes the build whole.
	for _, pg := range base.Pages {
		if _, ok := slices.BinarySearch(c.Pages, pg.Path); ok && len(pg.Front.Supersedes) > 0 {
			return out, ErrWhole
		}
	}
	var prev index.Previous
	read := func(path string) ([]byte, error) {
		data, err := readFile(path)
		if err != nil {
			return nil, ErrWhole
		}
		if replaced(in, path, data) {
			return nil, ErrWhole
		}
		return data, nil
	}
	if prev.Docs, err = readString(in, artifacts.DocsPath); err != nil {
		return out, err
	}
	for _, f := range []struct {
		path string
		to   *[]byte
	}{{artifacts.DocsKeyPath, &prev.Key}, {artifacts.FieldsPath, &prev.Fields},
		{artifacts.TermsPath, &prev.Terms}, {artifacts.PostingsPath, &prev.Postings}, {artifacts.DocumentsPath, &prev.Documents}} {
		if *f.to, err = read(f.path); err != nil {
			return out, err
		}
	}
	// edges.tsv is read whole when the graph changes, or for a reader that
	// must check it against the manifest; otherwise the splice reads the
	// rows it looks at: the pages' (what they supersede) and the changed
	// units'. edges.dst.tsv, where alone the records' edges are, is read
	// whole once the index is spliced.
	g, err := openGraph(in, read)
	if err != nil {
		return out, err
	}
	defer g.close()
	// The pages given may be only the changed ones: what the others
	// supersede, which flags items of the changed documents, is read
	// from their supersedes edges.
	p := project.NewProjector(base)
	p.Supersede(supersededIn(g.near)...)
	var ds diag.List
	var s project.Scratch
	var segs []index.Segment
	var items [][]project.Item
	for _, d := range base.Documents {
		its := p.Document(d, &s, &ds, true)
		items = append(items, its)
		segs = append(segs, index.NewSegment(its))
	}
	for _, it := range p.PagesNamed(c.Pages, &s, true) {
		items = append(items, []project.Item{it})
		segs = append(segs, index.NewSegment([]project.Item{it}))
	}
	if in.Projected != nil {
		in.Projected()
	}
	if out.Diagnostics = ds.Sorted(); ds.HasErrors() {
		return out, nil
	}
	for _, p := range c.Pages {
		if supersededBefore(g.near, p) {
			return out, ErrWhole
		}
	}
	idx, err := index.Splice(ctx, index.SpliceInput{Config: base.Config, Previous: prev, Documents: c.Documents, Pages: c.Pages,
		Segments: segs, Current: base.Documents, Spool: in.Spool})
	if errors.Is(err, index.ErrNoSplice) {
		return out, ErrWhole
	}
	if err != nil {
		return out, fmt.Errorf("index: %w", err)
	}
	var nodes []graph.Node
	var ords []int32
	for _, its := range items {
		for i := range its {
			n := graph.NodeOf(&its[i])
			o, ok := idx.Renumber.New(n.URI)
			if !ok {
				return out, fmt.Errorf("index: %s has no ordinal", n.URI)
			}
			nodes, ords = append(nodes, n), append(ords, o)
		}
	}
	if err := g.readDst(read); err != nil {
		return out, err
	}
	if idx.Unmoved && sameLinks(g.near, g.edgesDst, nodes, ords) {
		// The graph is a function of the items' URIs, stamps and links,
		// and of the identities: none changed, so neither did it.
		out.Index = append(idx.Files, artifacts.File{Path: artifacts.BodiesPath, Data: artifacts.EncodeBodies(index.BodyRows(base.Bodies))})
		if g.edges != nil {
			out.Graph = []artifacts.File{{Path: artifacts.EdgesPath, Data: keep(g.edges)}, {Path: artifacts.EdgesDstPath, Data: keep(g.edgesDst)}}
		}
		out.GraphSame, out.IndexKept, out.Items, out.Edges = true, idx.Kept, idx.Items, g.count()
		return out, nil
	}
	if err := g.readWhole(read); err != nil {
		return out, err
	}
	edges, edgesDst := g.edges, g.edgesDst
	gone := map[string]bool{}
	for _, u := range idx.Renumber.Gone() {
		gone[u] = true
	}
	gr, err := graph.Splice(ctx, graph.SpliceInput{Config: base.Config, Spool: in.Spool, Edges: edges, EdgesDst: edgesDst,
		Renumber: idx.Renumber.Old, Gone: gone, At: func(o int32) string { return idx.Stamps[o] }, Nodes: nodes, Ords: ords})
	if errors.Is(err, graph.ErrNoSplice) {
		return out, ErrWhole
	}
	if err != nil {
		return out, fmt.Errorf("graph: %w", err)
	}
	out.Index = append(idx.Files, artifacts.File{Path: artifacts.BodiesPath, Data: artifacts.EncodeBodies(index.BodyRows(base.Bodies))})
	out.Graph, out.IndexKept, out.Items, out.Edges = gr.Files, idx.Kept, idx.Items, gr.Edges
	return out, nil
}

// readString reads an artifact whole into a string, checked against the
// manifest as the others are (replaced): docs.tsv, whose rows the splice
// keeps as strings, is read so instead of read and then copied.
func readString(in Input, path string) (string, error) {
	f, err := in.FS.Open(path)
	if err != nil {
		return "", ErrWhole
	}
	defer f.Close()
	var b strings.Builder
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		b.Grow(int(st.Size()))
	}
	if _, err := io.Copy(&b, f); err != nil {
		return "", ErrWhole
	}
	data := b.String()
	if replaced(in, path, data) {
		return "", ErrWhole
	}
	return data, nil
}

// replaced reports, for a reader that checks what it reads against a
// manifest (in.Written), whether data is not what that build wrote at
// path: a build replaced it since, and the caller starts again.
func replaced[T string | []byte](in Input, path string, data T) bool {
	if in.Written == nil {
		return false
	}
	var sum uint64
	switch d := any(data).(type) {
	case string:
		sum = xxhash.Sum64String(d)
	case []byte:
		sum = xxhash.Sum64(d)
	}
	st, ok := in.Written.Output(path)
	return !ok || st.Bytes != int64(len(data)) || st.XXHash != artifacts.HashSum(sum)
}

// sameLinks reports whether every node links where the previous tables
// say its URI linked, its ordinal (ords) being the one it had: a page's
// (or an alias's) line of edges.tsv, where a node without links has
// none; a record's links, which edges.tsv leaves out, as edges.dst.tsv
// (edgesDst) lists them by their source's ordinal.
func sameLinks(edges, edgesDst []byte, nodes []graph.Node, ords []int32) bool {
	type edge struct {
		ord       int32
		dst, kind string
	}
	var now []edge
	records := map[int32]bool{}
	lo, hi := int32(math.MaxInt32), int32(-1) // the least and greatest of them
	for i, n := range nodes {
		if n.Record {
			records[ords[i]] = true
			lo, hi = min(lo, ords[i]), max(hi, ords[i])
			for _, l := range n.Links {
				now = append(now, edge{ords[i], l.Node, l.Kind})
			}
			continue
		}
		line, found := lineOf(edges, n.URI)
		if !found {
			if len(n.Links) > 0 {
				return false
			}
			continue
		}
		was, err := artifacts.DecodeAdjacencyLine(artifacts.EdgesPath, 0, line)
		if err != nil || !slices.Equal(was.Links, n.Links) {
			return false
		}
	}
	if len(records) == 0 {
		return true
	}
	// Each line's links are walked for their item sources (#ordinal),
	// each link's kind being the one before it when it leaves it out.
	var was []edge
	rows := edgesDst[bytes.IndexByte(edgesDst, '\n')+1:]
	if len(rows) > 0 && rows[len(rows)-1] != '\n' {
		return false // a last line cut short: the tables are rewritten
	}
	for len(rows) > 0 {
		end := bytes.IndexByte(rows, '\n')
		dst, links, _ := bytes.Cut(rows[:end], []byte{'\t'})
		rows = rows[end+1:]
		var kind []byte
		for more := len(links) > 0; more; {
			var link []byte
			link, links, more = bytes.Cut(links, []byte{'\t'})
			k, src, ok := bytes.Cut(link, []byte{'='})
			if !ok || len(k) == 0 && len(kind) == 0 {
				return false // not a link: the tables are rewritten
			}
			if len(k) > 0 {
				kind = k
			}
			ref, item := bytes.CutPrefix(src, []byte(artifacts.ItemRef))
			if !item {
				continue
			}
			o, ok := artifacts.ItemOrdinal(ref)
			if !ok {
				return false
			}
			if o >= lo && o <= hi && records[o] {
				was = append(was, edge{o, string(dst), string(kind)})
			}
		}
	}
	order := func(a, b edge) int {
		return cmp.Or(cmp.Compare(a.ord, b.ord), strings.Compare(a.dst, b.dst), strings.Compare(a.kind, b.kind))
	}
	slices.SortFunc(now, order)
	slices.SortFunc(was, order)
	return slices.Equal(now, was)
}

// lineOf finds, by binary search over the lines of a table sorted by its
// first column (after one header line), the line whose first column is
// node, without its LF.
func lineOf(data []byte, node string) ([]byte, bool) {
	rows := data[bytes.IndexByte(data, '\n')+1:]
	at := artifacts.FirstRow(rows, []byte(node))
	end := bytes.IndexByte(rows[at:], '\n')
	if end < 0 {
		return nil, false // none, or a last line cut short
	}
	line := rows[at : at+end]
	if key, _, _ := bytes.Cut(line, []byte{'\t'}); string(key) != node {
		return nil, false
	}
	return line, true
}

// supersededIn returns the destinations of every supersedes edge in edges
// (the previous edges.tsv, or the rows of it a splice read, which hold
// every page's): the URIs pages supersede.
func supersededIn(edges []byte) []string {
	var out []string
	cell := []byte("\t" + artifacts.EdgeSupersedes + "=")
	for rest := edges; ; {
		i := bytes.Index(rest, cell)
		if i < 0 {
			return out
		}
		rest = rest[i+len(cell):]
		end := bytes.IndexAny(rest, "\t\n")
		if end < 0 {
			end = len(rest)
		}
		out = append(out, string(rest[:end]))
		rest = rest[end:]
	}
}

// supersededBefore reports whether the previous edges.tsv has a
// supersedes edge from page p.
func supersededBefore(edges []byte, p string) bool {
	i := bytes.Index(edges, []byte("\n"+p+"\t"))
	if i < 0 {
		return false
	}
	line := edges[i+1:]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	return bytes.Contains(line, []byte("\t"+artifacts.EdgeSupersedes+"="))
}

// Share is the default of Worth's share: a splice reads and rewrites
// every artifact whatever changed, while projecting costs in proportion
// to what is projected, so above a quarter of the inputs' bytes a whole
// build costs about as much.
const Share = 4

// Worth reports whether the changed record documents hold at most
// 1/share of the bytes prev read: past that, the whole corpus is built.
func Worth(c load.CorpusChanges, prev *artifacts.Manifest, share int64) bool {
	var total int64
	for _, in := range prev.Inputs {
		total += in.Bytes
	}
	return c.Bytes*share <= total
}
