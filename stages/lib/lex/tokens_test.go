package lex

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// words collects Words output as "word/runes".
func words(s string) []string {
	out := []string{}
	Words(s, func(w string, runes int) { out = append(out, fmt.Sprintf("%s/%d", w, runes)) })
	return out
}

func idents(s string) []string {
	out := []string{}
	Identifiers(s, func(id string) { out = append(out, id) })
	return out
}

func TestWords(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"", []string{}},
		{"  \t\n ", []string{}},
		{"Fix the Harbor build", []string{"fix/3", "the/3", "harbor/6", "build/5"}},
		{"a I ok to", []string{"a/1", "i/1", "ok/2", "to/2"}},
		{"HAR-142: arm64 runners", []string{"har/3", "142/3", "arm64/5", "runners/7"}},
		{"snake_case and __init__", []string{"snake_case/10", "and/3", "__init__/8"}},
		{"Café CRÈME brûlée", []string{"café/4", "crème/5", "brûlée/6"}},
		{"ÉCOLE Ελληνικά Москва", []string{"école/5", "ελληνικά/8", "москва/6"}},
		// e + U+0301 combining acute stays inside the word and counts as a rune.
		{"cafe\u0301 ok", []string{"cafe\u0301/5", "ok/2"}},
		{"\u0301lead", []string{"\u0301lead/5"}},
		{"日本語の文章", []string{"日本語の文章/6"}},
		{"٣ apples ১২৩", []string{"٣/1", "apples/6", "১২৩/3"}},
		{"repo:github.com/acme/harbor", []string{"repo/4", "github/6", "com/3", "acme/4", "harbor/6"}},
		{"marc@x.test,", []string{"marc/4", "x/1", "test/4"}},
		{"end.", []string{"end/3"}},
		{"emoji🙂between", []string{"emoji/5", "between/7"}},
		{"x—y", []string{"x/1", "y/1"}},
	}
	for _, c := range cases {
		if diff := cmp.Diff(c.want, words(c.in)); diff != "" {
			t.Errorf("Words(%q) (-want +got):\n%s", c.in, diff)
		}
	}
}

func TestIdentifiers(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"see repo:github.com/acme/harbor now", []string{"repo:github.com/acme/harbor"}},
		{"ping marc@x.test, then leave", []string{"marc@x.test"}},
		{"Mail <Marc@X.Test>.", []string{"marc@x.test"}},
		{"fixed in (HAR-142)", []string{"har-142"}},
		{"tickets HAR-142, HAR-7; done", []string{"har-142", "har-7"}},
		{"https://x.test/a?b=c", []string{"https://x.test/a?b=c"}},
		{"read https://x.test/a?b=c.", []string{"https://x.test/a?b=c"}},
		{"path repo:github.com/acme/harbor/ here", []string{"repo:github.com/acme/harbor"}},
		{"v1.2.3 released", []string{"v1.2.3"}},
		{"person:email/marc@x.test", []string{"person:email/marc@x.test"}},
		{"wiki/café-crème.md", []string{"wiki/café-crème.md"}},
		{"plain words are not identifiers", []string{}},
		{"hello. world! C# 50% a+b x=y", []string{}},
		{"--- ... /// @@@", []string{}},
		// The shortest identifier: one rune each side of a mark.
		{"x-y a.b é/ü", []string{"x-y", "a.b", "é/ü"}},
		// Trimming leaves fewer than two runes, or no mark inside.
		{"-x- .a @b: /c/", []string{}},
		{"~/notes/todo.md", []string{"notes/todo.md"}},
		{"a:b:c", []string{"a:b:c"}},
		{"TODO:", []string{}},
	}
	for _, c := range cases {
		if diff := cmp.Diff(c.want, idents(c.in)); diff != "" {
			t.Errorf("Identifiers(%q) (-want +got):\n%s", c.in, diff)
		}
	}
}

func TestIsIdentifierShaped(t *testing.T) {
	for term, want := range map[string]bool{
		"har-142": true, "a.b": true, "repo:x": true, "marc@x": true, "a/b": true,
		"harbor": false, "snake_case": false, "c#": false, "": false,
	} {
		if got := IsIdentifierShaped(term); got != want {
			t.Errorf("IsIdentifierShaped(%q) = %v, want %v", term, got, want)
		}
	}
}

// TestRuneClass: the class table says what isWordRune, isIdentRune and
// identMarks say, for every rune of the Basic Multilingual Plane.
func TestRuneClass(t *testing.T) {
	for r := rune(0); r <= 0xffff; r++ {
		c := runeClass(r)
		if c&classWord != 0 != isWordRune(r) || c&classIdent != 0 != isIdentRune(r) || c&classMark != 0 != strings.ContainsRune(identMarks, r) {
			t.Fatalf("rune %U: class %03b, word %v ident %v mark %v", r, c, isWordRune(r), isIdentRune(r), strings.ContainsRune(identMarks, r))
		}
	}
}

// TestRawTokensLowered: RawTokens' tokens, lowered as a dictionary's
// reader lowers them (IsLowerASCII, else AppendLower), are Tokens' tokens:
// ASCII with and without capitals, accented and other scripts, a rune whose
// lowercase is longer, and bytes that are not UTF-8.
func TestRawTokensLowered(t *testing.T) {
	lowered := func(tok string) string {
		if IsLowerASCII(tok) {
			return tok
		}
		return string(AppendLower([]byte("stale"), tok)[len("stale"):])
	}
	for _, s := range []string{
		"Fix the Harbor build on ARM64 (HAR-142) for repo:GitHub.com/Acme/Harbor",
		"Crème BRÛLÉE à la carte, ΣΊΣΥΦΟΣ and İstanbul",
		"mixed\xffBYTES and ok-\xfe/Path.Name",
		"snake_Case_NAME ALLCAPS lower",
	} {
		var want, got []string
		Tokens(s, func(w string, runes int) { want = append(want, fmt.Sprint("w ", w, " ", runes)) },
			func(id string) { want = append(want, "i "+id) })
		RawTokens(s, func(w string, runes int) { got = append(got, fmt.Sprint("w ", lowered(w), " ", runes)) },
			func(id string) { got = append(got, "i "+lowered(id)) })
		if !slices.Equal(got, want) {
			t.Errorf("%q:\n got %q\nwant %q", s, got, want)
		}
	}
}
