package pack

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-kb/cairn/query/rank"
	"github.com/cairn-kb/cairn/query/render"
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

// maxDroppedDetail bounds the dropped items a receipt names one by one.
const maxDroppedDetail = 32

// roughItemBytes is the metadata, excerpt and receipt share assumed for a
// candidate that is not rendered to be measured.
const roughItemBytes = 160

// fitMisses is how many candidates that turn out not to fit are rendered
// before the rest are left out for the budget unrendered: the room left
// is then too small to be worth reading the long tail for.
const fitMisses = 8

// deliver selects what fits the budget, in the requested format, exactly:
// it reserves the overhead of the smallest honest pack, admits candidates
// by their estimated cost, shrinks the pack until the real output fits,
// then adds back dropped detail as fits. It may be called again on the
// same engine with another budget: renderings are kept in e.built.
func (e *engine) deliver(pins []*rank.Scored, ranked []*rank.Scored, rejected []RejectedPin) ([]byte, error) {
	f, n, err := e.fit(pins, ranked, rejected)
	if err != nil {
		return nil, err
	}
	return f.addDetailBack(n), nil
}

// fit is delivery up to the pack's items: it returns the fitting, whose
// first n admitted entries the real output holds.
func (e *engine) fit(pins []*rank.Scored, ranked []*rank.Scored, rejected []RejectedPin) (*budgetFit, int, error) {
	f := &budgetFit{e: e, pins: pins, ranked: ranked, rejected: rejected, base: e.receipt(rejected)}
	f.emptyLen = len(renderPack(nil, &Answer{Items: []render.Item{}}, e.req.Format, e.req.Explain))
	e.ExcerptWeights()
	pinEntries, itemBudget, err := f.reserveOverhead()
	if err != nil {
		return nil, 0, err
	}
	if err := f.admit(pinEntries, itemBudget); err != nil {
		return nil, 0, err
	}
	n, err := f.shrink()
	if err != nil {
		return nil, 0, err
	}
	return f, n, nil
}

// budgetFit is one delivery in progress: the candidates, what is admitted
// and dropped so far, and the receipt the pack is assembled with.
type budgetFit struct {
	e        *engine
	pins     []*rank.Scored
	ranked   []*rank.Scored
	rejected []RejectedPin // the pins the pack at hand rejects
	base     Receipt       // all the receipt knows before selection
	emptyLen int           // the bytes of the empty pack

	admitted   []*entry
	sources    *sourceCap // the diversity rules, over the unpinned admitted
	capped     []bool     // by source rank: a candidate of it is left out for source_cap
	dropped    []*entry   // the first maxDroppedDetail left out, the most a receipt names
	droppedAll int        // every candidate left out
	dropAll    int        // the smallest pack drops everything; only the count shows
	scratch    []byte     // every measured rendering, one after another
}

// entry is a candidate with its delivered form and estimated cost.
type entry struct {
	s      *rank.Scored
	item   render.Item
	cost   int
	built  bool   // item holds its rendered form
	reason string // why it is dropped, if it is
}

// estimate is a candidate rendered, with what it adds to a pack: the
// tokens of a pack holding it alone, less those of the empty pack. A
// candidate is rendered once per engine, whatever the budget.
func (f *budgetFit) estimate(s *rank.Scored) (*entry, error) {
	e := f.e
	if en, ok := e.built[s]; ok {
		return en, nil
	}
	it, err := e.ItemOf(s)
	if err != nil {
		return nil, err
	}
	var reasons []rank.Reason
	if e.req.Explain {
		if reasons, err = e.Reasons(s); err != nil {
			return nil, err
		}
	}
	pi := render.ItemOf(s, it, e.Excerpt(s, it), reasons)
	cost := tokens(f.emptyLen+pi.AddedBytes(e.req.Format, e.req.Explain)) - tokens(f.emptyLen)
	en := &entry{s: s, item: pi, cost: max(cost, 1), built: true}
	if e.built == nil {
		e.built = map[*rank.Scored]*entry{}
	}
	e.built[s] = en
	return en, nil
}

// roughEstimate is the cost of a candidate that cannot be shown, from its
// row alone, so that the long tail is never read in full.
func (f *budgetFit) roughEstimate(s *rank.Scored) (*entry, error) {
	row, err := f.e.RowOf(s)
	if err != nil {
		return nil, err
	}
	return &entry{s: s, cost: tokens(len(row.URI) + len(row.Title) + len(row.Source) + roughItemBytes)}, nil
}

// drop leaves a candidate out, keeping it for the receipt to name while
// there is room in the list.
func (f *budgetFit) drop(en *entry) {
	f.droppedAll++
	if len(f.dropped) < maxDroppedDetail {
		f.dropped = append(f.dropped, en)
	}
}

// assemble makes the pack of the first n admitted entries, naming the
// first detail entries of what is dropped.
func (f *budgetFit) assemble(n, detail int) *Answer {
	p := &Answer{Query: f.base.Query, Items: make([]render.Item, 0, n), Receipt: f.base}
	p.Receipt.RejectedPins = append([]RejectedPin{}, f.rejected...)
	for _, en := range f.admitted[:n] {
		p.Items = append(p.Items, en.item)
		p.Receipt.UsedTokens += en.cost
	}
	rest := f.admitted[n:]
	p.Receipt.Dropped = make([]Dropped, 0, detail)
	for i := 0; i < detail && i < len(rest)+len(f.dropped); i++ {
		var en *entry
		if i < len(rest) {
			en = rest[i]
		} else {
			en = f.dropped[i-len(rest)]
		}
		p.Receipt.Dropped = append(p.Receipt.Dropped, Dropped{URI: en.s.Row.URI, Reason: en.reason, Score: en.s.Score, Tokens: en.cost})
	}
	p.Receipt.DroppedTotal = len(rest) + f.droppedAll + f.dropAll
	p.Receipt.Selected = n
	p.Receipt.ConsultedBodies = f.e.consulted(f.admitted[:n])
	if n == 0 {
		p.Receipt.Warning = f.e.warning(len(f.ranked) > 0 || len(f.pins) > 0)
	}
	return p
}

// measure is the tokens of a pack, measured with the widest receipt.index
// there can be, so that what fits never depends on whether the index or a
// scan answered: the two packs stay identical but for that field.
func (f *budgetFit) measure(p *Answer) int {
	real := p.Receipt.Index
	p.Receipt.Index = widestIndex(real)
	f.scratch = fixTokens(f.scratch, p, f.e.req.Format, f.e.req.Explain)
	n := tokens(len(f.scratch))
	p.Receipt.Index = real
	return n
}

// reserveOverhead measures the smallest honest pack, which names no item
// and no dropped detail, and every pin as rejected for room: a pin's
// receipt line costs about what a pin that does not fit leaves behind, so
// the overhead holds it. It returns the pins' entries and what the budget
// leaves for items.
func (f *budgetFit) reserveOverhead() (pinEntries []*entry, itemBudget int, err error) {
	given := f.rejected
	pinEntries = make([]*entry, len(f.pins))
	for i, s := range f.pins {
		en, err := f.estimate(s)
		if err != nil {
			return nil, 0, err
		}
		pinEntries[i] = en
		f.rejected = append(f.rejected, pinRejection(en))
	}
	f.dropAll = len(f.pins) + len(f.ranked)
	overhead := f.measure(f.assemble(0, 0))
	if overhead > f.e.req.Budget {
		return nil, 0, &BudgetError{Budget: f.e.req.Budget, Minimum: f.e.minimumBudget(f.assemble(0, 0))}
	}
	f.dropAll, f.rejected = 0, given
	return pinEntries, f.e.req.Budget - overhead, nil
}

// admit admits pins, up to their share of the item budget, then ranked
// candidates by their estimated cost, as the source cap allows, and puts
// what it admitted in display order.
func (f *budgetFit) admit(pinEntries []*entry, itemBudget int) error {
	used := f.admitPins(pinEntries, itemBudget)
	for i, s := range f.ranked {
		s.Standing = i
	}
	size, err := f.estimateWhileFitting(itemBudget - used)
	if err != nil {
		return err
	}
	f.sources = newSourceCap(f.ranked, size)
	w := &capWalk{f: f, room: itemBudget - used, reason: make([]string, len(f.ranked))}
	if err := w.run(size); err != nil {
		return err
	}
	// Display order follows standing, whatever order the cap admitted in.
	tail := f.admitted[len(f.admitted)-countUnpinned(f.admitted):]
	slices.SortStableFunc(tail, func(a, b *entry) int { return a.s.Standing - b.s.Standing })
	for i, en := range f.admitted {
		c := *en
		c.reason = reasonBudget // if the real output cannot hold it
		f.admitted[i] = &c
	}
	return w.dropRest()
}

// admitPins admits the pins that fit their share of the item budget and
// rejects the rest; it returns the tokens they use.
func (f *budgetFit) admitPins(pinEntries []*entry, itemBudget int) (used int) {
	pinBudget := itemBudget / pinShareDivisor
	for _, en := range pinEntries {
		if used+en.cost > pinBudget {
			f.rejected = append(f.rejected, pinRejection(en))
			continue
		}
		used += en.cost
		f.admitted = append(f.admitted, en)
	}
	return used
}

// estimateWhileFitting renders ranked candidates in rank order while they
// fit in room, and returns how many do: the size of the pack the budget
// holds before diversity, which the source cap is taken against.
func (f *budgetFit) estimateWhileFitting(room int) (k int, err error) {
	for _, s := range f.ranked {
		en, err := f.estimate(s)
		if err != nil {
			return 0, err
		}
		if en.cost > room {
			break
		}
		room -= en.cost
		k++
	}
	return k, nil
}

// capWalk fills a pack from the ranked candidates under the source cap.
//
// It goes down the whole ranking once: a candidate whose source is full
// (or a record where the slots left are the pages') is held back by its
// key alone, never rendered, however many there are, so that the fitting
// reaches the next item of another source however far below it ranks.
// The others are rendered and admitted while they fit. Then the held-back
// candidates are offered again in rank order, as long as one joins: while
// the pack is smaller than the budget holds in rank order, the other
// sources have run out and the cap cannot be met, so they fill it; past
// that, one joins only as the rules allow for the larger pack.
type capWalk struct {
	f      *budgetFit
	room   int
	misses int      // rendered candidates that did not fit
	reason []string // by rank: why a candidate is out; "" for admitted
	held   []int    // ranks held back by the rules, in rank order
}

func (w *capWalk) run(size int) error {
	for i := range w.f.ranked {
		if _, err := w.offer(i, false); err != nil {
			return err
		}
	}
	for joined := true; joined && len(w.held) > 0; {
		joined = false
		held := w.held
		w.held = nil
		for _, i := range held {
			in, err := w.offer(i, w.f.sources.n < size)
			if err != nil {
				return err
			}
			joined = joined || in
		}
	}
	return nil
}

// offer admits ranked[i] if the rules allow it (or fill says the cap
// cannot be met) and it fits; otherwise it records why not. A candidate
// the rules would hold keeps that reason, and its place among the held,
// even when the fill tried it and it did not fit: its source is full.
func (w *capWalk) offer(i int, fill bool) (bool, error) {
	f := w.f
	s := f.ranked[i]
	why := f.sources.check(s)
	out := func(reason string) (bool, error) {
		if why != "" {
			reason = why
			w.held = append(w.held, i)
		}
		w.reason[i] = reason
		return false, nil
	}
	if why != "" && !fill {
		return out("")
	}
	en, rendered := f.e.built[s]
	if !rendered && w.misses >= fitMisses {
		return out(reasonBudget)
	}
	if !rendered {
		var err error
		if en, err = f.estimate(s); err != nil {
			return false, err
		}
	}
	if en.cost > w.room {
		if !rendered {
			w.misses++
		}
		return out(reasonBudget)
	}
	w.room -= en.cost
	w.reason[i] = ""
	f.sources.add(s)
	c := *en // a copy: its reason is this delivery's
	f.admitted = append(f.admitted, &c)
	return true, nil
}

// dropRest drops, in rank order, every candidate left out, with its
// reason. One never rendered is estimated from its row only if the
// receipt may name it.
func (w *capWalk) dropRest() error {
	f := w.f
	for i, why := range w.reason {
		if why == "" {
			continue
		}
		s := f.ranked[i]
		if why == reasonSourceCap {
			for int(s.Key.Source) >= len(f.capped) {
				f.capped = append(f.capped, false)
			}
			f.capped[s.Key.Source] = true
		}
		if len(f.dropped) >= maxDroppedDetail {
			f.droppedAll++
			continue
		}
		var en entry
		if built, ok := f.e.built[s]; ok {
			en = *built
		} else {
			rough, err := f.roughEstimate(s)
			if err != nil {
				return err
			}
			en = *rough
		}
		en.reason = why
		f.drop(&en)
	}
	return nil
}

// shrink drops admitted entries from the end until the real output fits,
// and returns how many stay.
func (f *budgetFit) shrink() (int, error) {
	n := len(f.admitted)
	for n > 0 && f.measure(f.assemble(n, 0)) > f.e.req.Budget {
		v := f.victim(n)
		en := f.admitted[v]
		copy(f.admitted[v:n-1], f.admitted[v+1:n])
		f.admitted[n-1] = en
		if !en.s.Pinned {
			f.sources.remove(en.s)
		}
		n--
	}
	if n == 0 && f.measure(f.assemble(0, 0)) > f.e.req.Budget {
		// The overhead reserved is measured to hold every pack with no
		// item; should it ever not, refuse rather than deliver over budget.
		return 0, &BudgetError{Budget: f.e.req.Budget, Minimum: f.e.minimumBudget(f.assemble(0, 0))}
	}
	return n, nil
}

// victim is which of the first n admitted entries shrinking drops: the
// last in display order, the least useful, but with the source cap kept
// for the smaller pack: the last entry of a source that would be over its
// share if there is one, else the last whose loss leaves every source
// that had candidates left out for the cap at its full share. Pins go
// last.
func (f *budgetFit) victim(n int) int {
	unpinned := countUnpinned(f.admitted[:n])
	if unpinned == 0 {
		return n - 1
	}
	limit := capFor(unpinned - 1)
	last := func(ok func(s *rank.Scored) bool) int {
		for i := n - 1; i >= 0 && !f.admitted[i].s.Pinned; i-- {
			if ok(f.admitted[i].s) {
				return i
			}
		}
		return -1
	}
	if unpinned-1 >= diversifyFrom {
		if i := last(func(s *rank.Scored) bool { return f.sources.held(s.Key.Source) > limit }); i >= 0 {
			return i
		}
		if i := last(func(s *rank.Scored) bool {
			src := int(s.Key.Source)
			return src >= len(f.capped) || !f.capped[src] || f.sources.held(s.Key.Source)-1 >= limit
		}); i >= 0 {
			return i
		}
	}
	return n - 1
}

// addDetailBack renders the pack of the first n admitted entries with as
// much dropped detail as fits (a binary search on its length), up to
// maxDroppedDetail entries; dropped_total counts all.
func (f *budgetFit) addDetailBack(n int) []byte {
	total := min(maxDroppedDetail, len(f.admitted)-n+len(f.dropped))
	lo, hi := 0, total
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if f.measure(f.assemble(n, mid)) <= f.e.req.Budget {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return fixTokens(nil, f.assemble(n, lo), f.e.req.Format, f.e.req.Explain)
}

// minimumBudget is the least budget whose smallest honest pack fits,
// found where the stated budget's own digits (and a warning naming it)
// are part of the size.
func (e *engine) minimumBudget(p *Answer) int {
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

// countUnpinned counts the admitted entries after the pins.
func countUnpinned(list []*entry) int {
	n := 0
	for _, en := range list {
		if !en.s.Pinned {
			n++
		}
	}
	return n
}

// pinRejection is the receipt line of a pin that does not fit. It names
// only the pin's own cost, so that its width does not depend on the
// budget and the overhead measured with it holds at every budget.
func pinRejection(en *entry) RejectedPin {
	return RejectedPin{URI: en.s.Row.URI, Reason: fmt.Sprintf("needs about %d tokens; pins share at most a third of the item budget", en.cost)}
}

// widestIndex is the largest receipt.index a pack can carry for this
// path: the longest state and a reason of maxIndexReason bytes.
func widestIndex(ix render.IndexState) render.IndexState {
	return render.IndexState{Path: ix.Path, State: "query-too-short", Reason: strings.Repeat("x", render.MaxIndexReason)}
}
