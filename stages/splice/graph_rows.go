package splice

import (
	"bytes"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
)

// previousGraph is the previous build's edge tables as a splice reads
// them: edges.dst.tsv whole (edgesDst: the records' edges are only
// there), edges.tsv whole (edges) or through positioned reads (rows) when
// the graph may well be kept as it is; near is edges.tsv's header and the
// rows the splice looks at, the pages' and the changed units', in order.
type previousGraph struct {
	edges, edgesDst []byte
	file            fs.File
	rows            *artifacts.SortedRows
	near            []byte
}

// openGraph opens the previous edge tables. A reader that checks what it
// reads against a manifest (in.Written) reads them whole; so does one
// whose FS cannot read at an offset.
func openGraph(in Input, read func(string) ([]byte, error)) (*previousGraph, error) {
	g := &previousGraph{}
	if in.Written == nil {
		if f, err := in.FS.Open(artifacts.EdgesPath); err == nil {
			st, serr := f.Stat()
			at, ok := f.(io.ReaderAt)
			if serr == nil && ok && st.Mode().IsRegular() {
				if rows, err := artifacts.NewSortedRows(at, st.Size(), artifacts.EdgesPath); err == nil {
					g.file, g.rows = f, rows
				}
			}
			if g.rows == nil {
				f.Close()
			}
		}
	}
	if g.rows == nil {
		return g, g.readWhole(read)
	}
	// Pages are the only sources of supersedes edges, and a page's URI is
	// its path: the rows under each page layer's folder hold them all.
	// A changed document's rows are those of URIs <path>#...
	layers := in.Base.Config.Layers
	var spans [][2]string
	for _, l := range []string{layers.Wiki, layers.Projects, layers.Tasks} {
		if l != "" {
			spans = append(spans, [2]string{l + "/", l + "0"}) // '0' follows '/'
		}
	}
	for _, d := range in.Changes.Documents {
		spans = append(spans, [2]string{d + "#", d + "$"}) // '$' follows '#'
	}
	for _, p := range in.Changes.Pages {
		spans = append(spans, [2]string{p, p + "\x00"})
	}
	slices.SortFunc(spans, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	g.near = slices.Clone(g.rows.Header())
	done := "" // rows below it are read
	for _, s := range spans {
		lo := max(s[0], done)
		if lo >= s[1] {
			continue
		}
		rows, err := g.rows.Between(lo, s[1])
		if err != nil {
			g.close()
			return nil, ErrWhole
		}
		g.near, done = append(g.near, rows...), s[1]
	}
	return g, nil
}

// readWhole reads both edge tables whole, if they are not yet.
func (g *previousGraph) readWhole(read func(string) ([]byte, error)) error {
	if g.edges != nil {
		return nil
	}
	edges, err := read(artifacts.EdgesPath)
	if err != nil {
		return err
	}
	if err := g.readDst(read); err != nil {
		return err
	}
	g.edges, g.near = edges, edges
	return nil
}

// readDst reads edges.dst.tsv whole, if it is not yet: the one table
// that holds every edge, a record's among them.
func (g *previousGraph) readDst(read func(string) ([]byte, error)) error {
	if g.edgesDst != nil {
		return nil
	}
	var err error
	g.edgesDst, err = read(artifacts.EdgesDstPath)
	return err
}

// count is how many edges the graph holds: edges.dst.tsv has each once,
// a TAB before it.
func (g *previousGraph) count() int {
	return bytes.Count(g.edgesDst[bytes.IndexByte(g.edgesDst, '\n')+1:], []byte{'\t'})
}

func (g *previousGraph) close() {
	if g.file != nil {
		g.file.Close()
		g.file = nil
	}
}
