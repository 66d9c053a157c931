package words

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/stages/lib/lex"
)

// Stats is what one query term matched across the corpus.
type Stats struct {
	Term string
	Fold uint32 // lex.FoldKey(term), to find the items it may name exactly
	// Hits are the window's items the term matches, by ordinal, each
	// with how: as an exact identifier, and/or its postings in fields.
	Hits []Hit
	DF   int // len(hits): window items matching it either way
	Own  int // the items of hits that hold the term itself, not only a variant
	// IDF is the term's rarity in the window, in sixteenths (see IDF).
	IDF int
	// Meaningful is false for a term in more than half of a multi-item
	// window: it still scores, but does not count as a matched term for
	// the order.
	Meaningful bool
}

// Hit finds the term's hit on an item.
func (st *Stats) Hit(ord int) (*Hit, bool) {
	i, ok := slices.BinarySearchFunc(st.Hits, ord, func(h Hit, o int) int { return cmp.Compare(int(h.Ord), o) })
	if !ok {
		return nil, false
	}
	return &st.Hits[i], true
}

// Hit is one item a query term matches.
type Hit struct {
	Ord      int32
	Exact    bool                // the item holds the term as an exact identifier
	Postings []artifacts.Posting // the term's postings in the item's fields
	// Folded are the postings of the term's folded variants (see
	// lex.Variants), which count for less than the term itself.
	Folded []artifacts.Posting
}

// Lookup gathers a query term's postings: exact identifier entries,
// and word or identifier tokens (identifier-shaped terms match every
// dictionary term containing them), then the postings of the term's
// folded variants that are not query terms themselves (all are the
// query's terms). Only the window's items count. Hits come sorted by
// ordinal, one per item: a query can have tens of thousands, and a sorted
// slice costs far less than maps to build and walk.
func Lookup(c corpus.Corpus, ids lex.Identities, term string, all []string, win *Window) (*Stats, error) {
	exact, found, err := gatherPostings(c, ids, term, win)
	if err != nil {
		return nil, err
	}
	var folded []artifacts.Posting
	variants := FoldedVariants(term, all)
	for _, v := range variants {
		ps, _, err := c.Postings(v)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			if win.Has(int(p.Doc)) {
				folded = append(folded, p)
			}
		}
	}
	if len(variants) > 1 {
		slices.SortStableFunc(folded, func(a, b artifacts.Posting) int { return cmp.Compare(a.Doc, b.Doc) })
	}
	st := &Stats{Term: term, Fold: lex.FoldKey(term), Hits: mergeHits(exact, found, folded)}
	st.DF = len(st.Hits)
	for _, h := range st.Hits {
		if h.Exact || len(h.Postings) > 0 {
			st.Own++
		}
	}
	return st, nil
}

// FoldedVariants are the dictionary words a plain query term also finds
// (lex.Variants), but none that is a query term of its own.
func FoldedVariants(term string, terms []string) []string {
	if lex.IsIdentifierShaped(term) || strings.HasPrefix(term, lex.ExactPrefix) {
		return nil
	}
	return slices.DeleteFunc(lex.Variants(term), func(v string) bool { return slices.Contains(terms, v) })
}

// LookupWords are the dictionary words a query's terms look up: the terms
// and their folded variants. A scan keeps the postings of these.
func LookupWords(terms []string) []string {
	out := slices.Clone(terms)
	for _, t := range terms {
		out = append(out, FoldedVariants(t, terms)...)
	}
	return out
}

// gatherPostings reads a term's postings within the window: the items
// that hold it as an exact identifier (sorted, distinct), and its word or
// identifier postings, sorted by item.
func gatherPostings(c corpus.Corpus, ids lex.Identities, term string, win *Window) (exact []int32, found []artifacts.Posting, err error) {
	add := func(ps []artifacts.Posting, isExact bool) {
		for _, p := range ps {
			if !win.Has(int(p.Doc)) {
				continue
			}
			if isExact {
				exact = append(exact, p.Doc)
			} else {
				found = append(found, p)
			}
		}
	}
	for _, x := range corpus.ExactLookups(ids, term) {
		ps, _, err := c.Postings(x)
		if err != nil {
			return nil, nil, err
		}
		add(ps, true)
	}
	lists := 0 // dictionary terms whose postings were gathered
	if lex.IsIdentifierShaped(term) {
		containing, err := c.PostingsContaining(term)
		if err != nil {
			return nil, nil, err
		}
		for _, tp := range containing {
			add(tp.Postings, false)
		}
		lists = len(containing)
	} else if !strings.HasPrefix(term, lex.ExactPrefix) {
		ps, _, err := c.Postings(term)
		if err != nil {
			return nil, nil, err
		}
		add(ps, false)
		lists = 1
	}
	// Postings of one dictionary term are sorted by item; an identifier
	// term gathers several lists, whose merge keeps each list's order.
	slices.Sort(exact)
	exact = slices.Compact(exact)
	if lists > 1 {
		slices.SortStableFunc(found, func(a, b artifacts.Posting) int { return cmp.Compare(a.Doc, b.Doc) })
	}
	return exact, found, nil
}

// mergeHits joins the exact items, the postings and the folded variants'
// postings of a term, each sorted by item, into one hit per item.
func mergeHits(exact []int32, found, folded []artifacts.Posting) []Hit {
	hits := make([]Hit, 0, len(exact)+len(found))
	// run takes ps's postings of item ord, from *j on.
	run := func(ps []artifacts.Posting, j *int, ord int32) []artifacts.Posting {
		k := *j
		for k < len(ps) && ps[k].Doc == ord {
			k++
		}
		if k == *j {
			return nil
		}
		out := ps[*j:k:k]
		*j = k
		return out
	}
	for i, j, f := 0, 0, 0; i < len(exact) || j < len(found) || f < len(folded); {
		ord := int32(math.MaxInt32)
		if i < len(exact) {
			ord = exact[i]
		}
		if j < len(found) {
			ord = min(ord, found[j].Doc)
		}
		if f < len(folded) {
			ord = min(ord, folded[f].Doc)
		}
		h := Hit{Ord: ord}
		if i < len(exact) && exact[i] == ord {
			h.Exact = true
			i++
		}
		h.Postings = run(found, &j, ord)
		h.Folded = run(folded, &f, ord)
		hits = append(hits, h)
	}
	return hits
}

// IDF is a term's rarity among the n items of the window, BM25's inverse
// document frequency ln((n − df + 0.5)/(df + 0.5) + 1) = ln((n+1)/(df+0.5))
// taken in base 2 and sixteenths: ⌊16·log2((2n+2)/(2df+1))⌋. It stays
// positive for a term in two of three items, where a stop-term rule
// would zero it; only a term in nearly every item of a large window
// (df = n, n ≥ 16) gets 0.
func IDF(n, df int) int {
	if df == 0 {
		return 0
	}
	return log2x16(uint64(2*n+2), uint64(2*df+1))
}

// Meaningful reports whether a term found in df of the window's n items
// counts for the order: not when it is in more than half of a window of
// more than one item.
func Meaningful(n, df int) bool { return df > 0 && (n <= 1 || 2*df <= n) }

// log2x16 is ⌊16·log2(num/den)⌋ for num > den > 0, else 0, in integer
// arithmetic (num below 2^33): the integer part from the top bit, then
// four fraction bits by squaring the mantissa.
func log2x16(num, den uint64) int {
	if den == 0 || num <= den {
		return 0
	}
	const frac = 30 // the mantissa is fixed-point with 30 fraction bits
	x := num << frac / den
	e := bits.Len64(x) - 1 - frac // x/2^frac is in [2^e, 2^(e+1))
	m := x >> e                   // the mantissa, in [1, 2)
	out := e * 16
	for bit := 8; bit > 0; bit /= 2 {
		m = m * m >> frac
		if m >= 2<<frac {
			m >>= 1
			out += bit
		}
	}
	return out
}
