package artifacts

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
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

// Edge is one row of edges.tsv.
type Edge struct {
	Src  string
	Kind string
	Dst  string
	At   string
}

var (
	edgesHeader    = header(edgesName, "src", "kind", "dst", "at")
	edgesDstHeader = header(edgesDstName, "dst", "kind", "src", "at")
)

func compareEdges(a, b Edge) int {
	return cmp.Or(strings.Compare(a.Src, b.Src), strings.Compare(a.Kind, b.Kind),
		strings.Compare(a.Dst, b.Dst), strings.Compare(a.At, b.At))
}

// EncodeEdges sorts and de-duplicates edges and renders both tables.
func EncodeEdges(edges []Edge) (bySrc, byDst []byte) {
	es := slices.Clone(edges)
	slices.SortFunc(es, compareEdges)
	es = slices.Compact(es)
	var s bytes.Buffer
	s.WriteString(edgesHeader)
	for _, e := range es {
		writeEdge(&s, e.Src, e.Kind, e.Dst, e.At)
	}
	rev := make([]Edge, len(es))
	for i, e := range es {
		rev[i] = Edge{Src: e.Dst, Kind: e.Kind, Dst: e.Src, At: e.At}
	}
	slices.SortFunc(rev, compareEdges)
	var d bytes.Buffer
	d.WriteString(edgesDstHeader)
	for _, e := range rev {
		writeEdge(&d, e.Src, e.Kind, e.Dst, e.At)
	}
	return s.Bytes(), d.Bytes()
}

func writeEdge(b *bytes.Buffer, a, kind, c, at string) {
	b.WriteString(cleanCell(a))
	b.WriteByte('\t')
	b.WriteString(cleanCell(kind))
	b.WriteByte('\t')
	b.WriteString(cleanCell(c))
	b.WriteByte('\t')
	b.WriteString(dash(at))
	b.WriteByte('\n')
}

// DecodeEdges parses edges.tsv (src-first) into edges.
func DecodeEdges(data []byte) ([]Edge, error) {
	return decodeEdges(EdgesPath, edgesHeader, data, false)
}

// DecodeEdgesDst parses edges.dst.tsv; the edges come back with Src and Dst
// in their true roles, ordered by destination.
func DecodeEdgesDst(data []byte) ([]Edge, error) {
	return decodeEdges(EdgesDstPath, edgesDstHeader, data, true)
}

func decodeEdges(path, hdr string, data []byte, swapped bool) ([]Edge, error) {
	body, err := splitHeader(path, data, hdr)
	if err != nil {
		return nil, err
	}
	var out []Edge
	err = lines(path, body, func(n int, line []byte) error {
		cols := strings.Split(string(line), "\t")
		if len(cols) != 4 {
			return &CorruptError{Path: path, Line: n, Msg: fmt.Sprintf("row has %d columns, want 4", len(cols))}
		}
		e := Edge{Src: cols[0], Kind: cols[1], Dst: cols[2], At: undash(cols[3])}
		if swapped {
			e.Src, e.Dst = e.Dst, e.Src
		}
		out = append(out, e)
		return nil
	})
	return out, err
}
