package rank

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/words"
	"github.com/cairn-kb/cairn/stages/lib/lex"
	"github.com/cairn-kb/cairn/stages/project"
)

// The ranking arithmetic. Every contribution is a reason with integer
// points, so a score can be added up by hand from --explain. Changing any
// of these changes packs: bump artifacts.RankingVersion with them.
const (
	// PointsIdentifier rewards an exact identifier: a relation value, an
	// entity alias, an id, a slug, an exact title or a complete URI.
	PointsIdentifier = 100
	// pointsPhrase rewards the whole multi-term query as a phrase in a field.
	pointsPhrase = 50
	// pointsTitle rewards a title equal to the whole query.
	pointsTitle = 100
	// pointsPerIDF scales a term's rarity (its idf, one unit per halving
	// of the items that hold it) times its saturated frequency into points.
	pointsPerIDF = 10
	// bm25K1 is BM25's k1 in hundredths: how soon a term's weighted
	// frequency saturates; a term's frequency part never reaches
	// (k1+1) = 2.2.
	bm25K1 = 120
	// bm25B is BM25's b in thousandths: how much a field's length, against
	// the average length of that field, discounts a term in it.
	bm25B = 750
	// FoldedPercent is what an occurrence of a folded variant of a term
	// ("renamed" for "rename") counts, in hundredths of the term itself.
	FoldedPercent = 20
	// pointsCreated prefers category: created, once an item matched.
	pointsCreated = 10
	// pointsRecency is the recency bonus of an item dated today.
	pointsRecency = 15
	// pointsClosed penalises superseded, done and deprecated items.
	pointsClosed = -50
	// pointsNav penalises navigation pages.
	pointsNav = -50
	// PointsExpand is the --expand join bonus.
	PointsExpand = 20
	// RelevanceFloor is the least score an unpinned item needs.
	RelevanceFloor = 10
)

// Reason is one contribution to a score.
type Reason struct {
	Code   string `json:"code"`
	Points int    `json:"points"`
	Detail string `json:"detail,omitempty"`
}

// roleTerms are query terms that name a policy role: they identify the
// items holding it and recover them from exclusion.
var roleTerms = map[string]string{
	"visibility:private": project.FlagPrivate,
	"category:received":  project.FlagReceived,
}

// LookupTerms looks up each of the query's terms in the window, with its
// rarity there, and notes the policy roles the query names.
func (e *Ranking) LookupTerms() error {
	ids := e.Corpus.Identities()
	for _, t := range e.Parsed.Terms {
		if role, ok := roleTerms[t]; ok {
			e.roles = append(e.roles, role)
		}
		st, err := words.Lookup(e.Corpus, ids, t, e.Parsed.Terms, e.Win)
		if err != nil {
			return err
		}
		st.IDF, st.Meaningful = words.IDF(e.Win.N, max(1, st.Own)), words.Meaningful(e.Win.N, st.Own)
		e.Terms = append(e.Terms, st)
	}
	return nil
}

// Score computes every matched item's score: what each term's hits
// give, then complete URIs, then what the whole query gives (title,
// phrase) and the bonuses of every item that matched.
func (e *Ranking) Score() error {
	p, err := e.hitPool()
	if err != nil {
		return err
	}
	e.averageLengths(p)
	if err := e.scoreHits(p); err != nil {
		return err
	}
	if err := e.scoreURITerms(p); err != nil {
		return err
	}
	e.Pool = p.byOrdinal()
	if err := e.scoreProximity(); err != nil {
		return err
	}
	return e.scoreWholeQuery()
}

// hitPool holds the scored items of a query's hits. Every hit's key is
// read at once, in ordinal order, so that near keys share reads; the
// items are made in one block, in the same order, and found by ordinal
// with a binary search. Rows are read later, for the few items that need
// more than their key.
type hitPool struct {
	ords  []int     // the hits' ordinals, sorted and distinct
	items []Scored  // items[i] is the item of ords[i]
	extra []*Scored // items scored without a postings hit (URI terms)
}

// hitPool reads the keys of every item the query's terms hit.
func (e *Ranking) hitPool() (*hitPool, error) {
	hits := 0
	for _, st := range e.Terms {
		hits += len(st.Hits)
	}
	all := make([]int, 0, hits)
	for _, st := range e.Terms {
		for _, h := range st.Hits {
			all = append(all, int(h.Ord))
		}
	}
	slices.Sort(all)
	all = slices.Compact(all)
	keys, err := e.Corpus.Keys(all)
	if err != nil {
		return nil, err
	}
	p := &hitPool{ords: all, items: make([]Scored, len(all))}
	for i, o := range all {
		p.items[i] = Scored{Ord: o, Key: &keys[i], Count: 1}
	}
	return p, nil
}

// get is the pool's item of an ordinal, made (with its key and row) when
// no term hit it.
func (p *hitPool) get(e *Ranking, ord int32) (*Scored, error) {
	if i, ok := slices.BinarySearch(p.ords, int(ord)); ok {
		return &p.items[i], nil
	}
	for _, s := range p.extra {
		if s.Ord == int(ord) {
			return s, nil
		}
	}
	s, err := e.NewScored(int(ord))
	if err != nil {
		return nil, err
	}
	p.extra = append(p.extra, s)
	return s, nil
}

// byOrdinal is every item of the pool, in ordinal order.
func (p *hitPool) byOrdinal() []*Scored {
	out := make([]*Scored, 0, len(p.items)+len(p.extra))
	for i := range p.items {
		out = append(out, &p.items[i])
	}
	out = append(out, p.extra...)
	slices.SortFunc(out, func(a, b *Scored) int { return cmp.Compare(a.Ord, b.Ord) })
	return out
}

// scoreHits adds what each term gives the items it hits.
func (e *Ranking) scoreHits(p *hitPool) error {
	fields := e.Corpus.Fields()
	for ti, st := range e.Terms {
		// Hits come sorted by ordinal, as the pool is: walk both at once.
		k := 0
		for j := range st.Hits {
			for p.ords[k] != int(st.Hits[j].Ord) {
				k++
			}
			if err := e.scoreTerm(&p.items[k], ti, &st.Hits[j], fields, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// scoreURITerms scores a term that is an item's complete URI as an exact
// identifier of that item, unless the term already identified it.
func (e *Ranking) scoreURITerms(p *hitPool) error {
	for _, t := range e.Parsed.Terms {
		ord, ok, err := e.URITerm(t)
		if err != nil {
			return err
		}
		if !ok || !e.Win.Has(ord) {
			continue
		}
		s, err := p.get(e, int32(ord))
		if err != nil {
			return err
		}
		identified, err := e.identifiedBy(s, t)
		if err != nil {
			return err
		}
		if !s.Direct || !identified {
			s.Direct, s.Identity = true, true
			s.Matched++
			s.terms++
			s.own++
			s.MoreOf().uriTerms = append(s.MoreOf().uriTerms, t)
			s.Score += PointsIdentifier
		}
	}
	return nil
}

// scoreWholeQuery adds, to every item of the pool, the points of a title
// that is the whole query and of the query as a phrase, then the bonuses
// of an item that matched.
func (e *Ranking) scoreWholeQuery() error {
	recent := map[recencyKey]int{} // recency points by half-life and day
	titleKey := lex.TermsKey(e.Parsed.Terms)
	for _, s := range e.Pool {
		// Only a title whose terms hash like the query's can be the query.
		if len(e.Terms) > 0 && s.Key.TitleTerms == titleKey {
			row, err := e.RowOf(s)
			if err != nil {
				return err
			}
			if titleIs(row.Title, e.Parsed.Terms, e.Parsed.Filtered) {
				s.titled = true
				s.Score += pointsTitle
			}
		}
		if len(e.Terms) > 1 && s.own == len(e.Terms) { // a phrase is of the terms themselves
			facts, err := e.textFactsOf(s)
			if err != nil {
				return err
			}
			if facts.phrase {
				s.phrased = true
				s.Score += pointsPhrase
			}
		}
		if s.Score > 0 {
			s.Score += e.bonuses(s, recent, nil)
		}
	}
	return nil
}

// scoreTerm adds what query term ti gives item s through hit h. With rec,
// it only lists the reasons (s is then a scratch copy).
func (e *Ranking) scoreTerm(s *Scored, ti int, h *words.Hit, fields []artifacts.Field, rec *[]Reason) error {
	st := e.Terms[ti]
	s.terms++
	if h.Exact || len(h.Postings) > 0 {
		s.own++
	}
	if st.Meaningful && (h.Exact || len(h.Postings) > 0 || foldedInWeightedField(h, fields)) {
		// A folded variant in a weighted field (a title, an identifier)
		// counts as a match of the term: "retry the failed upload" is a
		// commit about failing uploads. One in a body only is scored, at
		// foldedPercent, but does not count: a long page holds the
		// inflections of most words.
		s.Matched++
	}
	own, err := e.TermNamesItself(s, st)
	if err != nil {
		return err
	}
	switch {
	case h.Exact && e.corroborated(s, ti) || own:
		// An exact identifier entry, or the term is the record's own id.
		s.Direct = true
		s.Identity = s.Identity || own
		s.Score += PointsIdentifier
		if rec != nil {
			*rec = append(*rec, Reason{Code: "identifier", Points: PointsIdentifier, Detail: st.Term})
		}
	default:
		tf, w := e.weightedTF(h, s.Key, fields)
		pts := TermPoints(st.IDF, tf)
		s.BestWeight = max(s.BestWeight, w)
		s.Score += pts
		if rec != nil {
			*rec = append(*rec, Reason{Code: "term", Points: pts, Detail: fmt.Sprintf("%s idf=%d/16 tf=%d/100", st.Term, st.IDF, tf)})
		}
	}
	return nil
}

// foldedInWeightedField reports whether a hit holds a folded variant of
// its term in a field weighted above 1.
func foldedInWeightedField(h *words.Hit, fields []artifacts.Field) bool {
	for _, p := range h.Folded {
		if int(p.Field) < len(fields) && fields[p.Field].Weight > 1 {
			return true
		}
	}
	return false
}

// corroborated reports whether an exact identifier hit of term ti on s
// counts as one: always for an identifier-shaped term (har-142,
// person:email/…) and for a query of one term (a lookup); a plain word
// ("and", "redis") only when s also matches another meaningful term of
// the query. A relation value or slug that is a common word would
// otherwise put its item first for every question holding the word.
func (e *Ranking) corroborated(s *Scored, ti int) bool {
	if len(e.Terms) == 1 || lex.IsIdentifierShaped(e.Terms[ti].Term) {
		return true
	}
	for tj, other := range e.Terms {
		if tj == ti || !other.Meaningful {
			continue
		}
		if _, ok := other.Hit(s.Ord); ok {
			return true
		}
	}
	return false
}

// TermPoints is what a term gives: ⌊10 · idf · sat⌋, where idf is in
// sixteenths and sat = tf·(k1+1)/(tf+k1) is BM25's saturation of the
// weighted frequency tf (in hundredths), computed in thousandths.
func TermPoints(idf, tf int) int {
	if tf <= 0 {
		return 0
	}
	sat := tf * (bm25K1 + 100) * 10 / (tf + bm25K1) // thousandths
	return pointsPerIDF * idf * sat / (16 * 1000)
}

// weightedTF is BM25F's weighted frequency of a term in an item, in
// hundredths: over the fields the term is in, weight · occurrences ·
// 1000 / (1000 − b + b·len/avg), len being the field's length in the item
// and avg its average over the items the query hit. An occurrence counts
// 100, a folded variant's foldedPercent. weight is the strongest matching
// field's.
func (e *Ranking) weightedTF(h *words.Hit, key *artifacts.Key, fields []artifacts.Field) (tf, weight int) {
	add := func(ps []artifacts.Posting, per int) {
		for _, p := range ps {
			w := 1
			if int(p.Field) < len(fields) {
				w = fields[p.Field].Weight
			}
			tf += w * int(p.TF) * per * 1000 / e.lengthNorm(key, int(p.Field))
			weight = max(weight, w)
		}
	}
	add(h.Postings, 100)
	add(h.Folded, FoldedPercent)
	return tf, weight
}

// lengthNorm is BM25's length discount of field f of an item, in
// thousandths: 1000 − b + b·len/avg, or 1000 when the item or the hits
// have no length for the field.
func (e *Ranking) lengthNorm(key *artifacts.Key, f int) int {
	if f >= len(key.Norms) || f >= len(e.avgLen) || key.Norms[f] == 0 || e.avgLen[f] == 0 {
		return 1000
	}
	return 1000 - bm25B + bm25B*artifacts.NormLength(key.Norms[f])/e.avgLen[f]
}

// averageLengths sets each field's average length over the items that
// hold a query term itself (not only a folded variant) and have words in
// the field, 0 when none has: the index and the scan both know the
// lengths of every item a term hits.
func (e *Ranking) averageLengths(p *hitPool) {
	n := len(e.Corpus.Fields())
	own := make([]bool, len(p.items))
	for _, st := range e.Terms {
		k := 0
		for _, h := range st.Hits {
			for p.ords[k] != int(h.Ord) {
				k++
			}
			own[k] = own[k] || h.Exact || len(h.Postings) > 0
		}
	}
	sums, counts := make([]int, n), make([]int, n)
	for i := range p.items {
		if !own[i] {
			continue
		}
		for f, c := range p.items[i].Key.Norms {
			if c != 0 && f < n {
				sums[f] += artifacts.NormLength(c)
				counts[f]++
			}
		}
	}
	e.avgLen = make([]int, n)
	for f := range n {
		if counts[f] > 0 {
			e.avgLen[f] = max(1, sums[f]/counts[f])
		}
	}
}

// identifiedBy reports whether a query term equal to t already made s an
// exact identifier match.
func (e *Ranking) identifiedBy(s *Scored, t string) (bool, error) {
	for _, st := range e.Terms {
		if st.Term != t {
			continue
		}
		h, ok := st.Hit(s.Ord)
		if !ok {
			continue
		}
		own, err := e.TermNamesItself(s, st)
		if err != nil {
			return false, err
		}
		if h.Exact || own {
			return true, nil
		}
	}
	return false, nil
}

// TermNamesItself reports whether a query term exactly names the item
// itself (its id or URI) rather than something it relates to: that
// recovers a private or received record. The key's hashes of the two rule
// out almost every item without reading its row; isOwnIDOrURI decides for
// the rest.
func (e *Ranking) TermNamesItself(s *Scored, st *words.Stats) (bool, error) {
	if s.Key.Flags&artifacts.KeyID == 0 || s.Key.OwnID != st.Fold && s.Key.OwnURI != st.Fold {
		return false, nil
	}
	row, err := e.RowOf(s)
	if err != nil {
		return false, err
	}
	return isOwnIDOrURI(row, st.Term), nil
}

// isOwnIDOrURI reports whether term is a record's own id (the part of its
// URI after "#", decoded) or its whole URI, whatever the case; a row whose
// URI holds no record id is neither.
func isOwnIDOrURI(row *artifacts.Doc, term string) bool {
	_, id, ok := strings.Cut(row.URI, "#")
	return ok && (strings.EqualFold(lex.DecodeID(id), term) || strings.EqualFold(row.URI, term))
}

// URITerm finds the item whose complete URI the term is, whatever case the
// query used: the term is lowercase, so the query's own spelling of it is
// looked up.
func (e *Ranking) URITerm(t string) (int, bool, error) {
	if !strings.ContainsAny(t, "/#") {
		return 0, false, nil
	}
	for _, w := range e.Words {
		cand := strings.Trim(w, "\"'()[]<>,;")
		if !strings.EqualFold(cand, t) {
			continue
		}
		ord, err := e.Corpus.Search(cand)
		if err != nil {
			return 0, false, err
		}
		if ord < e.Corpus.Len() {
			row, err := e.Corpus.Row(ord)
			if err != nil {
				return 0, false, err
			}
			if row.URI == cand {
				return ord, true, nil
			}
		}
	}
	return 0, false, nil
}

// titleIs reports whether a title normalises like a query to the query's
// terms: its kept words, each once, in the order they first appear, are
// the terms. It stops at the first word that differs.
func titleIs(title string, terms, filtered []string) bool {
	for _, w := range strings.FieldsFunc(title, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		// A short word that names something ("v1" in "Retention policy
		// v1", "CI" in "CI runners") is more than the query holds, unless
		// the query said it too.
		if low := strings.ToLower(w); !lex.KeepAsTerm(low) && namingShortWord(w) && !slices.Contains(filtered, low) {
			return false
		}
	}
	n := 0 // the title's kept words so far are terms[:n]
	for w := range lex.QueryWords(title) {
		if !lex.KeepAsTerm(w) || slices.Contains(terms[:n], w) {
			continue
		}
		if n == len(terms) || w != terms[n] {
			return false
		}
		n++
	}
	return n == len(terms)
}

// namingShortWord reports whether a word too short to be a term names
// something, so that a title holding it says more than its terms: it has
// a digit (v1, 3d) or is an acronym in capitals (CI, UI). Other short
// words (a, of, to) only join the title's terms.
func namingShortWord(w string) bool {
	upper := 0
	for _, r := range w {
		switch {
		case unicode.IsDigit(r):
			return true
		case unicode.IsUpper(r):
			upper++
		}
	}
	return upper >= 2 && upper == utf8.RuneCountInString(w)
}

// queryWords splits text the way a query is split into terms, keeping
// every word, so a phrase can be matched against it.
func queryWords(text string) []string { return slices.Collect(lex.QueryWords(text)) }

// bonuses are the points of an item that matched: created evidence,
// recency, and the closed and navigation penalties. recent caches recency
// points by half-life and day across items; rec, when given, gets reasons.
func (e *Ranking) bonuses(s *Scored, recent map[recencyKey]int, rec *[]Reason) int {
	note := func(code string, pts int, detail string) {
		if rec != nil {
			*rec = append(*rec, Reason{Code: code, Points: pts, Detail: detail})
		}
	}
	k := s.Key
	pts := 0
	if k.Flags&artifacts.KeyCreated != 0 {
		pts += pointsCreated
		note("created", pointsCreated, "")
	}
	if hl := int(k.HalfLife); hl > 0 {
		key := recencyKey{k.HalfLife, k.Day}
		r, ok := recent[key]
		if !ok {
			r = recency(project.DayString(k.Day), e.AsOf, hl)
			if recent != nil {
				recent[key] = r
			}
		}
		if r > 0 {
			pts += r
			if rec != nil {
				note("recency", r, fmt.Sprintf("%s half-life %dd", project.DayString(k.Day), hl))
			}
		}
	}
	for _, c := range closedFlags {
		if k.Flags&c.flag != 0 {
			pts += pointsClosed
			note(c.code, pointsClosed, "")
			break
		}
	}
	if k.Flags&artifacts.KeyNav != 0 {
		pts += pointsNav
		note("navigation", pointsNav, "")
	}
	return pts
}

// closedFlags are the flags that mark an item closed, with their reason
// codes, in the order a reason names the first.
var closedFlags = []struct {
	flag artifacts.KeyFlags
	code string
}{
	{artifacts.KeySuperseded, project.FlagSuperseded},
	{artifacts.KeyDone, project.FlagDone},
	{artifacts.KeyDeprecated, project.FlagDeprecated},
}

// recencyKey keys the recency points of the items of one day under one
// half-life.
type recencyKey struct {
	halfLife uint32
	day      int32
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

// Reasons replays an item's score with its reasons, in the order the
// score was added up: its terms, a complete URI, title, phrase, the
// bonuses, then what expansion and pins added. Only the items a pack
// shows with --explain need them, so scoring the whole pool keeps none.
func (e *Ranking) Reasons(s *Scored) ([]Reason, error) {
	var rs []Reason
	acc := Scored{Ord: s.Ord, Key: s.Key, Row: s.Row}
	var more scoredMore
	if s.more != nil {
		more = *s.more
	}
	fields := e.Corpus.Fields()
	for ti, st := range e.Terms {
		if h, ok := st.Hit(s.Ord); ok {
			if err := e.scoreTerm(&acc, ti, h, fields, &rs); err != nil {
				return nil, err
			}
		}
	}
	for _, t := range more.uriTerms {
		acc.Score += PointsIdentifier
		rs = append(rs, Reason{Code: "identifier", Points: PointsIdentifier, Detail: "uri " + t})
	}
	if s.near != 0 {
		acc.Score += s.near
		rs = append(rs, proximityReason(s))
	}
	if s.titled {
		acc.Score += pointsTitle
		rs = append(rs, Reason{Code: "title", Points: pointsTitle, Detail: "the title is the whole query"})
	}
	if s.phrased {
		acc.Score += pointsPhrase
		rs = append(rs, Reason{Code: "phrase", Points: pointsPhrase, Detail: strings.Join(e.Parsed.Terms, " ")})
	}
	if acc.Score > 0 {
		e.bonuses(&acc, nil, &rs)
	}
	return append(rs, more.Later...), nil
}

// MultiTerm is the count of meaningful matched terms at which the order
// stops counting: an item matching two or more meaningful terms precedes
// one matching a single term, whatever their scores, and among those
// the score decides.
const MultiTerm = 2
