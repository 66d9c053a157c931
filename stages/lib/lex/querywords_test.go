package lex

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestTitleKeyIsKeyOfTerms: TitleKey, which the build computes for every
// title without making the list, is the key of the title's terms.
func TestTitleKeyIsKeyOfTerms(t *testing.T) {
	for _, title := range []string{"", "Renewal of the Certificate", "WEB-100 web-100 (fix)", "the the the", "Ünïcode, ünïcode; ÜNÏCODE"} {
		if TitleKey(title) != TermsKey(TitleTerms(title)) {
			t.Errorf("TitleKey(%q) is not the key of its terms %q", title, TitleTerms(title))
		}
	}
}

// TestTitleKeyManyWords holds TitleKey and TitleTerms to their meaning on
// titles past the small list firstSeen starts with: each kept word once,
// in the order it first appears, however many distinct words there are.
func TestTitleKeyManyWords(t *testing.T) {
	var words, want []string
	for i := range 200 {
		w := fmt.Sprintf("word%03d", i)
		words = append(words, w, w) // every word twice in a row
		want = append(want, w)
	}
	for i := range 200 {
		words = append(words, fmt.Sprintf("word%03d", 199-i)) // and again, backwards
	}
	title := strings.Join(words, " ")
	if got := TitleTerms(title); !slices.Equal(got, want) {
		t.Fatalf("TitleTerms: %d terms %v..., want %d %v...", len(got), got[:min(5, len(got))], len(want), want[:5])
	}
	if TitleKey(title) != TermsKey(want) {
		t.Errorf("TitleKey differs from TermsKey of the title's terms")
	}
}
