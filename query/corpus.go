package query

import (
	"cmp"
	"context"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/diag"
	"github.com/cairn-kb/cairn/stages/load"
	"github.com/cairn-kb/cairn/stages/model"
	"github.com/cairn-kb/cairn/stages/project"
)

// corpus is one way of reading a base for a query: its artifacts, or a
// scan of the base itself. Both speak in item ordinals of the same URI
// order, rows, postings and edges in the artifacts' own shapes, so the
// ranking above them cannot tell which one it reads; that is what makes
// the indexed and scanned packs identical.
type corpus interface {
	Config() model.Config
	SemanticsDigest() string
	Len() int
	Fields() []artifacts.Field
	Row(ord int) (artifacts.Doc, error)
	// Rows reads the rows of sorted, distinct ordinals.
	Rows(ords []int) ([]artifacts.Doc, error)
	// Search is the lower bound: the first ordinal whose URI is >= uri.
	Search(uri string) (int, error)
	// Postings of an exact dictionary term; ok is false when absent.
	Postings(term string) ([]artifacts.Posting, bool, error)
	// TermsWith lists the dictionary terms that contain sub, sorted.
	TermsWith(sub string) ([]string, error)
	// Item re-reads one item in full, with its field values.
	Item(ord int) (project.Item, error)
	// Outgoing and Incoming are the lines of edges.tsv and edges.dst.tsv.
	Outgoing(node string) ([]artifacts.Link, error)
	Incoming(node string, limit int) ([]artifacts.Link, error)
	// HasBody reports whether a record has a verified cached body.
	HasBody(uri string) bool
}

// scanCorpus is the whole base loaded and projected in memory: the
// fallback when the artifacts are missing, stale or corrupt.
type scanCorpus struct {
	cfg       model.Config
	semantics string
	items     []project.Item
	fields    []artifacts.Field
	ordinal   map[string]int
	rows      []artifacts.Doc
	postings  map[string][]artifacts.Posting
	terms     []string // the dictionary, sorted
	outgoing  map[string][]artifacts.Link
	incoming  map[string][]artifacts.Link
	bodies    map[string]bool
}

// openScan loads and projects the base. A base with mistakes cannot be
// answered: the error carries its diagnostics.
func openScan(ctx context.Context, fsys fs.FS) (*scanCorpus, error) {
	loaded, err := load.Run(ctx, load.Input{FS: fsys})
	if err != nil {
		return nil, err
	}
	if errs := errorsOnly(loaded.Diagnostics); len(errs) > 0 {
		return nil, &diag.Errors{Diagnostics: errs}
	}
	proj, err := project.Run(ctx, project.Input{Base: loaded.Base})
	if err != nil {
		return nil, err
	}
	if errs := errorsOnly(proj.Diagnostics); len(errs) > 0 {
		return nil, &diag.Errors{Diagnostics: errs}
	}
	c := &scanCorpus{
		cfg: loaded.Base.Config, semantics: loaded.SemanticsDigest, items: proj.Items,
		ordinal: map[string]int{}, postings: map[string][]artifacts.Posting{},
		outgoing: map[string][]artifacts.Link{}, incoming: map[string][]artifacts.Link{},
		bodies: map[string]bool{},
	}
	for _, b := range loaded.Base.Bodies {
		c.bodies[b.URI] = true
	}
	var names []string
	for i := range c.items {
		for _, f := range c.items[i].Fields {
			names = append(names, f.Name)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	for i, n := range names {
		c.ordinal[n] = i
		c.fields = append(c.fields, artifacts.Field{Name: n, Weight: c.cfg.Weight(n)})
	}
	field := func(n string) int { return c.ordinal[n] }
	type inbound struct {
		link artifacts.Link
		at   string
		ord  int
	}
	in := map[string][]inbound{}
	c.rows = make([]artifacts.Doc, len(c.items))
	for i := range c.items {
		it := &c.items[i]
		c.rows[i] = it.Row(field)
		for _, f := range it.Fields {
			for _, t := range f.Terms {
				c.postings[t.Term] = append(c.postings[t.Term], artifacts.Posting{Doc: int32(i), Field: uint16(c.ordinal[f.Name]), TF: uint16(min(t.N, artifacts.MaxTF))})
			}
		}
		links := it.Edges()
		if len(links) > 0 {
			c.outgoing[it.URI] = links
		}
		at := cmp.Or(it.Time, it.Date)
		for _, l := range links {
			in[l.Node] = append(in[l.Node], inbound{artifacts.Link{Kind: l.Kind, Node: artifacts.ItemRef + strconv.Itoa(i)}, at, i})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.cfg.Identities)) {
		id := c.cfg.Identities[name]
		for _, a := range id.Aliases {
			if a != id.Canonical {
				c.outgoing[a] = append(c.outgoing[a], artifacts.Link{Kind: artifacts.EdgeSameAs, Node: id.Canonical})
				in[id.Canonical] = append(in[id.Canonical], inbound{artifacts.Link{Kind: artifacts.EdgeSameAs, Node: a}, "", -1})
			}
		}
	}
	for node, links := range c.outgoing {
		slices.SortFunc(links, project.CompareLinks)
		c.outgoing[node] = slices.Compact(links)
	}
	// The same order as edges.dst.tsv: newest source first, then kind,
	// ordinal and source.
	for node, list := range in {
		slices.SortFunc(list, func(a, b inbound) int {
			return cmp.Or(strings.Compare(b.at, a.at), strings.Compare(a.link.Kind, b.link.Kind), cmp.Compare(a.ord, b.ord), strings.Compare(a.link.Node, b.link.Node))
		})
		links := make([]artifacts.Link, 0, len(list))
		for j, e := range list {
			if j > 0 && e == list[j-1] {
				continue
			}
			links = append(links, e.link)
		}
		c.incoming[node] = links
	}
	c.terms = slices.Sorted(maps.Keys(c.postings))
	return c, nil
}

func errorsOnly(ds []diag.Diagnostic) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, d := range ds {
		if d.Severity == diag.Error {
			out = append(out, d)
		}
	}
	return out
}

func (c *scanCorpus) Config() model.Config      { return c.cfg }
func (c *scanCorpus) SemanticsDigest() string   { return c.semantics }
func (c *scanCorpus) Len() int                  { return len(c.items) }
func (c *scanCorpus) Fields() []artifacts.Field { return c.fields }

func (c *scanCorpus) Row(ord int) (artifacts.Doc, error) { return c.rows[ord], nil }

func (c *scanCorpus) Search(uri string) (int, error) {
	i, _ := slices.BinarySearchFunc(c.items, uri, func(it project.Item, u string) int { return strings.Compare(it.URI, u) })
	return i, nil
}

func (c *scanCorpus) Postings(term string) ([]artifacts.Posting, bool, error) {
	p, ok := c.postings[term]
	return p, ok, nil
}

func (c *scanCorpus) TermsWith(sub string) ([]string, error) {
	var out []string
	for _, t := range c.terms {
		if strings.Contains(t, sub) {
			out = append(out, t)
		}
	}
	return out, nil
}

func (c *scanCorpus) Item(ord int) (project.Item, error) { return c.items[ord], nil }

func (c *scanCorpus) Outgoing(node string) ([]artifacts.Link, error) { return c.outgoing[node], nil }

func (c *scanCorpus) Incoming(node string, limit int) ([]artifacts.Link, error) {
	links := c.incoming[node]
	if limit > 0 && len(links) > limit {
		links = links[:limit]
	}
	return links, nil
}

func (c *scanCorpus) HasBody(uri string) bool { return c.bodies[uri] }

func (c *scanCorpus) Rows(ords []int) ([]artifacts.Doc, error) {
	out := make([]artifacts.Doc, len(ords))
	for i, o := range ords {
		out[i] = c.rows[o]
	}
	return out, nil
}
