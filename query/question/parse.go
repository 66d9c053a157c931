package question

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-kb/cairn/stages/lib/lex"
)

// Query limits (SPEC §10: a query that is too long is bad input).
const (
	queryMaxBytes = 1024
	queryMaxWords = 64
)

// queryDayLayout is the one date format of the command line and the receipt.
const queryDayLayout = "2006-01-02"

// untilAloneDays is how many days --until alone reaches back, ending on
// (and counting) the --until day itself.
const untilAloneDays = 30

// Window is a resolved candidate window over dated layers. Empty Since/Until mean unbounded on that side before defaults apply.
type Window struct {
	Since       string `json:"since"`        // YYYY-MM-DD or ""
	Until       string `json:"until"`        // YYYY-MM-DD or ""
	DerivedFrom string `json:"derived_from"` // how it was decided, e.g. "query: last friday → 2026-11-06..2026-11-06", "--since 2026-11-01", "" when no bound was given
}

// Parsed is a normalised query.
type Parsed struct {
	Text     string   // the query as given (words joined by single spaces)
	Terms    []string // query terms after normalisation, de-duplicated, in first-appearance order
	Filtered []string // words dropped: scaffolding words and plain words shorter than 3 runes, lowercased, de-duplicated, in order
	Last     bool     // the boundary operator "last" is active (newest-first ordering)
	Window   Window   // explicit or derived bounds (no defaults applied)
	Temporal string   // the temporal expression removed from the query, as written ("last friday", "2026-11"), or ""
}

// ParseError is invalid query input; the CLI exits 2.
type ParseError struct{ Msg string }

func (e *ParseError) Error() string { return e.Msg }

// ExitCode is 2: the input was bad, nothing ran.
func (e *ParseError) ExitCode() int { return 2 }

func parseErrorf(format string, args ...any) error {
	return &ParseError{Msg: fmt.Sprintf(format, args...)}
}

// Parse normalises a query at the as-of day. since/until are the --since/--until flags ("" if unset, else YYYY-MM-DD, validated here).
//
// The steps, in order:
//
//  1. The words are split again on white space and control characters and
//     joined with single spaces: that is Text. It must be valid UTF-8,
//     non-empty, at most 1024 bytes and at most 64 words. Chunks with no
//     letter or digit at all ("—", "?") carry nothing and are set aside.
//  2. Leading scaffolding is trimmed (into Filtered), stopping at the first
//     word that is not scaffolding or is "last", so "Take my last meeting
//     notes" exposes the boundary operator.
//  3. At most one bound-deriving temporal expression is accepted at the
//     start or the end of what remains (see temporal1 and temporal2), and a
//     bare "last" may sit at the other end. They are removed; the window is
//     resolved at the as-of day (the UTC date of asOf).
//  4. The flags are validated and combined with it into the Window.
//  5. The rest becomes Terms exactly as the index tokenises text
//     (lex.Identifiers and lex.Words): identifier-shaped tokens are
//     one term; plain words need MinPlainRunes runes; scaffolding words
//     are dropped into Filtered; a "last" in the middle is a term.
//
// A query left without terms (only scaffolding, or only a temporal
// expression such as "what happened yesterday") is not an error: Terms is
// empty and the caller reports it (receipt.index query-too-short, an empty
// pack with its warning). On error the returned Parsed is incomplete and
// must not be used.
func Parse(words []string, asOf time.Time, since, until string) (Parsed, error) {
	var ps parsing
	if err := ps.split(words); err != nil {
		return ps.p, err
	}
	y, m, d := asOf.UTC().Date()
	ps.today = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	sinceDay, err := FlagDay("--since", since)
	if err != nil {
		return ps.p, err
	}
	untilDay, err := FlagDay("--until", until)
	if err != nil {
		return ps.p, err
	}
	ps.setAsideBare()
	ps.trimScaffolding()
	if err := ps.findTemporal(); err != nil {
		return ps.p, err
	}
	if err := ps.combineWindow(since, until, sinceDay, untilDay); err != nil {
		return ps.p, err
	}
	ps.takeTerms()
	return ps.p, nil
}

// parsing is a query being parsed: the Parsed so far and what the steps
// hand on to the next.
type parsing struct {
	p          Parsed
	today      time.Time     // the as-of day, at midnight UTC
	chunks     []string      // the query split on white space (step 1)
	rest       []string      // the chunks still to read
	filtered   *orderedSet   // the words dropped so far
	start, end *temporalExpr // the expressions at either end of rest, if any
	window     *temporalExpr // the bound-deriving one of them, if any
}

// split checks the words and splits them into chunks (step 1).
func (ps *parsing) split(words []string) error {
	for _, w := range words {
		if !utf8.ValidString(w) {
			return parseErrorf("the query is not valid UTF-8: retype it as text")
		}
	}
	ps.chunks = strings.FieldsFunc(strings.Join(words, " "), func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	})
	ps.p.Text = strings.Join(ps.chunks, " ")
	switch {
	case len(ps.chunks) == 0:
		return parseErrorf("give a query: the words to look for, e.g. cairn context \"release checklist\"")
	case len(ps.p.Text) > queryMaxBytes:
		return parseErrorf("query too long: %d bytes, at most %d; keep the words that name what you look for", len(ps.p.Text), queryMaxBytes)
	case len(ps.chunks) > queryMaxWords:
		return parseErrorf("query too long: %d words, at most %d; keep the words that name what you look for", len(ps.chunks), queryMaxWords)
	}
	return nil
}

// setAsideBare sets aside chunks that hold no letter or digit (step 1):
// they yield no term and would hide an expression at the start or end.
func (ps *parsing) setAsideBare() {
	for _, c := range ps.chunks {
		if bareChunk(c) != "" {
			ps.rest = append(ps.rest, c)
		}
	}
}

// trimScaffolding drops leading scaffolding, but never "last" (step 2).
func (ps *parsing) trimScaffolding() {
	ps.filtered = newOrderedSet()
	for len(ps.rest) > 0 {
		w, ok := singleWordOf(ps.rest[0])
		if !ok || w == "last" || !lex.Scaffolding[w] {
			break
		}
		ps.filtered.add(w)
		ps.rest = ps.rest[1:]
	}
}

// findTemporal finds the temporal expressions at the ends of the rest,
// at most one of them bound-deriving, and notes them in Last and Temporal
// (step 3).
func (ps *parsing) findTemporal() error {
	var err error
	if ps.start, err = temporalAtStart(ps.rest, ps.today); err != nil {
		return err
	}
	if ps.end, err = temporalAtEnd(ps.rest, ps.today); err != nil {
		return err
	}
	if ps.start != nil && ps.end != nil && ps.end.from < ps.start.to {
		ps.end = nil // one expression is the whole remaining query
	}
	for _, e := range []*temporalExpr{ps.start, ps.end} {
		if e == nil {
			continue
		}
		if e.last {
			ps.p.Last = true
			continue
		}
		if ps.window != nil {
			return parseErrorf("two temporal expressions, %q and %q: keep one, or give the bounds with --since and --until",
				ps.window.written(ps.rest), e.written(ps.rest))
		}
		ps.window = e
	}
	switch {
	case ps.window != nil:
		ps.p.Temporal = ps.window.written(ps.rest)
	case ps.start != nil && ps.start.last:
		ps.p.Temporal = ps.start.written(ps.rest)
	case ps.end != nil && ps.end.last:
		ps.p.Temporal = ps.end.written(ps.rest)
	}
	return nil
}

// combineWindow combines the expression and the flags into the Window
// (step 4); the flags' days are already validated.
func (ps *parsing) combineWindow(since, until string, sinceDay, untilDay time.Time) error {
	window, today := ps.window, ps.today
	switch {
	case window != nil && (since != "" || until != ""):
		flag := "--since"
		if since == "" {
			flag = "--until"
		}
		return parseErrorf("the query's %q already sets the window, so %s cannot be used with it: drop one of them", ps.p.Temporal, flag)
	case window != nil:
		ps.p.Window = Window{
			Since: fmtDay(window.since), Until: fmtDay(window.until),
			DerivedFrom: fmt.Sprintf("query: %s → %s..%s", window.canon, fmtDay(window.since), fmtDay(window.until)),
		}
	case since != "" && until != "":
		if sinceDay.After(untilDay) {
			return parseErrorf("--since %s is after --until %s: swap them", since, until)
		}
		ps.p.Window = Window{Since: since, Until: until, DerivedFrom: "--since " + since + " --until " + until}
	case since != "":
		if sinceDay.After(today) {
			return parseErrorf("--since %s is after the as-of day %s: give an earlier day, or set --as-of", since, fmtDay(today))
		}
		ps.p.Window = Window{Since: since, Until: fmtDay(today), DerivedFrom: "--since " + since}
	case until != "":
		ps.p.Window = Window{
			Since: fmtDay(untilDay.AddDate(0, 0, 1-untilAloneDays)), Until: until,
			DerivedFrom: fmt.Sprintf("--until %s (%d days)", until, untilAloneDays),
		}
	}
	return nil
}

// takeTerms removes the expressions and makes Terms of the rest (step 5).
func (ps *parsing) takeTerms() {
	terms := newOrderedSet()
	for i, c := range ps.rest {
		if ps.start.covers(i) || ps.end.covers(i) {
			continue
		}
		if w, ok := singleWordOf(c); ok && w == "last" {
			// Only a "last" at either end is the boundary operator; in
			// the middle ("released after its last use") it is a word
			// the question needs.
			terms.add(w)
			continue
		}
		chunkTerms(c, terms.add, ps.filtered.add)
	}
	ps.p.Terms, ps.p.Filtered = terms.list, ps.filtered.list
}

// FlagDay validates a --since or --until value: a day, YYYY-MM-DD, or
// nothing.
func FlagDay(flag, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(queryDayLayout, v)
	if err != nil || !dayShaped(v) {
		return time.Time{}, parseErrorf("%s %q is not a valid date: give a day as YYYY-MM-DD, e.g. %s 2026-11-01", flag, v, flag)
	}
	return t, nil
}

// queryPunct reports runes that are neither letters, digits, marks nor
// the underscore: the punctuation trimmed from around a word.
func queryPunct(r rune) bool {
	return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r))
}

// bareChunk is a chunk lowercased and trimmed of surrounding punctuation:
// "(Friday)," gives "friday".
func bareChunk(c string) string { return strings.TrimFunc(strings.ToLower(c), queryPunct) }

// singleWordOf returns the chunk's one word (as lex.Words reads it) when
// it has exactly one and no identifier: "Please," is "please", but
// "what's" and "how-to" are not single words.
func singleWordOf(c string) (string, bool) {
	var ws []string
	lex.Words(c, func(w string, _ int) { ws = append(ws, w) })
	ids := 0
	lex.Identifiers(c, func(string) { ids++ })
	if len(ws) != 1 || ids != 0 {
		return "", false
	}
	return ws[0], true
}

// chunkTerms splits one whitespace-separated chunk exactly as the index
// tokenises text, so a query term matches an indexed token: each
// identifier token (lex.Identifiers: a run of word and URI runes,
// trimmed of punctuation at its ends, holding - / : @ .) is ONE term and
// its inner words are not terms of their own; the words outside
// identifiers (lex.Words) are terms when they have MinPlainRunes runes
// and are not scaffolding, and are dropped otherwise.
//
// "(HAR-142)," gives the term "har-142"; "HAR-142's" gives "har-142" and
// drops "s"; "what's" drops "what" and "s".
func chunkTerms(c string, term, drop func(string)) {
	lc := strings.ToLower(c)
	plain := func(s string) {
		lex.Words(s, func(w string, runes int) {
			if lex.Scaffolding[w] || runes < lex.MinPlainRunes {
				drop(w)
			} else {
				term(w)
			}
		})
	}
	pos := 0
	lex.Identifiers(c, func(id string) {
		if !lex.IsIdentifierShaped(id) || utf8.RuneCountInString(id) < lex.MinIdentRunes {
			return
		}
		// The identifier is the next occurrence of its text: the runs
		// before it held no identifier, so they cannot contain it.
		i := strings.Index(lc[pos:], id)
		if i < 0 {
			return
		}
		plain(lc[pos : pos+i])
		term(id)
		pos += i + len(id)
	})
	plain(lc[pos:])
}

// orderedSet is an ordered set of strings.
type orderedSet struct {
	seen map[string]bool
	list []string
}

func newOrderedSet() *orderedSet { return &orderedSet{seen: map[string]bool{}} }

func (s *orderedSet) add(v string) {
	if !s.seen[v] {
		s.seen[v] = true
		s.list = append(s.list, v)
	}
}
