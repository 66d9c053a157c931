package query

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/model"
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
// checked, they are used; otherwise they are let go.
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
	cfg := e.c.Config()
	// Read every matched item's row at once, in ordinal order, so that
	// near rows share reads; the scored items are made in one block, in
	// the same order, and found by ordinal with a binary search.
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
	rows, err := e.c.Rows(all)
	if err != nil {
		return err
	}
	pool := make([]scored, len(all))
	for i, o := range all {
		pool[i] = scored{ord: o, row: &rows[i], count: 1}
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
		row, err := e.c.Row(int(ord))
		if err != nil {
			return nil, err
		}
		s := &scored{ord: int(ord), row: &row, count: 1}
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
			e.scoreTerm(&pool[k], ti, &st.hits[j], fields, nil)
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
			if !s.direct || !e.identifiedBy(s, t) {
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
	recent := map[sourceDay]int{} // recency points by source and date
	for _, s := range e.pool {
		// The title is compared only when it holds every term at all.
		if len(e.terms) > 0 && titleMayBe(s.row.Title, e.parsed.Terms) && titleIs(s.row.Title, e.parsed.Terms) {
			s.titled = true
			s.score += pointsTitle
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
			s.score += e.bonuses(s, cfg, recent, nil)
		}
	}
	return nil
}

// scoreTerm adds what query term ti gives item s through hit h. With rec,
// it only lists the reasons (s is then a scratch copy).
func (e *engine) scoreTerm(s *scored, ti int, h *termHit, fields []artifacts.Field, rec *[]Reason) {
	st := e.terms[ti]
	s.matched++
	switch own := exactOwn(s.row, st.term); {
	case h.exact || own:
		// An exact identifier entry, or the term is the record's own id.
		s.direct = true
		s.identity = s.identity || own
		s.score += pointsIdentifier
		if rec != nil {
			*rec = append(*rec, Reason{Code: "identifier", Points: pointsIdentifier, Detail: st.term})
		}
	default:
		pts, w := termPoints(h.ps, s.row, fields, st.rarity)
		s.bestWeight = max(s.bestWeight, w)
		s.score += pts
		if rec != nil {
			*rec = append(*rec, Reason{Code: "term", Points: pts, Detail: fmt.Sprintf("%s r=%d", st.term, st.rarity)})
		}
	}
}

// identifiedBy reports whether a query term equal to t already made s an
// exact identifier match.
func (e *engine) identifiedBy(s *scored, t string) bool {
	for _, st := range e.terms {
		if st.term != t {
			continue
		}
		if h, ok := st.hit(s.ord); ok && (h.exact || exactOwn(s.row, t)) {
			return true
		}
	}
	return false
}

// bonuses are the points of an item that matched: created evidence,
// recency, and the closed and navigation penalties. recent caches recency
// points by source and day across items; rec, when given, gets reasons.
func (e *engine) bonuses(s *scored, cfg model.Config, recent map[sourceDay]int, rec *[]Reason) int {
	note := func(code string, pts int, detail string) {
		if rec != nil {
			*rec = append(*rec, Reason{Code: code, Points: pts, Detail: detail})
		}
	}
	pts := 0
	if hasFlag(s.row, project.FlagCreated) {
		pts += pointsCreated
		note("created", pointsCreated, "")
	}
	if hl := cfg.Sources[s.row.Source].Recency.HalfLifeDays; hl > 0 {
		key := sourceDay{s.row.Source, s.row.Date}
		r, ok := recent[key]
		if !ok {
			r = recency(s.row.Date, e.req.AsOf, hl)
			if recent != nil {
				recent[key] = r
			}
		}
		if r > 0 {
			pts += r
			if rec != nil {
				note("recency", r, fmt.Sprintf("%s half-life %dd", s.row.Date, hl))
			}
		}
	}
	for _, f := range []string{project.FlagSuperseded, project.FlagDone, project.FlagDeprecated} {
		if hasFlag(s.row, f) {
			pts += pointsClosed
			note(f, pointsClosed, "")
			break
		}
	}
	if hasFlag(s.row, project.FlagNav) {
		pts += pointsNav
		note("navigation", pointsNav, "")
	}
	return pts
}

// sourceDay keys the recency points of a source's items of one day.
type sourceDay struct{ source, day string }

// reasons replays an item's score with its reasons, in the order the
// score was added up: its terms, a complete URI, title, phrase, the
// bonuses, then what expansion and pins added. Only the items a pack
// shows with --explain need them, so scoring the whole pool keeps none.
func (e *engine) reasons(s *scored) []Reason {
	var rs []Reason
	acc := scored{ord: s.ord, row: s.row}
	var more scoredMore
	if s.more != nil {
		more = *s.more
	}
	fields := e.c.Fields()
	for ti, st := range e.terms {
		if h, ok := st.hit(s.ord); ok {
			e.scoreTerm(&acc, ti, h, fields, &rs)
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
		e.bonuses(&acc, e.c.Config(), nil, &rs)
	}
	return append(rs, more.later...)
}

// exactOwn reports whether term exactly names the item itself (its id or
// URI) rather than something it relates to: that recovers a private or
// received record.
func exactOwn(row *artifacts.Doc, term string) bool {
	_, id, ok := strings.Cut(row.URI, "#")
	return ok && (strings.EqualFold(decodeID(id), term) || strings.EqualFold(row.URI, term))
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
		it, err := e.c.Item(s.ord, *s.row)
		if err != nil {
			return nil, err
		}
		s.item = &it
	}
	return s.item, nil
}

// queryWords splits text the way a query is split into terms, keeping
// every word, so a phrase can be matched against it.
func queryWords(text string) []string { return slices.Collect(queryWordSeq(text)) }

// queryWordSeq yields the words of queryWords one by one.
func queryWordSeq(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for chunk := range strings.FieldsSeq(text) {
			chunk = strings.TrimFunc(chunk, func(r rune) bool { return strings.ContainsRune("\"'()[]{}<>,;:!?.", r) })
			if chunk == "" {
				continue
			}
			if project.IsIdentifierShaped(chunk) {
				if !yield(strings.ToLower(chunk)) {
					return
				}
				continue
			}
			stop := false
			project.Words(chunk, func(w string, _ int) { stop = stop || !yield(w) })
			if stop {
				return
			}
		}
	}
}

// containsRun reports whether run appears consecutively in words, ignoring
// words the query would have dropped (short and scaffolding words).
func containsRun(words, run []string) bool {
	var kept []string
	for _, w := range words {
		if keepAsTerm(w) {
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

// titleMayBe reports whether title holds every term, lower-cased: a title
// that does not cannot normalise to the whole query, and this gate is far
// cheaper than titleIs.
func titleMayBe(title string, terms []string) bool {
	for _, t := range terms {
		if !containsLower(title, t) {
			return false
		}
	}
	return true
}

// containsLower reports whether s, lower-cased, contains the lower-case
// needle. It is the cheap gate before titleIs, run on every candidate,
// so an ASCII s is folded byte by byte instead of copied.
func containsLower(s, needle string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.Contains(strings.ToLower(s), needle)
		}
	}
	for i := 0; i+len(needle) <= len(s); i++ {
		j := 0
		for j < len(needle) && asciiLower(s[i+j]) == needle[j] {
			j++
		}
		if j == len(needle) {
			return true
		}
	}
	return false
}

func asciiLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// titleIs reports whether a title normalises like a query to the query's
// terms: its kept words, each once, in the order they first appear, are
// the terms. It stops at the first word that differs.
func titleIs(title string, terms []string) bool {
	n := 0 // the title's kept words so far are terms[:n]
	for w := range queryWordSeq(title) {
		if !keepAsTerm(w) || slices.Contains(terms[:n], w) {
			continue
		}
		if n == len(terms) || w != terms[n] {
			return false
		}
		n++
	}
	return n == len(terms)
}

// keepAsTerm reports whether a word would survive query normalisation.
func keepAsTerm(w string) bool {
	if project.IsIdentifierShaped(w) {
		return len([]rune(w)) >= 2
	}
	return len([]rune(w)) >= project.MinPlainRunes && !scaffoldingVocab[w]
}

// compareChrono orders rows newest first, then by URI.
func compareChrono(a, b *artifacts.Doc) int {
	return cmp.Or(project.CompareStamps(newest(b), newest(a)), strings.Compare(a.URI, b.URI))
}

// decodeID undoes a record id's percent-encoding.
func decodeID(id string) string {
	if s, err := url.PathUnescape(id); err == nil {
		return s
	}
	return id
}
