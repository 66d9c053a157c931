package artifacts

import (
	"fmt"
	"strings"
)

// Edge kinds besides rel:<field>.
const (
	EdgeTag        = "tag"
	EdgeLink       = "link"
	EdgeSameAs     = "same-as"
	EdgeSupersedes = "supersedes"
	EdgeRelPrefix  = "rel:"
)

// ItemRef is how edges.dst.tsv names an item: # and its docs.tsv ordinal.
const ItemRef = "#"

// Link is one neighbour of a node: the edge kind and the node at the other
// end.
type Link struct {
	Kind string
	Node string
}

// Adjacency is one line of an edge table: a node and its neighbours.
type Adjacency struct {
	Node  string
	Links []Link
}

var (
	edgesHeader    = header(edgesName, "src", "kind=dst...")
	edgesDstHeader = header(edgesDstName, "dst", "kind=src...")
)

// EncodeEdges renders edges.tsv: rows sorted by source node, each source's
// links sorted by kind then destination. The caller owns both orders.
func EncodeEdges(rows []Adjacency) ([]byte, error) {
	f, err := EncodeAdjacencyIn(nil, EdgesPath, rows)
	return f.Data, err
}

// EncodeEdgesDst renders edges.dst.tsv: rows sorted by destination node,
// each destination's links newest source first; item sources are written
// as #<ordinal>.
func EncodeEdgesDst(rows []Adjacency) ([]byte, error) {
	f, err := EncodeAdjacencyIn(nil, EdgesDstPath, rows)
	return f.Data, err
}

// EncodeAdjacencyIn renders either edge table, by its path, into spool s
// (in memory when s is nil). It refuses rows the format cannot carry (an
// empty node, a node without links, a kind holding "=" or a separator)
// rather than write a line its own decoder would reject.
func EncodeAdjacencyIn(s *Spool, path string, rows []Adjacency) (File, error) {
	hdr := edgesHeader
	if path == EdgesDstPath {
		hdr = edgesDstHeader
	}
	size := len(hdr)
	for _, r := range rows {
		if r.Node == "" || len(r.Links) == 0 {
			return File{}, fmt.Errorf("%s: node %q has no links or no name", path, r.Node)
		}
		size += len(r.Node) + 1
		for _, l := range r.Links {
			if l.Kind == "" || l.Node == "" || strings.ContainsAny(l.Kind, "=\t\n\r") {
				return File{}, fmt.Errorf("%s: node %q has a link %q=%q the format cannot carry", path, r.Node, l.Kind, l.Node)
			}
			size += len(l.Kind) + len(l.Node) + 2
		}
	}
	b := s.Create(path, size)
	b.WriteString(hdr)
	for _, r := range rows {
		b.WriteString(CleanCell(r.Node))
		for _, l := range r.Links {
			b.WriteByte('\t')
			b.WriteString(l.Kind)
			b.WriteByte('=')
			b.WriteString(CleanCell(l.Node))
		}
		b.WriteByte('\n')
	}
	return b.Finish(nil)
}

// DecodeEdges parses edges.tsv.
func DecodeEdges(data []byte) ([]Adjacency, error) {
	return decodeAdjacency(EdgesPath, edgesHeader, data)
}

// DecodeEdgesDst parses edges.dst.tsv.
func DecodeEdgesDst(data []byte) ([]Adjacency, error) {
	return decodeAdjacency(EdgesDstPath, edgesDstHeader, data)
}

func decodeAdjacency(path, hdr string, data []byte) ([]Adjacency, error) {
	body, err := splitHeader(path, data, hdr)
	if err != nil {
		return nil, err
	}
	var out []Adjacency
	err = lines(path, body, func(n int, line []byte) error {
		r, err := DecodeAdjacencyLine(path, n, line)
		out = append(out, r)
		return err
	})
	return out, err
}

// DecodeAdjacencyLine parses one line (without LF) of either edge table.
// A kind never holds "=", so each link splits at its first "=".
func DecodeAdjacencyLine(path string, n int, line []byte) (Adjacency, error) {
	cols := strings.Split(string(line), "\t")
	if cols[0] == "" || len(cols) < 2 {
		return Adjacency{}, &CorruptError{Path: path, Line: n, Msg: "row is not node TAB kind=node..."}
	}
	r := Adjacency{Node: cols[0], Links: make([]Link, 0, len(cols)-1)}
	for _, c := range cols[1:] {
		kind, node, ok := strings.Cut(c, "=")
		if !ok || kind == "" || node == "" {
			return r, &CorruptError{Path: path, Line: n, Msg: fmt.Sprintf("link %q is not kind=node", c)}
		}
		r.Links = append(r.Links, Link{Kind: kind, Node: node})
	}
	return r, nil
}
