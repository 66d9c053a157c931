package index

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/project"
)

// Previous is the index a build wrote, read back.
type Previous struct {
	// Docs is a string: its rows are kept as strings that share it.
	Docs string
	// The other tables may be mapped files (artifacts.Mapped), valid
	// during the splice only: what its output keeps of them is copied.
	Key, Fields, Terms, Postings, Documents []byte
}

// SpliceInput is the previous index and the units of the corpus that
// replace some of its items: record documents (whose items' URIs start
// with the document's path and #) and pages (whose URI is their path).
type SpliceInput struct {
	Config   model.Config
	Previous Previous
	// Documents and Pages name the units replaced: changed, new or gone.
	Documents, Pages []string
	// Segments hold the replaced units' items as they are now, each
	// segment a run in URI order of one unit's items.
	Segments []Segment
	// Current are the replaced documents still in the base, as they are
	// now, for documents.tsv.
	Current []model.Document
	// Spool is where the large tables are written; nil writes them in
	// memory.
	Spool *artifacts.Spool
}

// ErrNoSplice says the previous index cannot be spliced into the new one
// (its fields would change, or a new run would interleave with kept
// items); the whole corpus must be indexed.
var ErrNoSplice = errors.New("the index cannot be spliced")

// Renumbering maps the previous index's item ordinals to the new index's.
type Renumbering struct {
	pieces []piece // in new ordinal order
	// kept are the stretches of kept items, in old (and new) order, as
	// artifacts.SplicePostings takes them.
	kept []artifacts.Stretch
	// olds is how many items the previous index holds.
	olds int32
	// Items is how many items the new index holds.
	Items int
	gone  []string         // the URIs of the previous items that left
	fresh map[string]int32 // the new items' ordinals, by URI
}

// piece is a stretch of the new index: kept items of the previous index
// (seg < 0), or one new segment.
type piece struct {
	from, n int32 // the first old ordinal, and how many items
	seg     int
	at      int32 // the first new ordinal
}

// Old maps an old ordinal to its new one; ok is false when the item left.
func (r *Renumbering) Old(o int32) (int32, bool) {
	i, found := slices.BinarySearchFunc(r.kept, o, func(s artifacts.Stretch, o int32) int {
		switch {
		case o < s.From:
			return 1
		case o >= s.From+s.N:
			return -1
		}
		return 0
	})
	if !found {
		return 0, false
	}
	return r.kept[i].To + o - r.kept[i].From, true
}

// New is the ordinal of a new item, by URI.
func (r *Renumbering) New(uri string) (int32, bool) {
	o, ok := r.fresh[uri]
	return o, ok
}

// Gone lists the URIs of the previous items that left or were replaced.
func (r *Renumbering) Gone() []string { return r.gone }

// Spliced is the spliced index, with how it renumbered the previous one.
type Spliced struct {
	Output
	Renumber Renumbering
	// Stamps holds each new row's newest stamp (time, else date), by
	// ordinal, for the graph's newest-first order.
	Stamps []string
	// Unmoved says that every item kept its ordinal and its stamp: the
	// replaced units hold the URIs they held, each at the same place. The
	// graph is then unchanged if every new item links where it linked.
	Unmoved bool
	// Kept names the previous files that are the new ones, byte for byte,
	// and were not written again: a spooled splice leaves docs.tsv so when
	// every replaced item's row is the row it had (an edit of a page's
	// text; a record's row holds its byte span, which most edits of a
	// record document move). Without a spool, Files holds them.
	Kept []string
}

// Splice makes the index of the new corpus from the previous index: the
// rows, keys and postings of the items kept are copied, renumbered, the
// replaced units' items left out and the new ones merged in. The bytes
// are those Run would write for the same corpus; ErrNoSplice when they
// would not be.
func Splice(ctx context.Context, in SpliceInput) (Spliced, error) {
	var out Spliced
	docs, err := artifacts.DecodeDocuments(in.Previous.Documents)
	if err != nil {
		return out, err
	}
	old, err := artifacts.ScanDocs(in.Previous.Docs, artifacts.OriginsOf(docs))
	if err != nil {
		return out, err
	}
	fields, err := artifacts.DecodeFields(in.Previous.Fields)
	if err != nil {
		return out, err
	}
	segs := slices.Clone(in.Segments)
	segs = slices.DeleteFunc(segs, func(s Segment) bool { return len(s.Rows) == 0 })
	slices.SortFunc(segs, func(a, b Segment) int { return strings.Compare(a.Rows[0].URI, b.Rows[0].URI) })
	r, err := renumber(old, in.Documents, in.Pages, segs)
	if err != nil {
		return out, err
	}
	out.Renumber = r
	l, err := layoutWithin(in.Config, fields, segs, r)
	if err != nil {
		return out, err
	}
	out.Unmoved = unmoved(old, segs, r)
	rows, keys, stamps, err := spliceDocs(in.Spool, in.Config, old, in.Previous.Key, segs, &l, r, out.Unmoved)
	if err != nil {
		return out, err
	}
	if rows.Path == "" { // the rows are the previous ones
		if in.Spool != nil {
			out.Kept = append(out.Kept, artifacts.DocsPath)
		} else {
			rows = artifacts.File{Path: artifacts.DocsPath, Data: []byte(in.Previous.Docs)}
		}
	}
	out.Stamps = stamps
	if err := ctx.Err(); err != nil {
		return out, err
	}
	used := make([]bool, len(fields))
	width := artifacts.KeyWidth(len(fields))
	for _, k := range r.kept {
		for o := k.From; o < k.From+k.N; o++ {
			line := in.Previous.Key[int(o+1)*width : int(o+2)*width] // spliceDocs checked the size
			artifacts.KeyFields(line, len(fields), func(f int) { used[f] = true })
		}
	}
	for i := range segs {
		for _, f := range l.remap[i] {
			used[f] = true
		}
	}
	dict, post, err := splicePostings(in.Spool, in.Previous.Terms, in.Previous.Postings, segs, &l, &r, used)
	if err != nil {
		return out, err
	}
	if slices.Contains(used, false) {
		return out, ErrNoSplice // a field no item has any more
	}
	replaced := map[string]bool{}
	for _, d := range in.Documents {
		replaced[d] = true
	}
	docs = slices.DeleteFunc(docs, func(d artifacts.Document) bool { return replaced[d.Path] })
	// A kept document's records moved as a block; a new one's are where
	// its segment's rows went.
	starts := recordStarts{}
	for _, d := range docs {
		if d.Records > 0 {
			at, ok := r.Old(int32(d.First))
			if !ok {
				return out, fmt.Errorf("index: the records of kept document %s left the index", d.Path)
			}
			starts[d.Path] = [2]int{int(at), d.Records}
		}
	}
	for _, p := range r.pieces {
		if p.seg >= 0 {
			for k := range segs[p.seg].Rows {
				starts.noteRow(&segs[p.seg].Rows[k], int(p.at)+k)
			}
		}
	}
	if docs, err = starts.place(append(docs, DocumentRows(in.Config, in.Current)...)); err != nil {
		return out, err
	}
	out.Items = r.Items
	out.Files = []artifacts.File{
		keys,
		{Path: artifacts.DocumentsPath, Data: artifacts.EncodeDocuments(docs)},
		{Path: artifacts.FieldsPath, Data: bytes.Clone(in.Previous.Fields)}, // the previous bytes may not outlive the splice
		dict,
		post,
	}
	if rows.Path != "" {
		out.Files = append(out.Files, rows)
	}
	return out, nil
}

// renumber lays the kept rows of old and the new segments out in URI
// order.
func renumber(old []artifacts.DocLine, documents, pages []string, segs []Segment) (Renumbering, error) {
	r := Renumbering{olds: int32(len(old))}
	lower := func(s string) int {
		i, _ := slices.BinarySearchFunc(old, s, func(d artifacts.DocLine, s string) int { return strings.Compare(d.URI, s) })
		return i
	}
	// The replaced ranges, as [from, to) in old ordinals.
	type span struct{ from, to int }
	var gone []span
	for _, d := range documents {
		// Every URI with the prefix d# sorts before d$ ('$' follows '#').
		gone = append(gone, span{lower(d + "#"), lower(d + "$")})
	}
	for _, p := range pages {
		if i := lower(p); i < len(old) && old[i].URI == p {
			gone = append(gone, span{i, i + 1})
		}
	}
	slices.SortFunc(gone, func(a, b span) int { return a.from - b.from })
	removed := make([]bool, len(old))
	for _, g := range gone {
		for i := g.from; i < g.to; i++ {
			if !removed[i] {
				r.gone = append(r.gone, old[i].URI)
			}
			removed[i] = true
		}
	}
	r.fresh = map[string]int32{}
	at := int32(0)
	keep := func(from, to int) {
		for i := from; i < to; {
			if removed[i] {
				i++
				continue
			}
			j := i
			for j < to && !removed[j] {
				j++
			}
			p := piece{from: int32(i), n: int32(j - i), seg: -1, at: at}
			r.pieces = append(r.pieces, p)
			r.kept = append(r.kept, artifacts.Stretch{From: p.from, N: p.n, To: p.at})
			at += p.n
			i = j
		}
	}
	pos := 0
	for i, s := range segs {
		p := lower(s.Rows[0].URI)
		keep(pos, max(p, pos))
		pos = max(p, pos)
		r.pieces = append(r.pieces, piece{from: -1, n: int32(len(s.Rows)), seg: i, at: at})
		for k, row := range s.Rows {
			r.fresh[row.URI] = at + int32(k)
		}
		at += int32(len(s.Rows))
	}
	keep(pos, len(old))
	r.Items = int(at)
	// Each piece is in URI order; so must be where two pieces meet.
	last := ""
	for i, p := range r.pieces {
		first, end := "", ""
		if p.seg < 0 {
			first, end = old[p.from].URI, old[p.from+p.n-1].URI
		} else {
			rows := segs[p.seg].Rows
			first, end = rows[0].URI, rows[len(rows)-1].URI
		}
		if i > 0 && first <= last {
			return r, ErrNoSplice
		}
		last = end
	}
	return r, nil
}

// unmoved reports whether the renumbering r leaves every item where it
// was, with its stamp: as many items as before, and each new row at the
// ordinal of an old row of the same URI and stamp.
func unmoved(old []artifacts.DocLine, segs []Segment, r Renumbering) bool {
	if r.Items != len(old) {
		return false
	}
	for _, p := range r.pieces {
		if p.seg < 0 {
			if p.from != p.at {
				return false
			}
			continue
		}
		for k, row := range segs[p.seg].Rows {
			o := &old[p.at+int32(k)]
			if o.URI != row.URI || cmp.Or(o.Time, o.Date) != project.Newest(&row) {
				return false
			}
		}
	}
	return true
}

// layoutWithin lays the new segments out in the previous index's fields
// and at the ordinals r gives them; ErrNoSplice when a segment has a field
// the previous index has not.
func layoutWithin(cfg model.Config, fields []artifacts.Field, segs []Segment, r Renumbering) (Layout, error) {
	starts := make([]int32, len(segs))
	for _, p := range r.pieces {
		if p.seg >= 0 {
			starts[p.seg] = p.at
		}
	}
	return LayoutWithin(cfg, fields, segs, starts, r.Items)
}

// LayoutWithin lays segments out in an index's fields, each segment's
// items from the ordinal starts gives it, in an index of items items:
// what an index splice does, and what a query that lays changed units
// over the artifacts in place does. ErrNoSplice when a segment has a
// field the index has not, or a field's weight is not cfg's.
func LayoutWithin(cfg model.Config, fields []artifacts.Field, segs []Segment, starts []int32, items int) (Layout, error) {
	l := Layout{Fields: fields, remap: make([][]uint16, len(segs)), starts: starts, items: items}
	for i, f := range fields {
		if f.Weight != cfg.Weight(f.Name) {
			return l, ErrNoSplice
		}
		if i > 0 && fields[i-1].Name >= f.Name {
			return l, fmt.Errorf("%s: fields out of order", artifacts.FieldsPath)
		}
	}
	for i, s := range segs {
		l.remap[i] = make([]uint16, len(s.Fields))
		for j, f := range s.Fields {
			k, ok := slices.BinarySearchFunc(fields, f, func(a artifacts.Field, f string) int { return strings.Compare(a.Name, f) })
			if !ok {
				return l, ErrNoSplice
			}
			l.remap[i][j] = uint16(k)
		}
	}
	return l, nil
}

// spliceDocs writes docs.tsv and docs.key: kept rows as they were, new
// rows encoded, and every key's ranks and groups read back from the old
// keys: as they were when no item moved (unmoved, and keptPlaces), with
// the title groups a new title changes found again (oldPlaces); else with
// the new rows merged in (movedPlaces).
func spliceDocs(spool *artifacts.Spool, cfg model.Config, old []artifacts.DocLine, oldKey []byte, segs []Segment, l *Layout, r Renumbering, unmoved bool) (docs, key artifacts.File, stamps []string, err error) {
	width := artifacts.KeyWidth(len(l.Fields))
	if len(oldKey) != width*(len(old)+1) {
		return docs, key, nil, &artifacts.CorruptError{Path: artifacts.DocsKeyPath, Msg: fmt.Sprintf("%d bytes for %d rows of width %d", len(oldKey), len(old), width)}
	}
	var fresh []artifacts.Doc // the new segments' rows, renumbered
	freshAt := map[int32]int{}
	for _, p := range r.pieces {
		if p.seg < 0 {
			continue
		}
		for k, row := range segs[p.seg].Rows {
			row.Lengths = slices.Clone(row.Lengths)
			l.Renumber(p.seg, row.Lengths)
			freshAt[p.at+int32(k)] = len(fresh)
			fresh = append(fresh, row)
		}
	}
	var ks keySource
	if unmoved && keptPlaces(old, segs, r) {
		ks, err = oldPlaces(cfg, old, oldKey, width, fresh, freshAt, len(l.Fields))
		stamps = make([]string, len(old))
		for i := range old {
			stamps[i] = cmp.Or(old[i].Time, old[i].Date) // every stamp is the one it was
		}
	} else {
		ks, stamps, err = movedPlaces(cfg, old, oldKey, width, fresh, freshAt, len(l.Fields), r)
	}
	if err != nil {
		return docs, key, nil, err
	}
	kw := spool.Create(artifacts.DocsKeyPath, width*(r.Items+1))
	if unmoved && sameRows(old, fresh, freshAt) {
		// Every row is the one it was: docs.tsv is the previous one, and
		// only the keys are written (docs is left empty).
		err = writeSplicedDocs(nil, kw, old, oldKey, fresh, freshAt, ks, len(l.Fields), r)
		key, kerr := kw.Finish(err)
		return docs, key, stamps, cmp.Or(err, kerr)
	}
	size := len(old) // a guess: the old rows' bytes plus the new rows'
	for _, d := range old {
		size += len(d.Line)
	}
	dw := spool.Create(artifacts.DocsPath, size+len(fresh)*256)
	err = writeSplicedDocs(dw, kw, old, oldKey, fresh, freshAt, ks, len(l.Fields), r)
	docs, derr := dw.Finish(err)
	key, kerr := kw.Finish(err)
	return docs, key, stamps, cmp.Or(err, derr, kerr)
}

// sameRows reports whether each new row, at the ordinal freshAt gives it,
// encodes to the previous row there (the ordinals being unmoved).
func sameRows(old []artifacts.DocLine, fresh []artifacts.Doc, freshAt map[int32]int) bool {
	var row []byte
	for n, i := range freshAt {
		row = artifacts.EncodeDocRow(row[:0], fresh[i])
		if int(n) >= len(old) || old[n].Line != string(row) {
			return false
		}
	}
	return true
}

// keySource gives the keys of the spliced rows: placed, the part of a
// kept row's key that comes from comparing rows; fresh, a new row's key.
type keySource struct {
	placed func(n int32) (artifacts.Key, error)
	fresh  func(n int32) (artifacts.Key, error)
}

// placedKeys is the keySource of placed: a new row's key is its placed
// part completed by the row itself (project.KeyOf).
func placedKeys(placed func(n int32) (artifacts.Key, error), cfg model.Config, fresh []artifacts.Doc, freshAt map[int32]int, fields int) keySource {
	return keySource{
		placed: placed,
		fresh: func(n int32) (artifacts.Key, error) {
			k, err := placed(n)
			if err != nil {
				return k, err
			}
			return project.KeyOf(k, &fresh[freshAt[n]], fields, cfg)
		},
	}
}

// keptPlaces reports, of a renumbering in which every item kept its
// ordinal and stamp (unmoved), whether no item moved in a way the key
// table sees: every new row kept its source and URL too. A new title may
// regroup (oldPlaces).
func keptPlaces(old []artifacts.DocLine, segs []Segment, r Renumbering) bool {
	for _, p := range r.pieces {
		if p.seg < 0 {
			continue
		}
		for k, row := range segs[p.seg].Rows {
			if o := &old[p.at+int32(k)]; o.Source != row.Source || o.URLKey != row.URLKey {
				return false
			}
		}
	}
	return true
}

// oldPlaces reads every key's ranks and groups back from the old keys, as
// the key table would compute them again when no item moved, but for the
// title groups a new title changes: a group a row left or joined is
// found again over every row, and each member given its first ordinal.
func oldPlaces(cfg model.Config, old []artifacts.DocLine, oldKey []byte, width int, fresh []artifacts.Doc, freshAt map[int32]int, fields int) (keySource, error) {
	type group struct{ source, title string }
	hit := map[group]bool{}
	for n, at := range freshAt {
		if was, now := old[n].Title, fresh[at].Title; was != now {
			for _, t := range []string{was, now} {
				if t != "" {
					hit[group{old[n].Source, t}] = true
				}
			}
		}
	}
	heads := map[group]int32{}
	if len(hit) > 0 {
		for i := range old {
			g := group{old[i].Source, old[i].Title}
			if at, ok := freshAt[int32(i)]; ok {
				g.title = fresh[at].Title
			}
			if _, seen := heads[g]; !seen && g.title != "" && hit[g] {
				heads[g] = int32(i) // the first row of the group: its head
			}
		}
	}
	placed := func(n int32) (artifacts.Key, error) {
		k, err := artifacts.KeyPlaced(oldKey[width*(int(n)+1) : width*(int(n)+2)])
		if err != nil || len(hit) == 0 {
			return k, err
		}
		g := group{old[n].Source, old[n].Title}
		if at, ok := freshAt[n]; ok {
			g.title = fresh[at].Title
		}
		if head, ok := heads[g]; ok {
			k.TitleGroup = head
		} else if g.title == "" {
			k.TitleGroup = -1
		}
		return k, nil
	}
	return placedKeys(placed, cfg, fresh, freshAt, fields), nil
}

// writeSplicedDocs is spliceDocs's writing half: the rows and keys in new
// ordinal order, a kept row copied and its key patched, a new one
// encoded. With dw nil the rows are not written, only counted for the
// keys' offsets: they are the previous ones.
func writeSplicedDocs(dw, kw *artifacts.Output, old []artifacts.DocLine, oldKey []byte, fresh []artifacts.Doc, freshAt map[int32]int,
	ks keySource, fields int, r Renumbering) error {
	width := artifacts.KeyWidth(fields)
	offset := int64(len(artifacts.DocsHeader())) // where the next row starts
	if dw != nil {
		dw.WriteString(artifacts.DocsHeader())
	}
	kw.WriteString(artifacts.KeysHeader(fields))
	var row, line []byte
	for _, p := range r.pieces {
		for k := range p.n {
			n := p.at + k
			if p.seg < 0 {
				o := int(p.from + k)
				k, err := ks.placed(n)
				if err != nil {
					return err
				}
				k.Offset = offset
				offset += int64(len(old[o].Line))
				if dw != nil {
					dw.WriteString(old[o].Line)
				}
				if line, err = artifacts.PatchKey(line[:0], oldKey[width*(o+1):width*(o+2)], &k); err != nil {
					return err
				}
				kw.Write(line)
				continue
			}
			key, err := ks.fresh(n)
			if err != nil {
				return err
			}
			key.Offset = offset
			row = artifacts.EncodeDocRow(row[:0], fresh[freshAt[n]])
			offset += int64(len(row))
			if dw != nil {
				dw.Write(row)
			}
			if line, err = artifacts.AppendKey(line[:0], &key, fields); err != nil {
				return err
			}
			kw.Write(line)
		}
	}
	return nil
}

// splicePostings writes terms.tsv and postings.tsv: each term's kept
// postings renumbered, merged with the new segments' postings, and the
// terms no item holds any more left out. used is set for every field a
// kept posting is in.
func splicePostings(spool *artifacts.Spool, oldDict, oldPost []byte, segs []Segment, l *Layout, r *Renumbering, used []bool) (dict, post artifacts.File, err error) {
	type fresh struct {
		term  string
		posts []artifacts.Posting
	}
	var added []fresh
	err = l.Merge(segs, func(t string, n int, postings iter.Seq[artifacts.Posting]) {
		ps := make([]artifacts.Posting, 0, n)
		for p := range postings {
			ps = append(ps, p)
		}
		added = append(added, fresh{t, ps})
	})
	if err != nil {
		return dict, post, err
	}
	body, err := artifacts.SplitHeaderOf(artifacts.TermsPath, oldDict)
	if err != nil {
		return dict, post, err
	}
	rows, err := artifacts.SplitHeaderOf(artifacts.PostingsPath, oldPost)
	if err != nil {
		return dict, post, err
	}
	next := int64(len(oldPost) - len(rows)) // where the next term's line must start
	w := artifacts.NewPostingsWriterIn(spool, bytes.Count(body, []byte{'\n'})+len(added), len(oldPost))
	defer func() {
		if err != nil {
			w.Files() // the error is the splice's; the files go
		}
	}()
	var text []byte
	moves := artifacts.Moves{Kept: r.kept, Items: r.olds}
	// Every field starts used when the kept rows' lengths show it; the
	// kept postings show the rest.
	mark := func(f uint16) {
		if int(f) < len(used) {
			used[f] = true
		}
	}
	if !slices.Contains(used, false) {
		mark = nil
	}
	// A term no kept item holds is written from the new postings alone.
	fresh1 := func(f fresh) {
		w.Begin(f.term)
		for _, p := range f.posts {
			w.Add(p)
		}
		w.End()
	}
	for n := 2; len(body) > 0 || len(added) > 0; n++ {
		var term, inline []byte
		var df, off, length int64
		if len(body) > 0 {
			end := bytes.IndexByte(body, '\n')
			if end < 0 {
				return dict, post, &artifacts.CorruptError{Path: artifacts.TermsPath, Line: n, Msg: "row does not end with LF"}
			}
			if term, df, off, length, inline, err = artifacts.ScanTermRow(n, body[:end]); err != nil {
				return dict, post, err
			}
			body = body[end+1:]
		}
		for len(added) > 0 && (term == nil || added[0].term < string(term)) {
			fresh1(added[0])
			added = added[1:]
		}
		if term == nil {
			break
		}
		list := inline // a term one item holds has its postings in its row
		if inline == nil {
			// A term's line starts where the one before ended (so within
			// the file) and is its range, ending with its LF.
			if off != next {
				return dict, post, &artifacts.CorruptError{Path: artifacts.PostingsPath, Msg: fmt.Sprintf("the byte range of %q is not the line after the previous term's", term)}
			}
			if off+length > int64(len(oldPost)) || bytes.IndexByte(oldPost[off:off+length], '\n') != int(length-1) {
				return dict, post, &artifacts.CorruptError{Path: artifacts.PostingsPath, Msg: fmt.Sprintf("the postings of %q are not the line of their range; the file is cut short or edited", term)}
			}
			next = off + length
			list = oldPost[off : off+length-1]
		}
		var mine []artifacts.Posting
		if len(added) > 0 && added[0].term == string(term) {
			mine = added[0].posts
			added = added[1:]
		}
		var kept int
		if text, kept, err = artifacts.SplicePostings(text[:0], list, int(df), moves, mine, mark); err != nil {
			var ce *artifacts.CorruptError
			if inline != nil && errors.As(err, &ce) {
				ce.Path, ce.Line = artifacts.TermsPath, n // the postings are the row's
			}
			return dict, post, err
		}
		if kept > 0 {
			w.Line(term, text, kept)
		}
	}
	return w.Files()
}
