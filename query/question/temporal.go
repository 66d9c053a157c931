package question

import (
	"strings"
	"time"
)

// weekdayNames maps the weekday names a temporal expression may use.
var weekdayNames = map[string]time.Weekday{
	"monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
	"sunday": time.Sunday,
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

// isoWeekOffset is how many days t is past the Monday of its ISO week.
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
