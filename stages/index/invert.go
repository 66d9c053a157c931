package index

import (
	"iter"
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
func NewSegment(items []project.Item) Segment { return NewSegmentWhere(items, nil) }

// NewSegmentWhere is NewSegment keeping the postings of only the terms
// keep accepts (all when keep is nil): a query's scan inverts every item
// of a base but needs the few terms it was asked. keep is asked of every
// occurrence of a term it has not accepted.
func NewSegmentWhere(items []project.Item, keep func(term string) bool) Segment {
	var seg Segment
	// The items of a run mostly share their fields: each name is listed
	// once as it is met, then the list is sorted.
	local := map[string]uint16{}
	total := 0
	for i := range items {
		for _, f := range items[i].Fields {
			if _, ok := local[f.Name]; !ok {
				local[f.Name] = 0
				seg.Fields = append(seg.Fields, f.Name)
			}
			total += len(f.Terms)
		}
	}
	slices.Sort(seg.Fields)
	for i, f := range seg.Fields {
		local[f] = uint16(i)
	}
	// A filtered segment's map holds only the terms it keeps, few of the
	// run's.
	hint := total / 4
	if keep != nil {
		hint = 0
	}
	termID := make(map[string]int32, hint)
	var terms []string
	var counts []int32
	seq := make([]int32, 0, total)
	for i := range items {
		for _, f := range items[i].Fields {
			for _, t := range f.Terms {
				id, ok := termID[t.Term]
				if !ok {
					if keep != nil && !keep(t.Term) {
						seq = append(seq, dropped)
						continue
					}
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
	// The second pass makes each item's row as it writes its postings.
	seg.Rows = make([]artifacts.Doc, len(items))
	ordinal := func(name string) int { return int(local[name]) }
	flat := make([]artifacts.Posting, sum)
	k := 0
	for i := range items {
		seg.Rows[i] = items[i].Row(ordinal)
		for _, f := range items[i].Fields {
			if len(f.Terms) == 0 {
				continue // a scan's items mostly have none
			}
			fo := local[f.Name]
			for _, t := range f.Terms {
				id := seq[k]
				k++
				if id == dropped {
					continue
				}
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

// dropped is the term number of a term NewSegmentWhere does not keep.
const dropped = -1

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

// merge writes the dictionary and postings of all segments as l merges
// them.
func merge(segs []Segment, l *Layout) (dict, postings []byte, err error) {
	terms, size := 0, 0
	for _, s := range segs {
		terms += len(s.terms)
		for j, p := range s.posts {
			size += len(s.terms[j]) + 2 + 8*len(p)
		}
	}
	w := artifacts.NewPostingsWriter(terms, size)
	l.Merge(segs, func(term string, _ int, postings iter.Seq[artifacts.Posting]) {
		w.Begin(term)
		for p := range postings {
			w.Add(p)
		}
		w.End()
	})
	return w.Bytes()
}
