package query

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/model"
)

// Directions of an entity's edges.
const (
	dirOutbound = "outbound"
	dirInbound  = "inbound"
)

// entity reads a graph node (repo:…, person:…, tag:…, ticket:…, a URL or
// a linked path): the identity it belongs to, with its aliases, and one
// page of its neighbours. The page is the node's line of edges.tsv, then
// its line of edges.dst.tsv, which the build sorts newest source first:
// a page reads the two lines only as far as it shows, so a hub with
// thousands of inbound edges costs what its first page holds.
func (r *reader) entity(uri string) (*ReadAnswer, bool, error) {
	c, err := r.corpus()
	if err != nil {
		return nil, false, err
	}
	offset, err := parseCursor(r.req.Cursor, uri)
	if err != nil {
		return nil, false, err
	}
	out, err := c.Outgoing(uri)
	if err != nil {
		return nil, false, err
	}
	want := offset + r.req.Limit + 1 // one more than the page says whether another follows
	var in []artifacts.Link
	if want > len(out) {
		if in, err = c.Incoming(uri, want-len(out)); err != nil {
			return nil, false, err
		}
	}
	name, id, isIdentity := identityOf(c.Config(), uri)
	if len(out) == 0 && len(in) == 0 && !isIdentity {
		if r.req.Cursor != "" {
			return nil, false, &UsageError{Msg: fmt.Sprintf("--cursor pages the neighbours of an entity, and %s is not one", uri)}
		}
		return nil, false, nil
	}
	e := &ReadEntity{Identity: name, Limit: r.req.Limit, Offset: offset}
	if isIdentity {
		e.Canonical = id.Canonical
		for _, al := range append([]string{id.Canonical}, id.Aliases...) {
			if al != uri {
				e.Aliases = append(e.Aliases, al)
			}
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
	if offset > len(all) {
		offset = len(all)
	}
	page := all[offset:min(len(all), offset+r.req.Limit)]
	if len(all) > offset+r.req.Limit {
		e.Next = makeCursor(offset+r.req.Limit, uri)
	}
	groups := map[[2]string]*ReadEdgeGroup{}
	for _, ed := range page {
		n, err := r.neighbour(c, ed.link.Node)
		if err != nil {
			return nil, false, err
		}
		key := [2]string{ed.dir, ed.link.Kind}
		g := groups[key]
		if g == nil {
			g = &ReadEdgeGroup{Direction: ed.dir, Kind: ed.link.Kind}
			groups[key] = g
		}
		g.Edges = append(g.Edges, n)
	}
	for _, k := range slices.SortedFunc(maps.Keys(groups), func(a, b [2]string) int {
		// Outbound before inbound, then by kind; each group keeps its
		// edges in table order, newest source first for inbound.
		return cmp.Or(cmp.Compare(dirRank(a[0]), dirRank(b[0])), strings.Compare(a[1], b[1]))
	}) {
		e.Groups = append(e.Groups, *groups[k])
	}
	e.Shown = len(page)
	a := &ReadAnswer{URI: uri, Kind: kindEntity, Title: uri, Entity: e, Index: r.indexState()}
	return a, true, nil
}

func dirRank(d string) int {
	if d == dirOutbound {
		return 0
	}
	return 1
}

// neighbour describes an edge's other end: an item (#<ordinal> in
// edges.dst.tsv) by its row, anything else as itself.
func (r *reader) neighbour(c readCorpus, node string) (ReadNeighbour, error) {
	ref, ok := strings.CutPrefix(node, artifacts.ItemRef)
	if !ok {
		return ReadNeighbour{URI: node}, nil
	}
	ord, err := strconv.Atoi(ref)
	if err != nil || ord < 0 || ord >= c.Len() {
		return ReadNeighbour{}, &artifacts.CorruptError{Path: artifacts.EdgesDstPath, Msg: fmt.Sprintf("source %q is not an item of docs.tsv", node)}
	}
	row, err := c.Row(ord)
	if err != nil {
		return ReadNeighbour{}, err
	}
	return ReadNeighbour{URI: row.URI, Kind: displayKind(row.Kind), Date: row.Date, Title: row.Title}, nil
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

// makeCursor continues a page of uri's neighbours at offset. It carries
// a check of the URI, so that a cursor is refused on another URI.
func makeCursor(offset int, uri string) string {
	return fmt.Sprintf("%d.%08x", offset, uint32(xxhash.Sum64String(uri)))
}

func parseCursor(cursor, uri string) (int, error) {
	if cursor == "" {
		return 0, nil
	}
	n, _, _ := strings.Cut(cursor, ".")
	offset, err := strconv.Atoi(n)
	if err != nil || offset < 0 || makeCursor(offset, uri) != cursor {
		return 0, &UsageError{Msg: fmt.Sprintf("--cursor %q is not a cursor of %s; use the one its previous page printed, or leave it out to start again", cursor, uri)}
	}
	return offset, nil
}
