package rank

import (
	"cmp"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/project"
)

// Scored is one candidate item with its score and the facts that order it.
type Scored struct {
	Ord        int
	Key        *artifacts.Key // shared with the corpus's keys; not changed
	Row        *artifacts.Doc // read by rowOf when needed; not changed
	Item       *project.Item
	Score      int
	terms      int         // query terms it matched, any way
	own        int         // query terms it matched in their own form, not only a folded variant
	Matched    int         // meaningful query terms it matched (see words.Stats.Meaningful)
	BestWeight int         // the weight of its strongest matching field
	near       int         // its proximity bonus (see scoreProximity)
	Standing   int         // position in the ranked list a pack is selected from
	Count      int         // items it stands for after collapse (1 or more)
	more       *scoredMore // what few items have; nil for the rest
	titled     bool        // the title is the whole query
	phrased    bool        // the query appears as a phrase in a field
	Direct     bool        // an exact identifier matched
	Identity   bool        // an exact match on its own id or URI (recovers a policy role)
	Related    bool        // joined by --expand
	Pinned     bool
}

// scoredMore is what only a few scored items hold, kept apart so that the
// tens of thousands of a common-word query stay small.
type scoredMore struct {
	uriTerms []string // query terms that are the item's complete URI
	Later    []Reason // reasons added after scoring: expansion, pin
}

// MoreOf is s's scoredMore, made on first use.
func (s *Scored) MoreOf() *scoredMore {
	if s.more == nil {
		s.more = &scoredMore{}
	}
	return s.more
}

// NewScored makes the scored item of an ordinal outside the pool, with
// its key and row.
func (e *Ranking) NewScored(ord int) (*Scored, error) {
	keys, err := e.Corpus.Keys([]int{ord})
	if err != nil {
		return nil, err
	}
	s := &Scored{Ord: ord, Key: &keys[0], Count: 1}
	if _, err := e.RowOf(s); err != nil {
		return nil, err
	}
	return s, nil
}

// RowOf reads a scored item's docs.tsv row once: ranking reads keys, and
// only the items a pack shows, names or checks in full need their rows.
func (e *Ranking) RowOf(s *Scored) (*artifacts.Doc, error) {
	if s.Row == nil {
		row, err := e.Corpus.Row(s.Ord)
		if err != nil {
			return nil, err
		}
		s.Row = &row
	}
	return s.Row, nil
}

// ItemOf re-reads a scored item once.
func (e *Ranking) ItemOf(s *Scored) (*project.Item, error) {
	if s.Item == nil {
		row, err := e.RowOf(s)
		if err != nil {
			return nil, err
		}
		it, err := e.Corpus.Item(s.Ord, *row)
		if err != nil {
			return nil, err
		}
		s.Item = &it
	}
	return s.Item, nil
}

// FieldOrdinal is the ordinal of the named field, -1 when the base has
// none of that name.
func FieldOrdinal(fields []artifacts.Field, name string) int {
	for i, f := range fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// HasWords reports whether an item has words in field f (an ordinal, or
// -1 for a field the base does not have).
func HasWords(key *artifacts.Key, f int) bool {
	return f >= 0 && f < len(key.Norms) && key.Norms[f] != 0
}

// FieldsWithWords counts the fields an item has words in.
func FieldsWithWords(key *artifacts.Key) int {
	n := 0
	for _, c := range key.Norms {
		if c != 0 {
			n++
		}
	}
	return n
}

func IsPage(key *artifacts.Key) bool { return key.Flags&artifacts.KeyPage != 0 }

// CompareChrono orders items newest first, then by URI.
func CompareChrono(a, b *artifacts.Key) int { return cmp.Compare(a.Chrono, b.Chrono) }
