package index

import (
	"bytes"
	"fmt"
	"iter"
	"slices"
	"strings"

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
		l.items += s.Len()
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
// its ordinal. The postings may be read only during the call. Spilled
// segments are read back from their scratch file as they merge; a failed
// read ends the merge with its error.
func (l *Layout) Merge(segs []Segment, term func(t string, n int, postings iter.Seq[artifacts.Posting])) error {
	h := &cursors{segs: segs}
	for i := range segs {
		c := cursor{seg: i}
		if segs[i].spilled != nil {
			c.run = newRunReader(segs[i].spilled)
		}
		if c.load(segs) {
			h.c = append(h.c, c)
		} else if c.run != nil && c.run.err != nil {
			return c.run.err
		}
	}
	h.init()
	var group []cursor // the cursors at the current term, in segment order
	postings := func(yield func(artifacts.Posting) bool) {
		for _, c := range group {
			for _, p := range c.posts(segs) {
				p.Doc += l.starts[c.seg]
				p.Field = l.remap[c.seg][p.Field]
				if !yield(p) {
					return
				}
			}
		}
	}
	for len(h.c) > 0 {
		top := &h.c[0]
		t := top.cur
		if top.run != nil {
			t = string(top.run.term)
		}
		group = group[:0]
		n := 0
		for len(h.c) > 0 && h.c[0].is(t) {
			c := h.pop()
			group = append(group, c)
			n += len(c.posts(segs))
		}
		term(t, n, postings)
		for _, c := range group {
			c.term++
			if c.load(segs) {
				h.push(c)
			} else if c.run != nil && c.run.err != nil {
				return c.run.err
			}
		}
	}
	return nil
}

// cursor is a segment's position in the merge: its term-th term, found
// in memory, or read from its spilled run.
type cursor struct {
	seg  int
	term int
	cur  string     // the current term of a segment in memory
	run  *runReader // a spilled segment's reader, at the current term
}

// load moves the cursor to its term-th term; false past the last one or
// on a failed read (run.err).
func (c *cursor) load(segs []Segment) bool {
	if c.run != nil {
		return c.run.next()
	}
	if c.term >= segs[c.seg].terms() {
		return false
	}
	c.cur = segs[c.seg].term(c.term)
	return true
}

// posts are the postings of the cursor's term in its segment.
func (c *cursor) posts(segs []Segment) []artifacts.Posting {
	if c.run != nil {
		return c.run.posts
	}
	return segs[c.seg].posts(c.term)
}

// is reports whether the cursor is at term t.
func (c *cursor) is(t string) bool {
	if c.run != nil {
		return string(c.run.term) == t
	}
	return c.cur == t
}

// compare orders two cursors by current term.
func (c *cursor) compare(d *cursor) int {
	switch {
	case c.run == nil && d.run == nil:
		return strings.Compare(c.cur, d.cur)
	case c.run != nil && d.run != nil:
		return bytes.Compare(c.run.term, d.run.term)
	case c.run != nil:
		return -strings.Compare(d.cur, string(c.run.term))
	default:
		return strings.Compare(c.cur, string(d.run.term))
	}
}

// cursors is a min-heap of segment cursors by current term, then segment,
// so equal terms come out in segment (URI) order. It is written out
// rather than through container/heap: the merge pops and pushes once per
// term of every segment, and the interface's calls were a measurable
// part of it.
type cursors struct {
	segs []Segment
	c    []cursor
}

func (h *cursors) less(i, j int) bool {
	if n := h.c[i].compare(&h.c[j]); n != 0 {
		return n < 0
	}
	return h.c[i].seg < h.c[j].seg
}

func (h *cursors) init() {
	for i := len(h.c)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *cursors) push(c cursor) {
	h.c = append(h.c, c)
	for j := len(h.c) - 1; j > 0; {
		i := (j - 1) / 2
		if !h.less(j, i) {
			break
		}
		h.c[i], h.c[j] = h.c[j], h.c[i]
		j = i
	}
}

func (h *cursors) pop() cursor {
	top := h.c[0]
	last := len(h.c) - 1
	h.c[0] = h.c[last]
	h.c = h.c[:last]
	h.down(0)
	return top
}

func (h *cursors) down(i int) {
	for n := len(h.c); ; {
		l := 2*i + 1
		if l >= n {
			return
		}
		j := l
		if r := l + 1; r < n && h.less(r, l) {
			j = r
		}
		if !h.less(j, i) {
			return
		}
		h.c[i], h.c[j] = h.c[j], h.c[i]
		i = j
	}
}
