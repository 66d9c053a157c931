// Package graph is the build stage that writes the edge tables: the edges
// from relation fields, page relations, tags, Markdown links, supersedes
// and identity aliases, as one line per source node in edges.tsv and one
// line per destination node in edges.dst.tsv, so that one hop either way
// is one binary search.
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
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/project"
)

// Input is the corpus as graph nodes.
type Input struct {
	Config model.Config
	Nodes  []Node // one per item, in URI order: a node's index is its ordinal
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
}

// NodeOf makes the graph node of a projected item.
func NodeOf(it *project.Item) Node {
	return Node{URI: it.URI, At: cmp.Or(it.Time, it.Date), Links: it.Edges()}
}

// Output holds the edge tables.
type Output struct {
	Files []artifacts.File
	Edges int
}

// inbound is one edge seen from its destination.
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

// Run builds the edge tables.
func Run(ctx context.Context, in Input) (Output, error) {
	t, err := NewTables(ctx, in)
	if err != nil {
		return Output{}, err
	}
	src, err := artifacts.EncodeAdjacencyIn(in.Spool, artifacts.EdgesPath, t.BySrc)
	if err != nil {
		return Output{}, err
	}
	dst, err := artifacts.EncodeAdjacencyIn(in.Spool, artifacts.EdgesDstPath, t.ByDst)
	if err != nil {
		return Output{}, err
	}
	return Output{Edges: t.Edges, Files: []artifacts.File{src, dst}}, nil
}

// NewTables builds the edge tables of the nodes: what Run encodes, and
// what a query's scan, which has no edge files, looks edges up in. A
// row's links may share the nodes' arrays.
func NewTables(ctx context.Context, in Input) (Tables, error) {
	var out Tables
	var items []artifacts.Adjacency
	byDst := map[string][]inbound{}
	for i := range in.Nodes {
		if i%4096 == 0 && ctx.Err() != nil {
			return out, ctx.Err()
		}
		n := &in.Nodes[i]
		if len(n.Links) == 0 {
			continue
		}
		items = append(items, artifacts.Adjacency{Node: n.URI, Links: n.Links})
		ref := artifacts.ItemRef + strconv.Itoa(i)
		for _, l := range n.Links {
			byDst[l.Node] = append(byDst[l.Node], inbound{kind: l.Kind, src: ref, at: n.At, ord: i})
		}
		out.Edges += len(n.Links)
	}
	// Identity aliases: alias → canonical. Aliases are not items, so these
	// rows merge into the source table by name.
	aliases := map[string][]artifacts.Link{}
	for _, name := range slices.Sorted(maps.Keys(in.Config.Identities)) {
		id := in.Config.Identities[name]
		for _, a := range id.Aliases {
			if a != id.Canonical {
				aliases[a] = append(aliases[a], artifacts.Link{Kind: artifacts.EdgeSameAs, Node: id.Canonical})
				byDst[id.Canonical] = append(byDst[id.Canonical], inbound{kind: artifacts.EdgeSameAs, src: a, ord: -1})
				out.Edges++
			}
		}
	}
	var aliasRows []artifacts.Adjacency
	for _, a := range slices.Sorted(maps.Keys(aliases)) {
		aliasRows = append(aliasRows, artifacts.Adjacency{Node: a, Links: aliases[a]})
	}
	// Item rows come in URI order already; merge the alias rows in rather
	// than sort a million rows again.
	out.BySrc = mergeSameNode(mergeSorted(items, aliasRows))

	dsts := slices.Sorted(maps.Keys(byDst))
	rows := make([]artifacts.Adjacency, len(dsts))
	for i, d := range dsts {
		in := byDst[d]
		// Newest source first, so a reader can stop after the newest N
		// inbound edges of a hub; ties by kind, then source, to be total.
		slices.SortFunc(in, func(a, b inbound) int {
			return cmp.Or(project.CompareStamps(b.at, a.at), strings.Compare(a.kind, b.kind), cmp.Compare(a.ord, b.ord), strings.Compare(a.src, b.src))
		})
		links := make([]artifacts.Link, 0, len(in))
		for j, e := range in {
			if j > 0 && e == in[j-1] {
				continue
			}
			links = append(links, artifacts.Link{Kind: e.kind, Node: e.src})
		}
		rows[i] = artifacts.Adjacency{Node: d, Links: links}
	}
	out.ByDst = rows
	return out, nil
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
