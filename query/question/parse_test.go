package question

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cairn-kb/cairn/stages/lib/lex"
)

func asOfDay(t *testing.T, s string) time.Time {
	t.Helper()
	d, err := time.Parse("2006-01-02", s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// tuesday is the as-of day of most cases: Tuesday 2026-11-10.
const tuesday = "2026-11-10"

func TestParse(t *testing.T) {
	win := func(since, until, from string) Window { return Window{Since: since, Until: until, DerivedFrom: from} }
	q := func(expr, since, until string) Window {
		return win(since, until, "query: "+expr+" → "+since+".."+until)
	}
	cases := []struct {
		name         string
		query        string
		asOf         string // default tuesday
		since, until string
		want         Parsed // Text defaults to query
	}{
		// Every temporal form at the end, at Tuesday 2026-11-10.
		{name: "today", query: "harbor notes today",
			want: Parsed{Terms: []string{"harbor", "notes"}, Temporal: "today", Window: q("today", "2026-11-10", "2026-11-10")}},
		{name: "yesterday", query: "harbor notes yesterday",
			want: Parsed{Terms: []string{"harbor", "notes"}, Temporal: "yesterday", Window: q("yesterday", "2026-11-09", "2026-11-09")}},
		{name: "this week", query: "harbor notes this week",
			want: Parsed{Terms: []string{"harbor", "notes"}, Temporal: "this week", Window: q("this week", "2026-11-09", "2026-11-10")}},
		{name: "last week", query: "harbor notes last week",
			want: Parsed{Terms: []string{"harbor", "notes"}, Temporal: "last week", Window: q("last week", "2026-11-02", "2026-11-08")}},
		{name: "monday", query: "standup monday",
			want: Parsed{Terms: []string{"standup"}, Temporal: "monday", Window: q("monday", "2026-11-09", "2026-11-09")}},
		{name: "tuesday is the as-of day itself", query: "standup tuesday",
			want: Parsed{Terms: []string{"standup"}, Temporal: "tuesday", Window: q("tuesday", "2026-11-10", "2026-11-10")}},
		{name: "wednesday", query: "standup wednesday",
			want: Parsed{Terms: []string{"standup"}, Temporal: "wednesday", Window: q("wednesday", "2026-11-04", "2026-11-04")}},
		{name: "thursday", query: "standup thursday",
			want: Parsed{Terms: []string{"standup"}, Temporal: "thursday", Window: q("thursday", "2026-11-05", "2026-11-05")}},
		{name: "friday", query: "standup friday",
			want: Parsed{Terms: []string{"standup"}, Temporal: "friday", Window: q("friday", "2026-11-06", "2026-11-06")}},
		{name: "saturday", query: "standup saturday",
			want: Parsed{Terms: []string{"standup"}, Temporal: "saturday", Window: q("saturday", "2026-11-07", "2026-11-07")}},
		{name: "sunday", query: "standup sunday",
			want: Parsed{Terms: []string{"standup"}, Temporal: "sunday", Window: q("sunday", "2026-11-08", "2026-11-08")}},
		{name: "last monday", query: "standup last monday",
			want: Parsed{Terms: []string{"standup"}, Temporal: "last monday", Window: q("last monday", "2026-11-09", "2026-11-09")}},
		{name: "last tuesday is a week ago", query: "standup last tuesday",
			want: Parsed{Terms: []string{"standup"}, Temporal: "last tuesday", Window: q("last tuesday", "2026-11-03", "2026-11-03")}},
		{name: "last wednesday", query: "standup last wednesday",
			want: Parsed{Terms: []string{"standup"}, Temporal: "last wednesday", Window: q("last wednesday", "2026-11-04", "2026-11-04")}},
		{name: "last thursday", query: "standup last thursday",
			want: Parsed{Terms: []string{"standup"}, Temporal: "last thursday", Window: q("last thursday", "2026-11-05", "2026-11-05")}},
		{name: "last friday", query: "standup last friday",
			want: Parsed{Terms: []string{"standup"}, Temporal: "last friday", Window: q("last friday", "2026-11-06", "2026-11-06")}},
		{name: "last saturday", query: "standup last saturday",
			want: Parsed{Terms: []string{"standup"}, Temporal: "last saturday", Window: q("last saturday", "2026-11-07", "2026-11-07")}},
		{name: "last sunday", query: "standup last sunday",
			want: Parsed{Terms: []string{"standup"}, Temporal: "last sunday", Window: q("last sunday", "2026-11-08", "2026-11-08")}},
		{name: "month", query: "release 2026-11",
			want: Parsed{Terms: []string{"release"}, Temporal: "2026-11", Window: q("2026-11", "2026-11-01", "2026-11-30")}},
		{name: "february in a leap year", query: "release 2028-02",
			want: Parsed{Terms: []string{"release"}, Temporal: "2028-02", Window: q("2028-02", "2028-02-01", "2028-02-29")}},
		{name: "february in a common year", query: "release 2026-02",
			want: Parsed{Terms: []string{"release"}, Temporal: "2026-02", Window: q("2026-02", "2026-02-01", "2026-02-28")}},
		{name: "day", query: "release 2026-11-05",
			want: Parsed{Terms: []string{"release"}, Temporal: "2026-11-05", Window: q("2026-11-05", "2026-11-05", "2026-11-05")}},
		{name: "leap day", query: "release 2028-02-29",
			want: Parsed{Terms: []string{"release"}, Temporal: "2028-02-29", Window: q("2028-02-29", "2028-02-29", "2028-02-29")}},
		{name: "since", query: "release since 2026-11-01",
			want: Parsed{Terms: []string{"release"}, Temporal: "since 2026-11-01", Window: q("since 2026-11-01", "2026-11-01", "2026-11-10")}},
		{name: "since the as-of day", query: "release since 2026-11-10",
			want: Parsed{Terms: []string{"release"}, Temporal: "since 2026-11-10", Window: q("since 2026-11-10", "2026-11-10", "2026-11-10")}},

		// At the start, any case, with punctuation around it.
		{name: "expression at the start", query: "Yesterday: harbor deploy",
			want: Parsed{Terms: []string{"harbor", "deploy"}, Temporal: "Yesterday", Window: q("yesterday", "2026-11-09", "2026-11-09")}},
		{name: "two-word expression at the start", query: "LAST WEEK harbor",
			want: Parsed{Terms: []string{"harbor"}, Temporal: "LAST WEEK", Window: q("last week", "2026-11-02", "2026-11-08")}},
		{name: "since at the start", query: "since 2026-11-01 harbor",
			want: Parsed{Terms: []string{"harbor"}, Temporal: "since 2026-11-01", Window: q("since 2026-11-01", "2026-11-01", "2026-11-10")}},
		{name: "punctuation around the expression", query: "harbor notes, last Friday?",
			want: Parsed{Terms: []string{"harbor", "notes"}, Temporal: "last Friday", Window: q("last friday", "2026-11-06", "2026-11-06")}},
		{name: "possessive", query: "yesterday's standup",
			want: Parsed{Terms: []string{"standup"}, Temporal: "yesterday's", Window: q("yesterday", "2026-11-09", "2026-11-09")}},
		{name: "possessive after scaffolding", query: "Show me last week's notes",
			want: Parsed{Terms: []string{"notes"}, Filtered: []string{"show", "me"}, Temporal: "last week's", Window: q("last week", "2026-11-02", "2026-11-08")}},
		{name: "only an expression", query: "last week",
			want: Parsed{Temporal: "last week", Window: q("last week", "2026-11-02", "2026-11-08")}},
		{name: "scaffolding exposes the expression", query: "What did I do yesterday?",
			want: Parsed{Filtered: []string{"what", "did", "i", "do"}, Temporal: "yesterday", Window: q("yesterday", "2026-11-09", "2026-11-09")}},
		{name: "punctuation-only chunks", query: "— harbor deploy yesterday ?",
			want: Parsed{Terms: []string{"harbor", "deploy"}, Temporal: "yesterday", Window: q("yesterday", "2026-11-09", "2026-11-09")}},
		{name: "expression in the middle is text", query: "deploy yesterday harbor",
			want: Parsed{Terms: []string{"deploy", "yesterday", "harbor"}}},
		{name: "date in the middle is an identifier term", query: "deploy 2026-11-05 harbor",
			want: Parsed{Terms: []string{"deploy", "2026-11-05", "harbor"}}},
		{name: "since without a date is a word", query: "harbor since",
			want: Parsed{Terms: []string{"harbor", "since"}}},

		// Across month and year boundaries, and on a Sunday.
		{name: "this week across a month", query: "this week notes", asOf: "2026-12-02",
			want: Parsed{Terms: []string{"notes"}, Temporal: "this week", Window: q("this week", "2026-11-30", "2026-12-02")}},
		{name: "last week across a month", query: "last week notes", asOf: "2026-11-04",
			want: Parsed{Terms: []string{"notes"}, Temporal: "last week", Window: q("last week", "2026-10-26", "2026-11-01")}},
		{name: "last week across a year", query: "last week notes", asOf: "2027-01-01",
			want: Parsed{Terms: []string{"notes"}, Temporal: "last week", Window: q("last week", "2026-12-21", "2026-12-27")}},
		{name: "this week across a year", query: "this week notes", asOf: "2027-01-01",
			want: Parsed{Terms: []string{"notes"}, Temporal: "this week", Window: q("this week", "2026-12-28", "2027-01-01")}},
		{name: "yesterday across a year", query: "yesterday notes", asOf: "2027-01-01",
			want: Parsed{Terms: []string{"notes"}, Temporal: "yesterday", Window: q("yesterday", "2026-12-31", "2026-12-31")}},
		{name: "this week on a sunday", query: "this week notes", asOf: "2026-11-08",
			want: Parsed{Terms: []string{"notes"}, Temporal: "this week", Window: q("this week", "2026-11-02", "2026-11-08")}},
		{name: "last week on a monday", query: "last week notes", asOf: "2026-11-09",
			want: Parsed{Terms: []string{"notes"}, Temporal: "last week", Window: q("last week", "2026-11-02", "2026-11-08")}},
		{name: "sunday on a sunday", query: "sunday notes", asOf: "2026-11-08",
			want: Parsed{Terms: []string{"notes"}, Temporal: "sunday", Window: q("sunday", "2026-11-08", "2026-11-08")}},
		{name: "last sunday on a sunday", query: "last sunday notes", asOf: "2026-11-08",
			want: Parsed{Terms: []string{"notes"}, Temporal: "last sunday", Window: q("last sunday", "2026-11-01", "2026-11-01")}},

		// The boundary operator last.
		{name: "scaffolding trim keeps last", query: "Take my last meeting notes",
			want: Parsed{Terms: []string{"meeting", "notes"}, Filtered: []string{"take", "my"}, Last: true, Temporal: "last"}},
		{name: "bare last alone", query: "last",
			want: Parsed{Last: true, Temporal: "last"}},
		{name: "bare last at the end", query: "deploy notes last",
			want: Parsed{Terms: []string{"deploy", "notes"}, Last: true, Temporal: "last"}},
		{name: "last in the middle is a term", query: "deploy last notes",
			want: Parsed{Terms: []string{"deploy", "last", "notes"}}},
		{name: "last in the middle of a question", query: "the lock is released after its last use",
			want: Parsed{Terms: []string{"lock", "released", "after", "its", "last", "use"}, Filtered: []string{"the", "is"}}},
		{name: "last then an expression at the end", query: "last deploy friday",
			want: Parsed{Terms: []string{"deploy"}, Last: true, Temporal: "friday", Window: q("friday", "2026-11-06", "2026-11-06")}},
		{name: "an expression then last at the end", query: "friday deploy last",
			want: Parsed{Terms: []string{"deploy"}, Last: true, Temporal: "friday", Window: q("friday", "2026-11-06", "2026-11-06")}},
		{name: "last then last week", query: "last deploy last week",
			want: Parsed{Terms: []string{"deploy"}, Last: true, Temporal: "last week", Window: q("last week", "2026-11-02", "2026-11-08")}},
		{name: "last with --since", query: "last deploy", since: "2026-11-01",
			want: Parsed{Terms: []string{"deploy"}, Last: true, Temporal: "last", Window: win("2026-11-01", "2026-11-10", "--since 2026-11-01")}},
		{name: "last with both flags", query: "last deploy", since: "2026-10-01", until: "2026-10-31",
			want: Parsed{Terms: []string{"deploy"}, Last: true, Temporal: "last", Window: win("2026-10-01", "2026-10-31", "--since 2026-10-01 --until 2026-10-31")}},

		// Flags.
		{name: "--since alone", query: "deploy", since: "2026-11-01",
			want: Parsed{Terms: []string{"deploy"}, Window: win("2026-11-01", "2026-11-10", "--since 2026-11-01")}},
		{name: "--until alone is 30 days", query: "deploy", until: "2026-11-10",
			want: Parsed{Terms: []string{"deploy"}, Window: win("2026-10-12", "2026-11-10", "--until 2026-11-10 (30 days)")}},
		{name: "--until alone across a leap february", query: "deploy", until: "2028-03-10",
			want: Parsed{Terms: []string{"deploy"}, Window: win("2028-02-10", "2028-03-10", "--until 2028-03-10 (30 days)")}},
		{name: "--since equal to --until", query: "deploy", since: "2026-11-05", until: "2026-11-05",
			want: Parsed{Terms: []string{"deploy"}, Window: win("2026-11-05", "2026-11-05", "--since 2026-11-05 --until 2026-11-05")}},
		{name: "no bounds", query: "deploy",
			want: Parsed{Terms: []string{"deploy"}}},

		// Terms.
		{name: "identifiers", query: "HAR-142 marc@x.test repo:github.com/acme/harbor visibility:private",
			want: Parsed{Terms: []string{"har-142", "marc@x.test", "repo:github.com/acme/harbor", "visibility:private"}}},
		{name: "punctuation trimmed", query: `(HAR-142), "marc@x.test". [notes]`,
			want: Parsed{Terms: []string{"har-142", "marc@x.test", "notes"}}},
		{name: "identifier with a possessive", query: "HAR-142's status",
			want: Parsed{Terms: []string{"har-142", "status"}, Filtered: []string{"s"}}},
		{name: "two-rune identifier", query: "a/b e.g. x",
			want: Parsed{Terms: []string{"a/b", "e.g"}, Filtered: []string{"x"}}},
		{name: "leading mark is not an identifier", query: "@marc /etc/hosts",
			want: Parsed{Terms: []string{"marc", "etc/hosts"}}},
		{name: "short words filtered", query: "CI is red",
			want: Parsed{Terms: []string{"red"}, Filtered: []string{"ci", "is"}}},
		{name: "scaffolding in the middle", query: "harbor status for the board, please",
			want: Parsed{Terms: []string{"harbor", "status", "board"}, Filtered: []string{"for", "the", "please"}}},
		{name: "contraction", query: "what's harbor's state",
			want: Parsed{Terms: []string{"harbor", "state"}, Filtered: []string{"what", "s"}}},
		{name: "de-duplication", query: "Harbor harbor HARBOR release harbor, the THE",
			want: Parsed{Terms: []string{"harbor", "release"}, Filtered: []string{"the"}}},
		{name: "unicode", query: "Café crème",
			want: Parsed{Terms: []string{"café", "crème"}}},
		{name: "unicode short words", query: "éa ÉTÉ 東京",
			want: Parsed{Terms: []string{"été"}, Filtered: []string{"éa", "東京"}}},
		{name: "snake_case", query: "retry_budget",
			want: Parsed{Terms: []string{"retry_budget"}}},
		{name: "only scaffolding", query: "please show me",
			want: Parsed{Filtered: []string{"please", "show", "me"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			asOf := c.asOf
			if asOf == "" {
				asOf = tuesday
			}
			got, err := Parse(strings.Fields(c.query), asOfDay(t, asOf), c.since, c.until)
			if err != nil {
				t.Fatalf("Parse(%q): %v", c.query, err)
			}
			want := c.want
			if want.Text == "" {
				want.Text = strings.Join(strings.Fields(c.query), " ")
			}
			if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", c.query, d)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	long := strings.Repeat("harbor ", 64) + "release"
	cases := []struct {
		name         string
		words        []string
		since, until string
		want         string // a substring of the message
	}{
		{name: "empty", words: nil, want: "give a query"},
		{name: "blank", words: []string{"  ", "\t"}, want: "give a query"},
		{name: "too many words", words: strings.Fields(long), want: "query too long: 65 words"},
		{name: "too many bytes", words: []string{strings.Repeat("x", 1025)}, want: "query too long: 1025 bytes"},
		{name: "invalid utf-8", words: []string{"har\xffbor"}, want: "UTF-8"},
		{name: "two expressions", words: []string{"yesterday", "notes", "today"}, want: `two temporal expressions, "yesterday" and "today"`},
		{name: "two dates", words: []string{"2026-11-01", "to", "2026-11-05"}, want: "--since and --until"},
		{name: "two two-word expressions", words: []string{"last", "week", "notes", "this", "week"}, want: "two temporal expressions"},
		{name: "expression and --since", words: []string{"last", "friday", "notes"}, since: "2026-11-01", want: `"last friday" already sets the window, so --since`},
		{name: "expression and --until", words: []string{"notes", "2026-11"}, until: "2026-11-30", want: "so --until cannot"},
		{name: "since-expression and --since", words: []string{"notes", "since", "2026-11-01"}, since: "2026-11-01", want: "already sets the window"},
		{name: "invalid day", words: []string{"notes", "2026-02-30"}, want: `"2026-02-30" is not a valid date`},
		{name: "invalid day at the start", words: []string{"2026-04-31", "notes"}, want: "not a valid date"},
		{name: "invalid month", words: []string{"2026-13", "notes"}, want: `"2026-13" is not a valid month`},
		{name: "invalid since day", words: []string{"notes", "since", "2027-02-29"}, want: "not a valid date"},
		{name: "since after the as-of day", words: []string{"notes", "since", "2026-11-11"}, want: "after the as-of day 2026-11-10"},
		{name: "since a month", words: []string{"notes", "since", "2026-11"}, want: `write "since 2026-11-01"`},
		{name: "since a weekday", words: []string{"notes", "since", "friday"}, want: `"since friday": since takes a day as YYYY-MM-DD; write "since 2026-11-06"`},
		{name: "since last week", words: []string{"notes", "since", "last", "week"}, want: `write "since 2026-11-02"`},
		{name: "since yesterday at the start", words: []string{"since", "yesterday", "notes"}, want: `write "since 2026-11-09"`},
		{name: "--since not a date", words: []string{"notes"}, since: "11/01/2026", want: `--since "11/01/2026" is not a valid date`},
		{name: "--since short form", words: []string{"notes"}, since: "2026-1-05", want: "--since"},
		{name: "--until invalid", words: []string{"notes"}, until: "2026-11-31", want: `--until "2026-11-31" is not a valid date`},
		{name: "--since after --until", words: []string{"notes"}, since: "2026-11-05", until: "2026-11-01", want: "--since 2026-11-05 is after --until 2026-11-01"},
		{name: "--since after the as-of day", words: []string{"notes"}, since: "2026-12-01", want: "after the as-of day"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.words, asOfDay(t, tuesday), c.since, c.until)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q) error = %v, want a *ParseError", c.words, err)
			}
			if pe.ExitCode() != 2 {
				t.Errorf("ExitCode = %d, want 2", pe.ExitCode())
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("Parse(%q) error = %q, want it to contain %q", c.words, err, c.want)
			}
		})
	}
}

func TestParseLimitsInclusive(t *testing.T) {
	words := strings.Fields(strings.Repeat("harbor ", 64))
	if _, err := Parse(words, asOfDay(t, tuesday), "", ""); err != nil {
		t.Errorf("64 words: %v", err)
	}
	if _, err := Parse([]string{strings.Repeat("x", 1024)}, asOfDay(t, tuesday), "", ""); err != nil {
		t.Errorf("1024 bytes: %v", err)
	}
}

// TestParseText checks that Text is the query as given, white space and
// control characters folded, scaffolding and expression included.
func TestParseText(t *testing.T) {
	got, err := Parse([]string{"  Take my\tlast ", "meeting\x00notes", "friday "}, asOfDay(t, tuesday), "", "")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Take my last meeting notes friday"; got.Text != want {
		t.Errorf("Text = %q, want %q", got.Text, want)
	}
	if !got.Last || got.Window.Since != "2026-11-06" {
		t.Errorf("Last = %v, Window = %+v; want last and friday", got.Last, got.Window)
	}
}

// TestParseAsOfZone checks that the as-of day is the UTC date of asOf.
func TestParseAsOfZone(t *testing.T) {
	zone := time.FixedZone("UTC+9", 9*3600)
	asOf := time.Date(2026, 11, 11, 5, 0, 0, 0, zone) // 2026-11-10 20:00 UTC
	got, err := Parse([]string{"today"}, asOf, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if got.Window.Since != "2026-11-10" {
		t.Errorf("today at %v = %+v, want 2026-11-10", asOf, got.Window)
	}
}

// indexTokens is what the index would hold for s: its words long enough
// to index and its identifier tokens.
func indexTokens(s string) map[string]bool {
	out := map[string]bool{}
	lex.Words(s, func(w string, runes int) {
		if runes >= lex.MinPlainRunes {
			out[w] = true
		}
	})
	lex.Identifiers(s, func(id string) { out[id] = true })
	return out
}

// checkParsed checks the invariants of any successful parse: every term is
// a token the index would produce from the same text, lowercase, unique,
// and no term is also filtered.
func checkParsed(t *testing.T, p Parsed) {
	t.Helper()
	tokens := indexTokens(p.Text)
	seen := map[string]bool{}
	for _, term := range p.Terms {
		if !tokens[term] {
			t.Errorf("query %q: term %q is not an index token of the query", p.Text, term)
		}
		if seen[term] {
			t.Errorf("query %q: term %q repeated", p.Text, term)
		}
		seen[term] = true
		if !lex.IsIdentifierShaped(term) && lex.Scaffolding[term] {
			t.Errorf("query %q: scaffolding term %q", p.Text, term)
		}
	}
	for _, f := range p.Filtered {
		if seen[f] {
			t.Errorf("query %q: %q is both a term and filtered", p.Text, f)
		}
		if strings.ToLower(f) != f {
			t.Errorf("query %q: filtered %q not lowercased", p.Text, f)
		}
	}
	if (p.Window.Since == "") != (p.Window.Until == "") || p.Window.Since > p.Window.Until {
		t.Errorf("query %q: window %+v", p.Text, p.Window)
	}
	if (p.Window.DerivedFrom == "") != (p.Window.Since == "") {
		t.Errorf("query %q: window %+v has bounds without a derivation or the reverse", p.Text, p.Window)
	}
}

func TestParseTermsAreIndexTokens(t *testing.T) {
	for _, s := range []string{
		"(HAR-142), marc@x.test!",
		"see:HAR-142's fix",
		"https://github.com/acme/harbor/pull/7?tab=files#x.",
		"«Crème brûlée» — c'est l'été",
		"foo,bar-baz;qux.quux",
		"--flag --since-receipt 0123456789abcdef",
		"İstanbul ĞÜŞ",
	} {
		p, err := Parse([]string{s}, asOfDay(t, tuesday), "", "")
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		if len(p.Terms) == 0 {
			t.Errorf("Parse(%q): no terms", s)
		}
		checkParsed(t, p)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"Take my last meeting notes", "last deploy friday", "yesterday notes today",
		"(HAR-142), marc@x.test", "since 2026-11-01 harbor", "notes since friday",
		"2026-02-30", "Café crème", "last week's", "— ?", "a-b's c",
	} {
		f.Add(s, "", "")
	}
	f.Add("harbor", "2026-11-01", "2026-11-05")
	f.Add("last harbor", "", "2026-11-05")
	f.Fuzz(func(t *testing.T, s, since, until string) {
		p, err := Parse(strings.Fields(s), time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC), since, until)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q): error %v is not a *ParseError", s, err)
			}
			return
		}
		checkParsed(t, p)
	})
}
