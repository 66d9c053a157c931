package index

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/project"
)

// chunksPerCore splits the items finely enough that cores stay busy when
// chunks differ in size.
const chunksPerCore = 4

// segment is the inverted index of a run of consecutive items: its terms,
// sorted, and each term's postings in item order.
type segment struct {
	terms []string
	posts [][]artifacts.Posting
}

// invert builds the sorted dictionary with its postings. Items are cut
// into runs of consecutive ordinals, each run is inverted on its own core,
// and the runs' sorted dictionaries are merged; since runs are in ordinal
// order, concatenating a term's postings run by run keeps them sorted.
func invert(ctx context.Context, items []project.Item, ordinal map[string]int) ([]artifacts.TermPostings, error) {
	n := max(1, min(len(items), runtime.GOMAXPROCS(0)*chunksPerCore))
	segs := make([]segment, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for c := range next {
				lo, hi := c*len(items)/n, (c+1)*len(items)/n
				segs[c] = invertRun(items[lo:hi], lo, ordinal)
			}
		})
	}
	for c := range n {
		if ctx.Err() != nil {
			break
		}
		next <- c
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return merge(segs), nil
}

// invertRun inverts items whose first ordinal is base, in two counting
// passes so that no postings list ever grows by appending: the first
// numbers each distinct term and counts its postings, the second writes
// every posting into its term's slot of one flat array.
func invertRun(items []project.Item, base int, ordinal map[string]int) segment {
	total := 0
	for i := range items {
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
		doc := int32(base + i)
		for _, f := range items[i].Fields {
			fo := uint16(ordinal[f.Name])
			for _, t := range f.Terms {
				id := seq[k]
				k++
				flat[next[id]] = artifacts.Posting{Doc: doc, Field: fo, TF: uint16(min(t.N, artifacts.MaxTF))}
				next[id]++
			}
		}
	}
	order := make([]int32, len(terms))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(terms[a], terms[b]) })
	seg := segment{terms: make([]string, len(order)), posts: make([][]artifacts.Posting, len(order))}
	for i, id := range order {
		end := next[id] // after the second pass, next[id] is the end of its slot
		seg.terms[i] = terms[id]
		seg.posts[i] = flat[end-counts[id] : end]
	}
	return seg
}

// merge joins the segments' sorted dictionaries into one, term by term.
// A term held by several segments gets their postings concatenated in
// segment order, into one flat array shared by every term.
func merge(segs []segment) []artifacts.TermPostings {
	total, entries := 0, 0
	for _, s := range segs {
		entries += len(s.terms)
		for _, p := range s.posts {
			total += len(p)
		}
	}
	flat := make([]artifacts.Posting, 0, total)
	out := make([]artifacts.TermPostings, 0, entries)
	heads := make([]int, len(segs))
	for {
		// The smallest head term across segments; k is small, so a linear
		// scan beats a heap.
		min := ""
		found := false
		for s, h := range heads {
			if h < len(segs[s].terms) && (!found || segs[s].terms[h] < min) {
				min, found = segs[s].terms[h], true
			}
		}
		if !found {
			return out
		}
		start := len(flat)
		for s, h := range heads {
			if h < len(segs[s].terms) && segs[s].terms[h] == min {
				flat = append(flat, segs[s].posts[h]...)
				heads[s]++
			}
		}
		out = append(out, artifacts.TermPostings{Term: min, Postings: flat[start:len(flat):len(flat)]})
	}
}
