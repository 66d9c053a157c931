package corpus

import (
	"cmp"
	"context"
	"iter"
	"slices"
	"strings"
	"sync"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/tables"
	"github.com/cairn-kb/cairn/stages/graph"
	"github.com/cairn-kb/cairn/stages/index"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/lex"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/load"
	"github.com/cairn-kb/cairn/stages/project"
)

// Tables is what an IndexCorpus reads the artifacts through: a
// tables.Reader, or an overlay of one with changed items laid over it.
type Tables interface {
	Items() int
	Fields() []artifacts.Field
	Row(ord int) (artifacts.Doc, error)
	Rows(ords []int) ([]artifacts.Doc, error)
	Keys(ords []int) ([]artifacts.Key, error)
	Search(uri string) (int, bool, error)
	Term(term string) (artifacts.TermEntry, bool, error)
	TermsWith(sub string) ([]artifacts.TermEntry, error)
	Postings(e artifacts.TermEntry) ([]artifacts.Posting, error)
	Outgoing(node string) ([]artifacts.Link, bool, error)
	Incoming(node string, limit int) ([]artifacts.Link, bool, error)
	// BytesRead is how many bytes of each artifact were read, by name.
	BytesRead() map[string]int64
	Close() error
}

// An overlay answers from the artifacts on disk with the items of some
// changed record documents and pages laid over theirs: what a query reads
// when those files changed since the build but every item kept its URI,
// its place among the others (source, URL, time) and the index's fields. The replaced items keep their ordinals, so nothing else moves:
// a row, a key or a postings line is read from disk as an indexed query
// reads it, and only the few that name a replaced item are mended. The
// answers are those the next build's artifacts give, at the cost of
// projecting the changed files, not of splicing every artifact (see
// overlayChanges for when it applies; the splice covers the rest).
type overlay struct {
	*tables.Reader
	rows     map[int]artifacts.Doc // the replaced items' rows and keys, by ordinal
	keys     map[int]artifacts.Key
	postings map[string][]artifacts.Posting // the replaced items' postings, by term
	terms    []string                       // those terms, sorted
	out      map[string][]artifacts.Link    // the replaced items' outgoing links, by URI
	replaced map[string]bool                // the replaced items' URIs
	in       map[string][]graph.Inbound     // their links, by destination
	count    int                            // how many items are replaced

	mu     sync.Mutex
	merged map[string][]artifacts.Posting // a term's postings, mended, once read
}

// overlayChanges lays the changed units of loaded (the changed documents
// and pages, parsed after Scanned.Narrow and NarrowPages) over the
// artifacts r reads. ok is false when the change is not one an overlay can
// answer exactly: a unit added or removed, an item added, removed or moved
// (its source, URL or time changed), a field the index lacks or may lose,
// a page that supersedes or did, a changed item that is an alias; the
// caller splices then. A changed title is mended (regroup).
func overlayChanges(ctx context.Context, r *tables.Reader, loaded load.Output, c load.CorpusChanges) (*overlay, map[string]artifacts.Document, bool) {
	base := loaded.Base
	here := map[string]model.Document{}
	for _, d := range base.Documents {
		here[d.Path] = d
	}
	var docs []model.Document
	for _, p := range c.Documents {
		d, ok := here[p]
		if !ok {
			return nil, nil, false // gone: its items leave
		}
		docs = append(docs, d)
	}
	for _, pg := range base.Pages {
		if _, ok := slices.BinarySearch(c.Pages, pg.Path); ok && len(pg.Front.Supersedes) > 0 {
			return nil, nil, false // it flags items of other units
		}
	}
	aliases := graph.Aliases(base.Config)
	// A page that superseded others flags them; once it changed, their
	// flags may change too.
	for _, pg := range c.Pages {
		links, _, err := r.Outgoing(pg)
		if err != nil || slices.ContainsFunc(links, func(l artifacts.Link) bool { return l.Kind == artifacts.EdgeSupersedes }) {
			return nil, nil, false
		}
	}
	// Where each unit's items sit, and what they were: a document's run of
	// URIs path#..., a page's one row.
	paths := slices.Concat(c.Documents, c.Pages)
	olds := make([][]artifacts.Doc, len(paths))
	froms := make([]int, len(paths))
	var superseded []string // items some page flags, told by the index
	for u, path := range paths {
		from, to, err := unitRange(r, path, u >= len(docs))
		if err != nil || to <= from {
			return nil, nil, false // new: its items join
		}
		ords := make([]int, to-from)
		for k := range ords {
			ords[k] = from + k
		}
		if olds[u], err = r.Rows(ords); err != nil {
			return nil, nil, false
		}
		froms[u] = from
		for _, row := range olds[u] {
			// The flag was the item's own, or a page's: a supersedes link
			// into it says which. The pages that set it did not change.
			if !slices.Contains(row.Flags, project.FlagSuperseded) {
				continue
			}
			links, _, err := r.Incoming(row.URI, 0)
			if err != nil {
				return nil, nil, false
			}
			if slices.ContainsFunc(links, func(l artifacts.Link) bool { return l.Kind == artifacts.EdgeSupersedes }) {
				superseded = append(superseded, row.URI)
			}
		}
	}
	// The loaded pages may be only the changed ones (NarrowPages): the
	// others' one bearing on these items, what they supersede, is above.
	p := project.NewProjector(base)
	p.Supersede(superseded...)
	var ds diag.List
	var s project.Scratch
	var units [][]project.Item
	for _, d := range docs {
		units = append(units, p.Document(d, &s, &ds, true))
	}
	pages := p.PagesNamed(c.Pages, &s, true)
	if len(pages) != len(c.Pages) {
		return nil, nil, false // a page is gone
	}
	for _, it := range pages {
		units = append(units, []project.Item{it})
	}
	if ds.HasErrors() || ctx.Err() != nil {
		return nil, nil, false // the scan reports the mistakes
	}
	o := &overlay{Reader: r, rows: map[int]artifacts.Doc{}, keys: map[int]artifacts.Key{}, postings: map[string][]artifacts.Posting{},
		out: map[string][]artifacts.Link{}, replaced: map[string]bool{}, in: map[string][]graph.Inbound{}, merged: map[string][]artifacts.Posting{}}
	fields := r.Fields()
	var segs []index.Segment
	var starts []int32
	var retitled []retitle
	for u, items := range units {
		old, from := olds[u], froms[u]
		if len(items) != len(old) {
			return nil, nil, false // an item joined or left
		}
		seg := index.NewSegment(items)
		for k := range seg.Rows {
			if aliases[seg.Rows[k].URI] || !samePlace(&old[k], &seg.Rows[k]) {
				return nil, nil, false
			}
			if old[k].Title != seg.Rows[k].Title {
				retitled = append(retitled, retitle{ord: from + k, was: old[k].Title})
			}
		}
		segs = append(segs, seg)
		starts = append(starts, int32(from))
	}
	l, err := index.LayoutWithin(base.Config, fields, segs, starts, r.Items())
	if err != nil {
		return nil, nil, false
	}
	stamps := map[int]string{}
	for u, seg := range segs {
		had, has := map[int32]bool{}, map[int32]bool{}
		ords := make([]int, len(seg.Rows))
		for k := range seg.Rows {
			ords[k] = int(starts[u]) + k
		}
		oldKeys, err := r.Keys(ords)
		if err != nil {
			return nil, nil, false
		}
		for _, k := range oldKeys {
			for f, c := range k.Norms {
				had[int32(f)] = had[int32(f)] || c > 0
			}
		}
		for k, row := range seg.Rows {
			row.Lengths = slices.Clone(row.Lengths)
			l.Renumber(u, row.Lengths)
			for _, f := range row.Lengths {
				has[f.Field] = has[f.Field] || f.N > 0
			}
			key, err := project.KeyOf(oldKeys[k], &row, len(fields), base.Config)
			if err != nil {
				return nil, nil, false
			}
			key.Offset = oldKeys[k].Offset
			// As docs.tsv has it: the key holds the norms and the digest.
			row.Lengths, row.Digest = nil, ""
			o.rows[ords[k]], o.keys[ords[k]] = row, key
			o.replaced[row.URI] = true
			stamps[ords[k]] = project.Newest(&row)
		}
		for f, n := range had {
			if n && !has[f] {
				return nil, nil, false // the field may have no item left: fields.tsv would change
			}
		}
	}
	if len(retitled) > 0 && o.regroup(retitled) != nil {
		return nil, nil, false
	}
	if l.Merge(segs, func(t string, n int, postings iter.Seq[artifacts.Posting]) {
		ps := make([]artifacts.Posting, 0, n)
		for p := range postings {
			ps = append(ps, p)
		}
		o.postings[t] = ps
		o.terms = append(o.terms, t)
	}) != nil {
		return nil, nil, false // segments in memory: no read to fail
	}
	for u, items := range units {
		for k := range items {
			n := graph.NodeOf(&items[k])
			if len(n.Links) > 0 && !n.Record { // a record's, IndexCorpus projects
				o.out[n.URI] = n.Links
			}
			for _, link := range n.Links {
				o.in[link.Node] = append(o.in[link.Node], graph.Inbound{Kind: link.Kind, Ord: starts[u] + int32(k), At: n.At})
			}
		}
	}
	o.count = len(o.rows)
	replacedDocs := map[string]artifacts.Document{}
	for _, d := range index.DocumentRows(base.Config, docs) {
		replacedDocs[d.Path] = d
	}
	return o, replacedDocs, true
}

// unitRange is where a unit's items sit in the index: a document's run of
// URIs path#..., a page's one row.
func unitRange(r *tables.Reader, path string, page bool) (from, to int, err error) {
	if page {
		o, found, err := r.Search(path)
		if err != nil || !found {
			return 0, 0, cmp.Or(err, error(errNotThere))
		}
		return o, o + 1, nil
	}
	// Every URI with the prefix path# sorts before path$ ('$' follows '#').
	if from, _, err = r.Search(path + "#"); err != nil {
		return 0, 0, err
	}
	to, _, err = r.Search(path + "$")
	return from, to, err
}

// errNotThere is a changed page the index does not hold: it is new.
var errNotThere = &artifacts.CorruptError{Msg: "not in the index"}

// samePlace reports whether an item keeps the place its old row had among
// the others, but for its title: the same URI, and what the key table
// compares rows by (a new title regroups, see regroup).
func samePlace(old, row *artifacts.Doc) bool {
	return old.URI == row.URI && old.Source == row.Source && old.URLKey == row.URLKey &&
		old.Date == row.Date && project.Newest(old) == project.Newest(row)
}

// retitle is a replaced item whose title changed, with its old title.
type retitle struct {
	ord int
	was string
}

// regroup mends the title groups a new title changes. A key's title group
// is the first ordinal of the items of its source with its title: the
// items that leave a group or join one can change the group's first item,
// and so the key of every item in it. Every group a retitled item left or
// joined is found again in full, from a sweep of every key (their source
// and title-terms hash name the candidates, whose rows say their titles),
// and each member's key is given the group's first ordinal.
func (o *overlay) regroup(retitled []retitle) error {
	type group struct {
		source uint32
		title  string
	}
	hit := map[group]bool{}
	sources, hashes := map[uint32]bool{}, map[uint32]bool{}
	for _, rt := range retitled {
		k := o.keys[rt.ord]
		for _, title := range []string{rt.was, o.rows[rt.ord].Title} {
			if title != "" {
				hit[group{k.Source, title}] = true
				sources[k.Source], hashes[lex.TitleKey(title)] = true, true
			}
		}
		if o.rows[rt.ord].Title == "" {
			k.TitleGroup = -1
			o.keys[rt.ord] = k
		}
	}
	// The candidates are the lines of a source and title-terms hash hit,
	// told by two columns of each line as written.
	wantSource, wantTerms := map[string]bool{}, map[string]bool{}
	for src := range sources {
		wantSource[string(artifacts.KeySourceColumn(src))] = true
	}
	for h := range hashes {
		wantTerms[string(artifacts.KeyTitleTermsColumn(h))] = true
	}
	ords, err := o.Reader.KeysWhere(func(line []byte) bool {
		src, terms := artifacts.KeyPlaceColumns(line)
		return wantSource[string(src)] && wantTerms[string(terms)]
	})
	if err != nil {
		return err
	}
	kept := slices.DeleteFunc(ords, func(i int) bool { _, replaced := o.rows[i]; return replaced })
	keys, err := o.Reader.Keys(kept)
	if err != nil {
		return err
	}
	rows, err := o.Reader.Rows(kept)
	if err != nil {
		return err
	}
	keyOf := map[int]artifacts.Key{}
	members := map[group][]int{}
	for j, i := range kept {
		keyOf[i] = keys[j]
		if g := (group{keys[j].Source, rows[j].Title}); hit[g] {
			members[g] = append(members[g], i)
		}
	}
	for i, row := range o.rows {
		if g := (group{o.keys[i].Source, row.Title}); row.Title != "" && hit[g] {
			members[g] = append(members[g], i)
		}
	}
	for _, ms := range members {
		head := int32(slices.Min(ms))
		for _, m := range ms {
			k, replaced := o.keys[m]
			if !replaced {
				k = keyOf[m]
			}
			if k.TitleGroup != head {
				k.TitleGroup = head
				o.keys[m] = k
			}
		}
	}
	return nil
}

// Row is the replaced item's row, else the artifacts'.
func (o *overlay) Row(ord int) (artifacts.Doc, error) {
	if d, ok := o.rows[ord]; ok {
		return d, nil
	}
	return o.Reader.Row(ord)
}

// Rows reads the rows of ords, the replaced ones from the overlay.
func (o *overlay) Rows(ords []int) ([]artifacts.Doc, error) { return mend(ords, o.rows, o.Reader.Rows) }

// Keys reads the keys of ords, the replaced ones from the overlay.
func (o *overlay) Keys(ords []int) ([]artifacts.Key, error) { return mend(ords, o.keys, o.Reader.Keys) }

// mend reads ords with read, but those mine holds.
func mend[T any](ords []int, mine map[int]T, read func([]int) ([]T, error)) ([]T, error) {
	var rest []int
	for _, ord := range ords {
		if _, ok := mine[ord]; !ok {
			rest = append(rest, ord)
		}
	}
	if len(rest) == len(ords) {
		return read(ords)
	}
	got, err := read(rest)
	if err != nil {
		return nil, err
	}
	out := make([]T, len(ords))
	for i, ord := range ords {
		if v, ok := mine[ord]; ok {
			out[i] = v
		} else {
			out[i], got = got[0], got[1:]
		}
	}
	return out, nil
}

// Term is the dictionary entry of term with its document frequency
// counted over the mended postings; a term only replaced items held, and
// hold no more, is gone.
func (o *overlay) Term(term string) (artifacts.TermEntry, bool, error) {
	e, found, err := o.Reader.Term(term)
	if err != nil {
		return e, false, err
	}
	if !found {
		e = artifacts.TermEntry{Term: term}
	}
	ps, err := o.mended(e, found)
	if err != nil || len(ps) == 0 {
		return artifacts.TermEntry{}, false, err
	}
	e.DF = distinct(ps)
	return e, true, nil
}

// TermsWith is every term containing sub that an item holds: the
// dictionary's, mended, and those only replaced items hold.
func (o *overlay) TermsWith(sub string) ([]artifacts.TermEntry, error) {
	old, err := o.Reader.TermsWith(sub)
	if err != nil {
		return nil, err
	}
	var out []artifacts.TermEntry
	add := func(e artifacts.TermEntry, found bool) error {
		ps, err := o.mended(e, found)
		if err == nil && len(ps) > 0 {
			e.DF = distinct(ps)
			out = append(out, e)
		}
		return err
	}
	for _, e := range old {
		if err := add(e, true); err != nil {
			return nil, err
		}
	}
	for _, t := range o.terms {
		if strings.Contains(t, sub) && !slices.ContainsFunc(old, func(e artifacts.TermEntry) bool { return e.Term == t }) {
			if err := add(artifacts.TermEntry{Term: t}, false); err != nil {
				return nil, err
			}
		}
	}
	slices.SortFunc(out, func(a, b artifacts.TermEntry) int { return strings.Compare(a.Term, b.Term) })
	return out, nil
}

// Postings are the mended postings of an entry Term or TermsWith gave.
func (o *overlay) Postings(e artifacts.TermEntry) ([]artifacts.Posting, error) {
	return o.mended(e, e.InIndex())
}

// mended is term e's postings with the replaced items' old ones left out
// and their new ones merged in, sorted by item then field; found says
// whether the dictionary holds the term (with e's range). It is read once
// per term.
func (o *overlay) mended(e artifacts.TermEntry, found bool) ([]artifacts.Posting, error) {
	o.mu.Lock()
	ps, ok := o.merged[e.Term]
	o.mu.Unlock()
	if ok {
		return ps, nil
	}
	var old []artifacts.Posting
	if found {
		var err error
		if old, err = o.Reader.Postings(e); err != nil {
			return nil, err
		}
	}
	old = slices.DeleteFunc(old, func(p artifacts.Posting) bool { _, gone := o.rows[int(p.Doc)]; return gone })
	ps = mergePostings(old, o.postings[e.Term])
	o.mu.Lock()
	o.merged[e.Term] = ps
	o.mu.Unlock()
	return ps, nil
}

// mergePostings merges two lists sorted by item then field.
func mergePostings(a, b []artifacts.Posting) []artifacts.Posting {
	if len(b) == 0 {
		return a
	}
	out := make([]artifacts.Posting, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if cmp.Or(cmp.Compare(a[0].Doc, b[0].Doc), cmp.Compare(a[0].Field, b[0].Field)) < 0 {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// distinct counts the items of postings sorted by item.
func distinct(ps []artifacts.Posting) int {
	n := 0
	for i, p := range ps {
		if i == 0 || p.Doc != ps[i-1].Doc {
			n++
		}
	}
	return n
}

// Outgoing is a replaced item's links, else the artifacts'.
func (o *overlay) Outgoing(node string) ([]artifacts.Link, bool, error) {
	if o.replaced[node] {
		links := o.out[node]
		return links, len(links) > 0, nil
	}
	return o.Reader.Outgoing(node)
}

// Incoming is node's inbound links from the artifacts, those of replaced
// items that are gone left out and their new ones merged in, in the
// tables' order, at most limit (all when limit <= 0). A replaced item
// keeps its ordinal and its time, so a link it still has keeps its place
// in the line: only the links that are new are placed, each by a binary
// search over the line.
func (o *overlay) Incoming(node string, limit int) ([]artifacts.Link, bool, error) {
	added := o.in[node]
	read := 0 // all of the line when new links go in
	if len(added) == 0 && limit > 0 {
		read = limit + o.count // enough left once the replaced items' links go
	}
	kept, _, err := o.Reader.Incoming(node, read)
	if err != nil {
		return nil, false, err
	}
	type link struct {
		kind string
		ord  int
	}
	still := map[link]bool{}
	for _, a := range added {
		still[link{a.Kind, int(a.Ord)}] = true
	}
	stayed := map[link]bool{}
	kept = slices.DeleteFunc(kept, func(l artifacts.Link) bool {
		ord, ok := o.replacedSource(l.Node)
		if ok && still[link{l.Kind, ord}] {
			stayed[link{l.Kind, ord}] = true
			return false
		}
		return ok
	})
	var fresh []graph.Inbound
	for _, a := range added {
		if !stayed[link{a.Kind, int(a.Ord)}] {
			fresh = append(fresh, a)
		}
	}
	links := kept
	if len(fresh) > 0 {
		var ferr error
		stamps := map[int32]string{} // a binary search probes the same sources again
		links = graph.MergeInbound(kept, fresh, func(ord int32) string {
			if at, ok := stamps[ord]; ok {
				return at
			}
			d, err := o.Row(int(ord))
			ferr = cmp.Or(ferr, err)
			stamps[ord] = project.Newest(&d)
			return stamps[ord]
		})
		if ferr != nil {
			return nil, false, ferr
		}
	}
	if limit > 0 && len(links) > limit {
		links = links[:limit]
	}
	if len(links) == 0 {
		return nil, false, nil // as the tables answer a node no link reaches
	}
	return links, true, nil
}

// replacedSource is the ordinal of an inbound link's source when that is
// a replaced item.
func (o *overlay) replacedSource(src string) (int, bool) {
	n, ok := artifacts.ParseItemRef(src)
	if !ok {
		return 0, false
	}
	_, replaced := o.rows[int(n)]
	return int(n), replaced
}
