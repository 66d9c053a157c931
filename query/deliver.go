package query

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/cairn-kb/cairn/artifacts"
)

// BudgetError says the budget cannot hold even the smallest honest pack;
// it names the least budget that would.
type BudgetError struct {
	Budget, Minimum int
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("--budget %d is too small for even an empty pack with its receipt and notice; use --budget %d or more", e.Budget, e.Minimum)
}

// ExitCode makes a too-small budget exit 2.
func (e *BudgetError) ExitCode() int { return 2 }

// deliver selects what fits the budget, in the requested format, exactly:
// select by a per-item estimate, render, drop the least useful admitted
// items until the real output fits, then add back dropped detail as fits.
func (e *engine) deliver(pins []*scored, ranked []*scored, rejected []RejectedPin) ([]byte, error) {
	base := e.receipt(rejected)
	empty := &Pack{Query: base.Query, Items: []PackItem{}, Receipt: base}
	floorOut := fixTokens(empty, e.req.Format, e.req.Explain)
	if tokens(len(floorOut)) > e.req.Budget {
		return nil, &BudgetError{Budget: e.req.Budget, Minimum: e.minimumBudget(base)}
	}
	itemBudget := e.req.Budget - tokens(len(floorOut))

	// Estimate each candidate's cost by rendering it alone.
	build := func(s *scored) (entry, error) {
		it, err := e.itemOf(s)
		if err != nil {
			return entry{}, err
		}
		pi := packItem(s, it, e.excerpt(s, it), e.req.Explain)
		one := &Pack{Items: []PackItem{pi}}
		cost := tokens(len(render(one, e.req.Format, e.req.Explain))) - tokens(len(render(&Pack{Items: []PackItem{}}, e.req.Format, e.req.Explain)))
		return entry{s, pi, max(cost, 1)}, nil
	}
	var admitted []entry
	used := 0
	pinBudget := itemBudget / pinShareDivisor
	pinUsed := 0
	for _, s := range pins {
		en, err := build(s)
		if err != nil {
			return nil, err
		}
		if pinUsed+en.cost > pinBudget {
			rejected = append(rejected, RejectedPin{URI: s.row.URI, Reason: fmt.Sprintf("needs about %d tokens; pins share at most a third of the item budget (%d)", en.cost, pinBudget)})
			continue
		}
		pinUsed += en.cost
		used += en.cost
		admitted = append(admitted, en)
	}
	// How many items a pack of this budget holds, to diversify it.
	var cands []entry
	k := 0
	room := itemBudget - used
	for _, s := range ranked {
		en, err := build(s)
		if err != nil {
			return nil, err
		}
		cands = append(cands, en)
		if room >= en.cost {
			room -= en.cost
			k++
		}
	}
	order := diversify(scoredOf(cands, func(x entry) *scored { return x.s }), k)
	byS := map[*scored]entry{}
	for _, c := range cands {
		byS[c.s] = c
	}
	var dropped []entry
	for _, s := range order {
		en := byS[s]
		if used+en.cost <= itemBudget && (k >= diversifyFrom && len(admitted)-len(pins) < k || k < diversifyFrom) {
			used += en.cost
			admitted = append(admitted, en)
		} else {
			dropped = append(dropped, en)
		}
	}
	// Display order follows standing, whatever order diversity admitted in.
	rank := map[*scored]int{}
	for i, s := range ranked {
		rank[s] = i
	}
	slices.SortStableFunc(admitted[len(admitted)-countUnpinned(admitted):], func(a, b entry) int { return rank[a.s] - rank[b.s] })
	reasonOf := func(en entry) string {
		if used+en.cost > itemBudget {
			return "budget"
		}
		return "diversity"
	}
	pack := func(n int, detail int) *Pack {
		p := &Pack{Query: base.Query, Items: make([]PackItem, 0, n), Receipt: base}
		p.Receipt.RejectedPins = slices.Clone(rejected)
		for _, en := range admitted[:n] {
			p.Items = append(p.Items, en.item)
			p.Receipt.UsedTokens += en.cost
		}
		all := append(slices.Clone(admitted[n:]), dropped...)
		for i, en := range all {
			if i < detail {
				p.Receipt.Dropped = append(p.Receipt.Dropped, Dropped{URI: en.s.row.URI, Reason: reasonOf(en), Score: en.s.score, Tokens: en.cost})
			}
		}
		p.Receipt.DroppedTotal = len(all)
		p.Receipt.Selected = n
		p.Receipt.ConsultedBodies = e.consulted(admitted[:n])
		if n == 0 {
			p.Receipt.Warning = e.warning(len(ranked) > 0 || len(pins) > 0)
		}
		if p.Receipt.RejectedPins == nil {
			p.Receipt.RejectedPins = []RejectedPin{}
		}
		if p.Receipt.Dropped == nil {
			p.Receipt.Dropped = []Dropped{}
		}
		return p
	}
	fits := func(p *Pack) ([]byte, bool) {
		out := fixTokens(p, e.req.Format, e.req.Explain)
		return out, tokens(len(out)) <= e.req.Budget
	}
	n := len(admitted)
	var out []byte
	var ok bool
	for ; n >= 0; n-- {
		if out, ok = fits(pack(n, 0)); ok {
			break
		}
	}
	if !ok {
		return nil, &BudgetError{Budget: e.req.Budget, Minimum: e.minimumBudget(base)}
	}
	// Add back as much dropped detail as fits (binary search on its length).
	total := len(admitted) - n + len(dropped)
	lo, hi := 0, total
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if _, ok := fits(pack(n, mid)); ok {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo > 0 {
		out, _ = fits(pack(n, lo))
	}
	return out, nil
}

func scoredOf[T any](list []T, f func(T) *scored) []*scored {
	out := make([]*scored, len(list))
	for i, x := range list {
		out[i] = f(x)
	}
	return out
}

// minimumBudget is the least budget whose empty pack fits, found where the
// stated budget's own digits are part of the size.
func (e *engine) minimumBudget(base Receipt) int {
	b := 1
	for range 16 {
		r := base
		r.Budget = b
		out := fixTokens(&Pack{Query: base.Query, Items: []PackItem{}, Receipt: r}, e.req.Format, e.req.Explain)
		t := tokens(len(out))
		if t <= b {
			return b
		}
		b = t
	}
	return b
}

// receipt fills everything the receipt knows before selection.
func (e *engine) receipt(rejected []RejectedPin) Receipt {
	cfg := e.c.Config()
	r := Receipt{
		Query:             e.parsed.Text,
		Terms:             nonNil(e.parsed.Terms),
		FilteredTerms:     nonNil(e.parsed.Filtered),
		Window:            e.window,
		AsOf:              dayString(e.req.AsOf),
		Budget:            e.req.Budget,
		Format:            e.req.Format,
		Candidates:        len(e.pool),
		RejectedPins:      rejected,
		RelevanceFloor:    relevanceFloor,
		RecencyModel:      []HalfLife{},
		Index:             IndexState{Path: e.state.Path, State: string(e.state.State), Reason: e.state.Reason},
		InputDigest:       e.inputDigest(),
		Changed:           []string{},
		RankingVersion:    artifacts.RankingVersion,
		ToolVersion:       e.req.ToolVersion,
		Notice:            Notice,
		ConsultedBodies:   []string{},
		TruncatedEntities: nonNil(e.truncated),
	}
	if len(e.parsed.Terms) == 0 {
		r.Index.State = "query-too-short"
		r.Index.Reason = "the query has no terms left after normalisation"
	}
	for _, src := range sortedKeys(cfg.Sources) {
		if hl := cfg.Sources[src].Recency.HalfLifeDays; hl > 0 {
			r.RecencyModel = append(r.RecencyModel, HalfLife{Source: src, HalfLifeDays: hl})
		}
	}
	return r
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// warning says which of the three empty-pack cases happened.
func (e *engine) warning(matched bool) string {
	switch {
	case len(e.parsed.Terms) == 0 && len(e.req.Pins) == 0:
		return "empty pack: the query has no terms left after normalisation (scaffolding words and words under three letters are dropped); ask with the words that matter"
	case e.win.n == 0:
		return fmt.Sprintf("empty pack: no candidates in the window %s..%s; widen it with --since/--until or check --as-of", e.window.Since, e.window.Until)
	case !matched:
		return fmt.Sprintf("empty pack: nothing scored above the relevance floor (%d) among %d candidates; add a more specific term or name an identifier", relevanceFloor, e.win.n)
	}
	return fmt.Sprintf("empty pack: matching items do not fit the budget of %d tokens; raise --budget", e.req.Budget)
}

// entry is a candidate with its delivered form and estimated cost.
type entry struct {
	s    *scored
	item PackItem
	cost int
}

// consulted lists the admitted records whose verified cached body joined
// their ranking.
func (e *engine) consulted(admitted []entry) []string {
	out := []string{}
	for _, en := range admitted {
		if en.s.item != nil && en.s.row.SpanOff >= 0 && hasBody(en.s.row, e.c.Fields()) && e.c.HasBody(en.s.row.URI) {
			out = append(out, en.s.row.URI)
		}
	}
	slices.Sort(out)
	return out
}

// inputDigest hashes every semantic ranking input and nothing else: the
// ranking version, the configuration's semantics, the normalised terms,
// the window, the as-of day, "last", pins, --expand, the window size, each
// term's document frequency, and each matched item's URI and semantic
// digest. Budget and format are not ranking inputs.
func (e *engine) inputDigest() string {
	h := xxhash.New()
	w := func(parts ...string) {
		h.WriteString(strings.Join(parts, "\x1f"))
		h.WriteString("\x1e")
	}
	w("ranking", strconv.Itoa(artifacts.RankingVersion), e.c.SemanticsDigest())
	w(append([]string{"terms"}, e.parsed.Terms...)...)
	w("window", e.window.Since, e.window.Until, dayString(e.req.AsOf), strconv.FormatBool(e.parsed.Last), strconv.FormatBool(e.req.Expand))
	w(append([]string{"pins"}, e.req.Pins...)...)
	w("n", strconv.Itoa(e.win.n))
	for _, t := range e.terms {
		w("df", t.term, strconv.Itoa(t.df))
	}
	rows := make([]artifacts.Doc, len(e.pool))
	for i, s := range e.pool {
		rows[i] = s.row
	}
	slices.SortFunc(rows, func(a, b artifacts.Doc) int { return strings.Compare(a.URI, b.URI) })
	for _, r := range rows {
		w("item", r.URI, r.Digest)
	}
	return artifacts.HashSum(h.Sum64())
}

// countUnpinned counts the admitted entries after the pins.
func countUnpinned(list []entry) int {
	n := 0
	for _, en := range list {
		if !en.s.pinned {
			n++
		}
	}
	return n
}
