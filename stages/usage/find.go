package usage

import (
	"cmp"
	"slices"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// Match is one use of a term in a text: Term is the term's index in the
// list the Finder was made from, Start and End the byte offsets of the
// matched wording (End exclusive).
type Match struct {
	Term       int
	Start, End int
}

// Finder finds where a text uses each of a list of terms, by the counting
// rules of the package comment: what cairn check reports is exactly what
// usage.tsv counts, one Match per counted use.
type Finder struct {
	m *matcher
}

// NewFinder compiles the terms; a pattern that does not compile is an
// error naming the term.
func NewFinder(terms []model.Term) (*Finder, error) {
	m, err := newMatcher(terms)
	if err != nil {
		return nil, err
	}
	return &Finder{m: m}, nil
}

// Find returns every use of the terms in text, sorted by start, then end,
// then term. Matches of one term never overlap; matches of different terms
// may. It is safe for concurrent use: every call has its own scratch space.
func (f *Finder) Find(text string) []Match {
	var out []Match
	c := f.m.newCounter()
	c.spans = func(t int32, start, end int) {
		out = append(out, Match{Term: int(t), Start: start, End: end})
	}
	f.m.count(text, c)
	slices.SortFunc(out, func(a, b Match) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End), cmp.Compare(a.Term, b.Term))
	})
	return out
}
