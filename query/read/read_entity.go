package read

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/render"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// Directions of an entity's edges.
const (
	dirOutbound = "outbound"
	dirInbound  = "inbound"
)

// entity reads a graph node (repo:…, person:…, tag:…, ticket:…, a URL or
// a linked path): the identity it belongs to, with its aliases, and one
// page of its neighbours.
func (r *reader) entity(uri string) (*Answer, bool, error) {
	c, err := r.corpus()
	if err != nil {
		return nil, false, err
	}
	g, edges, err := r.neighbours(c, uri, true)
	if err != nil {
		return nil, false, err
	}
	name, id, isIdentity := identityOf(c.Config(), uri)
	if edges == 0 && !isIdentity {
		if r.req.Cursor != "" {
			return nil, false, &corpus.UsageError{Msg: fmt.Sprintf("--cursor pages the neighbours of an entity, and %s is not one", uri)}
		}
		return nil, false, nil
	}
	g.Identity = name
	if isIdentity {
		g.Canonical = id.Canonical
		for _, al := range append([]string{id.Canonical}, id.Aliases...) {
			if al != uri {
				g.Aliases = append(g.Aliases, al)
			}
		}
	}
	return &Answer{URI: uri, Kind: kindEntity, Title: uri, Graph: g, Index: r.indexState()}, true, nil
}

// neighbours reads one page of a node's edges, from the cursor on: its
// line of edges.tsv (when outbound is set), then its line of
// edges.dst.tsv, which the build sorts newest source first. A page reads
// the two lines only as far as it shows, so a hub with thousands of
// inbound edges costs what its first page holds. edges is how many edges
// were read (0: the node has none).
func (r *reader) neighbours(c corpus.Bodies, uri string, outbound bool) (*Graph, int, error) {
	offset, err := parseNeighbourCursor(r.req.Cursor, uri)
	if err != nil {
		return nil, 0, err
	}
	var out []artifacts.Link
	if outbound {
		if out, err = c.Outgoing(uri); err != nil {
			return nil, 0, err
		}
	}
	want := offset + r.req.Limit + 1 // one more than the page says whether another follows
	var in []artifacts.Link
	if want > len(out) {
		if in, err = c.Incoming(uri, want-len(out)); err != nil {
			return nil, 0, err
		}
	}
	type edge struct {
		dir  string
		link artifacts.Link
	}
	var all []edge
	for _, l := range out {
		all = append(all, edge{dirOutbound, l})
	}
	for _, l := range in {
		all = append(all, edge{dirInbound, l})
	}
	g := &Graph{Limit: r.req.Limit, Offset: offset, Groups: []EdgeGroup{}}
	page := all[min(offset, len(all)):min(len(all), offset+r.req.Limit)]
	if len(all) > offset+r.req.Limit {
		g.Next = NeighbourCursor(offset+r.req.Limit, uri)
	}
	groups := map[[2]string]*EdgeGroup{}
	for _, ed := range page {
		n, err := r.neighbour(c, ed.link.Node)
		if err != nil {
			return nil, 0, err
		}
		key := [2]string{ed.dir, ed.link.Kind}
		grp := groups[key]
		if grp == nil {
			grp = &EdgeGroup{Direction: ed.dir, Kind: ed.link.Kind}
			groups[key] = grp
		}
		grp.Edges = append(grp.Edges, n)
	}
	for _, k := range slices.SortedFunc(maps.Keys(groups), func(a, b [2]string) int {
		// Outbound before inbound, then by kind; each group keeps its
		// edges in table order, newest source first for inbound.
		return cmp.Or(cmp.Compare(dirRank(a[0]), dirRank(b[0])), strings.Compare(a[1], b[1]))
	}) {
		g.Groups = append(g.Groups, *groups[k])
	}
	g.Shown = len(page)
	return g, len(all), nil
}

func dirRank(d string) int {
	if d == dirOutbound {
		return 0
	}
	return 1
}

// neighbour describes an edge's other end: an item (#<ordinal> in
// edges.dst.tsv) by its row, anything else as itself.
func (r *reader) neighbour(c corpus.Bodies, node string) (Neighbour, error) {
	if !strings.HasPrefix(node, artifacts.ItemRef) {
		return Neighbour{URI: node}, nil
	}
	o, ok := artifacts.ParseItemRef(node)
	ord := int(o)
	if !ok || ord >= c.Len() {
		return Neighbour{}, &artifacts.CorruptError{Path: artifacts.EdgesDstPath, Msg: fmt.Sprintf("source %q is not an item of docs.tsv", node)}
	}
	row, err := c.Row(ord)
	if err != nil {
		return Neighbour{}, err
	}
	return Neighbour{URI: row.URI, Kind: render.DisplayKind(row.Kind), Date: row.Date, Title: row.Title}, nil
}

// identityOf finds the configured identity that names uri, canonically
// or as an alias.
func identityOf(cfg model.Config, uri string) (string, model.Identity, bool) {
	for _, name := range slices.Sorted(maps.Keys(cfg.Identities)) {
		id := cfg.Identities[name]
		if id.Canonical == uri || slices.Contains(id.Aliases, uri) {
			return name, id, true
		}
	}
	return "", model.Identity{}, false
}

// NeighbourCursor continues a page of uri's neighbours at offset. It carries
// a check of the URI, so that a cursor is refused on another URI.
func NeighbourCursor(offset int, uri string) string {
	return fmt.Sprintf("%d.%08x", offset, uint32(xxhash.Sum64String(uri)))
}

func parseNeighbourCursor(cursor, uri string) (int, error) {
	if cursor == "" {
		return 0, nil
	}
	n, _, _ := strings.Cut(cursor, ".")
	offset, err := strconv.Atoi(n)
	if err != nil || offset < 0 || NeighbourCursor(offset, uri) != cursor {
		return 0, &corpus.UsageError{Msg: fmt.Sprintf("--cursor %q is not a cursor of %s; use the one its previous page printed, or leave it out to start again", cursor, uri)}
	}
	return offset, nil
}
