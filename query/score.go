package query

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lex"
	"github.com/cairn-kb/cairn/stages/project"
)

// The ranking arithmetic. Every contribution is a reason with integer
// points, so a score can be added up by hand from --explain. Changing any
// of these changes packs: bump artifacts.RankingVersion with them.
const (
	// pointsIdentifier rewards an exact identifier: a relation value, an
	// entity alias, an id, a slug, an exact title or a complete URI.
	pointsIdentifier = 100
	// pointsPhrase rewards the whole multi-term query as a phrase in a field.
	pointsPhrase = 50
	// pointsTitle rewards a title equal to the whole query.
	pointsTitle = 100
	// pointsPerRarity scales a term's rarity into points.
	pointsPerRarity = 10
	// maxRarity caps a term's rarity.
	maxRarity = 16
	// pointsCreated prefers category: created, once an item matched.
	pointsCreated = 10
	// pointsRecency is the recency bonus of an item dated today.
	pointsRecency = 15
	// pointsClosed penalises superseded, done and deprecated items.
	pointsClosed = -50
	// pointsNav penalises navigation pages.
	pointsNav = -50
	// pointsExpand is the --expand join bonus.
	pointsExpand = 20
	// relevanceFloor is the least score an unpinned item needs.
	relevanceFloor = 10
)

// Reason is one contribution to a score.
type Reason struct {
	Code   string `json:"code"`
	Points int    `json:"points"`
	Detail string `json:"detail,omitempty"`
}

// scored is one candidate item with its score and the facts that order it.
type scored struct {
	ord        int
	key        *artifacts.Key // shared with the corpus's keys; not changed
	row        *artifacts.Doc // read by rowOf when needed; not changed
	item       *project.Item
	score      int
	matched    int         // query terms it matched
	bestWeight int         // the weight of its strongest matching field
	standing   int         // position in the ranked list a pack is selected from
	count      int         // items it stands for after collapse (1 or more)
	more       *scoredMore // what few items have; nil for the rest
	titled     bool        // the title is the whole query
	phrased    bool        // the query appears as a phrase in a field
	direct     bool        // an exact identifier matched
	identity   bool        // an exact match on its own id or URI (recovers a policy role)
	related    bool        // joined by --expand
	pinned     bool
}

// scoredMore is what only a few scored items hold, kept apart so that the
// tens of thousands of a common-word query stay small.
type scoredMore struct {
	uriTerms []string // query terms that are the item's complete URI
	later    []Reason // reasons added after scoring: expansion, pin
}

// moreOf is s's scoredMore, made on first use.
func (s *scored) moreOf() *scoredMore {
	if s.more == nil {
		s.more = &scoredMore{}
	}
	return s.more
}

// termStats is what one query term matched across the corpus.
type termStats struct {
	term string
	fold uint32 // lex.FoldKey(term), to find the items it may name exactly
	// hits are the window's items the term matches, by ordinal, each
	// with how: as an exact identifier, and/or its postings in fields.
	hits   []termHit
	df     int // len(hits): window items matching it either way
	rarity int
}

// hit finds the term's hit on an item.
func (st *termStats) hit(ord int) (*termHit, bool) {
	i, ok := slices.BinarySearchFunc(st.hits, ord, func(h termHit, o int) int { return cmp.Compare(int(h.ord), o) })
	if !ok {
		return nil, false
	}
	return &st.hits[i], true
}

// termHit is one item a query term matches.
type termHit struct {
	ord   int32
	exact bool                // the item holds the term as an exact identifier
	ps    []artifacts.Posting // the term's postings in the item's fields
}

// lookupTerm gathers a query term's postings: exact identifier entries,
// and word or identifier tokens (identifier-shaped terms match every
// dictionary term containing them). Only the window's items count. Hits
// come sorted by ordinal, one per item: a query can have tens of
// thousands, and a sorted slice costs far less than maps to build and walk.
func lookupTerm(c corpus, ids lex.Identities, term string, win *candidates) (*termStats, error) {
	st := &termStats{term: term, fold: lex.FoldKey(term)}
	var exact []int32
	var found []artifacts.Posting
	add := func(ps []artifacts.Posting, isExact bool) {
		for _, p := range ps {
			if !win.has(int(p.Doc)) {
				continue
			}
			if isExact {
				exact = append(exact, p.Doc)
			} else {
				found = append(found, p)
			}
		}
	}
	for _, x := range exactLookups(ids, term) {
		ps, _, err := c.Postings(x)
		if err != nil {
			return nil, err
		}
		add(ps, true)
	}
	lists := 0 // dictionary terms whose postings were gathered
	if lex.IsIdentifierShaped(term) {
		containing, err := c.PostingsContaining(term)
		if err != nil {
			return nil, err
		}
		for _, tp := range containing {
			add(tp.Postings, false)
		}
		lists = len(containing)
	} else if !strings.HasPrefix(term, lex.ExactPrefix) {
		ps, _, err := c.Postings(term)
		if err != nil {
			return nil, err
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
	st.hits = make([]termHit, 0, len(exact)+len(found))
	for i, j := 0, 0; i < len(exact) || j < len(found); {
		var h termHit
		switch {
		case j == len(found) || i < len(exact) && exact[i] < found[j].Doc:
			h = termHit{ord: exact[i], exact: true}
			i++
		default:
			h.ord = found[j].Doc
			if i < len(exact) && exact[i] == h.ord {
				h.exact = true
				i++
			}
			k := j
			for k < len(found) && found[k].Doc == h.ord {
				k++
			}
			h.ps = found[j:k:k]
			j = k
		}
		st.hits = append(st.hits, h)
	}
	st.df = len(st.hits)
	return st, nil
}

// rarity is a term's log-scaled rarity in the window: 0 for a stop term (in
// more than half of a multi-item window), else min(16, ⌊log2(N/df)⌋+1).
func rarity(n, df int) int {
	if df == 0 {
		return 0
	}
	if n > 1 && 2*df > n {
		return 0
	}
	return min(maxRarity, bits.Len(uint(n/df)))
}

// termPoints is a term's points in its best matching field of an item:
// max(10·r, ⌊10·weight·r / L⌋), and that field's weight. The key's norm
// of a field is L for a field with words, 0 (read as L = 1) for one without.
func termPoints(ps []artifacts.Posting, key *artifacts.Key, fields []artifacts.Field, r int) (points, weight int) {
	for _, p := range ps {
		w, norm := 1, 1
		if int(p.Field) < len(fields) {
			w = fields[p.Field].Weight
		}
		if int(p.Field) < len(key.Norms) {
			norm = max(1, int(key.Norms[p.Field]))
		}
		pts := max(pointsPerRarity*r, pointsPerRarity*w*r/norm)
		if pts > points || pts == points && w > weight {
			points, weight = pts, w
		}
	}
	return points, weight
}

// recency is round(15·0.5^(age/halfLife)) for an item dated day at asOf.
func recency(day string, asOf time.Time, halfLife int) int {
	if halfLife <= 0 || day == "" {
		return 0
	}
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return 0
	}
	age := asOf.Sub(d).Hours() / 24
	if age < 0 {
		age = 0
	}
	return int(math.Round(pointsRecency * math.Pow(0.5, age/float64(halfLife))))
}

// fieldOrdinal is the ordinal of the named field, -1 when the base has
// none of that name.
func fieldOrdinal(fields []artifacts.Field, name string) int {
	for i, f := range fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// hasWords reports whether an item has words in field f (an ordinal, or
// -1 for a field the base does not have).
func hasWords(key *artifacts.Key, f int) bool {
	return f >= 0 && f < len(key.Norms) && key.Norms[f] != 0
}

// fieldsWithWords counts the fields an item has words in.
func fieldsWithWords(key *artifacts.Key) int {
	n := 0
	for _, c := range key.Norms {
		if c != 0 {
			n++
		}
	}
	return n
}

func isPage(key *artifacts.Key) bool { return key.Flags&artifacts.KeyPage != 0 }

// compareChrono orders items newest first, then by URI.
func compareChrono(a, b *artifacts.Key) int { return cmp.Compare(a.Chrono, b.Chrono) }

// exactLookups are the dictionary terms that make an item an exact match
// for a query term: the term's own exact form, and the exact form of every
// name of an identity the term names (so marc@x.test finds records related
// to person:github/marc-x, Marc's alias).
func exactLookups(ids lex.Identities, term string) []string {
	out := []string{lex.ExactTerm(term)}
	for _, n := range ids.Names(term) {
		out = append(out, lex.ExactTerm(n))
	}
	slices.Sort(out)
	return slices.Compact(out)
}
