package query

import (
	"slices"
	"strings"
	"testing"

	"github.com/cairn-kb/cairn/stages/lex"
)

// TestTitleIs: a title is the whole query when its kept words, each once
// in first-seen order, joined by spaces, are the terms joined by spaces;
// titleIs decides that without building the string, and must agree.
func TestTitleIs(t *testing.T) {
	joined := func(title string) string { // the definition
		var kept []string
		for _, w := range queryWords(title) {
			if lex.KeepAsTerm(w) && !slices.Contains(kept, w) {
				kept = append(kept, w)
			}
		}
		return strings.Join(kept, " ")
	}
	titles := []string{"", "Certificate renewal", "certificate renewal, renewal of the certificate", "The certificate: renewal!",
		"Fix WEB-100 (certificate renewal)", "WEB-100", "web-100 web-100", "renewal certificate", "Ünïcode renewal", "a an the of"}
	queries := [][]string{{}, {"certificate", "renewal"}, {"renewal", "certificate"}, {"web-100"}, {"fix", "web-100", "certificate", "renewal"},
		{"certificate"}, {"ünïcode", "renewal"}, {"renewal", "renewal"}}
	for _, title := range titles {
		for _, terms := range queries {
			got, want := titleIs(title, terms), joined(title) == strings.Join(terms, " ")
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
