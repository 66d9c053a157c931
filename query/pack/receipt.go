package pack

import (
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/rank"
	"github.com/cairn-kb/cairn/query/render"
	"github.com/cairn-kb/cairn/query/words"
	"github.com/cairn-kb/cairn/stages/project"
)

// receipt fills everything the receipt knows before selection.
func (e *engine) receipt(rejected []RejectedPin) Receipt {
	cfg := e.Corpus.Config()
	r := Receipt{
		Query:             e.Parsed.Text,
		Terms:             render.NonNil(e.Parsed.Terms),
		FilteredTerms:     render.NonNil(e.Parsed.Filtered),
		Order:             e.orderName(),
		Window:            e.Window,
		AsOf:              words.DayString(e.req.AsOf),
		Budget:            e.req.Budget,
		Format:            e.req.Format,
		Candidates:        len(e.Pool),
		RejectedPins:      rejected,
		RelevanceFloor:    rank.RelevanceFloor,
		RecencyModel:      []HalfLife{},
		Index:             render.IndexState{Path: e.state.Path, State: string(e.state.State), Reason: render.IndexReason(e.state.Reason)},
		InputDigest:       e.digest,
		RankingVersion:    artifacts.RankingVersion,
		ToolVersion:       e.req.ToolVersion,
		Notice:            render.Notice,
		ConsultedBodies:   []string{},
		TruncatedEntities: render.NonNil(e.truncated),
		UnexpandedSeeds:   e.closedSeeds,
		Warning:           e.undated, // an empty pack says why instead (see warning)
	}
	e.deltaReceipt(&r)
	if len(e.Parsed.Terms) == 0 {
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

// undatedWarning is the warning of a pack whose window holds no dated
// item, events or task pages, so that all it holds is undated: a question
// about last week on a repository quiet for months would otherwise get
// pages with no word that nothing is dated then. It names the window and
// the dated day nearest it. A base with no dated item at all warns only
// when the query or the flags asked for a time: a plain question there
// is not about one.
func (e *engine) undatedWarning() (string, error) {
	if e.Win.Dated > 0 {
		return "", nil
	}
	near, before, err := words.NearestDatedDay(e.Corpus, e.Window.Until)
	if err != nil || (near == "" && e.Parsed.Window.DerivedFrom == "") {
		return "", err
	}
	w := fmt.Sprintf("the window %s..%s holds no dated evidence (events, task pages), only pages and snapshots that no window bounds", e.Window.Since, e.Window.Until)
	// A window the query's own words set cannot take a flag beside it
	// (that is an error), so the hint says to drop them.
	flag := "--since"
	if !before {
		flag = "--until"
	}
	reach := fmt.Sprintf("%s %s reaches it", flag, near)
	if strings.HasPrefix(e.Parsed.Window.DerivedFrom, "query:") {
		reach = fmt.Sprintf("ask without the query's time words and with %s %s to reach it", flag, near)
	}
	switch {
	case near == "":
		return w + "; the base holds no dated item", nil
	case before:
		return fmt.Sprintf("%s; the newest dated item is from %s (%s)", w, near, reach), nil
	}
	return fmt.Sprintf("%s; the next dated item is from %s (%s)", w, near, reach), nil
}

// warning says which of the three empty-pack cases happened: nothing in
// the window matched the query, matches stayed under the relevance floor,
// or matches above the floor could not fit the budget.
func (e *engine) warning(fitLost bool) string {
	switch {
	case len(e.Parsed.Terms) == 0 && len(e.req.Pins) == 0:
		return "empty pack: no candidates, the query has no terms left after normalisation (scaffolding words and words under three letters are dropped); ask with the words that matter"
	case len(e.Pool) == 0 && e.undated != "":
		// Nothing dated is in the window at all: that, with the dated day
		// nearest it, is what the user needs to widen it.
		return fmt.Sprintf("empty pack: no candidates match the query (%d items searched); %s", e.Win.N, e.undated)
	case len(e.Pool) == 0:
		return fmt.Sprintf("empty pack: no candidates in the window %s..%s match the query (%d items searched); widen it with --since/--until, check --as-of, or use other words", e.Window.Since, e.Window.Until, e.Win.N)
	case !fitLost && e.delta != nil && e.delta.sameOut > 0:
		return fmt.Sprintf("empty pack: nothing is new or changed since receipt %s; the %d candidates above the relevance floor (%d) are as the snapshot holds them, and %d of its URIs were deleted", e.delta.snap.Digest, e.delta.sameOut, rank.RelevanceFloor, len(e.delta.deleted))
	case !fitLost && e.policyOut > 0:
		return fmt.Sprintf("empty pack: %d items matched; those above the relevance floor (%d) are private or received records, which stay out unless the query names visibility:private, category:received or the record itself", len(e.Pool), rank.RelevanceFloor)
	case !fitLost:
		return fmt.Sprintf("empty pack: %d items matched but none scored above the relevance floor (%d); add a more specific term or name an identifier", len(e.Pool), rank.RelevanceFloor)
	}
	return fmt.Sprintf("empty pack: matching items do not fit the budget of %d tokens; raise --budget", e.req.Budget)
}

// consulted lists the admitted records whose verified cached body joined
// their ranking.
func (e *engine) consulted(admitted []*entry) []string {
	out := []string{}
	body := rank.FieldOrdinal(e.Corpus.Fields(), project.FieldBody)
	for _, en := range admitted {
		if en.s.Item != nil && hasBody(en.s.Key, body) && e.Corpus.HasBody(en.s.Row.URI) {
			out = append(out, en.s.Row.URI)
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
	w("ranking", strconv.Itoa(artifacts.RankingVersion), e.Corpus.SemanticsDigest())
	w(append([]string{"terms"}, e.Parsed.Terms...)...)
	w("window", e.Window.Since, e.Window.Until, words.DayString(e.req.AsOf), strconv.FormatBool(e.Parsed.Last), strconv.FormatBool(e.req.Expand))
	w(append([]string{"pins"}, e.req.Pins...)...)
	w("n", strconv.Itoa(e.Win.N))
	for _, t := range e.Terms {
		w("df", t.Term, strconv.Itoa(t.DF))
	}
	byOrd := func(a, b *rank.Scored) int { return a.Ord - b.Ord } // ordinal order is URI order
	pool := e.Pool
	if !slices.IsSortedFunc(pool, byOrd) {
		pool = slices.SortedFunc(slices.Values(pool), byOrd)
	}
	var digest [8]byte
	for _, s := range pool {
		binary.BigEndian.PutUint64(digest[:], s.Key.Digest) // it covers the URI
		h.WriteString("item\x1f")
		h.Write(digest[:]) // eight bytes, so no separator is needed
		h.WriteString("\x1e")
	}
	return artifacts.HashSum(h.Sum64())
}
