package artifacts

import (
	"fmt"
	"math"
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

// ItemOrdinal reads the ordinal after ItemRef as edges.dst.tsv writes it:
// decimal digits, without a sign or a leading zero (but 0 itself), at most
// math.MaxInt32. A reader that keeps a link's text as it is relies on the
// text being the one a build writes.
func ItemOrdinal(b []byte) (int32, bool) {
	if len(b) == 0 || len(b) > 10 || b[0] == '0' && len(b) > 1 {
		return 0, false
	}
	v := int64(0)
	for _, c := range b {
		if c-'0' > 9 {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return int32(v), v <= math.MaxInt32
}

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
	size := 0
	for _, r := range rows {
		size += len(r.Node) + 1
		for _, l := range r.Links {
			size += len(l.Kind) + len(l.Node) + 2
		}
	}
	w := NewAdjacencyWriter(s, path, size)
	for _, r := range rows {
		w.Row(r.Node, r.Links)
	}
	return w.Finish()
}

// An AdjacencyWriter writes either edge table a row at a time, so that a
// build need not hold the table's rows to write them.
type AdjacencyWriter struct {
	path string
	out  *Output
	err  error
}

// NewAdjacencyWriter starts the edge table at path (EdgesPath or
// EdgesDstPath) in spool s, reserving sizeHint bytes when in memory.
func NewAdjacencyWriter(s *Spool, path string, sizeHint int) *AdjacencyWriter {
	hdr := edgesHeader
	if path == EdgesDstPath {
		hdr = edgesDstHeader
	}
	w := &AdjacencyWriter{path: path, out: s.Create(path, len(hdr)+sizeHint)}
	w.out.WriteString(hdr)
	return w
}

// Row writes a node's line; the caller gives the rows in node order and
// each row's links in the table's order. A row the format cannot carry
// fails the table (Finish says why).
func (w *AdjacencyWriter) Row(node string, links []Link) {
	if w.err != nil {
		return
	}
	if node == "" || len(links) == 0 {
		w.err = fmt.Errorf("%s: node %q has no links or no name", w.path, node)
		return
	}
	for _, l := range links {
		if l.Kind == "" || l.Node == "" || strings.ContainsAny(l.Kind, "=\t\n\r") {
			w.err = fmt.Errorf("%s: node %q has a link %q=%q the format cannot carry", w.path, node, l.Kind, l.Node)
			return
		}
	}
	w.out.WriteString(CleanCell(node))
	for _, l := range links {
		w.out.WriteByte('\t')
		w.out.WriteString(l.Kind)
		w.out.WriteByte('=')
		w.out.WriteString(CleanCell(l.Node))
	}
	w.out.WriteByte('\n')
}

// Finish ends the table, or voids it with the first row that failed.
func (w *AdjacencyWriter) Finish() (File, error) {
	return w.out.Finish(w.err)
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
