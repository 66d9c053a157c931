package index

import (
	"container/heap"
	"fmt"
	"iter"
	"slices"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// Layout numbers segments, whose runs are in URI order, as one index: the
// fields of them all by name, so that a field's position in Fields is its
// ordinal in fields.tsv, in the postings and in the rows' lengths, and the
// items in segment order. The build writes the index it lays out; a
// query's scan keeps the same numbers in memory, so both read alike.
type Layout struct {
	Fields []artifacts.Field
	// remap maps each segment's field positions to ordinals; both are in
	// name order, so a row's lengths stay sorted by ordinal.
	remap  [][]uint16
	starts []int32 // each segment's first item ordinal
	items  int
}

// NewLayout lays out segs, weighting the fields as cfg says.
func NewLayout(cfg model.Config, segs []Segment) (Layout, error) {
	var names []string
	for _, s := range segs {
		names = append(names, s.Fields...)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) > artifacts.MaxFields {
		return Layout{}, fmt.Errorf("the base has %d fields; the index holds at most %d", len(names), artifacts.MaxFields)
	}
	l := Layout{Fields: make([]artifacts.Field, len(names)), remap: make([][]uint16, len(segs)), starts: make([]int32, len(segs))}
	for i, n := range names {
		l.Fields[i] = artifacts.Field{Name: n, Weight: cfg.Weight(n)}
	}
	for i, s := range segs {
		l.remap[i] = make([]uint16, len(s.Fields))
		for j, f := range s.Fields {
			k, _ := slices.BinarySearch(names, f)
			l.remap[i][j] = uint16(k)
		}
		l.starts[i] = int32(l.items)
		l.items += len(s.Rows)
	}
	return l, nil
}

// Items is how many items the segments hold.
func (l *Layout) Items() int { return l.items }

// Renumber rewrites, in place, lengths of a row of segment seg from the
// segment's field positions to the layout's ordinals.
func (l *Layout) Renumber(seg int, lengths []artifacts.FieldLen) {
	for j := range lengths {
		lengths[j].Field = int32(l.remap[seg][lengths[j].Field])
	}
}

// Merge calls term with every term of segs, the segments l was made of,
// in dictionary order: the term, how many postings it has, and those
// postings as the merged index holds them, sorted by item then field.
// A term held by several segments gets their postings in segment order,
// each item moved by its segment's first ordinal and each field mapped to
// its ordinal. The postings may be read only during the call.
func (l *Layout) Merge(segs []Segment, term func(t string, n int, postings iter.Seq[artifacts.Posting])) {
	h := &cursors{segs: segs}
	for i, s := range segs {
		if s.terms() > 0 {
			h.c = append(h.c, cursor{seg: i})
		}
	}
	heap.Init(h)
	var group []cursor // the cursors at the current term, in segment order
	postings := func(yield func(artifacts.Posting) bool) {
		for _, c := range group {
			for _, p := range segs[c.seg].posts(c.term) {
				p.Doc += l.starts[c.seg]
				p.Field = l.remap[c.seg][p.Field]
				if !yield(p) {
					return
				}
			}
		}
	}
	for h.Len() > 0 {
		t := segs[h.c[0].seg].term(h.c[0].term)
		group = group[:0]
		n := 0
		for h.Len() > 0 && segs[h.c[0].seg].term(h.c[0].term) == t {
			c := heap.Pop(h).(cursor)
			group = append(group, c)
			n += len(segs[c.seg].posts(c.term))
		}
		term(t, n, postings)
		for _, c := range group {
			if c.term+1 < segs[c.seg].terms() {
				heap.Push(h, cursor{seg: c.seg, term: c.term + 1})
			}
		}
	}
}
