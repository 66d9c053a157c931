package lex

import (
	"slices"
	"testing"
)

func TestFold(t *testing.T) {
	for w, want := range map[string]string{
		"renamed": "renam", "rename": "renam", "renames": "renam", "renaming": "renam",
		"documents": "document", "document": "document", "splitting": "split", "split": "split",
		"policies": "policy", "applied": "apply", "classes": "class", "class": "class",
		"status": "status", "analysis": "analysis", "string": "string", "need": "need",
		"embedded": "embed", "installed": "install", "passed": "pass", "uses": "use",
		"withdrawn": "withdrawn", "pep-0842": "pep-0842", "3.10": "3.10", "café": "café",
	} {
		if got := Fold(w); got != want {
			t.Errorf("Fold(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestVariants(t *testing.T) {
	for w, want := range map[string][]string{
		"renamed":   {"renam", "rename", "renames", "renaming"},
		"splitting": {"split", "splits", "splitted"},
		"documents": {"document", "documented", "documenting"},
	} {
		got := Variants(w)
		for _, v := range want {
			if !slices.Contains(got, v) {
				t.Errorf("Variants(%q) = %v, lacks %q", w, got, v)
			}
		}
		if slices.Contains(got, w) {
			t.Errorf("Variants(%q) holds the word itself", w)
		}
		for _, v := range got {
			if Fold(v) != Fold(w) {
				t.Errorf("Variants(%q): %q folds to %q", w, v, Fold(v))
			}
		}
	}
	if v := Variants("3.10"); v != nil {
		t.Errorf("Variants(3.10) = %v, want none", v)
	}
}

// FuzzFold: folding is idempotent on a stem's own variants and never
// grows a word.
func FuzzFold(f *testing.F) {
	for _, s := range []string{"renamed", "splitting", "policies", "a", "sss", "eee", "ing", "ed"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, w string) {
		s := Fold(w)
		if len(s) > len(w) {
			t.Fatalf("Fold(%q) = %q grows", w, s)
		}
		for _, v := range Variants(w) {
			if Fold(v) != s || v == w {
				t.Fatalf("Variants(%q) holds %q (folds to %q, not %q)", w, v, Fold(v), s)
			}
		}
	})
}
