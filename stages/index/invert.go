package index

import (
	"container/heap"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/project"
)

// Segment is the inverted index of a run of items that are consecutive in
// URI order: their docs rows, the fields they use, and their terms, sorted,
// each with postings whose Doc is the item's position in the run and whose
// Field is a position in Fields. Rows' lengths use the same positions.
type Segment struct {
	Rows   []artifacts.Doc
	Fields []string
	terms  []string
	posts  [][]artifacts.Posting
}

// NewSegment inverts items (sorted by URI) in two counting passes, so that
// no postings list ever grows by appending: the first numbers each distinct
// term and counts its postings, the second writes every posting into its
// term's slot of one flat array.
func NewSegment(items []project.Item) Segment {
	var seg Segment
	for i := range items {
		for _, f := range items[i].Fields {
			seg.Fields = append(seg.Fields, f.Name)
		}
	}
	slices.Sort(seg.Fields)
	seg.Fields = slices.Compact(seg.Fields)
	local := make(map[string]uint16, len(seg.Fields))
	for i, f := range seg.Fields {
		local[f] = uint16(i)
	}
	total := 0
	seg.Rows = make([]artifacts.Doc, len(items))
	ordinal := func(name string) int { return int(local[name]) }
	for i := range items {
		seg.Rows[i] = items[i].Row(ordinal)
		for _, f := range items[i].Fields {
			total += len(f.Terms)
		}
	}
	termID := make(map[string]int32, total/4)
	var terms []string
	var counts []int32
	seq := make([]int32, 0, total)
	for i := range items {
		for _, f := range items[i].Fields {
			for _, t := range f.Terms {
				id, ok := termID[t.Term]
				if !ok {
					id = int32(len(terms))
					termID[t.Term] = id
					terms = append(terms, t.Term)
					counts = append(counts, 0)
				}
				counts[id]++
				seq = append(seq, id)
			}
		}
	}
	next := make([]int32, len(terms))
	var sum int32
	for id, c := range counts {
		next[id] = sum
		sum += c
	}
	flat := make([]artifacts.Posting, total)
	k := 0
	for i := range items {
		for _, f := range items[i].Fields {
			fo := local[f.Name]
			for _, t := range f.Terms {
				id := seq[k]
				k++
				flat[next[id]] = artifacts.Posting{Doc: int32(i), Field: fo, TF: uint16(min(t.N, artifacts.MaxTF))}
				next[id]++
			}
		}
	}
	order := make([]int32, len(terms))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(terms[a], terms[b]) })
	seg.terms = make([]string, len(order))
	seg.posts = make([][]artifacts.Posting, len(order))
	for i, id := range order {
		end := next[id] // after the second pass, next[id] is the end of its slot
		seg.terms[i] = terms[id]
		seg.posts[i] = flat[end-counts[id] : end]
	}
	return seg
}

// cursor is a segment's position in the merge.
type cursor struct {
	seg  int
	term int
}

// cursors is a min-heap of segment cursors by current term, then segment,
// so equal terms come out in segment (URI) order.
type cursors struct {
	segs []Segment
	c    []cursor
}

func (h *cursors) Len() int { return len(h.c) }
func (h *cursors) Less(i, j int) bool {
	a, b := h.c[i], h.c[j]
	if ta, tb := h.segs[a.seg].terms[a.term], h.segs[b.seg].terms[b.term]; ta != tb {
		return ta < tb
	}
	return a.seg < b.seg
}
func (h *cursors) Swap(i, j int) { h.c[i], h.c[j] = h.c[j], h.c[i] }
func (h *cursors) Push(x any)    { h.c = append(h.c, x.(cursor)) }
func (h *cursors) Pop() any {
	x := h.c[len(h.c)-1]
	h.c = h.c[:len(h.c)-1]
	return x
}

// merge writes the dictionary and postings of all segments, term by term
// through a heap of segment cursors. A term held by several segments gets
// their postings in segment order, each item moved by its segment's base
// ordinal and each field mapped to its global ordinal, so the merged
// postings stay sorted by item then field.
func merge(segs []Segment, remap [][]uint16) (dict, postings []byte, err error) {
	base := make([]int32, len(segs))
	terms, size := 0, 0
	var at int32
	for i, s := range segs {
		base[i] = at
		at += int32(len(s.Rows))
		terms += len(s.terms)
		for j, p := range s.posts {
			size += len(s.terms[j]) + 2 + 8*len(p)
		}
	}
	w := artifacts.NewPostingsWriter(terms, size)
	h := &cursors{segs: segs}
	for i, s := range segs {
		if len(s.terms) > 0 {
			h.c = append(h.c, cursor{seg: i})
		}
	}
	heap.Init(h)
	for h.Len() > 0 {
		term := segs[h.c[0].seg].terms[h.c[0].term]
		w.Begin(term)
		for h.Len() > 0 {
			c := h.c[0]
			if segs[c.seg].terms[c.term] != term {
				break
			}
			for _, p := range segs[c.seg].posts[c.term] {
				p.Doc += base[c.seg]
				p.Field = remap[c.seg][p.Field]
				w.Add(p)
			}
			if c.term+1 < len(segs[c.seg].terms) {
				h.c[0].term++
				heap.Fix(h, 0)
			} else {
				heap.Pop(h)
			}
		}
		w.End()
	}
	return w.Bytes()
}
