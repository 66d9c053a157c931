package query

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/cairn-kb/cairn/stages/lex"
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
	proximityTop = 20
)

// scoreProximity adds the proximity bonus to the proximityTop items of
// the pool with the best scores so far that matched two terms or more:
// pointsProximity for each distinct query term beyond the first inside
// the densest window of proximityWords words of one field value.
func (e *engine) scoreProximity() error {
	if len(e.terms) < 2 {
		return nil
	}
	var top []*scored
	for _, s := range e.pool {
		if s.terms >= 2 && s.score > 0 {
			top = append(top, s)
		}
	}
	slices.SortFunc(top, func(a, b *scored) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.ord, b.ord)) })
	folds := make([]string, len(e.terms))
	for i, st := range e.terms {
		folds[i] = lex.Fold(st.term)
	}
	for _, s := range top[:min(len(top), proximityTop)] {
		it, err := e.itemOf(s)
		if err != nil {
			return err
		}
		best := 0
		for _, f := range it.Fields {
			for _, v := range f.Values {
				best = max(best, densestWindow(queryWords(v), e.terms, folds))
			}
		}
		if best >= 2 {
			s.near = pointsProximity * (best - 1)
			s.score += s.near
		}
	}
	return nil
}

// densestWindow is the most distinct query terms found inside any run of
// proximityWords consecutive words; a word is a term when it is the term
// or folds as it does.
func densestWindow(words []string, terms []*termStats, folds []string) int {
	at := make([]int, len(words)) // the term index of each word, -1 for none
	for i, w := range words {
		at[i] = -1
		var fw string
		for ti, st := range terms {
			if w == st.term {
				at[i] = ti
				break
			}
			if fw == "" {
				fw = lex.Fold(w)
			}
			if fw == folds[ti] && !lex.IsIdentifierShaped(st.term) {
				at[i] = ti
				break
			}
		}
	}
	best := 0
	seen := make([]int, len(terms))
	distinct := 0
	for i := range at {
		if at[i] >= 0 {
			if seen[at[i]] == 0 {
				distinct++
			}
			seen[at[i]]++
		}
		if j := i - proximityWords; j >= 0 && at[j] >= 0 {
			seen[at[j]]--
			if seen[at[j]] == 0 {
				distinct--
			}
		}
		best = max(best, distinct)
	}
	return best
}

// proximityReason is the reason of an item's proximity bonus.
func proximityReason(s *scored) Reason {
	return Reason{Code: "proximity", Points: s.near, Detail: fmt.Sprintf("%d terms within %d words", s.near/pointsProximity+1, proximityWords)}
}
