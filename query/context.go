package query

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/lex"
	"github.com/cairn-kb/cairn/stages/project"
)

// Formats a pack can be delivered in.
const (
	FormatText  = "text"
	FormatJSON  = "json"
	FormatJSONL = "jsonl"
)

// DefaultBudget is the token budget of a pack when none is given.
const DefaultBudget = 4096

// Request is one context query.
type Request struct {
	Words   []string // the query, as words
	Budget  int
	Since   string // YYYY-MM-DD or ""
	Until   string // YYYY-MM-DD or ""
	AsOf    time.Time
	Pins    []string
	Expand  bool
	Explain bool
	Format  string
	// ToolVersion goes into the receipt.
	ToolVersion string
}

// UsageError is a request that cannot be answered as asked; exit 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// ExitCode makes a bad request exit 2.
func (e *UsageError) ExitCode() int { return 2 }

// Context answers a request against the base at root: from its artifacts
// when they are current, else from a scan of the base. It returns the
// delivered bytes.
func Context(ctx context.Context, root string, req Request) ([]byte, error) {
	if req.Budget <= 0 {
		return nil, &UsageError{Msg: fmt.Sprintf("--budget %d: give a positive number of tokens", req.Budget)}
	}
	switch req.Format {
	case FormatText, FormatJSON, FormatJSONL:
	default:
		return nil, &UsageError{Msg: fmt.Sprintf("--format %q: use text, json or jsonl", req.Format)}
	}
	parsed, err := Parse(req.Words, req.AsOf, req.Since, req.Until)
	if err != nil {
		return nil, err
	}
	c, state, closeFn, err := openCorpus(ctx, root, parsed.Terms)
	if err != nil {
		return nil, err
	}
	e := &engine{c: c, req: req, parsed: parsed, state: state}
	out, err := e.run()
	closeFn()
	var ce *artifacts.CorruptError
	if errors.As(err, &ce) && state.State == StateUsed {
		// The artifacts looked current but a read failed: answer from the
		// scan, and say why.
		osRoot, rerr := os.OpenRoot(root)
		if rerr != nil {
			return nil, rerr
		}
		defer osRoot.Close()
		sc, serr := openScan(ctx, osRoot.FS(), parsed.Terms)
		if serr != nil {
			return nil, serr
		}
		e = &engine{c: sc, req: req, parsed: parsed, state: Index{Path: state.Path, State: StateCorrupt, Reason: ce.Error()}}
		return e.run()
	}
	return out, err
}

// openCorpus picks the index or the scan, as Open decides. The artifacts
// an indexed query reads first are read on a second core while Open
// decides: if Open finds them current and they are still the files it
// checked, they are used; otherwise they are let go and the base is
// scanned.
func openCorpus(ctx context.Context, root string, terms []string) (corpus, Index, func(), error) {
	type early struct {
		f   *indexFiles
		err error
	}
	ahead := make(chan early, 1)
	go func() {
		f, err := readIndexFiles(root)
		ahead <- early{f, err}
	}()
	ix, err := Open(ctx, root)
	got := <-ahead
	if got.err == nil && (err != nil || ix.State != StateUsed || !got.f.current(root)) {
		got.f.r.Close()
		got.f, got.err = nil, errors.New("not used")
	}
	if err != nil {
		return nil, Index{}, nil, err
	}
	osRoot, err := os.OpenRoot(root)
	if err != nil {
		return nil, *ix, nil, err
	}
	closeRoot := func() { osRoot.Close() }
	if ix.State == StateUsed {
		f, err := got.f, got.err
		if err != nil { // read again, now that Open has checked the files
			f, err = readIndexFiles(root)
		}
		if err == nil {
			ic := newIndexCorpus(f, osRoot.FS(), ix.cfg, ix.Manifest)
			return ic, *ix, func() { ic.Close(); closeRoot() }, nil
		}
		var ce *artifacts.CorruptError
		if !errors.As(err, &ce) {
			closeRoot()
			return nil, *ix, nil, err
		}
		ix.State, ix.Reason = StateCorrupt, err.Error()
	}
	sc, err := openScan(ctx, osRoot.FS(), terms)
	if err != nil {
		closeRoot()
		return nil, *ix, nil, err
	}
	return sc, *ix, closeRoot, nil
}

// engine is one request in flight.
type engine struct {
	c      corpus
	req    Request
	parsed Parsed
	state  Index

	window      Window
	win         *candidates
	terms       []*termStats
	roles       []string // role flags the query names (private, received)
	pool        []*scored
	floorOut    int                // matched items left below the floor
	policyOut   int                // received or private items kept out
	truncated   []string           // hub entities whose inbound edges were cut at hubInbound
	closedSeeds []string           // seeds whose neighbourhood was too large to expand
	built       map[*scored]*entry // rendered candidates, whatever the budget
	weight      map[string]int     // field weights by name, for excerpts
}

// roleTerms are query terms that name a policy role: they identify the
// items holding it and recover them from exclusion.
var roleTerms = map[string]string{
	"visibility:private": project.FlagPrivate,
	"category:received":  project.FlagReceived,
}

func (e *engine) run() ([]byte, error) {
	prep, err := e.prepare()
	if err != nil {
		return nil, err
	}
	return e.deliver(prep.pins, prep.ranked, prep.rejected)
}

// prepared is a ranked request, ready to be fitted to any budget.
type prepared struct {
	pins     []*scored
	ranked   []*scored
	rejected []RejectedPin
}

// prepare does everything but delivery: window, terms, scores,
// expansion, pins, order and collapse.
func (e *engine) prepare() (prepared, error) {
	var err error
	e.window, e.win, err = resolveWindow(e.c, e.parsed.Window, e.req.AsOf)
	if err != nil {
		return prepared{}, err
	}
	ids := e.c.Identities()
	for _, t := range e.parsed.Terms {
		if role, ok := roleTerms[t]; ok {
			e.roles = append(e.roles, role)
		}
		st, err := lookupTerm(e.c, ids, t, e.win)
		if err != nil {
			return prepared{}, err
		}
		st.rarity = rarity(e.win.n, st.df)
		e.terms = append(e.terms, st)
	}
	if err := e.score(); err != nil {
		return prepared{}, err
	}
	if e.req.Expand {
		if err := e.expand(); err != nil {
			return prepared{}, err
		}
	}
	pins, rejected, err := e.pins()
	if err != nil {
		return prepared{}, err
	}
	e.order()
	return prepared{pins: pins, ranked: e.collapse(e.admissible()), rejected: rejected}, nil
}

// score computes every matched item's score.
func (e *engine) score() error {
	fields := e.c.Fields()
	// Read every matched item's key at once, in ordinal order, so that
	// near keys share reads; the scored items are made in one block, in
	// the same order, and found by ordinal with a binary search. Rows are
	// read later, for the few items that need more than their key.
	hits := 0
	for _, st := range e.terms {
		hits += len(st.hits)
	}
	all := make([]int, 0, hits)
	for _, st := range e.terms {
		for _, h := range st.hits {
			all = append(all, int(h.ord))
		}
	}
	slices.Sort(all)
	all = slices.Compact(all)
	keys, err := e.c.Keys(all)
	if err != nil {
		return err
	}
	pool := make([]scored, len(all))
	for i, o := range all {
		pool[i] = scored{ord: o, key: &keys[i], count: 1}
	}
	var extra []*scored // items scored without a postings hit (URI terms)
	get := func(ord int32) (*scored, error) {
		if i, ok := slices.BinarySearch(all, int(ord)); ok {
			return &pool[i], nil
		}
		for _, s := range extra {
			if s.ord == int(ord) {
				return s, nil
			}
		}
		s, err := e.newScored(int(ord))
		if err != nil {
			return nil, err
		}
		extra = append(extra, s)
		return s, nil
	}
	for ti, st := range e.terms {
		// Hits come sorted by ordinal, as the pool is: walk both at once.
		k := 0
		for j := range st.hits {
			for all[k] != int(st.hits[j].ord) {
				k++
			}
			if err := e.scoreTerm(&pool[k], ti, &st.hits[j], fields, nil); err != nil {
				return err
			}
		}
	}
	// A complete item URI is an exact identifier too.
	for _, t := range e.parsed.Terms {
		if ord, ok, err := e.uriTerm(t); err != nil {
			return err
		} else if ok && e.win.has(ord) {
			s, err := get(int32(ord))
			if err != nil {
				return err
			}
			identified, err := e.identifiedBy(s, t)
			if err != nil {
				return err
			}
			if !s.direct || !identified {
				s.direct, s.identity = true, true
				s.matched++
				s.moreOf().uriTerms = append(s.moreOf().uriTerms, t)
				s.score += pointsIdentifier
			}
		}
	}
	e.pool = make([]*scored, 0, len(pool)+len(extra))
	for i := range pool {
		e.pool = append(e.pool, &pool[i])
	}
	e.pool = append(e.pool, extra...)
	slices.SortFunc(e.pool, func(a, b *scored) int { return cmp.Compare(a.ord, b.ord) })
	recent := map[recencyKey]int{} // recency points by half-life and day
	titleKey := lex.TermsKey(e.parsed.Terms)
	for _, s := range e.pool {
		// Only a title whose terms hash like the query's can be the query.
		if len(e.terms) > 0 && s.key.TitleTerms == titleKey {
			row, err := e.rowOf(s)
			if err != nil {
				return err
			}
			if titleIs(row.Title, e.parsed.Terms) {
				s.titled = true
				s.score += pointsTitle
			}
		}
		if len(e.terms) > 1 && s.matched == len(e.terms) {
			ok, err := e.phrase(s)
			if err != nil {
				return err
			}
			if ok {
				s.phrased = true
				s.score += pointsPhrase
			}
		}
		if s.score > 0 {
			s.score += e.bonuses(s, recent, nil)
		}
	}
	return nil
}

// newScored makes the scored item of an ordinal outside the pool, with
// its key and row.
func (e *engine) newScored(ord int) (*scored, error) {
	keys, err := e.c.Keys([]int{ord})
	if err != nil {
		return nil, err
	}
	s := &scored{ord: ord, key: &keys[0], count: 1}
	if _, err := e.rowOf(s); err != nil {
		return nil, err
	}
	return s, nil
}

// rowOf reads a scored item's docs.tsv row once: ranking reads keys, and
// only the items a pack shows, names or checks in full need their rows.
func (e *engine) rowOf(s *scored) (*artifacts.Doc, error) {
	if s.row == nil {
		row, err := e.c.Row(s.ord)
		if err != nil {
			return nil, err
		}
		s.row = &row
	}
	return s.row, nil
}

// scoreTerm adds what query term ti gives item s through hit h. With rec,
// it only lists the reasons (s is then a scratch copy).
func (e *engine) scoreTerm(s *scored, ti int, h *termHit, fields []artifacts.Field, rec *[]Reason) error {
	st := e.terms[ti]
	s.matched++
	own, err := e.exactOwn(s, st)
	if err != nil {
		return err
	}
	switch {
	case h.exact || own:
		// An exact identifier entry, or the term is the record's own id.
		s.direct = true
		s.identity = s.identity || own
		s.score += pointsIdentifier
		if rec != nil {
			*rec = append(*rec, Reason{Code: "identifier", Points: pointsIdentifier, Detail: st.term})
		}
	default:
		pts, w := termPoints(h.ps, s.key, fields, st.rarity)
		s.bestWeight = max(s.bestWeight, w)
		s.score += pts
		if rec != nil {
			*rec = append(*rec, Reason{Code: "term", Points: pts, Detail: fmt.Sprintf("%s r=%d", st.term, st.rarity)})
		}
	}
	return nil
}

// identifiedBy reports whether a query term equal to t already made s an
// exact identifier match.
func (e *engine) identifiedBy(s *scored, t string) (bool, error) {
	for _, st := range e.terms {
		if st.term != t {
			continue
		}
		h, ok := st.hit(s.ord)
		if !ok {
			continue
		}
		own, err := e.exactOwn(s, st)
		if err != nil {
			return false, err
		}
		if h.exact || own {
			return true, nil
		}
	}
	return false, nil
}

// exactOwn reports whether a query term exactly names the item itself (its
// id or URI) rather than something it relates to: that recovers a private
// or received record. The key's hashes of the two rule out almost every
// item; the row decides for the rest.
func (e *engine) exactOwn(s *scored, st *termStats) (bool, error) {
	if s.key.Flags&artifacts.KeyID == 0 || s.key.OwnID != st.fold && s.key.OwnURI != st.fold {
		return false, nil
	}
	row, err := e.rowOf(s)
	if err != nil {
		return false, err
	}
	return exactOwn(row, st.term), nil
}

// closedFlags are the flags that mark an item closed, with their reason
// codes, in the order a reason names the first.
var closedFlags = []struct {
	flag artifacts.KeyFlags
	code string
}{
	{artifacts.KeySuperseded, project.FlagSuperseded},
	{artifacts.KeyDone, project.FlagDone},
	{artifacts.KeyDeprecated, project.FlagDeprecated},
}

// bonuses are the points of an item that matched: created evidence,
// recency, and the closed and navigation penalties. recent caches recency
// points by half-life and day across items; rec, when given, gets reasons.
func (e *engine) bonuses(s *scored, recent map[recencyKey]int, rec *[]Reason) int {
	note := func(code string, pts int, detail string) {
		if rec != nil {
			*rec = append(*rec, Reason{Code: code, Points: pts, Detail: detail})
		}
	}
	k := s.key
	pts := 0
	if k.Flags&artifacts.KeyCreated != 0 {
		pts += pointsCreated
		note("created", pointsCreated, "")
	}
	if hl := int(k.HalfLife); hl > 0 {
		key := recencyKey{k.HalfLife, k.Day}
		r, ok := recent[key]
		if !ok {
			r = recency(project.DayString(k.Day), e.req.AsOf, hl)
			if recent != nil {
				recent[key] = r
			}
		}
		if r > 0 {
			pts += r
			if rec != nil {
				note("recency", r, fmt.Sprintf("%s half-life %dd", project.DayString(k.Day), hl))
			}
		}
	}
	for _, c := range closedFlags {
		if k.Flags&c.flag != 0 {
			pts += pointsClosed
			note(c.code, pointsClosed, "")
			break
		}
	}
	if k.Flags&artifacts.KeyNav != 0 {
		pts += pointsNav
		note("navigation", pointsNav, "")
	}
	return pts
}

// recencyKey keys the recency points of the items of one day under one
// half-life.
type recencyKey struct {
	halfLife uint32
	day      int32
}

// reasons replays an item's score with its reasons, in the order the
// score was added up: its terms, a complete URI, title, phrase, the
// bonuses, then what expansion and pins added. Only the items a pack
// shows with --explain need them, so scoring the whole pool keeps none.
func (e *engine) reasons(s *scored) ([]Reason, error) {
	var rs []Reason
	acc := scored{ord: s.ord, key: s.key, row: s.row}
	var more scoredMore
	if s.more != nil {
		more = *s.more
	}
	fields := e.c.Fields()
	for ti, st := range e.terms {
		if h, ok := st.hit(s.ord); ok {
			if err := e.scoreTerm(&acc, ti, h, fields, &rs); err != nil {
				return nil, err
			}
		}
	}
	for _, t := range more.uriTerms {
		acc.score += pointsIdentifier
		rs = append(rs, Reason{Code: "identifier", Points: pointsIdentifier, Detail: "uri " + t})
	}
	if s.titled {
		acc.score += pointsTitle
		rs = append(rs, Reason{Code: "title", Points: pointsTitle, Detail: "the title is the whole query"})
	}
	if s.phrased {
		acc.score += pointsPhrase
		rs = append(rs, Reason{Code: "phrase", Points: pointsPhrase, Detail: strings.Join(e.parsed.Terms, " ")})
	}
	if acc.score > 0 {
		e.bonuses(&acc, nil, &rs)
	}
	return append(rs, more.later...), nil
}

// exactOwn reports whether term exactly names the item itself (its id or
// URI) rather than something it relates to: that recovers a private or
// received record.
func exactOwn(row *artifacts.Doc, term string) bool {
	_, id, ok := strings.Cut(row.URI, "#")
	return ok && (strings.EqualFold(lex.DecodeID(id), term) || strings.EqualFold(row.URI, term))
}

// uriTerm finds the item whose complete URI the term is, whatever case the
// query used: the term is lowercase, so the query's own spelling of it is
// looked up.
func (e *engine) uriTerm(t string) (int, bool, error) {
	if !strings.ContainsAny(t, "/#") {
		return 0, false, nil
	}
	for _, w := range e.req.Words {
		cand := strings.Trim(w, "\"'()[]<>,;")
		if !strings.EqualFold(cand, t) {
			continue
		}
		ord, err := e.c.Search(cand)
		if err != nil {
			return 0, false, err
		}
		if ord < e.c.Len() {
			row, err := e.c.Row(ord)
			if err != nil {
				return 0, false, err
			}
			if row.URI == cand {
				return ord, true, nil
			}
		}
	}
	return 0, false, nil
}

// phrase reports whether the query's terms appear in a row, in order, in
// one of the item's fields.
func (e *engine) phrase(s *scored) (bool, error) {
	it, err := e.itemOf(s)
	if err != nil {
		return false, err
	}
	for _, f := range it.Fields {
		for _, v := range f.Values {
			if containsRun(queryWords(v), e.parsed.Terms) {
				return true, nil
			}
		}
	}
	return false, nil
}

// itemOf re-reads a scored item once.
func (e *engine) itemOf(s *scored) (*project.Item, error) {
	if s.item == nil {
		row, err := e.rowOf(s)
		if err != nil {
			return nil, err
		}
		it, err := e.c.Item(s.ord, *row)
		if err != nil {
			return nil, err
		}
		s.item = &it
	}
	return s.item, nil
}

// queryWords splits text the way a query is split into terms, keeping
// every word, so a phrase can be matched against it.
func queryWords(text string) []string { return slices.Collect(lex.QueryWords(text)) }

// containsRun reports whether run appears consecutively in words, ignoring
// words the query would have dropped (short and scaffolding words).
func containsRun(words, run []string) bool {
	var kept []string
	for _, w := range words {
		if lex.KeepAsTerm(w) {
			kept = append(kept, w)
		}
	}
	for i := 0; i+len(run) <= len(kept); i++ {
		if slices.Equal(kept[i:i+len(run)], run) {
			return true
		}
	}
	return false
}

// titleIs reports whether a title normalises like a query to the query's
// terms: its kept words, each once, in the order they first appear, are
// the terms. It stops at the first word that differs.
func titleIs(title string, terms []string) bool {
	n := 0 // the title's kept words so far are terms[:n]
	for w := range lex.QueryWords(title) {
		if !lex.KeepAsTerm(w) || slices.Contains(terms[:n], w) {
			continue
		}
		if n == len(terms) || w != terms[n] {
			return false
		}
		n++
	}
	return n == len(terms)
}
