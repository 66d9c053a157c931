package index

import (
	"cmp"
	"iter"
	"slices"
	"strings"
	"sync"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/project"
)

// Segment is the inverted index of a run of items that are consecutive in
// URI order: their docs rows, the fields they use, and their terms, sorted,
// each with postings whose Doc is the item's position in the run and whose
// Field is a position in Fields. Rows' lengths use the same positions.
//
// A segment lives until the whole index is merged, so it is stored
// compactly and owns its bytes: its terms are one string, cut by ends, and
// its postings one array, cut by starts; its rows' strings are copied out
// of the documents' text (see ownRows), which can then be freed.
type Segment struct {
	Rows   []artifacts.Doc
	Fields []string
	words  string  // the terms, sorted, back to back
	ends   []int32 // where each term ends in words
	starts []int32 // where each term's postings start in flat, and one more
	flat   []artifacts.Posting
	// spilled, when set, holds the terms and postings instead (Spill),
	// and rows the rows (NewSpilledSegment).
	spilled *spilled
	rows    *spilledRows
}

// Len is how many items the segment holds.
func (s *Segment) Len() int {
	if s.rows != nil {
		return s.rows.n
	}
	return len(s.Rows)
}

// terms is how many terms the segment holds.
func (s *Segment) terms() int {
	if s.spilled != nil {
		return s.spilled.terms
	}
	return len(s.ends)
}

// term is the segment's i-th term in dictionary order.
func (s *Segment) term(i int) string {
	from := int32(0)
	if i > 0 {
		from = s.ends[i-1]
	}
	return s.words[from:s.ends[i]]
}

// posts are the postings of the segment's i-th term.
func (s *Segment) posts(i int) []artifacts.Posting {
	return s.flat[s.starts[i]:s.starts[i+1]]
}

// NewSegment inverts items (sorted by URI) in two counting passes, so that
// no postings list ever grows by appending: the first numbers each distinct
// term and counts its postings, the second writes every posting into its
// term's slot of one flat array.
func NewSegment(items []project.Item) Segment { return NewSegmentWhere(items, nil) }

// NewSegmentWhere is NewSegment keeping the postings of only the terms
// keep accepts (all when keep is nil): a query's scan inverts every item
// of a base but needs the few terms it was asked. keep is asked of every
// occurrence of a term it has not accepted.
func NewSegmentWhere(items []project.Item, keep func(term string) bool) Segment {
	return newSegment(items, keep, nil, true)
}

// newSegment is NewSegmentWhere; own makes the rows own their strings,
// which a segment whose rows are spilled at once need not. dict, when
// not nil, is the dictionary that numbered the items' terms: the terms
// are then counted by their numbers, unless one is not dict's.
func newSegment(items []project.Item, keep func(term string) bool, dict project.Dict, own bool) Segment {
	var seg Segment
	inv := inversions.Get().(*inversion)
	defer inv.release()
	// The items of a run mostly share their fields: each name is listed
	// once as it is met, then the list is sorted.
	local := inv.local
	total := 0
	for i := range items {
		for _, f := range items[i].Fields {
			if _, ok := local[f.Name]; !ok {
				local[f.Name] = 0
				// A copy: the name may share a document's text, which
				// the segment outlives.
				seg.Fields = append(seg.Fields, strings.Clone(f.Name))
			}
			total += len(f.Terms)
		}
	}
	slices.Sort(seg.Fields)
	for i, f := range seg.Fields {
		local[f] = uint16(i)
	}
	var terms []string
	var counts, seq []int32
	if keep == nil && dict != nil {
		terms, counts, seq = inv.numbered(items, dict)
	}
	if terms == nil {
		terms, counts, seq = inv.number(items, keep, total)
	}
	// Each term's slot in the one postings array is placed in dictionary
	// order, so that a term's postings are found from one offset; the
	// terms are copied into one string.
	order := inv.sortTerms(terms, counts)
	size := 0
	for _, id := range order {
		size += len(terms[id])
	}
	var words strings.Builder
	words.Grow(size)
	next := slices.Grow(inv.next[:0], len(terms))[:len(terms)]
	inv.next = next
	seg.ends = make([]int32, len(order))
	seg.starts = make([]int32, len(order)+1)
	var sum int32
	for i, id := range order {
		words.WriteString(terms[id])
		seg.ends[i] = int32(words.Len())
		seg.starts[i] = sum
		next[id] = sum
		sum += counts[id]
	}
	seg.starts[len(order)] = sum
	seg.words = words.String()
	// The second pass makes each item's row as it writes its postings.
	seg.Rows = make([]artifacts.Doc, len(items))
	ordinal := func(name string) int { return int(local[name]) }
	flat := make([]artifacts.Posting, sum)
	k := 0
	for i := range items {
		seg.Rows[i] = items[i].Row(ordinal)
		for _, f := range items[i].Fields {
			if len(f.Terms) == 0 {
				continue // a scan's items mostly have none
			}
			fo := local[f.Name]
			for _, t := range f.Terms {
				id := t.ID
				if seq != nil {
					id = seq[k]
					k++
				}
				if id == dropped {
					continue
				}
				flat[next[id]] = artifacts.Posting{Doc: int32(i), Field: fo, TF: uint16(min(t.N, artifacts.MaxTF))}
				next[id]++
			}
		}
	}
	seg.flat = flat
	if own {
		ownRows(seg.Rows)
	}
	return seg
}

// number numbers the distinct terms of items in the order they are met,
// keeping only those keep accepts (all when keep is nil), and counts each
// one's postings; seq holds each posting's term number in item and field
// order, dropped for a term not kept.
func (inv *inversion) number(items []project.Item, keep func(term string) bool, total int) (terms []string, counts, seq []int32) {
	termID := inv.termID
	terms, counts, seq = inv.terms[:0], inv.counts[:0], slices.Grow(inv.seq[:0], total)
	for i := range items {
		for _, f := range items[i].Fields {
			for _, t := range f.Terms {
				id, ok := termID[t.Term]
				if !ok {
					if keep != nil && !keep(t.Term) {
						seq = append(seq, dropped)
						continue
					}
					id = int32(len(terms))
					termID[t.Term] = id
					terms = append(terms, t.Term)
					counts = append(counts, 0)
				}
				counts[id]++
				seq = append(seq, id)
			}
		}
	}
	inv.terms, inv.counts, inv.seq = terms, counts, seq
	return terms, counts, seq
}

// numbered counts each term's postings by the number dict gave it, the
// terms being dict (those of no posting have a count of 0); it returns
// nil terms when a term is not the one dict numbers so, which number
// then does over.
func (inv *inversion) numbered(items []project.Item, dict project.Dict) (terms []string, counts, seq []int32) {
	counts = slices.Grow(inv.counts[:0], len(dict))[:len(dict)]
	clear(counts)
	inv.counts = counts
	for i := range items {
		for _, f := range items[i].Fields {
			for _, t := range f.Terms {
				if t.ID < 0 || int(t.ID) >= len(dict) || dict[t.ID] != t.Term {
					return nil, nil, nil
				}
				counts[t.ID]++
			}
		}
	}
	return dict, counts, nil
}

// inversion is newSegment's working memory: the maps and slices a run's
// inversion fills, then lets go of. A pool keeps them from one run to the
// next (a build inverts a run at a time on each core), so that each run
// does not allocate, grow and drop them anew.
type inversion struct {
	local                    map[string]uint16 // field name → ordinal
	termID                   map[string]int32
	terms                    []string
	counts, seq, order, next []int32
	byPrefix                 []prefixed
}

// prefixed is a term number beside the term's first eight bytes, as a
// number that compares as they do.
type prefixed struct {
	prefix uint64
	id     int32
}

// sortTerms lists the numbers of the terms with postings, in the terms'
// byte order. Most terms differ in their first eight bytes, so they are
// compared as one number first and as strings only on a tie: a run has
// tens of thousands of terms, and comparing them through their strings
// was a twentieth of a build.
func (inv *inversion) sortTerms(terms []string, counts []int32) []int32 {
	keys := inv.byPrefix[:0]
	for i, n := range counts {
		if n > 0 {
			keys = append(keys, prefixed{prefixOf(terms[i]), int32(i)})
		}
	}
	inv.byPrefix = keys
	slices.SortFunc(keys, func(a, b prefixed) int {
		if a.prefix != b.prefix {
			return cmp.Compare(a.prefix, b.prefix)
		}
		return strings.Compare(terms[a.id], terms[b.id])
	})
	order := slices.Grow(inv.order[:0], len(keys))
	for _, k := range keys {
		order = append(order, k.id)
	}
	inv.order = order
	return order
}

// prefixOf is the first eight bytes of t, big-endian, zero-padded, so
// that a term never orders after another that it is a prefix of; terms of
// equal numbers are told apart by their strings.
func prefixOf(t string) uint64 {
	var v uint64
	for i := range 8 {
		v <<= 8
		if i < len(t) {
			v |= uint64(t[i])
		}
	}
	return v
}

var inversions = sync.Pool{New: func() any {
	return &inversion{local: map[string]uint16{}, termID: map[string]int32{}}
}}

// release empties inv, keeping its room but none of the run's strings,
// and puts it back in the pool.
func (inv *inversion) release() {
	clear(inv.local)
	clear(inv.termID)
	clear(inv.terms)
	inversions.Put(inv)
}

// dropped is the term number of a term NewSegmentWhere does not keep.
const dropped = -1

// merge writes the dictionary and postings of all segments as l merges
// them.
func merge(spool *artifacts.Spool, segs []Segment, l *Layout) (dict, postings artifacts.File, err error) {
	terms, size := 0, 0
	for _, s := range segs {
		words, postings := len(s.words), len(s.flat)
		if s.spilled != nil {
			words, postings = s.spilled.words, s.spilled.postings
		}
		terms += s.terms()
		size += words + 2*s.terms() + 8*postings
	}
	w := artifacts.NewPostingsWriterIn(spool, terms, size)
	err = l.Merge(segs, func(term string, _ int, postings iter.Seq[artifacts.Posting]) {
		w.Begin(term)
		for p := range postings {
			w.Add(p)
		}
		w.End()
	})
	dict, postings, werr := w.Files()
	if err != nil {
		return artifacts.File{}, artifacts.File{}, err
	}
	return dict, postings, werr
}
