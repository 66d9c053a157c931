package artifacts

import (
	"bytes"
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

// ItemRef is how edges.dst.tsv names an item: # and its docs.tsv ordinal
// in base 32 (ItemRefOf).
const ItemRef = "#"

// ItemRefOf is item ord's name in edges.dst.tsv: # and the ordinal in
// base 32, without leading zeros.
func ItemRefOf(ord int32) string { return string(AppendItemRef(nil, ord)) }

// AppendItemRef appends ItemRefOf(ord) to b.
func AppendItemRef(b []byte, ord int32) []byte {
	return appendBase32(append(b, ItemRef...), uint64(ord))
}

// ParseItemRef reads an item's ordinal from its name in edges.dst.tsv,
// #<ordinal>; ok is false for any other node.
func ParseItemRef(node string) (int32, bool) {
	ref, ok := strings.CutPrefix(node, ItemRef)
	if !ok {
		return 0, false
	}
	return ItemOrdinal([]byte(ref))
}

// ItemOrdinal reads the ordinal after ItemRef as edges.dst.tsv writes it:
// base-32 digits, without a leading zero (but 0 itself), at most
// math.MaxInt32. A reader that keeps a link's text as it is relies on the
// text being the one a build writes.
func ItemOrdinal(b []byte) (int32, bool) {
	if len(b) == 0 || len(b) > 7 || b[0] == '0' && len(b) > 1 {
		return 0, false
	}
	v, ok := parseBase32(b)
	return int32(v), ok && v <= math.MaxInt32
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

// A line of edges.dst.tsv writes a link's kind only when it is not the
// kind of the link before it, which a line's newest-first order leaves in
// runs: a link of the same kind is =<source>. edges.tsv, sorted by kind,
// and small, writes each.
func elidesKinds(path string) bool { return path == EdgesDstPath }

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
	elide := elidesKinds(w.path)
	for i, l := range links {
		w.out.WriteByte('\t')
		if !elide || i == 0 || l.Kind != links[i-1].Kind {
			w.out.WriteString(l.Kind)
		}
		w.out.WriteByte('=')
		w.out.WriteString(CleanCell(l.Node))
	}
	w.out.WriteByte('\n')
}

// ElideKinds leaves out, in place, the kind of each link of a line of
// edges.dst.tsv written whole (node, then TAB and kind=source for each
// link, every kind written) that is the kind of the link before it, as
// AdjacencyWriter writes the line, and returns the line: for a reader that
// edits a line's links as bytes.
func ElideKinds(line []byte) []byte {
	w := bytes.IndexByte(line, '\t')
	if w < 0 {
		return line
	}
	var prev []byte
	for r := w; r < len(line); {
		end := bytes.IndexByte(line[r+1:], '\t')
		if end < 0 {
			end = len(line)
		} else {
			end += r + 1
		}
		cell := line[r+1 : end] // kind=source
		eq := bytes.IndexByte(cell, '=')
		kind := cell[:eq]
		line[w] = '\t'
		w++
		if bytes.Equal(kind, prev) {
			cell = cell[eq:]
		} else {
			prev = append(prev[:0], kind...)
		}
		w += copy(line[w:], cell)
		r = end
	}
	return line[:w]
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
	node, cells, ok := strings.Cut(string(line), "\t")
	if node == "" || !ok {
		return Adjacency{}, &CorruptError{Path: path, Line: n, Msg: "row is not node TAB kind=node..."}
	}
	links, err := decodeLinks(path, n, "", cells)
	return Adjacency{Node: node, Links: links}, err
}

// DecodeLinks parses links of a line of either edge table, the TAB-
// separated cells after the node or after some of its links: kind is the
// kind of the link before them, "" at the start of a line.
func DecodeLinks(path string, n int, kind string, cells []byte) ([]Link, error) {
	return decodeLinks(path, n, kind, string(cells))
}

func decodeLinks(path string, n int, kind, cells string) ([]Link, error) {
	links := make([]Link, 0, strings.Count(cells, "\t")+1)
	elide := elidesKinds(path)
	for more := true; more; {
		var c string
		c, cells, more = strings.Cut(cells, "\t")
		k, node, ok := strings.Cut(c, "=")
		switch {
		case !ok || node == "" || k == "" && (!elide || kind == ""):
			return links, &CorruptError{Path: path, Line: n, Msg: fmt.Sprintf("link %q is not kind=node", c)}
		case elide && k == kind:
			return links, &CorruptError{Path: path, Line: n, Msg: fmt.Sprintf("link %q repeats the kind before it; it is =node", c)}
		case k != "":
			kind = k
		}
		links = append(links, Link{Kind: kind, Node: node})
	}
	return links, nil
}
