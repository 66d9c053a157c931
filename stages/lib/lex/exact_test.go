package lex

import (
	"strings"
	"testing"
	"unicode"
)

func TestExact(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"   ", ""},
		{"Acme Harbor", "acme harbor"},
		{"  Acme   Harbor\t\n", "acme harbor"},
		{"line\r\nbreak", "line break"},
		{"nul\x00byte", "nul byte"},
		{"bell\x07\x1fseparated", "bell separated"},
		{"ÉCOLE  Normale", "école normale"},
		{"person:email/Marc@X.test", "person:email/marc@x.test"},
		{"nbsp\u00a0space", "nbsp space"},
		{"HAR-142", "har-142"},
		{"har-142", "har-142"},
		{"del\x7fbyte", "del byte"},
		{"person:email/marc@x.test", "person:email/marc@x.test"},
	}
	for _, c := range cases {
		if got := Exact(c.in); got != c.want {
			t.Errorf("Exact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzExact checks Exact, whose already-normal values skip the folding,
// against the folding itself.
func FuzzExact(f *testing.F) {
	for _, s := range []string{"", "har-142", "HAR-142", "a b", "a\x7f", "é", "x\u2028y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fields := strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
		if got, want := Exact(s), strings.ToLower(strings.Join(fields, " ")); got != want {
			t.Fatalf("Exact(%q) = %q, want %q", s, got, want)
		}
	})
}

// foldCases are strings whose case folds are easy to get wrong: the Kelvin
// sign and long s fold with ASCII letters, sigma has three forms, and
// invalid bytes read as U+FFFD.
var foldCases = []string{"", "k", "K", "\u212a", "s", "S", "\u017f", "σ", "Σ", "ς", "ß", "ẞ", "ǅ", "ǆ", "Ǆ",
	"har-142", "HAR-142", "Har-142", "\xff", "\xfe", "\ufffd", "café", "CAFÉ", "events/x.json#HAR-142"}

// TestFoldKeyAgreesWithEqualFold: strings.EqualFold(a, b) implies equal
// fold keys, which is what lets a query rule items out by key.
func TestFoldKeyAgreesWithEqualFold(t *testing.T) {
	for _, a := range foldCases {
		for _, b := range foldCases {
			if strings.EqualFold(a, b) && FoldKey(a) != FoldKey(b) {
				t.Errorf("EqualFold(%q, %q) but their fold keys differ", a, b)
			}
		}
	}
	if FoldKey("k") == FoldKey("s") || FoldKey("ab") == FoldKey("ba") {
		t.Error("different strings share a fold key")
	}
}

func FuzzFoldKey(f *testing.F) {
	for i, a := range foldCases {
		f.Add(a, foldCases[(i+1)%len(foldCases)])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if strings.EqualFold(a, b) && FoldKey(a) != FoldKey(b) {
			t.Fatalf("EqualFold(%q, %q) but their fold keys differ", a, b)
		}
		if u := strings.ToUpper(a); strings.EqualFold(a, u) && FoldKey(a) != FoldKey(u) {
			t.Fatalf("%q and its upper case %q fold alike but their keys differ", a, u)
		}
	})
}
