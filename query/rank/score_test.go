package rank

import (
	"slices"
	"strings"
	"testing"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/words"
	"github.com/cairn-kb/cairn/stages/lib/lex"
)

// TestTitleIs: a title is the whole query when its kept words, each once
// in first-seen order, joined by spaces, are the terms joined by spaces;
// titleIs decides that without building the string, and must agree.
func TestTitleIs(t *testing.T) {
	naming := func(title string) bool { // a short word naming something
		for _, w := range strings.FieldsFunc(title, func(r rune) bool { return r == ' ' || r == ',' || r == ':' || r == '!' || r == '(' || r == ')' }) {
			if !lex.KeepAsTerm(strings.ToLower(w)) && namingShortWord(w) {
				return true
			}
		}
		return false
	}
	joined := func(title string) string { // the title's terms
		var kept []string
		for _, w := range queryWords(title) {
			if lex.KeepAsTerm(w) && !slices.Contains(kept, w) {
				kept = append(kept, w)
			}
		}
		return strings.Join(kept, " ")
	}
	titles := []string{"", "Certificate renewal", "certificate renewal, renewal of the certificate", "The certificate: renewal!",
		"Fix WEB-100 (certificate renewal)", "WEB-100", "web-100 web-100", "renewal certificate", "Ünïcode renewal", "a an the of",
		"Certificate renewal v2", "CI certificate renewal", "Go certificate renewal"}
	queries := [][]string{{}, {"certificate", "renewal"}, {"renewal", "certificate"}, {"web-100"}, {"fix", "web-100", "certificate", "renewal"},
		{"certificate"}, {"ünïcode", "renewal"}, {"renewal", "renewal"}}
	for _, title := range titles {
		for _, terms := range queries {
			got, want := titleIs(title, terms, nil), !naming(title) && joined(title) == strings.Join(terms, " ")
			if got != want {
				t.Errorf("titleIs(%q, %q) = %v, want %v", title, terms, got, want)
			}
			// The key gate a query applies first never rules such a title out.
			if got && lex.TermsKey(lex.TitleTerms(title)) != lex.TermsKey(terms) {
				t.Errorf("%q is the query %q, but its title-terms key differs", title, terms)
			}
		}
		if got, want := strings.Join(lex.TitleTerms(title), " "), joined(title); got != want {
			t.Errorf("TitleTerms(%q) = %q, want %q", title, got, want)
		}
	}
}

// TestIDFAndTermPoints pins the integer arithmetic the README adds up by
// hand: idf in sixteenths, and a term's points from idf and tf.
func TestIDFAndTermPoints(t *testing.T) {
	for _, c := range []struct{ n, df, want int }{
		{3, 1, 22}, {3, 2, 10}, {3, 3, 3}, {16, 16, 0}, {1000, 1, 150}, {0, 0, 0},
	} {
		if got := words.IDF(c.n, c.df); got != c.want {
			t.Errorf("idf(%d, %d) = %d, want %d", c.n, c.df, got, c.want)
		}
	}
	if got := TermPoints(29, 1064); got != 35 { // the README's example
		t.Errorf("termPoints(29, 1064) = %d, want 35", got)
	}
	if got := TermPoints(29, 0); got != 0 {
		t.Errorf("termPoints(29, 0) = %d, want 0", got)
	}
	for n := 1; n < 49152; n = n*3/2 + 1 {
		c := artifacts.NormOf(n)
		if l := artifacts.NormLength(c); l*100 < n*75 || l*100 > n*125 {
			t.Errorf("NormOf(%d) = %d stands for %d words, more than 25%% off", n, c, l)
		}
	}
}

// TestTitleIsWithShortWords: a short word that names something keeps a
// title from being the query unless the query said it too.
func TestTitleIsWithShortWords(t *testing.T) {
	terms := []string{"retention", "policy"}
	for _, c := range []struct {
		title    string
		filtered []string
		want     bool
	}{
		{"Retention policy", nil, true},
		{"Retention policy v1", nil, false},
		{"Retention policy v1", []string{"v1"}, true},
		{"The retention of policy", []string{"the"}, true}, // "of" only joins the terms
		{"CI retention policy", nil, false},
		{"Go retention policy", nil, true}, // "Go" is a capitalised word, not an acronym
	} {
		if got := titleIs(c.title, terms, c.filtered); got != c.want {
			t.Errorf("titleIs(%q, %q, filtered %q) = %v, want %v", c.title, terms, c.filtered, got, c.want)
		}
	}
}
