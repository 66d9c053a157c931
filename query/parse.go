package query

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-kb/cairn/stages/lex"
)

// Query limits (SPEC §10: a query that is too long is bad input).
const (
	queryMaxBytes = 1024
	queryMaxWords = 64
)

// dayLayout is the one date format of the command line and the receipt.
const queryDayLayout = "2006-01-02"

// untilOnlyDays is how many days --until alone reaches back, ending on
// (and counting) the --until day itself.
const untilAloneDays = 30

// weekdays maps the weekday names a temporal expression may use.
var weekdayNames = map[string]time.Weekday{
	"monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
	"sunday": time.Sunday,
}

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
//     (a "last" in the middle included) are dropped into Filtered.
//
// A query left without terms (only scaffolding, or only a temporal
// expression such as "what happened yesterday") is not an error: Terms is
// empty and the caller reports it (receipt.index query-too-short, an empty
// pack with its warning). On error the returned Parsed is incomplete and
// must not be used.
func Parse(words []string, asOf time.Time, since, until string) (Parsed, error) {
	var p Parsed
	for _, w := range words {
		if !utf8.ValidString(w) {
			return p, parseErrorf("the query is not valid UTF-8: retype it as text")
		}
	}
	chunks := strings.FieldsFunc(strings.Join(words, " "), func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	})
	p.Text = strings.Join(chunks, " ")
	switch {
	case len(chunks) == 0:
		return p, parseErrorf("give a query: the words to look for, e.g. cairn context \"release checklist\"")
	case len(p.Text) > queryMaxBytes:
		return p, parseErrorf("query too long: %d bytes, at most %d; keep the words that name what you look for", len(p.Text), queryMaxBytes)
	case len(chunks) > queryMaxWords:
		return p, parseErrorf("query too long: %d words, at most %d; keep the words that name what you look for", len(chunks), queryMaxWords)
	}
	y, m, d := asOf.UTC().Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)

	sinceDay, err := parseFlagDay("--since", since)
	if err != nil {
		return p, err
	}
	untilDay, err := parseFlagDay("--until", until)
	if err != nil {
		return p, err
	}

	// Set aside chunks that hold no letter or digit: they yield no term
	// and would hide an expression at the start or end.
	var rest []string
	for _, c := range chunks {
		if bareChunk(c) != "" {
			rest = append(rest, c)
		}
	}

	// 2. Leading scaffolding, but never "last".
	filtered := newOrderedSet()
	for len(rest) > 0 {
		w, ok := singleWordOf(rest[0])
		if !ok || w == "last" || !lex.Scaffolding[w] {
			break
		}
		filtered.add(w)
		rest = rest[1:]
	}

	// 3. The temporal expression.
	start, err := temporalAtStart(rest, today)
	if err != nil {
		return p, err
	}
	end, err := temporalAtEnd(rest, today)
	if err != nil {
		return p, err
	}
	var window *temporalExpr // the bound-deriving expression, if any
	if start != nil && end != nil && end.from < start.to {
		end = nil // one expression is the whole remaining query
	}
	for _, e := range []*temporalExpr{start, end} {
		if e == nil {
			continue
		}
		if e.last {
			p.Last = true
			continue
		}
		if window != nil {
			return p, parseErrorf("two temporal expressions, %q and %q: keep one, or give the bounds with --since and --until",
				window.written(rest), e.written(rest))
		}
		window = e
	}
	switch {
	case window != nil:
		p.Temporal = window.written(rest)
	case start != nil && start.last:
		p.Temporal = start.written(rest)
	case end != nil && end.last:
		p.Temporal = end.written(rest)
	}

	// 4. The window.
	switch {
	case window != nil && (since != "" || until != ""):
		flag := "--since"
		if since == "" {
			flag = "--until"
		}
		return p, parseErrorf("the query's %q already sets the window, so %s cannot be used with it: drop one of them", p.Temporal, flag)
	case window != nil:
		p.Window = Window{
			Since: fmtDay(window.since), Until: fmtDay(window.until),
			DerivedFrom: fmt.Sprintf("query: %s → %s..%s", window.canon, fmtDay(window.since), fmtDay(window.until)),
		}
	case since != "" && until != "":
		if sinceDay.After(untilDay) {
			return p, parseErrorf("--since %s is after --until %s: swap them", since, until)
		}
		p.Window = Window{Since: since, Until: until, DerivedFrom: "--since " + since + " --until " + until}
	case since != "":
		if sinceDay.After(today) {
			return p, parseErrorf("--since %s is after the as-of day %s: give an earlier day, or set --as-of", since, fmtDay(today))
		}
		p.Window = Window{Since: since, Until: fmtDay(today), DerivedFrom: "--since " + since}
	case until != "":
		p.Window = Window{
			Since: fmtDay(untilDay.AddDate(0, 0, 1-untilAloneDays)), Until: until,
			DerivedFrom: fmt.Sprintf("--until %s (%d days)", until, untilAloneDays),
		}
	}

	// Remove the expressions, then 5. the terms.
	var body []string
	for i, c := range rest {
		if !start.covers(i) && !end.covers(i) {
			body = append(body, c)
		}
	}
	terms := newOrderedSet()
	for _, c := range body {
		chunkTerms(c, terms.add, filtered.add)
	}
	p.Terms, p.Filtered = terms.list, filtered.list
	return p, nil
}

// parseFlagDay validates a --since or --until value.
func parseFlagDay(flag, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(queryDayLayout, v)
	if err != nil || !dayShaped(v) {
		return time.Time{}, parseErrorf("%s %q is not a valid date: give a day as YYYY-MM-DD, e.g. %s 2026-11-01", flag, v, flag)
	}
	return t, nil
}

// temporalExpr is a temporal expression found in the query: the chunks
// [from, to) of the remaining words.
type temporalExpr struct {
	from, to     int
	last         bool      // a bare "last": newest-first ordering, no bounds
	since, until time.Time // the resolved window when !last
	canon        string    // the expression lowercased, for derived_from
}

// covers reports whether chunk i belongs to e; a nil e covers nothing.
func (e *temporalExpr) covers(i int) bool { return e != nil && i >= e.from && i < e.to }

// written is the expression as the user wrote it, less the punctuation
// around it: "Last Friday?" gives "Last Friday".
func (e *temporalExpr) written(chunks []string) string {
	return strings.TrimFunc(strings.Join(chunks[e.from:e.to], " "), queryPunct)
}

// temporalAtStart finds the expression at the start of the chunks: a
// two-word form first, so "last week" and "last friday" win over a bare
// "last".
func temporalAtStart(chunks []string, today time.Time) (*temporalExpr, error) {
	if len(chunks) >= 2 {
		if e, err := temporal2(chunks[0], chunks[1], today); e != nil || err != nil {
			return placeTemporal(e, 0), err
		}
		if temporalWord(chunks[0]) == "since" {
			// "since friday" is not a form: say which date it would mean.
			if e, err := temporalAt(chunks[1:], 0, today); err == nil && e != nil && !e.last {
				return nil, sinceNeedsDate(chunks[:1+e.to], e)
			}
		}
	}
	if len(chunks) >= 1 {
		e, err := temporal1(chunks[0], today)
		return placeTemporal(e, 0), err
	}
	return nil, nil
}

// temporalAtEnd finds the expression at the end of the chunks, two-word
// forms first. A window expression right after "since" is an error.
func temporalAtEnd(chunks []string, today time.Time) (*temporalExpr, error) {
	n := len(chunks)
	var e *temporalExpr
	var err error
	if n >= 2 {
		e, err = temporal2(chunks[n-2], chunks[n-1], today)
		e = placeTemporal(e, n-2)
	}
	if e == nil && err == nil && n >= 1 {
		e, err = temporal1(chunks[n-1], today)
		e = placeTemporal(e, n-1)
	}
	if err != nil || e == nil {
		return e, err
	}
	if !e.last && e.from > 0 && !strings.HasPrefix(e.canon, "since ") && temporalWord(chunks[e.from-1]) == "since" {
		return nil, sinceNeedsDate(chunks[e.from-1:], e)
	}
	return e, nil
}

// temporalAt matches an expression at chunks[i:], two-word forms first.
func temporalAt(chunks []string, i int, today time.Time) (*temporalExpr, error) {
	if len(chunks)-i >= 2 {
		if e, err := temporal2(chunks[i], chunks[i+1], today); e != nil || err != nil {
			return placeTemporal(e, i), err
		}
	}
	if len(chunks)-i >= 1 {
		e, err := temporal1(chunks[i], today)
		return placeTemporal(e, i), err
	}
	return nil, nil
}

// sinceNeedsDate is the error for "since <expression>", which is not one of
// the closed forms; it names the date the user most likely meant.
func sinceNeedsDate(chunks []string, e *temporalExpr) error {
	written := strings.TrimFunc(strings.Join(chunks, " "), queryPunct)
	return parseErrorf("%q: since takes a day as YYYY-MM-DD; write \"since %s\" (or use --since %s)", written, fmtDay(e.since), fmtDay(e.since))
}

// placeTemporal sets where a matched expression sits.
func placeTemporal(e *temporalExpr, from int) *temporalExpr {
	if e != nil {
		e.from, e.to = from, from+e.to
	}
	return e
}

// temporal2 matches the two-word forms: "last week", "this week",
// "last <weekday>", "since YYYY-MM-DD". The returned temporalExpr has to == 2
// relative to its start.
func temporal2(a, b string, today time.Time) (*temporalExpr, error) {
	a, b = temporalWord(a), temporalWord(b)
	canon := a + " " + b
	switch {
	case a == "last" && b == "week":
		monday := today.AddDate(0, 0, -isoWeekOffset(today))
		return &temporalExpr{to: 2, since: monday.AddDate(0, 0, -7), until: monday.AddDate(0, 0, -1), canon: canon}, nil
	case a == "this" && b == "week":
		return &temporalExpr{to: 2, since: today.AddDate(0, 0, -isoWeekOffset(today)), until: today, canon: canon}, nil
	case a == "last" && isWeekdayName(b):
		back := (int(today.Weekday()) - int(weekdayNames[b]) + 7) % 7
		if back == 0 {
			back = 7 // strictly before the as-of day
		}
		t := today.AddDate(0, 0, -back)
		return &temporalExpr{to: 2, since: t, until: t, canon: canon}, nil
	case a == "since" && dayShaped(b):
		t, err := time.Parse(queryDayLayout, b)
		if err != nil {
			return nil, parseErrorf("%q is not a valid date: give a real day as YYYY-MM-DD", b)
		}
		if t.After(today) {
			return nil, parseErrorf("%q is after the as-of day %s: give an earlier day, or set --as-of", canon, fmtDay(today))
		}
		return &temporalExpr{to: 2, since: t, until: today, canon: canon}, nil
	case a == "since" && monthShaped(b):
		t, err := time.Parse("2006-01", b)
		if err != nil {
			return nil, parseErrorf("%q is not a valid month: give a real month as YYYY-MM", b)
		}
		return nil, parseErrorf("%q: since takes a day as YYYY-MM-DD; write \"since %s\" (or use --since %s)", canon, fmtDay(t), fmtDay(t))
	}
	return nil, nil
}

// temporal1 matches the one-word forms: "today", "yesterday", "<weekday>",
// "YYYY-MM", "YYYY-MM-DD" and the bare boundary operator "last".
//
// A plain weekday is the most recent such day on or before the as-of day:
// on a Tuesday "tuesday" means today and "friday" the Friday before,
// whereas "last tuesday" means a week ago. A date-shaped word that is not
// a real date ("2026-02-30", "2026-13") is an error, not a term.
func temporal1(a string, today time.Time) (*temporalExpr, error) {
	a = temporalWord(a)
	one := func(t time.Time) (*temporalExpr, error) {
		return &temporalExpr{to: 1, since: t, until: t, canon: a}, nil
	}
	switch {
	case a == "last":
		return &temporalExpr{to: 1, last: true, canon: a}, nil
	case a == "today":
		return one(today)
	case a == "yesterday":
		return one(today.AddDate(0, 0, -1))
	case isWeekdayName(a):
		return one(today.AddDate(0, 0, -((int(today.Weekday()) - int(weekdayNames[a]) + 7) % 7)))
	case dayShaped(a):
		t, err := time.Parse(queryDayLayout, a)
		if err != nil {
			return nil, parseErrorf("%q is not a valid date: give a real day as YYYY-MM-DD", a)
		}
		return one(t)
	case monthShaped(a):
		t, err := time.Parse("2006-01", a)
		if err != nil {
			return nil, parseErrorf("%q is not a valid month: give a real month as YYYY-MM", a)
		}
		return &temporalExpr{to: 1, since: t, until: t.AddDate(0, 1, -1), canon: a}, nil
	}
	return nil, nil
}

func isWeekdayName(w string) bool { _, ok := weekdayNames[w]; return ok }

// isoOffset is how many days t is past the Monday of its ISO week.
func isoWeekOffset(t time.Time) int { return (int(t.Weekday()) + 6) % 7 }

// dayShaped reports whether s looks like YYYY-MM-DD (digits and dashes in
// place); whether it is a real date is checked separately.
func dayShaped(s string) bool {
	return len(s) == 10 && s[7] == '-' && allDigits(s[8:]) && monthShaped(s[:7])
}

// monthShaped reports whether s looks like YYYY-MM.
func monthShaped(s string) bool {
	return len(s) == 7 && s[4] == '-' && allDigits(s[:4]) && allDigits(s[5:])
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func fmtDay(t time.Time) string { return t.Format(queryDayLayout) }

// queryPunct reports runes that are neither letters, digits, marks nor
// the underscore: the punctuation trimmed from around a word.
func queryPunct(r rune) bool {
	return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r))
}

// bareChunk is a chunk lowercased and trimmed of surrounding punctuation:
// "(Friday)," gives "friday".
func bareChunk(c string) string { return strings.TrimFunc(strings.ToLower(c), queryPunct) }

// temporalWord is the chunk as a temporal word: bare, without a possessive, so
// that "last week's notes" and "yesterday's standup" carry an expression.
func temporalWord(c string) string {
	w := bareChunk(c)
	for _, s := range []string{"'s", "’s"} {
		if t, ok := strings.CutSuffix(w, s); ok && t != "" {
			return t
		}
	}
	return w
}

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
