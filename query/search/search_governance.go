package search

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"

	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/provenance"
	"github.com/cairn-kb/cairn/query/rank"
	"github.com/cairn-kb/cairn/query/render"
	"github.com/cairn-kb/cairn/query/words"
	"github.com/cairn-kb/cairn/stages/lib/govern"
	"github.com/cairn-kb/cairn/stages/lib/lex"
	"github.com/cairn-kb/cairn/stages/load"
)

// The field weights of governance entries, as the schema weighs a
// record's fields: the wording itself first, then what explains it.
const (
	weightWording     = 5 // a term's wording, a voice example's after
	weightReplacement = 3 // a term's replacement, a note's or suggestion's text
	weightExplanation = 2 // a definition, a voice example's before, a target
	weightAside       = 1 // a term's note, evidence, a voice example's why
)

// govEntry is one governance entry as a search ranks it: the identifiers
// that name it exactly, and its text by field.
type govEntry struct {
	key    string   // unique within its group, the tie-breaker
	ids    []string // exact names: a term's id, an op id, a target
	fields []govField
	item   func(score int) searchItem
}

type govField struct {
	weight int
	text   string
}

// searchGovernance matches the query against the terms store, the notes
// log and the voice profiles, read from the base as At reads them. Filters
// that only records and pages have (--source, --where, a corpus --layer)
// leave these groups empty.
func (s *searcher) searchGovernance(g load.Governance, usage *usageOnDemand) {
	if len(s.req.Sources) > 0 || len(s.wheres) > 0 || (s.layer != "" && s.layer != g.Config.Layers.Governance) {
		return
	}
	r := govern.New(govern.Governance{
		DefaultVoice: g.Config.Governance.DefaultVoice, Points: g.Config.Governance.Points,
		Axes: g.Config.Governance.Axes, Voices: g.Voices, Terms: g.Terms, Log: g.Log,
	})
	var terms, notes, suggestions, voices []govEntry
	for _, t := range g.Terms {
		item := &Term{
			URI: "term:" + t.ID, Term: render.Inert(t.Term), Status: t.Status, Kind: t.Kind,
			Replacement: render.Inert(t.Replacement), Definition: render.Inert(t.Definition), Note: render.Inert(t.Note),
		}
		terms = append(terms, govEntry{
			key: t.ID, ids: []string{t.ID, "term:" + t.ID},
			fields: []govField{{weightWording, t.Term}, {weightReplacement, t.Replacement}, {weightExplanation, t.Definition}, {weightAside, t.Note}},
			item: func(score int) searchItem {
				it := *item
				it.Score = score
				withUsage(&it, usage.get())
				return &it
			},
		})
	}
	for _, n := range r.Notes() {
		item := &Note{Status: "established", Target: n.Target, Text: render.Inert(n.Text), Op: n.Op, Actor: n.Actor,
			Evidence: render.InertAll(n.Evidence), Scope: n.Scope.Text()}
		notes = append(notes, govEntry{
			key: n.Op, ids: []string{n.Op, n.Target},
			fields: []govField{{weightReplacement, n.Text}, {weightExplanation, n.Target}, {weightAside, strings.Join(n.Evidence, " ")}},
			item:   func(score int) searchItem { it := *item; it.Score = score; return &it },
		})
	}
	for _, sg := range r.Suggestions() {
		item := &Suggestion{Target: sg.Target, Kind: sg.Kind, Status: sg.Status, Text: render.Inert(sg.Text), Actor: sg.Actor,
			Session: sg.Session, Evidence: render.InertAll(sg.Evidence), Op: sg.Op, ContestedBy: render.NonNil(sg.ContestedBy), Scope: sg.Scope.Text()}
		if st := sg.Standing; st != nil {
			item.Standing = &provenance.Standing{Sessions: st.Sessions, Corrections: st.Corrections, Merges: st.Merges, MergedIn: st.MergedIn}
		}
		suggestions = append(suggestions, govEntry{
			key: sg.Op, ids: []string{sg.Op, sg.Target},
			fields: []govField{{weightReplacement, sg.Text}, {weightExplanation, sg.Target}, {weightAside, strings.Join(sg.Evidence, " ")}},
			item:   func(score int) searchItem { it := *item; it.Score = score; return &it },
		})
	}
	for _, v := range g.Voices {
		for i, ex := range v.Examples {
			item := &VoiceExample{URI: "voice:" + v.Name, Example: i + 1, Before: render.Inert(ex.Before), After: render.Inert(ex.After), Why: render.Inert(ex.Why)}
			voices = append(voices, govEntry{
				key: fmt.Sprintf("%s\x00%06d", v.Name, i), ids: []string{v.Name, "voice:" + v.Name},
				fields: []govField{{weightWording, ex.After}, {weightExplanation, ex.Before}, {weightAside, ex.Why}},
				item:   func(score int) searchItem { it := *item; it.Score = score; return &it },
			})
		}
	}
	s.groups[GroupTerms] = s.rankEntries(terms)
	s.groups[GroupNotes] = s.rankEntries(notes)
	s.groups[GroupSuggestions] = s.rankEntries(suggestions)
	s.groups[GroupVoice] = s.rankEntries(voices)
}

// usageUnchecked is the usage counts' state in the provenance of a search
// that showed no term: their freshness was not needed, so not checked.
const usageUnchecked corpus.State = "unchecked"

// usageOnDemand checks the usage counts' freshness the first time an
// answer shows a term, and only then: a search that shows none has no use
// for them, and the check stats every content file.
type usageOnDemand struct {
	check func() provenance.Freshness
	once  sync.Once
	f     provenance.Freshness
	ran   bool
}

func (u *usageOnDemand) get() provenance.Freshness {
	u.once.Do(func() { u.f, u.ran = u.check(), true })
	return u.f
}

// state is the counts' freshness for the answer's provenance: what get
// found, or that no term shown needed them.
func (u *usageOnDemand) state() provenance.Freshness {
	if !u.ran {
		return provenance.Freshness{State: usageUnchecked, Reason: "no term of this answer shows its uses"}
	}
	return u.f
}

// withUsage adds a term's uses as of the last build, looked up in
// usage.tsv only for a term an answer shows.
func withUsage(it *Term, fresh provenance.Freshness) {
	sum, _, ok, err := fresh.Lookup(strings.TrimPrefix(it.URI, "term:"), provenance.SearchTopUses)
	switch {
	case err != nil:
		it.UsesAsOf = "not counted: " + err.Error() + "; run cairn build"
	case !ok:
		it.UsesAsOf = "not counted: the artifacts are " + string(fresh.State) + "; run cairn build"
	default:
		n := sum.Total
		it.Uses, it.UsesAsOf, it.TopUses = &n, usesAsOf, make([]Use, 0, len(sum.Top))
		for _, u := range sum.Top {
			it.TopUses = append(it.TopUses, Use{Path: u.Path, Count: u.Count})
		}
	}
}

// usesAsOf labels usage counts: they describe the content files as the
// last build saw them.
const usesAsOf = "the last build"

// rankEntries scores a group's entries with context's arithmetic, the
// group standing for the window: a term naming an entry exactly gives
// pointsIdentifier; otherwise termPoints of the term's idf among the
// group's entries and its weighted frequency, an occurrence counting 100
// times its field's weight and a folded variant's foldedPercent. Entries
// are not length-normalised: they are a line or two each. The order is
// the score, then the entry's key.
func (s *searcher) rankEntries(entries []govEntry) *rankedGroup {
	type scoredEntry struct {
		e     *govEntry
		score int
	}
	terms := s.parsed.Terms
	// tf[i][t] is term t's weighted frequency in entry i, -1 for an exact
	// identifier match, 0 for none.
	tf := make([][]int, len(entries))
	df := make([]int, len(terms))
	needles := words.LookupWords(terms) // the terms and their folded variants
	for i := range entries {
		tf[i] = make([]int, len(terms))
		if !mayHold(&entries[i], needles) {
			continue
		}
		toks := make([]map[string]int, len(entries[i].fields))
		for f, fl := range entries[i].fields {
			toks[f] = tokenCounts(fl.text)
		}
		for t, term := range terms {
			if exactlyNames(entries[i].ids, term) {
				tf[i][t] = -1
				df[t]++
				continue
			}
			for f, fl := range entries[i].fields {
				own, folded := termCount(toks[f], term, terms)
				tf[i][t] += fl.weight * (own*100 + folded*rank.FoldedPercent)
			}
			if tf[i][t] > 0 {
				df[t]++
			}
		}
	}
	before := func(a, b scoredEntry) bool {
		if a.score != b.score {
			return a.score > b.score
		}
		return a.e.key < b.e.key
	}
	top := newTopK(s.reach(), before)
	rg := &rankedGroup{}
	h := xxhash.New()
	var sortedKeys []string
	for i := range entries {
		score, matched := 0, false
		for t := range terms {
			switch {
			case tf[i][t] < 0:
				score += rank.PointsIdentifier
				matched = true
			case tf[i][t] > 0:
				score += rank.TermPoints(words.IDF(len(entries), df[t]), tf[i][t])
				matched = true
			}
		}
		if !matched {
			continue
		}
		rg.count++
		sortedKeys = append(sortedKeys, entries[i].key+"\x1f"+strconv.Itoa(score))
		top.offer(scoredEntry{&entries[i], score})
	}
	slices.Sort(sortedKeys)
	for _, k := range sortedKeys {
		h.WriteString(k)
		h.WriteString("\x1e")
	}
	rg.state = h.Sum64()
	for _, se := range top.sorted() {
		rg.top = append(rg.top, func() (searchItem, error) { return se.e.item(se.score), nil })
	}
	return rg
}

// mayHold reports whether an entry can match a needle at all: one of its
// names is a needle, or its text holds one, ignoring case. Every token the
// tokeniser finds is lowercased text of the entry, so an entry that fails
// this has no token to count, and is not tokenised.
func mayHold(e *govEntry, needles []string) bool {
	for _, n := range needles {
		if exactlyNames(e.ids, n) {
			return true
		}
		for _, f := range e.fields {
			if rank.ContainsLower(f.text, n) {
				return true
			}
		}
	}
	return false
}

// exactlyNames reports whether a query term is one of an entry's exact
// names, whatever its case.
func exactlyNames(ids []string, term string) bool {
	for _, id := range ids {
		if id != "" && strings.EqualFold(id, term) {
			return true
		}
	}
	return false
}

// tokenCounts are a text's indexed terms by the tokeniser's rules: words
// of lex.MinPlainRunes runes or more, and identifier tokens.
func tokenCounts(text string) map[string]int {
	out := map[string]int{}
	lex.Tokens(text, func(w string, runes int) {
		if runes >= lex.MinPlainRunes {
			out[w]++
		}
	}, func(id string) { out[id]++ })
	return out
}

// termCount is how often a query term occurs among a field's tokens, as
// gatherPostings finds it (an identifier-shaped term in every token that
// holds it), and how often its folded variants do.
func termCount(toks map[string]int, term string, all []string) (own, folded int) {
	if lex.IsIdentifierShaped(term) {
		for tok, n := range toks {
			if strings.Contains(tok, term) {
				own += n
			}
		}
	} else {
		own = toks[term]
	}
	for _, v := range words.FoldedVariants(term, all) {
		folded += toks[v]
	}
	return own, folded
}

// Term is an entry of the terms store that matches.
type Term struct {
	Score       int    `json:"score"`
	URI         string `json:"uri"`
	Term        string `json:"term"`
	Status      string `json:"status"`
	Kind        string `json:"kind,omitempty"`
	Replacement string `json:"replacement,omitempty"`
	Definition  string `json:"definition,omitempty"`
	Note        string `json:"note,omitempty"`
	// Uses counts the term in the content files, and TopUses are the files
	// using it most, as of the last build (UsesAsOf); both are absent when
	// the build is not current.
	Uses     *int   `json:"uses,omitempty"`
	TopUses  []Use  `json:"top_uses,omitempty"`
	UsesAsOf string `json:"uses_as_of"`
}

// Use is how often one content file uses a term.
type Use struct {
	Path  string `json:"path"`
	Count int    `json:"count"`
}

func (t *Term) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s %q status=%s", t.Score, t.URI, t.Term, t.Status)
	if t.Kind != "" {
		fmt.Fprintf(&b, " kind=%s", t.Kind)
	}
	if t.Replacement != "" {
		fmt.Fprintf(&b, " replacement=%q", t.Replacement)
	}
	b.WriteString(" · uses: ")
	if t.Uses == nil {
		b.WriteString(t.UsesAsOf)
	} else {
		fmt.Fprintf(&b, "%d as of %s", *t.Uses, t.UsesAsOf)
		for i, u := range t.TopUses {
			sep := ", "
			if i == 0 {
				sep = " (top: "
			}
			fmt.Fprintf(&b, "%s%s %d", sep, u.Path, u.Count)
		}
		if len(t.TopUses) > 0 {
			b.WriteString(")")
		}
	}
	b.WriteByte('\n')
	if t.Definition != "" || t.Note != "" {
		fmt.Fprintf(&b, "  %s\n", strings.TrimPrefix(t.Definition+prefixed(" · ", t.Note), " · "))
	}
	return b.String()
}

func prefixed(sep, s string) string {
	if s == "" {
		return ""
	}
	return sep + s
}

// Note is a note a person kept that matches.
type Note struct {
	Score    int      `json:"score"`
	Status   string   `json:"status"`
	Target   string   `json:"target"`
	Text     string   `json:"text"`
	Op       string   `json:"op"`
	Actor    string   `json:"actor"`
	Evidence []string `json:"evidence"`
	Scope    string   `json:"scope"`
}

func (n *Note) text() string {
	return fmt.Sprintf("%d %s %s · op=%s actor=%s scope=%s\n  %s\n", n.Score, n.Target, n.Status, n.Op, n.Actor, n.Scope, n.Text)
}

// Suggestion is a position nobody has decided on that matches.
type Suggestion struct {
	Score       int                  `json:"score"`
	Target      string               `json:"target"`
	Kind        string               `json:"kind"`
	Status      string               `json:"status"`
	Text        string               `json:"text"`
	Actor       string               `json:"actor"`
	Session     string               `json:"session,omitempty"`
	Evidence    []string             `json:"evidence"`
	Op          string               `json:"op"`
	ContestedBy []string             `json:"contested_by"`
	Scope       string               `json:"scope"`
	Standing    *provenance.Standing `json:"standing,omitempty"`
}

func (sg *Suggestion) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s %s %s · op=%s actor=%s", sg.Score, sg.Target, sg.Status, sg.Kind, sg.Op, sg.Actor)
	if sg.Session != "" {
		fmt.Fprintf(&b, " session=%s", sg.Session)
	}
	if len(sg.ContestedBy) > 0 {
		fmt.Fprintf(&b, " contested_by=%s", strings.Join(sg.ContestedBy, ","))
	}
	if st := sg.Standing; st != nil {
		fmt.Fprintf(&b, " · seen in %d session(s), %d correction(s), %d merge(s)", st.Sessions, st.Corrections, st.Merges)
	}
	fmt.Fprintf(&b, "\n  %s\n", sg.Text)
	return b.String()
}

// VoiceExample is a before/after example of a voice profile that
// matches.
type VoiceExample struct {
	Score   int    `json:"score"`
	URI     string `json:"uri"`
	Example int    `json:"example"` // its place in the profile, from 1
	Before  string `json:"before"`
	After   string `json:"after"`
	Why     string `json:"why"`
}

func (v *VoiceExample) text() string {
	return fmt.Sprintf("%d %s example %d\n  before: %s\n  after: %s\n  why: %s\n", v.Score, v.URI, v.Example, v.Before, v.After, v.Why)
}
