package search

import (
	"container/heap"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/question"
	"github.com/cairn-kb/cairn/query/rank"
	"github.com/cairn-kb/cairn/query/render"
	"github.com/cairn-kb/cairn/query/words"
)

// searchCorpus finds every record and page that holds a query term, by
// the postings context ranks from (the term itself, its identifier
// containments, its exact forms and folded variants), scores them with
// context's arithmetic, and keeps, per group, the count, a digest of what
// matched and the best items a page can reach. No relevance floor
// applies: a search is exhaustive. Received and private records stay out
// as they stay out of a pack, and are counted.
func (s *searcher) searchCorpus(c corpus.Corpus, state corpus.Index) error {
	s.index, s.held = state, 0
	s.groups = map[string]*rankedGroup{}
	s.window = s.parsed.Window
	if s.window.Since == "" && s.window.Until == "" {
		s.window.DerivedFrom = "search: every day of the base"
	}
	if s.layer == c.Config().Layers.Governance {
		return nil
	}
	e := &rank.Ranking{Corpus: c, Words: s.req.Words, AsOf: s.req.AsOf, Parsed: s.parsed, Window: s.window}
	var err error
	if e.Win, err = searchWindow(c, s.window, s.layer); err != nil {
		return err
	}
	if err := e.LookupTerms(); err != nil {
		return err
	}
	if s.req.Count {
		return s.countCorpus(e)
	}
	if err := e.Score(); err != nil {
		return err
	}
	if err := s.readForFilters(e); err != nil {
		return err
	}
	nextAction := rank.FieldOrdinal(c.Fields(), "next_action")
	type ranked struct {
		s      *rank.Scored
		packed uint64
	}
	before := func(a, b ranked) bool {
		if a.packed != b.packed {
			return a.packed > b.packed
		}
		return a.s.Key.Chrono < b.s.Key.Chrono
	}
	reach := s.reach()
	tops := map[string]*topK[ranked]{GroupRecords: newTopK(reach, before), GroupPages: newTopK(reach, before)}
	digests := map[string]*xxhash.Digest{GroupRecords: xxhash.New(), GroupPages: xxhash.New()}
	counts := map[string]int{}
	var digest [8]byte
	for _, sc := range e.Pool { // in ordinal order, which is URI order
		ok, err := s.passes(e, sc)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if e.Excluded(sc) {
			s.held++
			continue
		}
		g := GroupRecords
		if rank.IsPage(sc.Key) {
			g = GroupPages
		}
		counts[g]++
		binary.BigEndian.PutUint64(digest[:], sc.Key.Digest)
		digests[g].Write(digest[:])
		tops[g].offer(ranked{sc, e.Standing(sc, nextAction)})
	}
	for _, g := range []string{GroupRecords, GroupPages} {
		rg := &rankedGroup{count: counts[g], state: digests[g].Sum64()}
		for _, r := range tops[g].sorted() {
			sc := r.s
			rg.top = append(rg.top, func() (searchItem, error) { return s.corpusItem(e, sc) })
		}
		s.groups[g] = rg
	}
	return nil
}

// countChunk is how many keys a count reads at a time.
const countChunk = 1024

// countCorpus counts the records and pages the query's terms match, as
// searchCorpus lists them, without scoring them: it reads their keys a
// chunk at a time, so that counting a common word holds its postings and
// one chunk of keys, never a scored item per match.
func (s *searcher) countCorpus(e *rank.Ranking) error {
	var ords []int
	for _, st := range e.Terms {
		for _, h := range st.Hits {
			ords = append(ords, int(h.Ord))
		}
	}
	uriOrds := map[int]bool{} // items a term names by their complete URI
	for _, t := range s.parsed.Terms {
		ord, ok, err := e.URITerm(t)
		if err != nil {
			return err
		}
		if ok && e.Win.Has(ord) {
			ords = append(ords, ord)
			uriOrds[ord] = true
		}
	}
	slices.Sort(ords)
	ords = slices.Compact(ords)
	counts := map[string]int{}
	for start := 0; start < len(ords); start += countChunk {
		chunk := ords[start:min(start+countChunk, len(ords))]
		keys, err := e.Corpus.Keys(chunk)
		if err != nil {
			return err
		}
		for i, ord := range chunk {
			sc := &rank.Scored{Ord: ord, Key: &keys[i], Count: 1}
			ok, err := s.passes(e, sc)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if sc.Key.Flags&(artifacts.KeyReceived|artifacts.KeyPrivate) != 0 {
				// Only a record held back by policy needs to know whether a
				// term names it itself, which recovers it as a pack does.
				sc.Identity = uriOrds[ord]
				for _, st := range e.Terms {
					if _, hit := st.Hit(ord); hit && !sc.Identity {
						if sc.Identity, err = e.TermNamesItself(sc, st); err != nil {
							return err
						}
					}
				}
				if e.Excluded(sc) {
					s.held++
					continue
				}
			}
			g := GroupRecords
			if rank.IsPage(sc.Key) {
				g = GroupPages
			}
			counts[g]++
		}
	}
	for _, g := range []string{GroupRecords, GroupPages} {
		s.groups[g] = &rankedGroup{count: counts[g]}
	}
	return nil
}

// reach is how many of a group's best items a page can show: the page
// size, past the offset a cursor asks for.
func (s *searcher) reach() int {
	if s.req.Count {
		return 0
	}
	if c, err := parseCursor(s.req.Cursor); err == nil {
		return c.offset + s.req.Limit
	}
	return s.req.Limit
}

// readForFilters reads, in one pass, the rows a --source filter compares.
func (s *searcher) readForFilters(e *rank.Ranking) error {
	if len(s.req.Sources) == 0 {
		return nil
	}
	ords := make([]int, len(e.Pool))
	for i, sc := range e.Pool {
		ords[i] = sc.Ord
	}
	rows, err := e.Corpus.Rows(ords)
	if err != nil {
		return err
	}
	for i, sc := range e.Pool {
		if sc.Row == nil {
			sc.Row = &rows[i]
		}
	}
	return nil
}

// passes reports whether a matched item passes --source and --where.
func (s *searcher) passes(e *rank.Ranking, sc *rank.Scored) (bool, error) {
	if len(s.req.Sources) > 0 {
		row, err := e.RowOf(sc)
		if err != nil {
			return false, err
		}
		if !slices.Contains(s.req.Sources, row.Source) {
			return false, nil
		}
	}
	if len(s.wheres) == 0 {
		return true, nil
	}
	it, err := e.ItemOf(sc)
	if err != nil {
		return false, err
	}
	for _, w := range s.wheres {
		f, ok := it.Field(w.field)
		if !ok || !slices.Contains(f.Values, w.value) {
			return false, nil
		}
	}
	return true, nil
}

// corpusItem renders one shown record or page as a pack renders its
// items, with every stored value made inert and capped.
func (s *searcher) corpusItem(e *rank.Ranking, sc *rank.Scored) (searchItem, error) {
	if _, err := e.RowOf(sc); err != nil {
		return nil, err
	}
	it, err := e.ItemOf(sc)
	if err != nil {
		return nil, err
	}
	p := render.ItemOf(sc, it, e.Excerpt(sc, it), nil)
	p.Title, p.Excerpt = render.Inert(p.Title), render.Inert(p.Excerpt)
	for i := range p.Fields {
		for j := range p.Fields[i].Values {
			p.Fields[i].Values[j] = render.Inert(p.Fields[i].Values[j])
		}
	}
	return &searchHit{p}, nil
}

// searchHit is a record or page of an answer.
type searchHit struct{ render.Item }

func (h *searchHit) text() string { return render.ItemText(h.Item, false) }

// searchWindow is the candidate window of a search: the dated layers'
// items between the bounds (every day when there are none), and every
// undated item, pages outside their validity included: a search leaves
// nothing out that holds a term. With a layer, that layer only.
func searchWindow(c corpus.Corpus, w question.Window, layer string) (*words.Window, error) {
	cfg := c.Config()
	cand := &words.Window{}
	for _, l := range []string{cfg.Layers.Events, cfg.Layers.Tasks, cfg.Layers.Index, cfg.Layers.Wiki, cfg.Layers.Projects} {
		if layer != "" && l != layer {
			continue
		}
		since, until := w.Since, w.Until
		if l != cfg.Layers.Events && l != cfg.Layers.Tasks {
			since, until = "", ""
		}
		sp, err := words.LayerSpan(c, l, since, until)
		if err != nil {
			return nil, err
		}
		cand.Spans = append(cand.Spans, sp)
		cand.N += sp.Hi - sp.Lo
	}
	return cand, nil
}

// where is one --where FIELD=VALUE.
type where struct{ field, value string }

func parseWheres(args []string) ([]where, error) {
	var out []where
	for _, a := range args {
		f, v, ok := strings.Cut(a, "=")
		if !ok || f == "" {
			return nil, &corpus.UsageError{Msg: fmt.Sprintf("--where %q: write FIELD=VALUE, such as --where status=open", a)}
		}
		out = append(out, where{f, v})
	}
	return out, nil
}

// topK keeps the k best of what it is offered, in a heap whose root is
// the worst kept, so that a group of any size costs k items of memory.
type topK[T any] struct {
	k      int
	before func(a, b T) bool // a ranks before b
	h      []T
}

func newTopK[T any](k int, before func(a, b T) bool) *topK[T] {
	return &topK[T]{k: k, before: before}
}

func (t *topK[T]) Len() int           { return len(t.h) }
func (t *topK[T]) Less(i, j int) bool { return t.before(t.h[j], t.h[i]) } // the worst at the root
func (t *topK[T]) Swap(i, j int)      { t.h[i], t.h[j] = t.h[j], t.h[i] }
func (t *topK[T]) Push(x any)         { t.h = append(t.h, x.(T)) }
func (t *topK[T]) Pop() any {
	v := t.h[len(t.h)-1]
	t.h = t.h[:len(t.h)-1]
	return v
}

// offer keeps v if it is among the k best so far.
func (t *topK[T]) offer(v T) {
	switch {
	case t.k <= 0:
	case len(t.h) < t.k:
		heap.Push(t, v)
	case t.before(v, t.h[0]):
		t.h[0] = v
		heap.Fix(t, 0)
	}
}

// sorted is what is kept, best first.
func (t *topK[T]) sorted() []T {
	out := slices.Clone(t.h)
	slices.SortFunc(out, func(a, b T) int {
		switch {
		case t.before(a, b):
			return -1
		case t.before(b, a):
			return 1
		}
		return 0
	})
	return out
}
