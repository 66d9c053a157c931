package rank

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/words"
	"github.com/cairn-kb/cairn/stages/lib/lex"
)

// Proximity: query terms close together in one field of an item say more
// than the same terms scattered through it. It is read from the item's
// own text, so only the best-scored items are read.
const (
	// pointsProximity is what each query term beyond the first gives when
	// it falls in the same window of proximityWords words of one field.
	pointsProximity = 20
	// proximityWords is the window's width, in words.
	proximityWords = 12
	// proximityTop is how many items, best score first, are read for it.
	proximityTop = 10
)

// scoreProximity adds the proximity bonus to the proximityTop items of
// the pool with the best scores so far that hold two query terms or more
// in one field: pointsProximity for each distinct query term beyond the
// first inside the densest window of proximityWords words of one value
// of such a field. Only those items are read, and only those fields
// scanned.
func (e *Ranking) scoreProximity() error {
	if len(e.Terms) < 2 {
		return nil
	}
	var top []*Scored
	for _, s := range e.Pool {
		if s.terms >= 2 && s.Score > 0 {
			top = append(top, s)
		}
	}
	slices.SortFunc(top, func(a, b *Scored) int { return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Ord, b.Ord)) })
	for _, s := range top[:min(len(top), proximityTop)] {
		facts, err := e.textFactsOf(s)
		if err != nil {
			return err
		}
		if best := facts.densest; best >= 2 {
			s.near = pointsProximity * (best - 1)
			s.Score += s.near
		}
	}
	return nil
}

// sharedFields reports, by field index, which fields of an item hold two
// or more of the query's terms (or their variants), by its postings: only
// those can hold a phrase or a window of two terms. A field past the 64th
// is reported as shared, to be read.
func (e *Ranking) sharedFields(s *Scored) (shared []bool, any bool) {
	count := make([]int, len(e.Corpus.Fields()))
	for _, st := range e.Terms {
		h, ok := st.Hit(s.Ord)
		if !ok {
			continue
		}
		var in uint64 // the fields this term is in, for the first 64
		for _, ps := range [][]artifacts.Posting{h.Postings, h.Folded} {
			for _, p := range ps {
				switch f := int(p.Field); {
				case f >= len(count) || f >= 64:
				case in&(1<<f) == 0:
					in |= 1 << f
					count[f]++
				}
			}
		}
	}
	shared = make([]bool, len(count))
	for f, n := range count {
		shared[f] = n >= 2 || f >= 64
		any = any || shared[f]
	}
	return shared, any
}

// textFacts are what an item's text says of the query, read in one pass
// over its words: whether the terms appear as a phrase in a field value,
// and the most distinct terms inside proximityWords words of one.
type textFacts struct {
	phrase  bool
	densest int
}

// textFactsOf reads an item's text once for both the phrase and the
// proximity bonus: only the fields whose postings hold two terms or more
// (a field the index does not know is read too), and nothing of an item
// with no such field.
func (e *Ranking) textFactsOf(s *Scored) (textFacts, error) {
	if f, ok := e.facts[s.Ord]; ok {
		return f, nil
	}
	var f textFacts
	shared, any := e.sharedFields(s)
	if any {
		it, err := e.ItemOf(s)
		if err != nil {
			return textFacts{}, err
		}
		if e.folds == nil {
			e.folds = make([]string, len(e.Terms))
			for i, st := range e.Terms {
				if !lex.IsIdentifierShaped(st.Term) {
					e.folds[i] = lex.Fold(st.Term)
				}
			}
		}
		for _, fl := range it.Fields {
			if at, ok := e.fieldAt(fl.Name); ok && !shared[at] {
				continue // its postings hold fewer than two terms
			}
			for _, v := range fl.Values {
				phrase, densest := scanText(v, e.Terms, e.folds)
				f.phrase = f.phrase || phrase
				f.densest = max(f.densest, densest)
			}
		}
	}
	if e.facts == nil {
		e.facts = map[int]textFacts{}
	}
	e.facts[s.Ord] = f
	return f, nil
}

// scanText reads text split as a query is. phrase: the terms appear in
// order, consecutively among the words a query would keep (the terms are
// distinct, so a mismatch can only restart the run at its first term).
// densest: the most distinct query terms inside any run of
// proximityWords consecutive words, a word being a term when it is the
// term or folds as it does. folds holds each term's folded form, or ""
// for an identifier-shaped term, which matches only as it is.
func scanText(text string, terms []*words.Stats, folds []string) (phrase bool, densest int) {
	var ring [proximityWords]int8 // the term index of the last words, -1 for none
	for i := range ring {
		ring[i] = -1
	}
	seen := make([]int, len(terms))
	best, distinct, i, run := 0, 0, 0, 0
	for w := range lex.QueryWords(text) {
		if len(terms) > 1 && !phrase && lex.KeepAsTerm(w) {
			switch {
			case w == terms[run].Term:
				run++
			case w == terms[0].Term:
				run = 1
			default:
				run = 0
			}
			phrase = run == len(terms)
		}
		if old := ring[i%proximityWords]; old >= 0 {
			seen[old]--
			if seen[old] == 0 {
				distinct--
			}
		}
		at := int8(-1)
		fw := ""
		for ti, st := range terms {
			if w == st.Term {
				at = int8(ti)
				break
			}
			if folds[ti] == "" {
				continue
			}
			if fw == "" {
				fw = lex.Fold(w)
			}
			if fw == folds[ti] {
				at = int8(ti)
				break
			}
		}
		ring[i%proximityWords] = at
		if at >= 0 {
			if seen[at] == 0 {
				distinct++
			}
			seen[at]++
		}
		best = max(best, distinct)
		i++
	}
	return phrase, best
}

// proximityReason is the reason of an item's proximity bonus.
func proximityReason(s *Scored) Reason {
	return Reason{Code: "proximity", Points: s.near, Detail: fmt.Sprintf("%d terms within %d words", s.near/pointsProximity+1, proximityWords)}
}

// fieldAt is the index of the field named name among the corpus's fields.
func (e *Ranking) fieldAt(name string) (int, bool) {
	if e.fieldIndex == nil {
		e.fieldIndex = map[string]int{}
		for i, f := range e.Corpus.Fields() {
			e.fieldIndex[f.Name] = i
		}
	}
	i, ok := e.fieldIndex[name]
	return i, ok
}
