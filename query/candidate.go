package query

import (
	"cmp"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/project"
)

// scored is one candidate item with its score and the facts that order it.
type scored struct {
	ord        int
	key        *artifacts.Key // shared with the corpus's keys; not changed
	row        *artifacts.Doc // read by rowOf when needed; not changed
	item       *project.Item
	score      int
	terms      int         // query terms it matched, any way
	own        int         // query terms it matched in their own form, not only a folded variant
	matched    int         // meaningful query terms it matched (see termStats.meaningful)
	bestWeight int         // the weight of its strongest matching field
	near       int         // its proximity bonus (see scoreProximity)
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

// newScored makes the scored item of an ordinal outside the pool, with
// its key and row.
func (e *engine) newScored(ord int) (*scored, error) {
	keys, err := e.c.Keys([]int{ord})
	if err != nil {
		return nil, err
	}
	s := &scored{ord: ord, key: &keys[0], count: 1}
	if _, err := e.rowOf(s); err != nil {
		return nil, err
	}
	return s, nil
}

// rowOf reads a scored item's docs.tsv row once: ranking reads keys, and
// only the items a pack shows, names or checks in full need their rows.
func (e *engine) rowOf(s *scored) (*artifacts.Doc, error) {
	if s.row == nil {
		row, err := e.c.Row(s.ord)
		if err != nil {
			return nil, err
		}
		s.row = &row
	}
	return s.row, nil
}

// itemOf re-reads a scored item once.
func (e *engine) itemOf(s *scored) (*project.Item, error) {
	if s.item == nil {
		row, err := e.rowOf(s)
		if err != nil {
			return nil, err
		}
		it, err := e.c.Item(s.ord, *row)
		if err != nil {
			return nil, err
		}
		s.item = &it
	}
	return s.item, nil
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
