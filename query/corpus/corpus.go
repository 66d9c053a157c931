package corpus

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"iter"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/graph"
	"github.com/cairn-kb/cairn/stages/index"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/lex"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/load"
	"github.com/cairn-kb/cairn/stages/project"
)

// Corpus is one way of reading a base for a query: its artifacts, or a
// scan of the base itself. Both speak in item ordinals of the same URI
// order, rows, postings and edges in the artifacts' own shapes, so the
// ranking above them cannot tell which one it reads; that is what makes
// the indexed and scanned packs identical.
type Corpus interface {
	Config() model.Config
	// Identities are the configuration's, made once for the corpus.
	Identities() lex.Identities
	SemanticsDigest() string
	Len() int
	// Fields is fields.tsv; callers share it and must not change it.
	Fields() []artifacts.Field
	Row(ord int) (artifacts.Doc, error)
	// Rows reads the rows of sorted, distinct ordinals.
	Rows(ords []int) ([]artifacts.Doc, error)
	// Keys reads the docs.key lines of sorted, distinct ordinals: what
	// ranking needs of every candidate, where rows are read only for the
	// few items a pack shows.
	Keys(ords []int) ([]artifacts.Key, error)
	// Search is the lower bound: the first ordinal whose URI is >= uri.
	Search(uri string) (int, error)
	// Postings of an exact dictionary term; ok is false when absent.
	Postings(term string) ([]artifacts.Posting, bool, error)
	// PostingsContaining gives, in dictionary order, the postings of every
	// dictionary term that contains sub, exact identifier terms aside.
	PostingsContaining(sub string) ([]artifacts.TermPostings, error)
	// Item re-reads one item in full, with its field values; row is the
	// item's row as Row or Rows gave it, so that it is not read twice.
	Item(ord int, row artifacts.Doc) (project.Item, error)
	// Outgoing and Incoming are the lines of edges.tsv and edges.dst.tsv.
	Outgoing(node string) ([]artifacts.Link, error)
	Incoming(node string, limit int) ([]artifacts.Link, error)
	// HasBody reports whether a record has a verified cached body.
	HasBody(uri string) bool
	// EventDays lists the days of the events layer that hold records,
	// sorted.
	EventDays() []string
}

// scanCorpus answers from the base itself, when the artifacts are
// missing, stale or corrupt. Like the build, it projects one document at
// a time on every core and lets the items go; unlike the build, it keeps
// postings only for the dictionary terms a query can ask for (its terms,
// their exact forms, and identifier tokens that contain an
// identifier-shaped term), and re-projects the few items a pack shows.
type scanCorpus struct {
	cfg       model.Config
	semantics string
	base      model.Base
	proj      *project.Projector
	mu        sync.Mutex // guards scratch and edges, made on demand
	scratch   project.Scratch
	fields    []artifacts.Field
	// units hold the rows and outgoing edges of the items, in URI order,
	// where reduce left them: copying a large base's rows into one slice
	// would hold them twice at the scan's peak of memory. starts[k] is the
	// ordinal of units[k]'s first item; n counts the items.
	units    []scanUnit
	starts   []int
	n        int
	keys     *project.KeyTable // makes any item's key, as the build does
	postings map[string][]artifacts.Posting
	edges    *graph.Tables // the edge tables the build would write
	bodies   map[string]bool
	bodyText map[string]string
	docs     map[string]int // document path → index in base.Documents
	pages    map[string]int // page path → index in base.Pages
}

// wanted decides which dictionary terms a scan keeps for a query.
type wanted struct {
	exact  map[string]bool // whole terms: plain terms and exact forms
	idents []string        // identifier-shaped terms, matched inside tokens
}

func newWanted(cfg model.Config, terms []string) wanted {
	w := wanted{exact: map[string]bool{}}
	ids := lex.NewIdentities(cfg)
	for _, t := range terms {
		w.exact[t] = true
		for _, x := range ExactLookups(ids, t) {
			w.exact[x] = true
		}
		if lex.IsIdentifierShaped(t) {
			w.idents = append(w.idents, t)
		}
	}
	return w
}

func (w wanted) keep(term string) bool {
	if w.exact[term] {
		return true
	}
	if strings.HasPrefix(term, lex.ExactPrefix) {
		return false
	}
	for _, id := range w.idents {
		if strings.Contains(term, id) {
			return true
		}
	}
	return false
}

// scanUnit is one run of items consecutive in URI order, reduced: the
// run's index segment, which assemble numbers into the corpus and then
// keeps only the rows of, and its items' outgoing edges.
type scanUnit struct {
	seg  index.Segment
	rows []artifacts.Doc // seg's rows, with the corpus's field ordinals
	// links holds every item's outgoing edges in a row, ending at
	// linkEnds[i] for item i: one slice for the run rather than one per
	// item, with one copy of each edge kind.
	links    []artifacts.Link
	linkEnds []int32
}

// edges are the outgoing edges of the unit's i-th item.
func (u *scanUnit) edges(i int) []artifacts.Link {
	start := int32(0)
	if i > 0 {
		start = u.linkEnds[i-1]
	}
	return u.links[start:u.linkEnds[i]]
}

// Scan loads the base and indexes, in memory, what the query's terms
// need. A base with mistakes cannot be answered: the error carries its
// diagnostics.
func Scan(ctx context.Context, fsys fs.FS, terms []string) (*scanCorpus, error) {
	// Governance and content files play no part in a context pack, and
	// the inputs' hashes, which decide what a build redoes, none either.
	loaded, err := load.Run(ctx, load.Input{FS: fsys, Unhashed: true}, load.GroupCorpus)
	if err != nil {
		return nil, err
	}
	if errs := diag.ErrorsOnly(loaded.Diagnostics); len(errs) > 0 {
		return nil, baseErrors(errs)
	}
	b := loaded.Base
	c := &scanCorpus{
		cfg: b.Config, semantics: loaded.SemanticsDigest, base: b, proj: project.NewProjector(b),
		postings: map[string][]artifacts.Posting{}, bodies: map[string]bool{},
		docs: map[string]int{}, pages: map[string]int{},
	}
	c.bodyText = map[string]string{}
	for _, body := range b.Bodies {
		c.bodies[body.URI] = true
		c.bodyText[body.URI] = body.Text
	}
	for i, d := range b.Documents {
		c.docs[d.Path] = i
	}
	for i, p := range b.Pages {
		c.pages[p.Path] = i
	}
	want := newWanted(b.Config, terms)
	var needles [][]byte
	for _, n := range scanNeedles(b.Config, terms) {
		needles = append(needles, []byte(n))
	}
	document := func(_ int, d model.Document, into []project.Item, s *project.Scratch, ds *diag.List, _ func([]project.Item)) []project.Item {
		var buf []byte
		return append(into, c.proj.DocumentWhere(d, s, ds, c.mayMatch(needles, &buf))...)
	}
	reduceRun := func(items []project.Item, _ project.Dict) scanUnit { return reduce(items, want) }
	ordered, diags, err := project.ProjectRuns(ctx, c.proj, b.Documents, true, document, reduceRun)
	if err != nil {
		return nil, err
	}
	if errs := diag.ErrorsOnly(diags); len(errs) > 0 {
		return nil, baseErrors(errs)
	}
	if err := c.assemble(ordered); err != nil {
		return nil, err
	}
	rows := make([]*artifacts.Doc, 0, c.n)
	for k := range c.units {
		for j := range c.units[k].rows {
			rows = append(rows, &c.units[k].rows[j])
		}
	}
	if c.keys, err = project.NewKeyTable(c.n, func(i int) *artifacts.Doc { return rows[i] }, len(c.fields), c.cfg); err != nil {
		return nil, err
	}
	return c, nil
}

// scanNeedles are the texts a record must hold, ignoring case, to possibly
// match one of the terms: each term, and every name of an identity the
// term names (a record related to person:github/marc-x matches
// marc@x.test exactly through the identity).
func scanNeedles(cfg model.Config, terms []string) []string {
	ids := lex.NewIdentities(cfg)
	var out []string
	for _, t := range terms {
		out = append(out, t)
		if _, id, ok := strings.Cut(t, "#"); ok && id != "" {
			// A complete record URI names the record by its id.
			out = append(out, strings.ToLower(lex.DecodeID(id)))
		}
		for _, name := range slices.Sorted(maps.Keys(cfg.Identities)) {
			id := cfg.Identities[name]
			for _, n := range append([]string{id.Canonical}, id.Aliases...) {
				if slices.ContainsFunc(ids.ExactForms(n), func(f string) bool { return lex.Exact(f) == t }) {
					for _, m := range append([]string{id.Canonical}, id.Aliases...) {
						out = append(out, strings.ToLower(m))
					}
					break
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// mayMatch tells projection which records to tokenise: those whose raw
// JSON (or cached body) holds a needle, ignoring case. A record with a
// JSON escape is always tokenised, since an escape can hide a needle's
// bytes. Each document gets its own, since it lowers text into buf.
func (c *scanCorpus) mayMatch(needles [][]byte, buf *[]byte) func(uri, raw string) bool {
	return func(uri, raw string) bool {
		if strings.IndexByte(raw, '\\') >= 0 || holdsNeedle(raw, needles, buf) {
			return true
		}
		body, ok := c.bodyText[uri]
		return ok && holdsNeedle(body, needles, buf)
	}
}

// holdsNeedle reports whether strings.ToLower(s) contains a needle. ASCII
// text, which lowers byte by byte, is lowered into buf, so that scanning
// every record of a base allocates nothing; other text is lowered by
// strings.ToLower.
func holdsNeedle(s string, needles [][]byte, buf *[]byte) bool {
	b := (*buf)[:0]
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			b = []byte(strings.ToLower(s))
			break
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	if cap(b) > cap(*buf) {
		*buf = b
	}
	for _, n := range needles {
		if bytes.Contains(b, n) {
			return true
		}
	}
	return false
}

// reduce keeps of a run of items (sorted by URI) their index segment,
// with the postings of wanted terms only, and their edges: a scan reduces
// every item of the base.
func reduce(items []project.Item, want wanted) scanUnit {
	u := scanUnit{seg: index.NewSegmentWhere(items, want.keep), linkEnds: make([]int32, len(items))}
	kinds := map[string]string{}
	for i := range items {
		for _, l := range graph.NodeOf(&items[i]).Links {
			if k, ok := kinds[l.Kind]; ok {
				l.Kind = k
			} else {
				kinds[l.Kind] = l.Kind
			}
			u.links = append(u.links, l)
		}
		u.linkEnds[i] = int32(len(u.links))
	}
	return u
}

// assemble numbers the units' items and fields as the index does, keeps
// the units' rows and edges, and merges their postings.
func (c *scanCorpus) assemble(units []scanUnit) error {
	units = slices.DeleteFunc(units, func(u scanUnit) bool { return len(u.seg.Rows) == 0 }) // no ordinal to start
	segs := make([]index.Segment, len(units))
	for k := range units {
		segs[k] = units[k].seg
	}
	l, err := index.NewLayout(c.cfg, segs)
	if err != nil {
		return err
	}
	c.fields = l.Fields
	for k := range units {
		u := &units[k]
		for j := range u.seg.Rows {
			l.Renumber(k, u.seg.Rows[j].Lengths)
		}
		// The rows are all a unit keeps of its segment once the postings
		// are merged.
		u.rows, u.seg = u.seg.Rows, index.Segment{}
		c.starts = append(c.starts, c.n)
		c.n += len(u.rows)
	}
	err = l.Merge(segs, func(term string, n int, postings iter.Seq[artifacts.Posting]) {
		c.postings[term] = slices.AppendSeq(make([]artifacts.Posting, 0, n), postings)
	})
	c.units = units
	return err
}

// baseErrors is why a base with mistakes cannot be scanned: it names the
// first and sends the user to the build, which lists them all.
func baseErrors(errs []diag.Diagnostic) error {
	return &UsageError{Msg: fmt.Sprintf("the base has %d error(s), so no context can be read from it; the first: %s; run cairn build to see them all", len(errs), errs[0])}
}

func (c *scanCorpus) Config() model.Config       { return c.cfg }
func (c *scanCorpus) Identities() lex.Identities { return c.proj.Identities() }
func (c *scanCorpus) SemanticsDigest() string    { return c.semantics }
func (c *scanCorpus) Len() int                   { return c.n }
func (c *scanCorpus) Fields() []artifacts.Field  { return c.fields }
func (c *scanCorpus) HasBody(uri string) bool    { return c.bodies[uri] }

// locate finds the unit that holds an ordinal, and the item's position
// in it.
func (c *scanCorpus) locate(ord int) (*scanUnit, int) {
	k, found := slices.BinarySearch(c.starts, ord)
	if !found {
		k--
	}
	return &c.units[k], ord - c.starts[k]
}

func (c *scanCorpus) row(ord int) artifacts.Doc {
	u, i := c.locate(ord)
	return u.rows[i]
}

func (c *scanCorpus) Row(ord int) (artifacts.Doc, error) { return c.row(ord), nil }

func (c *scanCorpus) Rows(ords []int) ([]artifacts.Doc, error) {
	out := make([]artifacts.Doc, len(ords))
	for i, o := range ords {
		out[i] = c.row(o)
	}
	return out, nil
}

func (c *scanCorpus) Keys(ords []int) ([]artifacts.Key, error) { return c.keys.KeysOf(ords) }

// Search finds the first unit whose last URI is >= uri, which holds the
// lower bound, then the bound within it.
func (c *scanCorpus) Search(uri string) (int, error) {
	k := sort.Search(len(c.units), func(k int) bool {
		rows := c.units[k].rows
		return rows[len(rows)-1].URI >= uri
	})
	if k == len(c.units) {
		return c.n, nil
	}
	i, _ := slices.BinarySearchFunc(c.units[k].rows, uri, func(r artifacts.Doc, u string) int { return strings.Compare(r.URI, u) })
	return c.starts[k] + i, nil
}

func (c *scanCorpus) Postings(term string) ([]artifacts.Posting, bool, error) {
	p, ok := c.postings[term]
	return p, ok, nil
}

func (c *scanCorpus) PostingsContaining(sub string) ([]artifacts.TermPostings, error) {
	var out []artifacts.TermPostings
	for t, ps := range c.postings {
		if strings.Contains(t, sub) && !strings.HasPrefix(t, lex.ExactPrefix) {
			out = append(out, artifacts.TermPostings{Term: t, Postings: ps})
		}
	}
	slices.SortFunc(out, func(a, b artifacts.TermPostings) int { return strings.Compare(a.Term, b.Term) })
	return out, nil
}

// Item re-projects one item from the loaded base, as the index path does
// from its span, with the flags its row holds.
func (c *scanCorpus) Item(ord int, _ artifacts.Doc) (project.Item, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	row := c.row(ord)
	var it project.Item
	if row.SpanOff >= 0 {
		path, _, _ := strings.Cut(row.URI, "#")
		d := c.base.Documents[c.docs[path]]
		i, ok := slices.BinarySearchFunc(d.Records, row.SpanOff, func(r model.Record, off int64) int { return cmp.Compare(r.Offset, off) })
		if !ok {
			return it, fmt.Errorf("no record of %s at offset %d", path, row.SpanOff)
		}
		it, ok = c.proj.Record(d, d.Records[i], &c.scratch)
		if !ok {
			return it, fmt.Errorf("record %s does not project", row.URI)
		}
	} else {
		it = c.proj.Page(c.base.Pages[c.pages[row.URI]], &c.scratch)
	}
	it.Flags, it.Digest = row.Flags, row.Digest
	return it, nil
}

// edgeTables are the edge tables the build would write, made on the
// first call: only --expand follows edges.
func (c *scanCorpus) edgeTables() (*graph.Tables, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.edges == nil {
		nodes := make([]graph.Node, 0, c.n)
		for _, u := range c.units {
			for j := range u.rows {
				nodes = append(nodes, graph.Node{URI: u.rows[j].URI, At: project.Newest(&u.rows[j]), Links: u.edges(j)})
			}
		}
		// The nodes are in memory and the query waits for the tables:
		// there is nothing to cancel.
		t, err := graph.NewTables(context.Background(), graph.Input{Config: c.cfg, Nodes: nodes})
		if err != nil {
			return nil, err
		}
		c.edges = &t
	}
	return c.edges, nil
}

// adjacent is node's row of an edge table, if it has one.
func adjacent(rows []artifacts.Adjacency, node string) []artifacts.Link {
	i, ok := slices.BinarySearchFunc(rows, node, func(r artifacts.Adjacency, n string) int { return strings.Compare(r.Node, n) })
	if !ok {
		return nil
	}
	return rows[i].Links
}

// Outgoing is a node's line of edges.tsv: an item's edges, an alias's
// same-as edge. It is a copy, since the line shares the units' edges.
func (c *scanCorpus) Outgoing(node string) ([]artifacts.Link, error) {
	t, err := c.edgeTables()
	if err != nil {
		return nil, err
	}
	return slices.Clone(adjacent(t.BySrc, node)), nil
}

// Incoming is a node's line of edges.dst.tsv, its newest limit edges when
// limit is above 0.
func (c *scanCorpus) Incoming(node string, limit int) ([]artifacts.Link, error) {
	t, err := c.edgeTables()
	if err != nil {
		return nil, err
	}
	links := adjacent(t.ByDst, node)
	if limit > 0 && len(links) > limit {
		links = links[:limit]
	}
	return links, nil
}

func (c *scanCorpus) EventDays() []string {
	var days []string
	for _, d := range c.base.Documents {
		if d.Layer == model.LayerEvents && len(d.Records) > 0 {
			days = append(days, d.Date)
		}
	}
	slices.Sort(days)
	return slices.Compact(days)
}

// ExactLookups are the dictionary terms that make an item an exact match
// for a query term: the term's own exact form, and the exact form of every
// name of an identity the term names (so marc@x.test finds records related
// to person:github/marc-x, Marc's alias).
func ExactLookups(ids lex.Identities, term string) []string {
	out := []string{lex.ExactTerm(term)}
	for _, n := range ids.Names(term) {
		out = append(out, lex.ExactTerm(n))
	}
	slices.Sort(out)
	return slices.Compact(out)
}
