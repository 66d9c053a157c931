package search

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/provenance"
	"github.com/cairn-kb/cairn/query/question"
	"github.com/cairn-kb/cairn/query/render"
	"github.com/cairn-kb/cairn/query/words"
	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/escape"
	"github.com/cairn-kb/cairn/stages/lib/govern"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/load"
)

// Search groups, in the order an answer lists them. They are never merged
// into one ranking: a term match and a record match are not comparable.
const (
	GroupRecords     = "records"
	GroupPages       = "pages"
	GroupTerms       = "terms"
	GroupNotes       = "notes"
	GroupSuggestions = "suggestions"
	GroupVoice       = "voice examples"
)

// searchGroups lists the groups in answer order.
var searchGroups = []string{GroupRecords, GroupPages, GroupTerms, GroupNotes, GroupSuggestions, GroupVoice}

// Request is one by-content question: every match of the query's
// terms, grouped by kind.
type Request struct {
	Words []string // the query, as words
	Since string   // YYYY-MM-DD or ""
	Until string   // YYYY-MM-DD or ""
	AsOf  time.Time
	// Sources keep records and pages of these sources (any of them).
	Sources []string
	// Layer keeps one layer: events, index, wiki, projects, tasks, or
	// governance (terms, notes, suggestions and voice examples only).
	Layer string
	// Where keeps items with an exact projected value: FIELD=VALUE, all
	// of them.
	Where  []string
	Count  bool // counts only
	Limit  int  // items shown per group; 0 means DefaultSearchLimit
	Cursor string
	Format string
	// Seen, in a long-lived process, is what it read of the governance
	// before: an answer that reads the governance then says first what of
	// it moved since, if any did (provenance.Seen). Nil adds no note.
	Seen *provenance.Seen
}

// Answer is a by-content answer as a document.
type Answer struct {
	// Moved says what of the governance moved since the process's
	// previous answer; set only in a long-lived process, when it did.
	Moved         string              `json:"moved,omitempty"`
	Query         string              `json:"query"`
	Terms         []string            `json:"terms"`
	FilteredTerms []string            `json:"filtered_terms"`
	Window        question.Window     `json:"window"`
	AsOf          string              `json:"as_of"`
	Filters       Filters             `json:"filters"`
	Scope         string              `json:"scope"`
	Coverage      provenance.Coverage `json:"coverage"`
	Groups        []*Group            `json:"groups"`
	// HeldBack counts received and private records that match but stay
	// out, as they stay out of a pack, unless the query names their role.
	HeldBack int `json:"held_back"`
	// Empty says why nothing matched, and Record how to note what is
	// missing; both are set only on an empty answer.
	Empty          string                `json:"empty,omitempty"`
	Record         string                `json:"record,omitempty"`
	Provenance     provenance.Provenance `json:"provenance"`
	Index          render.IndexState     `json:"index"`
	RankingVersion int                   `json:"ranking_version"`
	Notice         string                `json:"notice"`
}

// Filters are the filters an answer was narrowed by.
type Filters struct {
	Sources []string `json:"sources"`
	Layer   string   `json:"layer,omitempty"`
	Where   []string `json:"where"`
}

// Group is one kind of match, ranked within itself.
type Group struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
	// Offset is the rank of the first item shown, from 0.
	Offset int          `json:"offset"`
	More   int          `json:"more"`
	Next   string       `json:"next_cursor,omitempty"`
	Items  []searchItem `json:"items"`
	// state digests what the group matched, so a cursor can tell the
	// answer it was made for from a later one.
	state uint64
}

// searchItem is one shown match: its JSON is its own, its text a line or
// two.
type searchItem interface{ text() string }

// Search answers a by-content question about the base at root: records
// and pages from the artifacts when they are current, else from a scan of
// the base (the same rule as Context), and the governance from the base
// itself, as At reads it. It returns the delivered bytes.
func Search(ctx context.Context, root string, req Request) ([]byte, error) {
	return With(ctx, root, req, corpus.Pick, nil)
}

// With is Search with the corpus opened by open and the governance
// read through memo.
func With(ctx context.Context, root string, req Request, open corpus.Opener, memo *load.GovernanceMemo) ([]byte, error) {
	switch req.Format {
	case render.FormatText, render.FormatJSON, render.FormatJSONL:
	default:
		return nil, &corpus.UsageError{Msg: fmt.Sprintf("--format %q: use text, json or jsonl", req.Format)}
	}
	if req.Limit < 0 {
		return nil, &corpus.UsageError{Msg: fmt.Sprintf("--limit %d: give a positive number of items per group", req.Limit)}
	}
	if req.Limit == 0 {
		req.Limit = render.DefaultLimit
	}
	wheres, err := parseWheres(req.Where)
	if err != nil {
		return nil, err
	}
	var cur *searchCursor
	if req.Cursor != "" {
		if req.Count {
			return nil, &corpus.UsageError{Msg: "--cursor pages the items of a group, and --count shows none; drop one of them"}
		}
		c, err := parseCursor(req.Cursor)
		if err != nil {
			return nil, err
		}
		cur = &c
	}
	parsed, err := question.Parse(req.Words, req.AsOf, req.Since, req.Until)
	if err != nil {
		return nil, err
	}
	if len(parsed.Terms) == 0 {
		return nil, &corpus.UsageError{Msg: fmt.Sprintf("the query %q holds no word to search for: %s set aside as scaffolding, short words or a date; search for a word of 3 letters or more or an identifier, or run cairn list LAYER to see a layer's items", parsed.Text, render.ListOrDash(parsed.Filtered))}
	}
	osRoot, err := load.OpenDir(root)
	if err != nil {
		return nil, err
	}
	defer osRoot.Close()
	// The governance is read from the base on the second core while the
	// corpus is opened and searched: parsing the notes log and the terms
	// store costs about what an indexed lookup does.
	type governance struct {
		g     load.Governance
		usage *usageOnDemand
	}
	govc := make(chan governance, 1)
	go func() {
		g := memo.Read(osRoot)
		govc <- governance{g, &usageOnDemand{check: func() provenance.Freshness { return provenance.Usage(ctx, root, g.Config) }}}
	}()
	var gov *governance
	loaded := func() governance {
		if gov == nil {
			v := <-govc
			gov = &v
		}
		return *gov
	}
	defer loaded() // never leave the reader behind
	s := &searcher{req: req, parsed: parsed, wheres: wheres}
	// The shown items are read from the corpus as the answer is made, so
	// it stays open until then.
	answer := func(c corpus.Corpus, state corpus.Index) (*Answer, error) {
		if s.layer, err = searchLayer(req.Layer, c.Config().Layers); err != nil {
			return nil, err
		}
		if err := s.searchCorpus(c, state); err != nil {
			return nil, err
		}
		gv := loaded()
		if !gv.g.ConfigOK {
			return nil, &corpus.UsageError{Msg: "cairn.yaml cannot be read: " + diag.Join(gv.g.Diagnostics)}
		}
		s.searchGovernance(gv.g, gv.usage)
		doc := s.answer()
		if cur != nil {
			if err := s.page(doc, *cur); err != nil {
				return nil, err
			}
		}
		// Last: whether the usage counts were read is known once the
		// shown items are.
		doc.Provenance = provenance.Of(root, gv.g, gv.usage.state())
		if req.Seen != nil {
			doc.Moved = req.Seen.Advance(gv.g)
		}
		return doc, nil
	}
	c, state, closeFn, err := open(ctx, root, words.LookupWords(parsed.Terms))
	if err != nil {
		return nil, err
	}
	doc, err := answer(c, state)
	closeFn()
	if verdict, again := corpus.Fallback(err, state); again {
		// The artifacts looked current but a read failed, or an item
		// changed since: answer from the scan, and say why.
		sc, serr := corpus.Scan(ctx, osRoot, words.LookupWords(parsed.Terms))
		if serr != nil {
			return nil, serr
		}
		doc, err = answer(sc, verdict)
	}
	if err != nil {
		return nil, err
	}
	return renderSearch(doc, req.Format, req.Count), nil
}

// searcher is one search in flight.
type searcher struct {
	req    Request
	parsed question.Parsed
	wheres []where
	layer  string // the layer's folder, governance's included; "" for all
	window question.Window
	index  corpus.Index
	held   int
	// groups are the ranked matches of each group, by name.
	groups map[string]*rankedGroup
}

// rankedGroup is a group's matches: its count, the best of them in rank
// order (as many as a page can reach), and what makes each shown item.
type rankedGroup struct {
	count int
	state uint64
	top   []func() (searchItem, error)
}

// answer assembles the document: the first page of every group.
func (s *searcher) answer() *Answer {
	doc := &Answer{
		Query: s.parsed.Text, Terms: s.parsed.Terms, FilteredTerms: render.NonNil(s.parsed.Filtered),
		Window: s.window, AsOf: words.DayString(s.req.AsOf), Scope: provenance.ScopeProject,
		Filters:        Filters{Sources: render.NonNil(s.req.Sources), Layer: s.req.Layer, Where: render.NonNil(s.req.Where)},
		HeldBack:       s.held,
		Index:          render.IndexState{Path: s.index.Path, State: string(s.index.State), Reason: render.IndexReason(s.index.Reason)},
		RankingVersion: artifacts.RankingVersion, Notice: render.Notice,
	}
	for _, name := range searchGroups {
		doc.Groups = append(doc.Groups, s.group(name, 0))
	}
	doc.Coverage = searchCoverage(doc)
	if doc.Coverage.Grade == govern.GradeEmpty {
		doc.Empty = s.emptyReason()
		doc.Record = provenance.RecordLine
	}
	return doc
}

// group is the page of a group that starts at rank offset.
func (s *searcher) group(name string, offset int) *Group {
	rg := s.groups[name]
	out := &Group{Name: name, Offset: offset, Items: []searchItem{}}
	if rg == nil {
		return out
	}
	out.Count, out.state = rg.count, rg.state
	if s.req.Count {
		return out
	}
	end := min(offset+s.req.Limit, len(rg.top))
	for i := offset; i < end; i++ {
		it, err := rg.top[i]()
		if err != nil {
			// The item was read while ranking; a failure now is an
			// artifact that changed under the query.
			it = &searchFailed{Err: err.Error()}
		}
		out.Items = append(out.Items, it)
	}
	out.More = max(0, rg.count-max(end, offset))
	if out.More > 0 {
		out.Next = s.cursorOf(name, end, rg.state).String()
	}
	return out
}

// searchFailed stands for an item that could not be read again.
type searchFailed struct {
	Err string `json:"error"`
}

func (f *searchFailed) text() string { return "(unreadable: " + escape.Line(f.Err) + ")\n" }

// page replaces the answer's groups by the one page a cursor asks for.
func (s *searcher) page(doc *Answer, cur searchCursor) error {
	rg := s.groups[cur.group]
	var st uint64
	if rg != nil {
		st = rg.state
	}
	if s.cursorOf(cur.group, cur.offset, st) != cur {
		return &corpus.UsageError{Msg: fmt.Sprintf("--cursor %s was made for another query, other filters or an earlier state of the base; run the search again without --cursor and take the cursor it prints", cur)}
	}
	if rg == nil || cur.offset > rg.count {
		return &corpus.UsageError{Msg: fmt.Sprintf("--cursor %s is past the end of the group %q", cur, cur.group)}
	}
	doc.Groups = []*Group{s.group(cur.group, cur.offset)}
	return nil
}

// emptyReason says why nothing matched.
func (s *searcher) emptyReason() string {
	why := fmt.Sprintf("No record, page, term, note, suggestion or voice example holds %s", orList(s.parsed.Terms))
	var narrowed []string
	if s.window.Since != "" || s.window.Until != "" {
		narrowed = append(narrowed, "dated records from "+render.OrDash(s.window.Since)+" to "+render.OrDash(s.window.Until))
	}
	if s.req.Layer != "" {
		narrowed = append(narrowed, "the layer "+s.req.Layer)
	}
	if len(s.req.Sources) > 0 {
		narrowed = append(narrowed, "the sources "+strings.Join(s.req.Sources, ", "))
	}
	if len(s.req.Where) > 0 {
		narrowed = append(narrowed, "items where "+strings.Join(s.req.Where, " and "))
	}
	if len(narrowed) > 0 {
		why += " among " + strings.Join(narrowed, ", ")
	}
	why += "."
	if s.held > 0 {
		why += fmt.Sprintf(" %d received or private record(s) match and are held back; name their role in the query (category:received, visibility:private) to see them.", s.held)
	}
	return why
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// The kinds of context a by-content answer counts.
const (
	kindTerms    = "matching terms"
	kindApproved = "approved wording" // kept notes and voice examples
	kindEarlier  = "earlier work"     // records and pages
)

// searchCoverage grades a by-content answer (seed 004) by the kinds of
// context its groups hold, as govern.Grade grades every answer.
func searchCoverage(doc *Answer) provenance.Coverage {
	n := map[string]int{}
	for _, g := range doc.Groups {
		n[g.Name] = g.Count
	}
	cov := provenance.Coverage{Kinds: []string{}, Missing: []string{}, Pending: n[GroupSuggestions]}
	for _, k := range []struct {
		name string
		has  bool
	}{
		{kindTerms, n[GroupTerms] > 0},
		{kindApproved, n[GroupNotes]+n[GroupVoice] > 0},
		{kindEarlier, n[GroupRecords]+n[GroupPages] > 0},
	} {
		if k.has {
			cov.Kinds = append(cov.Kinds, k.name)
		} else {
			cov.Missing = append(cov.Missing, k.name)
		}
	}
	cov.Grade = govern.Grade(len(cov.Kinds), cov.Pending)
	return cov
}

// searchCursor is where the next page of a group starts, bound to the
// query, its filters and the group's matches: a cursor taken from one
// answer pages only that answer.
type searchCursor struct {
	group  string
	offset int
	bind   string // 16 hex digits
}

func (c searchCursor) String() string {
	return strings.ReplaceAll(c.group, " ", "-") + ":" + strconv.Itoa(c.offset) + ":" + c.bind
}

// parseCursor reads a cursor's shape; whether it binds this answer is
// checked once the answer is known.
func parseCursor(s string) (searchCursor, error) {
	bad := &corpus.UsageError{Msg: fmt.Sprintf("--cursor %q is not a search cursor; take the one an answer prints after \"and N more\"", s)}
	parts := strings.Split(s, ":")
	if len(parts) != 3 || len(parts[2]) != 16 {
		return searchCursor{}, bad
	}
	group := strings.ReplaceAll(parts[0], "-", " ")
	if !slices.Contains(searchGroups, group) {
		return searchCursor{}, bad
	}
	off, err := strconv.Atoi(parts[1])
	if err != nil || off < 0 {
		return searchCursor{}, bad
	}
	return searchCursor{group: group, offset: off, bind: parts[2]}, nil
}

// cursorOf is the cursor of a group's page at offset in this answer.
func (s *searcher) cursorOf(group string, offset int, state uint64) searchCursor {
	h := render.NewGroupHash()
	h.Add("search", strconv.Itoa(artifacts.RankingVersion), group, strconv.Itoa(offset), strconv.FormatUint(state, 16))
	h.Add(s.parsed.Terms...)
	h.Add(s.window.Since, s.window.Until, words.DayString(s.req.AsOf), s.req.Layer)
	h.Add(s.req.Sources...)
	h.Add(s.req.Where...)
	return searchCursor{group: group, offset: offset, bind: h.Sum()}
}

// searchLayer maps --layer to the layer's folder: a corpus layer, or
// governance.
func searchLayer(name string, l model.Layers) (string, error) {
	if name == "" {
		return "", nil
	}
	if name == layerGovernance {
		return l.Governance, nil
	}
	if d, ok := corpus.Layers(l)[name]; ok {
		return d, nil
	}
	return "", &corpus.UsageError{Msg: fmt.Sprintf("--layer %q is not a layer; use one of %s, %s", name, strings.Join(corpus.LayerNames, ", "), layerGovernance)}
}

// layerGovernance names the governance layer for --layer.
const layerGovernance = "governance"
