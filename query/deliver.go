package query

import (
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/project"
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
	emptyLen := len(render(nil, &Pack{Items: []PackItem{}}, e.req.Format, e.req.Explain))
	// renderItem renders a candidate to estimate what it adds to a pack:
	// the tokens of a pack holding it alone, less those of the empty pack.
	e.excerptWeights()
	renderItem := func(s *scored) (*entry, error) {
		it, err := e.itemOf(s)
		if err != nil {
			return nil, err
		}
		var reasons []Reason
		if e.req.Explain {
			if reasons, err = e.reasons(s); err != nil {
				return nil, err
			}
		}
		pi := packItem(s, it, e.excerpt(s, it), reasons)
		cost := tokens(emptyLen+pi.addedBytes(e.req.Format, e.req.Explain)) - tokens(emptyLen)
		return &entry{s: s, item: pi, cost: max(cost, 1), built: true}, nil
	}
	build := func(s *scored) (*entry, error) {
		if en, ok := e.built[s]; ok {
			return en, nil
		}
		en, err := renderItem(s)
		if err != nil {
			return nil, err
		}
		if e.built == nil {
			e.built = map[*scored]*entry{}
		}
		e.built[s] = en
		return en, nil
	}
	// A candidate that cannot be shown gets a cost from its row alone, so
	// the long tail is never read in full.
	rough := func(s *scored) (*entry, error) {
		row, err := e.rowOf(s)
		if err != nil {
			return nil, err
		}
		return &entry{s: s, cost: tokens(len(row.URI) + len(row.Title) + len(row.Source) + roughItemBytes)}, nil
	}
	// dropped keeps the first maxDroppedDetail candidates left out, the
	// most a receipt names; droppedAll counts them all.
	var admitted, dropped []*entry
	droppedAll := 0
	drop := func(en *entry) {
		droppedAll++
		if len(dropped) < maxDroppedDetail {
			dropped = append(dropped, en)
		}
	}
	dropAll := 0 // the smallest pack drops everything; only the count shows
	// assemble makes the pack of the first n admitted entries, naming the
	// first detail entries of what is dropped.
	assemble := func(n, detail int) *Pack {
		p := &Pack{Query: base.Query, Items: make([]PackItem, 0, n), Receipt: base}
		p.Receipt.RejectedPins = append([]RejectedPin{}, rejected...)
		for _, en := range admitted[:n] {
			p.Items = append(p.Items, en.item)
			p.Receipt.UsedTokens += en.cost
		}
		rest := admitted[n:]
		p.Receipt.Dropped = make([]Dropped, 0, detail)
		for i := 0; i < detail && i < len(rest)+len(dropped); i++ {
			var en *entry
			if i < len(rest) {
				en = rest[i]
			} else {
				en = dropped[i-len(rest)]
			}
			p.Receipt.Dropped = append(p.Receipt.Dropped, Dropped{URI: en.s.row.URI, Reason: en.reason, Score: en.s.score, Tokens: en.cost})
		}
		p.Receipt.DroppedTotal = len(rest) + droppedAll + dropAll
		p.Receipt.Selected = n
		p.Receipt.ConsultedBodies = e.consulted(admitted[:n])
		if n == 0 {
			p.Receipt.Warning = e.warning(len(ranked) > 0 || len(pins) > 0)
		}
		return p
	}
	// Fitting measures each candidate pack with the widest receipt.index
	// there can be, so that what fits never depends on whether the index
	// or a scan answered: the two packs stay identical but for that field.
	var scratch []byte // every measured rendering, one after another
	measure := func(p *Pack) int {
		real := p.Receipt.Index
		p.Receipt.Index = widestIndex(real)
		scratch = fixTokens(scratch, p, e.req.Format, e.req.Explain)
		n := tokens(len(scratch))
		p.Receipt.Index = real
		return n
	}
	// The smallest honest pack names no item and no dropped detail, and
	// every pin as rejected for room: a pin's receipt line costs about
	// what a pin that does not fit leaves behind, so the overhead holds it.
	given := rejected
	pinEntries := make([]*entry, len(pins))
	for i, s := range pins {
		en, err := build(s)
		if err != nil {
			return nil, err
		}
		pinEntries[i] = en
		rejected = append(rejected, pinRejection(en))
	}
	dropAll = len(pins) + len(ranked)
	overhead := measure(assemble(0, 0))
	if overhead > e.req.Budget {
		return nil, &BudgetError{Budget: e.req.Budget, Minimum: e.minimumBudget(assemble(0, 0))}
	}
	dropAll, rejected = 0, given
	itemBudget := e.req.Budget - overhead

	used := 0
	pinBudget := itemBudget / pinShareDivisor
	pinUsed := 0
	for _, en := range pinEntries {
		if pinUsed+en.cost > pinBudget {
			rejected = append(rejected, pinRejection(en))
			continue
		}
		pinUsed += en.cost
		used += en.cost
		admitted = append(admitted, en)
	}
	// Build candidates in rank order while they could still fit, and a
	// margin beyond for diversity to draw on; the rest cannot fit.
	k, room := 0, itemBudget-used
	for i, s := range ranked {
		s.standing = i
	}
	for i, s := range ranked {
		if room > 0 || i < k+diversityMargin {
			en, err := build(s)
			if err != nil {
				return nil, err
			}
			if room >= en.cost {
				room -= en.cost
				k++
			} else {
				room = 0
			}
		}
	}
	for _, s := range diversify(ranked, k) {
		built, ok := e.built[s]
		if !ok {
			// Never rendered, so it cannot fit: estimated from its row
			// only if the receipt may name it.
			if len(dropped) < maxDroppedDetail {
				en, err := rough(s)
				if err != nil {
					return nil, err
				}
				en.reason = "budget"
				drop(en)
			} else {
				droppedAll++
			}
			continue
		}
		en := *built // a copy: its reason is this call's
		enp := &en
		fitsNow := en.built && used+en.cost <= itemBudget
		underCap := k < diversifyFrom || len(admitted)-len(pins) < k
		switch {
		case fitsNow && underCap:
			used += en.cost
			admitted = append(admitted, enp)
		case fitsNow:
			en.reason = "diversity"
			drop(enp)
		default:
			en.reason = "budget"
			drop(enp)
		}
	}
	// Display order follows standing, whatever order diversity admitted in.
	tail := admitted[len(admitted)-countUnpinned(admitted):]
	slices.SortStableFunc(tail, func(a, b *entry) int { return a.s.standing - b.s.standing })
	for i, en := range admitted {
		c := *en
		c.reason = "budget" // if the real output cannot hold it
		admitted[i] = &c
	}

	n := len(admitted)
	for n > 0 && measure(assemble(n, 0)) > e.req.Budget {
		n--
	}
	if n == 0 && measure(assemble(0, 0)) > e.req.Budget {
		// The overhead above is measured to hold every pack with no item;
		// should it ever not, refuse rather than deliver over budget.
		return nil, &BudgetError{Budget: e.req.Budget, Minimum: e.minimumBudget(assemble(0, 0))}
	}
	// Add back as much dropped detail as fits (binary search on its
	// length), up to maxDroppedDetail entries; dropped_total counts all.
	total := min(maxDroppedDetail, len(admitted)-n+len(dropped))
	lo, hi := 0, total
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if measure(assemble(n, mid)) <= e.req.Budget {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return fixTokens(nil, assemble(n, lo), e.req.Format, e.req.Explain), nil
}

// maxDroppedDetail bounds the dropped items a receipt names one by one.
const maxDroppedDetail = 32

// roughItemBytes is the metadata, excerpt and receipt share assumed for a
// candidate that is not rendered to be measured.
const roughItemBytes = 160

// diversityMargin is how many candidates past the last that fits are
// still rendered, for diversity to draw on.
const diversityMargin = 8

// minimumBudget is the least budget whose smallest honest pack fits,
// found where the stated budget's own digits (and a warning naming it)
// are part of the size.
func (e *engine) minimumBudget(p *Pack) int {
	b := 1
	for range 16 {
		q := *p
		q.Receipt.Budget = b
		q.Receipt.Index = widestIndex(p.Receipt.Index)
		if q.Receipt.Warning != "" {
			q.Receipt.Warning = strings.Replace(q.Receipt.Warning, strconv.Itoa(e.req.Budget), strconv.Itoa(b), 1)
		}
		t := tokens(len(fixTokens(nil, &q, e.req.Format, e.req.Explain)))
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
		Index:             IndexState{Path: e.state.Path, State: string(e.state.State), Reason: indexReason(e.state.Reason)},
		InputDigest:       e.inputDigest(),
		Changed:           []string{},
		RankingVersion:    artifacts.RankingVersion,
		ToolVersion:       e.req.ToolVersion,
		Notice:            Notice,
		ConsultedBodies:   []string{},
		TruncatedEntities: nonNil(e.truncated),
		UnexpandedSeeds:   e.closedSeeds,
	}
	if len(e.parsed.Terms) == 0 {
		r.Index.State = "query-too-short"
		r.Index.Reason = "the query has no terms left after normalisation"
	}
	for _, src := range slices.Sorted(maps.Keys(cfg.Sources)) {
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

// warning says which of the three empty-pack cases happened: nothing in
// the window matched the query, matches stayed under the relevance floor,
// or matches above the floor could not fit the budget.
func (e *engine) warning(fitLost bool) string {
	switch {
	case len(e.parsed.Terms) == 0 && len(e.req.Pins) == 0:
		return "empty pack: no candidates, the query has no terms left after normalisation (scaffolding words and words under three letters are dropped); ask with the words that matter"
	case len(e.pool) == 0:
		return fmt.Sprintf("empty pack: no candidates in the window %s..%s match the query (%d items searched); widen it with --since/--until, check --as-of, or use other words", e.window.Since, e.window.Until, e.win.n)
	case !fitLost && e.policyOut > 0:
		return fmt.Sprintf("empty pack: %d items matched; those above the relevance floor (%d) are private or received records, which stay out unless the query names visibility:private, category:received or the record itself", len(e.pool), relevanceFloor)
	case !fitLost:
		return fmt.Sprintf("empty pack: %d items matched but none scored above the relevance floor (%d); add a more specific term or name an identifier", len(e.pool), relevanceFloor)
	}
	return fmt.Sprintf("empty pack: matching items do not fit the budget of %d tokens; raise --budget", e.req.Budget)
}

// entry is a candidate with its delivered form and estimated cost.
type entry struct {
	s      *scored
	item   PackItem
	cost   int
	built  bool   // item holds its rendered form
	reason string // why it is dropped, if it is
}

// consulted lists the admitted records whose verified cached body joined
// their ranking.
func (e *engine) consulted(admitted []*entry) []string {
	out := []string{}
	body := fieldOrdinal(e.c.Fields(), project.FieldBody)
	for _, en := range admitted {
		if en.s.item != nil && hasBody(en.s.key, body) && e.c.HasBody(en.s.row.URI) {
			out = append(out, en.s.row.URI)
		}
	}
	slices.Sort(out)
	return out
}

// inputDigest hashes every semantic ranking input and nothing else: the
// ranking version, the configuration's semantics, the normalised terms,
// the window, the as-of day, "last", pins, --expand, the window size, each
// term's document frequency, and each matched item's semantic digest
// (which covers its URI), in URI order. Budget and format are not ranking inputs.
func (e *engine) inputDigest() string {
	h := xxhash.New()
	w := func(parts ...string) { // the parts joined by US, then RS
		for i, p := range parts {
			if i > 0 {
				h.WriteString("\x1f")
			}
			h.WriteString(p)
		}
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
	pool := slices.Clone(e.pool)
	slices.SortFunc(pool, func(a, b *scored) int { return a.ord - b.ord }) // ordinal order is URI order
	var digest [8]byte
	for _, s := range pool {
		binary.BigEndian.PutUint64(digest[:], s.key.Digest) // it covers the URI
		h.WriteString("item\x1f")
		h.Write(digest[:]) // eight bytes, so no separator is needed
		h.WriteString("\x1e")
	}
	return artifacts.HashSum(h.Sum64())
}

// countUnpinned counts the admitted entries after the pins.
func countUnpinned(list []*entry) int {
	n := 0
	for _, en := range list {
		if !en.s.pinned {
			n++
		}
	}
	return n
}

// pinRejection is the receipt line of a pin that does not fit. It names
// only the pin's own cost, so that its width does not depend on the
// budget and the overhead measured with it holds at every budget.
func pinRejection(en *entry) RejectedPin {
	return RejectedPin{URI: en.s.row.URI, Reason: fmt.Sprintf("needs about %d tokens; pins share at most a third of the item budget", en.cost)}
}

// maxIndexReason bounds receipt.index's reason, in bytes.
const maxIndexReason = 160

// widestIndex is the largest receipt.index a pack can carry for this
// path: the longest state and a reason of maxIndexReason bytes.
func widestIndex(ix IndexState) IndexState {
	return IndexState{Path: ix.Path, State: "query-too-short", Reason: strings.Repeat("x", maxIndexReason)}
}

// indexReason makes a reason safe for the receipt: no characters that
// JSON escapes or that break a text line, at most maxIndexReason bytes.
func indexReason(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '"':
			return '\''
		case r == '\\':
			return '/'
		case r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029:
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
	if len(s) > maxIndexReason {
		i := maxIndexReason
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = s[:i]
	}
	return s
}
