// Package graph is the build stage that writes the edge tables: the edges
// from relation fields, page relations, tags, Markdown links, supersedes
// and identity aliases, as one line per destination node in edges.dst.tsv
// and one line per source node in edges.tsv, so that one hop either way
// is one binary search. A record's own edges are left out of edges.tsv:
// they are a function of its span, which a query projects again (Node's
// Record).
//
// In: one node per item, in URI order (NodeOf makes a node from a
// projected item, so the build can let items go early), and the
// configuration (for identities). Out: the two artifact files. A query's
// scan, which has no edge files, builds the same tables in memory
// (NewTables) and looks its edges up there. It reads nothing and writes
// only through the spool it may be given (Input.Spool).
package graph

import (
	"cmp"
	"context"
	"iter"
	"maps"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/project"
)

// Input is the corpus as graph nodes.
type Input struct {
	Config model.Config
	// The nodes, one per item, in URI order, a node's place being its
	// ordinal: in memory (Nodes), or spilled in runs (Runs, see
	// SpillNodes), which Run reads back one node at a time.
	Nodes []Node
	Runs  []NodeRun
	// Spool is where the tables are written as they are encoded; nil
	// writes them in memory.
	Spool *artifacts.Spool
}

// Node is what the graph needs of an item: its URI, its time (or date) and
// its outgoing links, sorted by kind then destination.
type Node struct {
	URI   string
	At    string
	Links []artifacts.Link
	// Record says the node is a record's: edges.tsv has no line of its
	// links, which its span gives (project.Item.Edges).
	Record bool
}

// NodeOf makes the graph node of a projected item.
func NodeOf(it *project.Item) Node {
	return Node{URI: it.URI, At: cmp.Or(it.Time, it.Date), Links: it.Edges(), Record: it.SpanOff >= 0}
}

// Output holds the edge tables.
type Output struct {
	Files []artifacts.File
	Edges int
}

// inbound is one edge seen from its destination, as a splice reads a
// kept one back (see inboundOf).
type inbound struct {
	kind string
	src  string // #ordinal for items, the alias text for same-as
	at   string // the source item's time or date, for newest-first order
	ord  int    // item ordinal, -1 for non-item sources
}

// Tables are the edge tables before they are encoded: by source, one row
// per item with links and per alias, sorted by node; by destination, one
// row per node, sorted by node, its inbound edges newest source first.
type Tables struct {
	BySrc, ByDst []artifacts.Adjacency
	Edges        int
}

// Run builds the edge tables, writing each row as it is made: the rows
// by source as the nodes are read, those by destination off the sorted
// edges. Only the edges by destination, as numbers, are held.
func Run(ctx context.Context, in Input) (Output, error) {
	w := artifacts.NewAdjacencyWriter(in.Spool, artifacts.EdgesPath, 0)
	byDst, edges, err := tables(ctx, in, w.Row, false)
	if err != nil {
		w.Finish()
		return Output{}, err
	}
	src, err := w.Finish()
	if err != nil {
		return Output{}, err
	}
	w = artifacts.NewAdjacencyWriter(in.Spool, artifacts.EdgesDstPath, 0)
	for dst, links := range byDst.rows() {
		w.Row(dst, links)
	}
	dst, err := w.Finish()
	if err != nil {
		return Output{}, err
	}
	return Output{Edges: edges, Files: []artifacts.File{src, dst}}, nil
}

// NewTables builds the edge tables of the nodes in memory: what Run
// encodes, and what a query's scan, which has no edge files, looks edges
// up in. A row's links may share the nodes' arrays.
func NewTables(ctx context.Context, in Input) (Tables, error) {
	var out Tables
	byDst, edges, err := tables(ctx, in, func(node string, links []artifacts.Link) {
		out.BySrc = append(out.BySrc, artifacts.Adjacency{Node: node, Links: links})
	}, true)
	if err != nil {
		return Tables{}, err
	}
	out.Edges = edges
	for dst, links := range byDst.rows() {
		out.ByDst = append(out.ByDst, artifacts.Adjacency{Node: dst, Links: slices.Clone(links)})
	}
	return out, nil
}

// tables gives each row by source to src, in node order, as it reads the
// nodes, and collects the edges by destination; it counts the edges. The
// links given to src are the node's own when it is in memory, and may be
// read only during the call when it was spilled. A record's links reach
// src only when records is set (a scan's tables, which have no spans to
// read them from); otherwise its row holds only what an alias of the same
// name adds.
func tables(ctx context.Context, in Input, src func(node string, links []artifacts.Link), records bool) (*inboundTable, int, error) {
	t := newInboundTable()
	// Spilled runs know how many edges and sources they hold: the table
	// is made at its size once, rather than grown by doubling, each
	// growth a copy into fresh memory (at 1M records, a sixth of a
	// build's page faults).
	links, linking := 0, 0
	for _, r := range in.Runs {
		links, linking = links+r.links, linking+r.linking
	}
	for _, id := range in.Config.Identities {
		links += len(id.Aliases)
	}
	t.edges, t.ats = make([]inEdge, 0, links), make([]sourceAt, 0, linking)
	// Identity aliases: alias → canonical. Aliases are not items, so their
	// rows go between the items' by name, and join an item's of the same
	// name.
	aliases := map[string][]artifacts.Link{}
	edges := 0
	for _, name := range slices.Sorted(maps.Keys(in.Config.Identities)) {
		id := in.Config.Identities[name]
		for _, a := range id.Aliases {
			if a != id.Canonical {
				aliases[a] = append(aliases[a], artifacts.Link{Kind: artifacts.EdgeSameAs, Node: id.Canonical})
				t.add(id.Canonical, artifacts.EdgeSameAs, -1, a)
				edges++
			}
		}
	}
	aliasRows := slices.Sorted(maps.Keys(aliases))
	row := func(node string, links []artifacts.Link) {
		for len(aliasRows) > 0 && aliasRows[0] < node {
			src(aliasRows[0], aliases[aliasRows[0]])
			aliasRows = aliasRows[1:]
		}
		if len(aliasRows) > 0 && aliasRows[0] == node {
			// A slice of its own: NewTables keeps the rows src is given.
			joined := slices.Concat(links, aliases[node])
			slices.SortFunc(joined, project.CompareLinks)
			links = slices.Compact(joined)
			aliasRows = aliasRows[1:]
		}
		if len(links) > 0 {
			src(node, links)
		}
	}
	err := in.eachNode(ctx, func(ord int32, n *Node) {
		if len(n.Links) == 0 {
			return
		}
		t.source(ord, n.At)
		for _, l := range n.Links {
			t.add(l.Node, l.Kind, ord, "")
		}
		edges += len(n.Links)
		if n.Record && !records {
			row(n.URI, nil)
		} else {
			row(n.URI, n.Links)
		}
	})
	if err != nil {
		return nil, 0, err
	}
	for _, a := range aliasRows {
		src(a, aliases[a])
	}
	t.sort()
	return t, edges, nil
}

// eachNode calls f with every node and its ordinal, in order.
func (in Input) eachNode(ctx context.Context, f func(ord int32, n *Node)) error {
	if in.Runs == nil {
		for i := range in.Nodes {
			if i%4096 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			f(int32(i), &in.Nodes[i])
		}
		return nil
	}
	ord := int32(0)
	for _, r := range in.Runs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := r.each(func(n *Node) { f(ord, n); ord++ }); err != nil {
			return err
		}
	}
	return nil
}

// inboundTable is every edge seen from its destination, held compactly
// (a build holds all of a base's edges at once to order them by
// destination): each edge is five numbers, its strings named once.
type inboundTable struct {
	// While edges are added, dst, kind and alias number a string by
	// first sight; sort makes each its rank among its kind's names.
	dsts, kinds, aliases []string
	dstID, kindID        map[string]int32
	aliasID              map[string]int32
	edges                []inEdge
	// ats are the source nodes' stamps, ranked into stamps by sort.
	ats        []sourceAt
	stamps     []int32  // each source node's stamp's rank, oldest first, by ordinal
	aliasStamp int32    // the rank of an alias's empty stamp
	refs       []string // #<ordinal> of each source node, made once
}

// sourceAt is a source node's ordinal and stamp.
type sourceAt struct {
	ord int32
	at  string
}

// inEdge is one edge seen from its destination. Its order in the table is
// by destination, then newest source first, then kind, ordinal and
// source, all compared as ranks.
type inEdge struct {
	dst, stamp, kind, ord, alias int32 // ord -1 for an alias source; alias -1 for an item
}

func newInboundTable() *inboundTable {
	return &inboundTable{dstID: map[string]int32{}, kindID: map[string]int32{}, aliasID: map[string]int32{}}
}

// source records the stamp of node ord, the source of edges added next
// (a copy, as intern keeps).
func (t *inboundTable) source(ord int32, at string) {
	t.ats = append(t.ats, sourceAt{ord, strings.Clone(at)})
}

// add adds the edge of the given kind from item ord (or from alias, ord
// -1) to dst.
func (t *inboundTable) add(dst, kind string, ord int32, alias string) {
	e := inEdge{dst: intern(t.dstID, &t.dsts, dst), kind: intern(t.kindID, &t.kinds, kind), ord: ord, alias: -1}
	if ord < 0 {
		e.alias = intern(t.aliasID, &t.aliases, alias)
	}
	t.edges = append(t.edges, e)
}

// intern numbers s by first sight in names. The name kept is a copy: a
// spilled node's strings share one block per run, which a name kept for
// the whole build must not hold.
func intern(ids map[string]int32, names *[]string, s string) int32 {
	id, ok := ids[s]
	if !ok {
		s = strings.Clone(s)
		id = int32(len(*names))
		ids[s] = id
		*names = append(*names, s)
	}
	return id
}

// sort ranks the names and stamps and puts the edges in table order,
// dropping repeats.
func (t *inboundTable) sort() {
	rank := func(names []string) []int32 {
		order := make([]int32, len(names))
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortFunc(order, func(a, b int32) int { return strings.Compare(names[a], names[b]) })
		ranks := make([]int32, len(names))
		sorted := make([]string, len(names))
		for r, id := range order {
			ranks[id] = int32(r)
			sorted[r] = names[id]
		}
		copy(names, sorted)
		return ranks
	}
	dst, kind, alias := rank(t.dsts), rank(t.kinds), rank(t.aliases)
	t.dstID, t.kindID, t.aliasID = nil, nil, nil
	t.rankStamps()
	for i := range t.edges {
		e := &t.edges[i]
		e.dst, e.kind = dst[e.dst], kind[e.kind]
		if e.ord < 0 {
			e.alias, e.stamp = alias[e.alias], t.aliasStamp
		} else {
			e.stamp = t.stamps[e.ord]
		}
	}
	// By destination first, counted into place: the ranks are dense, and a
	// destination's edges are few but for its hubs'; then each
	// destination's edges newest source first.
	starts := make([]int32, len(t.dsts)+1)
	for _, e := range t.edges {
		starts[e.dst+1]++
	}
	for d := 1; d < len(starts); d++ {
		starts[d] += starts[d-1]
	}
	next := slices.Clone(starts[:len(t.dsts)])
	sorted := make([]inEdge, len(t.edges))
	for _, e := range t.edges {
		sorted[next[e.dst]] = e
		next[e.dst]++
	}
	t.edges = nil
	for d := range t.dsts {
		if in := sorted[starts[d]:starts[d+1]]; len(in) > 1 {
			slices.SortFunc(in, compareInEdges)
		}
	}
	t.edges = slices.Compact(sorted)
}

// compareInEdges orders a destination's edges newest source first, then
// by kind, ordinal and alias, as ranks. A hub's edges are many, and most
// are told apart by their stamps: the later keys are compared only on a
// tie (cmp.Or would compare all four every time).
func compareInEdges(a, b inEdge) int {
	switch {
	case a.stamp != b.stamp:
		return cmp.Compare(b.stamp, a.stamp)
	case a.kind != b.kind:
		return cmp.Compare(a.kind, b.kind)
	case a.ord != b.ord:
		return cmp.Compare(a.ord, b.ord)
	}
	return cmp.Compare(a.alias, b.alias)
}

// rankStamps ranks the stamps of the source nodes, and the empty stamp
// of an alias, oldest first as CompareStamps orders them; stamps that
// compare equal share a rank.
func (t *inboundTable) rankStamps() {
	n := int32(0)
	if len(t.ats) > 0 {
		n = t.ats[len(t.ats)-1].ord + 1 // ats are in ordinal order
	}
	t.stamps = make([]int32, n)
	if len(t.aliases) > 0 {
		t.ats = append(t.ats, sourceAt{ord: -1}) // the aliases' stamp
	}
	slices.SortFunc(t.ats, func(a, b sourceAt) int { return project.CompareStamps(a.at, b.at) })
	r := int32(0)
	for k, s := range t.ats {
		if k > 0 && project.CompareStamps(t.ats[k-1].at, s.at) != 0 {
			r++
		}
		if s.ord < 0 {
			t.aliasStamp = r
		} else {
			t.stamps[s.ord] = r
		}
	}
	t.ats = nil
}

// rows yields each destination's row in node order: its inbound links,
// newest source first, in a slice reused from row to row.
func (t *inboundTable) rows() iter.Seq2[string, []artifacts.Link] {
	return func(yield func(string, []artifacts.Link) bool) {
		if t.refs == nil {
			t.refs = make([]string, len(t.stamps))
		}
		var links []artifacts.Link
		for i := 0; i < len(t.edges); {
			d := t.edges[i].dst
			links = links[:0]
			for ; i < len(t.edges) && t.edges[i].dst == d; i++ {
				e := t.edges[i]
				src := ""
				if e.ord < 0 {
					src = t.aliases[e.alias]
				} else {
					if t.refs[e.ord] == "" {
						t.refs[e.ord] = artifacts.ItemRefOf(e.ord)
					}
					src = t.refs[e.ord]
				}
				links = append(links, artifacts.Link{Kind: t.kinds[e.kind], Node: src})
			}
			if !yield(t.dsts[d], links) {
				return
			}
		}
	}
}

// mergeSorted merges two row lists sorted by node, a's rows first on ties.
func mergeSorted(a, b []artifacts.Adjacency) []artifacts.Adjacency {
	out := make([]artifacts.Adjacency, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if b[0].Node < a[0].Node {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	return append(append(out, a...), b...)
}

// mergeSameNode joins rows of one node (an alias that is also an item URI)
// into one line.
func mergeSameNode(rows []artifacts.Adjacency) []artifacts.Adjacency {
	out := rows[:0]
	for _, r := range rows {
		if n := len(out); n > 0 && out[n-1].Node == r.Node {
			links := append(slices.Clone(out[n-1].Links), r.Links...)
			slices.SortFunc(links, project.CompareLinks)
			out[n-1].Links = slices.Compact(links)
			continue
		}
		out = append(out, r)
	}
	return out
}
