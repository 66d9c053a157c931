package lex

import "testing"

// TestTitleKeyIsKeyOfTerms: TitleKey, which the build computes for every
// title without making the list, is the key of the title's terms.
func TestTitleKeyIsKeyOfTerms(t *testing.T) {
	for _, title := range []string{"", "Renewal of the Certificate", "WEB-100 web-100 (fix)", "the the the", "Ünïcode, ünïcode; ÜNÏCODE"} {
		if TitleKey(title) != TermsKey(TitleTerms(title)) {
			t.Errorf("TitleKey(%q) is not the key of its terms %q", title, TitleTerms(title))
		}
	}
}
