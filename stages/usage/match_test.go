package usage

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// countIn counts terms in text with the matcher, by term id.
func countIn(t testing.TB, terms []model.Term, text string) map[string]int {
	t.Helper()
	m, err := newMatcher(terms)
	if err != nil {
		t.Fatal(err)
	}
	return countWith(m, terms, text)
}

// countWith counts terms in text with m, made from terms, by term id.
func countWith(m *matcher, terms []model.Term, text string) map[string]int {
	got := map[string]int{}
	for _, tc := range m.count(text, m.newCounter()) {
		got[terms[tc.term].ID] = tc.count
	}
	return got
}

// term is a term with its wording as id, for tables.
func term(wording string) model.Term { return model.Term{ID: wording, Term: wording} }

func patterned(wording, pattern string) model.Term {
	return model.Term{ID: wording, Term: wording, Pattern: pattern}
}

func TestCount(t *testing.T) {
	cases := []struct {
		name  string
		terms []model.Term
		text  string
		want  map[string]int
	}{
		{"any case", []model.Term{term("Harbor")}, "harbor HARBOR Harbor hArBoR", map[string]int{"Harbor": 4}},
		{"whole words only", []model.Term{term("harbor")},
			"harbors harbor's harbor_x xharbor harbor2 2harbor _harbor harbor.", map[string]int{"harbor": 2}},
		{"punctuation around", []model.Term{term("harbor")}, "(harbor) [harbor], \"harbor\"; harbor!harbor/harbor", map[string]int{"harbor": 6}},
		{"substring of other words", []model.Term{term("cat")}, "concatenate category scat cat", map[string]int{"cat": 1}},
		{"digits are word runes", []model.Term{term("v2")}, "v2 v23 v2.1 av2", map[string]int{"v2": 2}},
		{"accents fold", []model.Term{term("référentiel")}, "Référentiel RÉFÉRENTIEL référentiels référentiel", map[string]int{"référentiel": 3}},
		{"an accented letter is a word rune", []model.Term{term("caf"), term("café")}, "café cafés CAFÉ caf", map[string]int{"café": 2, "caf": 1}},
		{"a combining accent continues its word", []model.Term{term("cafe")}, "cafe\u0301 cafe", map[string]int{"cafe": 1}},
		{"decomposed text is not normalised", []model.Term{term("café")}, "cafe\u0301", map[string]int{}},
		{"final sigma folds with sigma", []model.Term{term("ΟΔΟΣ")}, "οδος οδοσ Οδός", map[string]int{"ΟΔΟΣ": 2}},
		{"Kelvin sign folds with k", []model.Term{term("k8s")}, "\u212a8s K8S", map[string]int{"k8s": 2}},
		{"no fold to two runes", []model.Term{term("strasse")}, "straße STRASSE", map[string]int{"strasse": 1}},
		{"CJK without spaces is one word", []model.Term{term("東京")}, "東京 東京都", map[string]int{"東京": 1}},
		{"across white space and line breaks", []model.Term{term("push token")},
			"push token, push\ntoken, push \t\r\n token, push\u00a0token, push\u2003token, pushtoken, push-token, push_token",
			map[string]int{"push token": 5}},
		{"white space in a term is any run", []model.Term{term("push  \n token")}, "push token", map[string]int{"push  \n token": 1}},
		{"hyphen is written", []model.Term{term("pull-through cache")},
			"Pull-through cache, pull-through\ncache, pull through cache, pull-throughcache", map[string]int{"pull-through cache": 2}},
		{"one term never overlaps itself", []model.Term{term("ha ha")}, "ha ha ha. ha ha ha ha", map[string]int{"ha ha": 3}},
		{"overlap of a one-word term", []model.Term{term("a-a")}, "a-a-a a-a-a-a", map[string]int{"a-a": 3}},
		{"terms are counted independently", []model.Term{term("token"), term("push token"), term("push")},
			"push token; token", map[string]int{"token": 2, "push token": 1, "push": 1}},
		{"a multi-word term cut short", []model.Term{term("push token")}, "push", map[string]int{}},
		{"empty text", []model.Term{term("harbor")}, "", map[string]int{}},
		{"only spaces", []model.Term{term("push token")}, " \n\t ", map[string]int{}},
		{"blank term", []model.Term{term("  ")}, "anything at all", map[string]int{}},
		{"leading and trailing spaces of a term", []model.Term{term(" harbor ")}, "harbor", map[string]int{" harbor ": 1}},
		{"term starting with punctuation", []model.Term{term(".NET")}, ".NET ASP.NET .net. x .NETs", map[string]int{".NET": 2}},
		{"term ending with punctuation", []model.Term{term("C++")}, "C++ c++x C++. xC++", map[string]int{"C++": 2}},
		{"invalid UTF-8 separates words", []model.Term{term("harbor")}, "\xffharbor\xfe", map[string]int{"harbor": 1}},
		{"whole-word pattern", []model.Term{patterned("whitelist", "whitelist(s|ed|ing)?")},
			"whitelist, Whitelisted, whitelists, whitelisting, whitelister, nonwhitelisted", map[string]int{"whitelist": 4}},
		{"pattern over endings", []model.Term{patterned("quosock", "(s|es|ed|ing)?")},
			"quosock quosocks quosockes Quosocked quosocker s es", map[string]int{"quosock": 4}},
		{"pattern replaces the wording", []model.Term{patterned("glossary", "glossar(y|ies)")},
			"glossary glossaries Glossary glossar glossarys", map[string]int{"glossary": 3}},
		{"the first form that ends a word wins", []model.Term{patterned("token", "tok(en|ens)")}, "tokens token tokenss", map[string]int{"token": 2}},
		{"pattern across white space", []model.Term{patterned("pull request", "pull requests?")},
			"pull\nrequests, pull  request, pullrequest", map[string]int{"pull request": 2}},
		{"ending pattern after a multi-word term", []model.Term{patterned("pull request", "(s)?")},
			"Pull\nRequests and pull request", map[string]int{"pull request": 2}},
		{"pattern without a literal start", []model.Term{patterned("colour", "colou?r|hue")},
			"color colour hue Hue hues", map[string]int{"colour": 4}},
		{"pattern with its own flags", []model.Term{patterned("grey", "(?i)gr[ae]y")}, "Gray grey GREY", map[string]int{"grey": 3}},
		{"a pattern that can match nothing is counted by what it matches", []model.Term{patterned("a", "(a)?")},
			"a b a", map[string]int{"a": 2}},
		{"pattern overlap", []model.Term{patterned("ab", "ab(ab)*")}, "abab ab", map[string]int{"ab": 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := countIn(t, c.terms, c.text)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("counts in %q (-want +got):\n%s", c.text, diff)
			}
			// The reference, which searches for every term with its
			// regexp, agrees.
			if ref := referenceCount(t, c.terms, c.text); !maps.Equal(ref, got) {
				t.Errorf("reference counts %v, matcher %v", ref, got)
			}
		})
	}
}

// referenceCount counts with every term searched for with its regexp over
// the whole text, none by its lead: the slow, simple reading of the rules
// that the word-by-word matcher must agree with.
func referenceCount(t testing.TB, terms []model.Term, text string) map[string]int {
	t.Helper()
	return countWith(referenceMatcher(t, terms), terms, text)
}

func referenceMatcher(t testing.TB, terms []model.Term) *matcher {
	t.Helper()
	m := &matcher{specs: make([]termSpec, len(terms))}
	for i, term := range terms {
		src, err := termSource(term)
		if err != nil {
			t.Fatal(err)
		}
		if src == "" {
			continue
		}
		re, err := termRegexp(src, false)
		if err != nil {
			t.Fatal(err)
		}
		m.specs[i] = termSpec{re: re}
		m.scan = append(m.scan, int32(i))
	}
	return m
}

// fuzzTerms mixes every kind of spec: exact leads, prefix leads of
// several lengths, and terms searched for on their own.
var fuzzTerms = []model.Term{
	term("ab"), term("ab ab"), term("a-b"), term("b"), term("Ünï"), term("σς"), term(".b"), term("a+"),
	patterned("ab", "ab(s|ab)?"), patterned("ba", "(s)?"), patterned("c", "c+"), patterned("x", "[ab]b"),
}

// fuzzWords are the pieces random texts are made of.
var fuzzWords = []string{"a", "b", "ab", "AB", "ba", "abab", "s", "c", "cc", " ", "  ", "\n", "-", ".", "+", "_", "ü", "Ü", "ünï", "ΣΣ", "ς", "\u0301", "é", "\xff"}

// TestCountAgreesWithReference compares the matcher with the reference on
// many random texts made of pieces that collide with the terms.
func TestCountAgreesWithReference(t *testing.T) {
	m, err := newMatcher(fuzzTerms)
	if err != nil {
		t.Fatal(err)
	}
	ref := referenceMatcher(t, fuzzTerms)
	rng := rand.New(rand.NewPCG(4, 2))
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(fuzzWords[rng.IntN(len(fuzzWords))])
		}
		text := b.String()
		got, want := countWith(m, fuzzTerms, text), countWith(ref, fuzzTerms, text)
		if !maps.Equal(got, want) {
			t.Fatalf("text %q: matcher %v, reference %v", text, got, want)
		}
	}
}

func FuzzCount(f *testing.F) {
	f.Add("ab ab ab a-b .b b")
	f.Add("ÜNÏ σΣ abab abs ccc a+b")
	m, err := newMatcher(fuzzTerms)
	if err != nil {
		f.Fatal(err)
	}
	ref := referenceMatcher(f, fuzzTerms)
	f.Fuzz(func(t *testing.T, text string) {
		got, want := countWith(m, fuzzTerms, text), countWith(ref, fuzzTerms, text)
		if !maps.Equal(got, want) {
			t.Fatalf("text %q: matcher %v, reference %v", text, got, want)
		}
	})
}

// TestCounterIsReused: a counter carries nothing from one text to the next.
func TestCounterIsReused(t *testing.T) {
	terms := []model.Term{term("ha ha"), term("harbor")}
	m, err := newMatcher(terms)
	if err != nil {
		t.Fatal(err)
	}
	c := m.newCounter()
	first := m.count("ha ha ha harbor", c)
	second := m.count("ha ha", c)
	if !slices.Equal(first, []termCount{{0, 1}, {1, 1}}) || !slices.Equal(second, []termCount{{0, 1}}) {
		t.Errorf("counts %v then %v", first, second)
	}
}

func TestFold(t *testing.T) {
	for _, group := range [][]rune{
		{'k', 'K', '\u212a'},
		{'s', 'S', 'ſ'},
		{'σ', 'Σ', 'ς'},
		{'é', 'É'},
		{'ǆ', 'ǅ', 'Ǆ'},
	} {
		for _, r := range group {
			if fold(r) != fold(group[0]) {
				t.Errorf("fold(%q) = %q, fold(%q) = %q; want equal", r, fold(r), group[0], fold(group[0]))
			}
		}
	}
	if fold('a') != 'a' || fold('A') != 'a' || fold('é') == fold('e') || fold('ß') == fold('s') {
		t.Errorf("fold: a→%q A→%q é→%q e→%q ß→%q", fold('a'), fold('A'), fold('é'), fold('e'), fold('ß'))
	}
}

func TestSpacedPattern(t *testing.T) {
	for _, c := range []struct{ pattern, want string }{
		{"whitelist(s|ed)?", "whitelist(s|ed)?"},
		{"pull requests?", `pull[\t-\r \x85\xa0\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]+requests?`},
		// A class of one rune is that rune, to the parser.
		{"a[ ]x", `a[\t-\r \x85\xa0\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]+x`},
		{"a[ \t]x", `a[\t ]x`},
	} {
		got, err := spacedPattern(c.pattern)
		if err != nil || got != c.want {
			t.Errorf("spacedPattern(%q) = %q, %v; want %q", c.pattern, got, err, c.want)
		}
	}
	if _, err := spacedPattern("a (b"); err == nil {
		t.Errorf("spacedPattern accepted a pattern that does not parse")
	}
}

// TestLeadTable: every lead is found under its hash and nothing else is,
// however full the table.
func TestLeadTable(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 7, 100} {
		leads := map[string][]int32{}
		for i := range n {
			leads[fmt.Sprintf("w%d", i)] = []int32{int32(i)}
		}
		table := newLeadTable(leads)
		for lead, terms := range leads {
			if !table.has(len(lead)) || !table.starts(lead[0]) {
				t.Errorf("%d leads: %q not announced by has and starts", n, lead)
			}
			if got := table.find(hashBytes([]byte(lead)), []byte(lead)); !slices.Equal(got, terms) {
				t.Errorf("%d leads: find(%q) = %v, want %v", n, lead, got, terms)
			}
		}
		for _, other := range []string{"w", "x1", fmt.Sprintf("w%d", n), "w10000"} {
			if got := table.find(hashBytes([]byte(other)), []byte(other)); got != nil {
				t.Errorf("%d leads: find(%q) = %v, want nothing", n, other, got)
			}
		}
		if table.starts('x') {
			t.Errorf("%d leads: starts('x') is true", n)
		}
	}
}
