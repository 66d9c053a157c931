package pack

import (
	"cmp"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/rank"
	"github.com/cairn-kb/cairn/query/words"
	"github.com/cairn-kb/cairn/stages/load"
	"github.com/cairn-kb/cairn/stages/project"
)

// Selection and expansion limits.
const (
	// expandSeeds is how many of the strongest candidates --expand follows.
	expandSeeds = 10
	// hubInbound bounds the inbound edges followed from one entity.
	hubInbound = 200
	// maxSeedEntities is the largest outgoing neighbourhood a seed may have;
	// a seed with more is not expanded at all (it fails closed).
	maxSeedEntities = 64
	// sourceCapPercent is the largest share of a pack one source may take.
	sourceCapPercent = 40
	// diversifyFrom is the pack size from which the source cap applies.
	diversifyFrom = 5
	// pageShareEvery reserves one slot in this many for matching pages.
	pageShareEvery = 5
	// pinShareDivisor: pins together take at most 1/3 of the item budget.
	pinShareDivisor = 3
)

// pins resolves --pin URIs: each must be an existing wiki or project page.
func (e *engine) pins() ([]*rank.Scored, []RejectedPin, error) {
	var pins []*rank.Scored
	var rejected []RejectedPin
	cfg := e.Corpus.Config()
	for _, uri := range e.req.Pins {
		if !strings.HasPrefix(uri, cfg.Layers.Wiki+"/") && !strings.HasPrefix(uri, cfg.Layers.Projects+"/") {
			rejected = append(rejected, RejectedPin{URI: uri, Reason: "only wiki and project pages can be pinned"})
			continue
		}
		ord, err := e.Corpus.Search(uri)
		if err != nil {
			return nil, nil, err
		}
		if ord >= e.Corpus.Len() {
			rejected = append(rejected, RejectedPin{URI: uri, Reason: "no such page"})
			continue
		}
		s := e.find(ord)
		fresh := s == nil
		if fresh {
			if s, err = e.NewScored(ord); err != nil {
				return nil, nil, err
			}
		}
		row, err := e.RowOf(s)
		if err != nil {
			return nil, nil, err
		}
		if row.URI != uri {
			rejected = append(rejected, RejectedPin{URI: uri, Reason: "no such page"})
			continue
		}
		if slices.ContainsFunc(pins, func(s *rank.Scored) bool { return s.Ord == ord }) {
			continue
		}
		if fresh {
			e.Pool = append(e.Pool, s)
		}
		s.Pinned = true
		s.MoreOf().Later = append(s.MoreOf().Later, rank.Reason{Code: "pin", Points: 0, Detail: "requested with --pin"})
		pins = append(pins, s)
	}
	return pins, rejected, nil
}

func (e *engine) find(ord int) *rank.Scored {
	for _, s := range e.Pool {
		if s.Ord == ord {
			return s
		}
	}
	return nil
}

// personPrefix starts the URI of a person entity.
const personPrefix = "person:"

// corroborate lifts a record that holds one meaningful query term and
// shares an entity with one of the strongest candidates that match
// several: the commit "Mark the proposal approved" (ticket:RFC-9) for
// "when was chunked upload resume approved", whose other words are on
// the design page of RFC-9. The entity stands for the terms the record
// lacks, so
// it counts as matching several (multiTerm) and gains pointsExpand; a
// record matching no query term is never lifted. The entity must be what
// the seed is about: not a person, and not one that most items of the
// window name. Seeds and crowded neighbourhoods are bounded as --expand
// bounds them.
func (e *engine) corroborate() error {
	var weak []*rank.Scored
	for _, s := range e.Pool {
		if s.Matched == 1 && s.Key.Flags&artifacts.KeyRecord != 0 {
			weak = append(weak, s)
		}
	}
	if len(weak) == 0 {
		return nil
	}
	seeds := e.strongest(expandSeeds, func(s *rank.Scored) bool { return s.Matched >= rank.MultiTerm && s.Score >= rank.RelevanceFloor })
	shared := map[int]string{}     // weak records' ordinals: the entity and the seed
	followed := map[string][]int{} // an entity's items in the window; nil for a hub
	for _, seed := range seeds {
		// A person is who did the work, not what it is about.
		uri, entities, err := e.entitiesOf(seed, func(node string) bool { return !strings.HasPrefix(node, personPrefix) })
		if err != nil {
			return err
		}
		if len(entities) > maxSeedEntities {
			continue
		}
		for _, ent := range entities {
			inWindow, done := followed[ent]
			if !done {
				if inWindow, err = e.entityItems(ent); err != nil {
					return err
				}
				followed[ent] = inWindow
			}
			for _, ord := range inWindow {
				if _, done := shared[ord]; !done && ord != seed.Ord {
					shared[ord] = ent + " with " + uri
				}
			}
		}
	}
	for _, s := range weak {
		if why, ok := shared[s.Ord]; ok {
			s.Matched = rank.MultiTerm
			s.Score += rank.PointsExpand
			s.MoreOf().Later = append(s.MoreOf().Later, rank.Reason{Code: "corroborated", Points: rank.PointsExpand, Detail: "holds a query term and shares " + why})
		}
	}
	return nil
}

// entitiesOf gives a seed's URI and the entities its relations name that
// keep accepts.
func (e *engine) entitiesOf(seed *rank.Scored, keep func(node string) bool) (string, []string, error) {
	row, err := e.RowOf(seed)
	if err != nil {
		return "", nil, err
	}
	links, err := e.Corpus.Outgoing(row.URI)
	if err != nil {
		return "", nil, err
	}
	var entities []string
	for _, l := range links {
		if strings.HasPrefix(l.Kind, artifacts.EdgeRelPrefix) && isEntity(l.Node) && keep(l.Node) {
			entities = append(entities, l.Node)
		}
	}
	return row.URI, entities, nil
}

// entityItems lists the window's items that relate to ent, or nil when
// ent is a hub: more than hubInbound items name it, or so many of the
// window's that it is not meaningful, as a term in most items is not.
func (e *engine) entityItems(ent string) ([]int, error) {
	in, err := e.Corpus.Incoming(ent, hubInbound+1)
	if err != nil || len(in) > hubInbound {
		return nil, err
	}
	var inWindow []int
	for _, l := range in {
		if ord, ok := itemRef(l.Node); ok && e.Win.Has(ord) {
			inWindow = append(inWindow, ord)
		}
	}
	if !words.Meaningful(e.Win.N, len(inWindow)) {
		return nil, nil
	}
	return inWindow, nil
}

// strongest gives, in ranking order, the first k items of the pool that
// keep holds, without ordering the whole pool.
func (e *engine) strongest(k int, keep func(*rank.Scored) bool) []*rank.Scored {
	nextAction := rank.FieldOrdinal(e.Corpus.Fields(), "next_action")
	var top []ranked // in order, at most k
	for _, s := range e.Pool {
		if !keep(s) {
			continue
		}
		c := e.rank(s, nextAction)
		if len(top) == k && compareRanked(c, top[k-1]) >= 0 {
			continue
		}
		i, _ := slices.BinarySearchFunc(top, c, compareRanked)
		top = slices.Insert(top, i, c)
		if len(top) > k {
			top = top[:k]
		}
	}
	out := make([]*rank.Scored, len(top))
	for i, c := range top {
		out[i] = c.s
	}
	return out
}

// expand gives the join bonus to matched items that share an entity with
// one of the strongest candidates.
func (e *engine) expand() error {
	seeds := e.strongest(expandSeeds, func(s *rank.Scored) bool { return s.Score >= rank.RelevanceFloor })
	joined := map[int]bool{}
	var hubs, closed []string
	seen := map[string]bool{}
	for _, seed := range seeds {
		uri, entities, err := e.entitiesOf(seed, func(string) bool { return true })
		if err != nil {
			return err
		}
		if len(entities) > maxSeedEntities {
			closed = append(closed, uri)
			continue
		}
		for _, ent := range entities {
			if seen[ent] {
				continue
			}
			seen[ent] = true
			in, err := e.Corpus.Incoming(ent, 0)
			if err != nil {
				return err
			}
			followed := 0
			for _, l := range in {
				ord, ok := itemRef(l.Node)
				if !ok || !e.Win.Has(ord) {
					continue
				}
				if followed == hubInbound {
					hubs = append(hubs, ent)
					break
				}
				followed++
				if ord != seed.Ord {
					joined[ord] = true
				}
			}
		}
	}
	for _, s := range e.Pool {
		if joined[s.Ord] && s.Score > 0 && !s.Related {
			s.Related = true
			s.Score += rank.PointsExpand
			s.MoreOf().Later = append(s.MoreOf().Later, rank.Reason{Code: "expand", Points: rank.PointsExpand, Detail: "shares an entity with a top candidate"})
		}
	}
	slices.Sort(hubs)
	slices.Sort(closed)
	e.truncated, e.closedSeeds = hubs, closed
	return nil
}

// isEntity reports whether a relation value is an entity URI (not a URL
// or a path), the only kind of node expansion follows.
func isEntity(v string) bool {
	return load.IsEntityURI(v) && !strings.HasPrefix(v, "http:") && !strings.HasPrefix(v, "https:")
}

// itemRef decodes edges.dst.tsv's #<ordinal>.
func itemRef(node string) (int, bool) {
	v, ok := artifacts.ParseItemRef(node)
	return int(v), ok
}

// order sorts the pool by standing. Normally: direct identity, two or
// more meaningful matched terms before one (multiTerm), related identity,
// score, authored pages before collected records, newest, URI. With "last": dated evidence first, then
// direct and related identity, the strongest matching field, newest, URI.
// A single-term exact identity query puts an active project with a
// next_action first. The keys are computed once per item, not on each of
// the sort's n·log n comparisons.
func (e *engine) order() {
	nextAction := rank.FieldOrdinal(e.Corpus.Fields(), "next_action")
	list := make([]ranked, len(e.Pool))
	for i, s := range e.Pool {
		list[i] = e.rank(s, nextAction)
	}
	// The last key, URI order, is unique: no stable sort is needed.
	slices.SortFunc(list, compareRanked)
	for i := range list {
		e.Pool[i] = list[i].s
	}
}

// ranked is an item with the keys order sorts it by.
type ranked struct {
	s      *rank.Scored
	packed uint64 // larger first
	chrono uint32 // then newest first, URI breaking ties
}

func (e *engine) rank(s *rank.Scored, nextAction int) ranked {
	return ranked{s, e.Standing(s, nextAction), s.Key.Chrono}
}

// compareRanked is order's comparison: negative when a comes first.
func compareRanked(a, b ranked) int {
	if a.packed != b.packed {
		return cmp.Compare(b.packed, a.packed)
	}
	return cmp.Compare(a.chrono, b.chrono)
}

// admissible keeps the pool's unpinned items above the floor whose policy
// role is not excluded and, in a delta pack, that are new or changed, in
// order, and counts those below the floor.
func (e *engine) admissible() []*rank.Scored {
	var out []*rank.Scored
	for _, s := range e.Pool {
		if s.Pinned {
			continue
		}
		if s.Score < rank.RelevanceFloor {
			e.floorOut++
			continue
		}
		if e.Excluded(s) {
			e.policyOut++
			continue
		}
		if e.delta.unchanged(s) {
			e.delta.sameOut++
			continue
		}
		out = append(out, s)
	}
	return out
}

// collapse folds identical non-empty title+source runs into their newest
// member, and representations of one external URL from different sources
// into the best covered one; each survivor counts what it stands for.
func (e *engine) collapse(ranked []*rank.Scored) []*rank.Scored {
	return e.collapseURLs(collapseTitles(ranked))
}

// collapseTitles folds each run of items of one title group into its
// newest member, which shows where the group's best-ranked member did.
func collapseTitles(ranked []*rank.Scored) []*rank.Scored {
	// Group the titled items by their title group (the first ordinal of
	// their source and title) with a sort rather than a map: a query
	// ranks thousands. Within a group the order is the ranked one, so a
	// group's first member marks where it shows.
	// Each titled item is its group and rank in one word, so the sort is
	// of plain integers.
	titled := make([]uint64, 0, len(ranked))
	for i, s := range ranked {
		if s.Key.TitleGroup >= 0 {
			titled = append(titled, uint64(s.Key.TitleGroup)<<32|uint64(i))
		}
	}
	slices.Sort(titled)
	position := func(k uint64) int { return int(uint32(k)) }
	shown := make([]*rank.Scored, len(ranked)) // by rank: what shows there
	for g := 0; g < len(titled); {
		end := g + 1
		for end < len(titled) && titled[end]>>32 == titled[g]>>32 {
			end++
		}
		rep := ranked[position(titled[g])]
		for _, k := range titled[g+1 : end] {
			if rank.CompareChrono(ranked[position(k)].Key, rep.Key) < 0 {
				rep = ranked[position(k)]
			}
		}
		rep.Count = end - g
		shown[position(titled[g])] = rep
		g = end
	}
	var out []*rank.Scored
	for i, s := range ranked {
		switch {
		case s.Key.TitleGroup < 0:
			out = append(out, s)
		case shown[i] != nil:
			out = append(out, shown[i])
		}
	}
	return out
}

// collapseURLs folds the representations of one external URL, when they
// come from more than one source, into the best covered: the most terms
// matched, then a body, then the most fields with words, then rank.
func (e *engine) collapseURLs(out []*rank.Scored) []*rank.Scored {
	byURL := map[int32][]*rank.Scored{}
	for _, s := range out {
		if s.Key.URLGroup >= 0 {
			byURL[s.Key.URLGroup] = append(byURL[s.Key.URLGroup], s)
		}
	}
	body := rank.FieldOrdinal(e.Corpus.Fields(), project.FieldBody)
	var final []*rank.Scored
	kept := map[int32]*rank.Scored{}
	for _, s := range out {
		g := byURL[s.Key.URLGroup]
		if s.Key.URLGroup < 0 || len(g) == 1 || !manySources(g) {
			final = append(final, s)
			continue
		}
		if _, ok := kept[s.Key.URLGroup]; ok {
			continue
		}
		best := slices.MaxFunc(g, func(a, b *rank.Scored) int {
			return cmp.Or(cmp.Compare(a.Matched, b.Matched),
				cmp.Compare(b2int(hasBody(a.Key, body)), b2int(hasBody(b.Key, body))),
				cmp.Compare(rank.FieldsWithWords(a.Key), rank.FieldsWithWords(b.Key)),
				cmp.Compare(rankOf(out, b), rankOf(out, a)))
		})
		for _, o := range g {
			if o != best {
				best.Count += o.Count
			}
		}
		kept[s.Key.URLGroup] = best
		final = append(final, best)
	}
	return final
}

func manySources(g []*rank.Scored) bool {
	for _, s := range g[1:] {
		if s.Key.Source != g[0].Key.Source {
			return true
		}
	}
	return false
}

// hasBody reports whether a record has words in its body field (an
// ordinal, or -1 when the base has none).
func hasBody(key *artifacts.Key, body int) bool {
	return rank.HasWords(key, body) && key.Flags&artifacts.KeyRecord != 0
}

func rankOf(list []*rank.Scored, s *rank.Scored) int { return slices.Index(list, s) }

func b2int(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Why a candidate above the floor is left out of a pack (receipt.dropped's
// reason).
const (
	// reasonBudget: it does not fit what the budget leaves.
	reasonBudget = "budget"
	// reasonSourceCap: its source already holds its share of the pack.
	reasonSourceCap = "source_cap"
	// reasonPageShare: the slots left are kept for matching pages.
	reasonPageShare = "page_share"
)

// sourceCap holds the diversity rules while a pack is filled: in a pack
// large enough to diversify, one source takes at most sourceCapPercent of
// the items, and matching pages keep one slot in pageShareEvery.
//
// A source is what an item's source= says: a record's source name
// (git-commits, tickets), and for a page its layer, so that all wiki
// pages are one source and project pages another. The seed's intent is
// that curated pages stay visible beside noisy streams without crowding
// them out; a layer is one curated stream, as a record source is one
// collected stream.
//
// The pack's size is not known until it is filled, so the rules are
// taken against the larger of size (how many candidates the budget holds
// in rank order, by estimate) and the pack with the next item in it. Pins
// are asked for by name and count in neither rule. When the other sources
// run out before the pack reaches size, the cap cannot be met: capWalk
// then fills the pack from the held-back candidates in rank order rather
// than leave it small, and what stays out is named source_cap.
type sourceCap struct {
	on        bool  // size is at least diversifyFrom
	size      int   // candidates the budget holds in rank order
	pages     int   // matching pages among the candidates
	perSource []int // admitted unpinned items, by source rank
	n         int   // admitted unpinned items
	pagesIn   int   // admitted unpinned pages
}

func newSourceCap(ranked []*rank.Scored, size int) *sourceCap {
	c := &sourceCap{on: size >= diversifyFrom, size: size}
	for _, s := range ranked {
		if rank.IsPage(s.Key) {
			c.pages++
		}
	}
	return c
}

// capFor is the most items one source may hold in a pack of m items.
func capFor(m int) int { return max(1, m*sourceCapPercent/100) }

// check says why s may not join the pack as it stands ("" when it may):
// its source is full, or the slots left are the pages' share.
func (c *sourceCap) check(s *rank.Scored) string {
	if !c.on {
		return ""
	}
	m := max(c.size, c.n+1)
	if c.held(s.Key.Source)+1 > capFor(m) {
		return reasonSourceCap
	}
	reserve := min((m+pageShareEvery-1)/pageShareEvery, c.pages)
	if !rank.IsPage(s.Key) && c.n+1+max(0, reserve-c.pagesIn) > m {
		return reasonPageShare
	}
	return ""
}

// held is how many admitted unpinned items come from the source of rank src.
func (c *sourceCap) held(src uint32) int {
	if int(src) < len(c.perSource) {
		return c.perSource[src]
	}
	return 0
}

// add counts s in the pack.
func (c *sourceCap) add(s *rank.Scored) { c.move(s, 1) }

// remove takes s out of the count again (the real output did not fit it).
func (c *sourceCap) remove(s *rank.Scored) { c.move(s, -1) }

func (c *sourceCap) move(s *rank.Scored, d int) {
	for int(s.Key.Source) >= len(c.perSource) {
		c.perSource = append(c.perSource, 0)
	}
	c.perSource[s.Key.Source] += d
	c.n += d
	if rank.IsPage(s.Key) {
		c.pagesIn += d
	}
}
