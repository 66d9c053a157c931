package govern

import (
	"slices"
	"time"
)

// Coverage grades and the kinds of context they count.
const (
	GradeCovered = "covered" // two or more kinds
	GradeThin    = "thin"    // one kind, or none but pending suggestions
	GradeEmpty   = "empty"   // nothing

	CoverVoice       = "voice"       // a voice profile in force
	CoverTerms       = "terms"       // terms bound here
	CoverEstablished = "established" // notes or term rules a person kept
)

// Coverage grades an answer by the kinds of context it holds.
type Coverage struct {
	Grade string
	// Kinds are the kinds present, Missing the kinds absent, each in the
	// order voice, terms, established.
	Kinds, Missing []string
	// Pending counts the suggestions nobody has decided on.
	Pending int
}

// grade counts the kinds of context in a. Suggestions raise empty to thin,
// never to covered: they are not established.
func grade(a Answer) Coverage {
	established := len(a.Notes) > 0 || slices.ContainsFunc(a.Terms, func(t Term) bool { return t.EstablishedBy != "" })
	c := Coverage{Pending: len(a.Suggestions)}
	for _, k := range []struct {
		name    string
		present bool
	}{{CoverVoice, a.Voice != nil}, {CoverTerms, len(a.Terms) > 0}, {CoverEstablished, established}} {
		if k.present {
			c.Kinds = append(c.Kinds, k.name)
		} else {
			c.Missing = append(c.Missing, k.name)
		}
	}
	c.Grade = Grade(len(c.Kinds), c.Pending)
	return c
}

// Grade is the coverage grade of an answer holding kinds kinds of context
// and pending undecided suggestions: covered with two kinds or more, thin
// with one (or with none but suggestions, which never make it covered),
// empty otherwise. By-location answers and searches grade alike.
func Grade(kinds, pending int) string {
	switch {
	case kinds >= 2:
		return GradeCovered
	case kinds == 1 || pending > 0:
		return GradeThin
	}
	return GradeEmpty
}

// boundaries lists, sorted, every day on which some window opens (its
// valid_from) or has just closed (the day after its valid_until): between
// two of them every answer stays the same.
func boundaries(g Governance, r *Resolver) []string {
	var days []string
	add := func(from, until string) {
		if from != "" {
			days = append(days, from)
		}
		if until != "" {
			if t, err := time.Parse(dayLayout, until); err == nil {
				days = append(days, t.AddDate(0, 0, 1).Format(dayLayout))
			}
		}
	}
	for _, p := range g.Points {
		add(p.ValidFrom, p.ValidUntil)
	}
	for _, v := range g.Voices {
		add(v.ValidFrom, v.ValidUntil)
	}
	for _, t := range r.terms {
		add(t.ValidFrom, t.ValidUntil)
	}
	for _, n := range r.notes {
		add(n.ValidFrom, n.ValidUntil)
	}
	for _, s := range r.suggestions {
		add(s.ValidFrom, s.ValidUntil)
	}
	slices.Sort(days)
	return slices.Compact(days)
}

// Span returns the days around the given one over which every answer of
// this governance stays the same: from the last window change on or
// before it to the day before the next one ("" where unbounded). A build
// whose day stays inside the span need not resolve again.
func (r *Resolver) Span(at time.Time) (from, until string) {
	day := Day(at)
	i, found := slices.BinarySearch(r.boundaries, day)
	switch {
	case found:
		from = r.boundaries[i]
		i++
	case i > 0:
		from = r.boundaries[i-1]
	}
	if i < len(r.boundaries) {
		t, _ := time.Parse(dayLayout, r.boundaries[i])
		until = t.AddDate(0, 0, -1).Format(dayLayout)
	}
	return from, until
}
