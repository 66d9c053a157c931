package lex

import (
	"slices"
	"strings"
)

// Light English suffix folding. A query term also finds the words that
// fold to the same stem ("renamed" finds "rename" and "renames"), at a
// lower weight than the term itself; the index stores words as they are,
// and a query looks up a term's variants in the dictionary. The rules are
// few and written out here, not a stemmer: Fold strips at most one
// inflection, then the letter doubled before it, then a final e.
//
//   - "ies" and "ied" become "y" (policies, applied → policy, apply);
//   - "sses" becomes "ss" (classes → class); other "s" is dropped, except
//     after s, u or i (class, status, analysis stay);
//   - "ing" and "ed" are dropped when at least minFoldStem letters with a
//     vowel remain (splitting → splitt, renamed → renam; string, need stay);
//     then a doubled final consonant other than l, s or z is undoubled
//     (splitt → split, embedd → embed);
//   - a final "e" is dropped from a stem of more than minFoldStem letters
//     (rename → renam, so rename, renamed, renames and renaming meet).
//
// Only words of ASCII lowercase letters fold: identifiers, numbers and
// other scripts are left as they are.

// minFoldStem is the fewest letters a stem keeps after a suffix is
// dropped.
const minFoldStem = 3

// Fold is a word's stem under the folding rules: the word itself when no
// rule applies or it is not all ASCII lowercase letters.
func Fold(w string) string {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return w
		}
	}
	s := w
	undouble := false
	switch {
	case len(s) > 4 && (strings.HasSuffix(s, "ies") || strings.HasSuffix(s, "ied")):
		s = s[:len(s)-3] + "y"
	case strings.HasSuffix(s, "sses"):
		s = s[:len(s)-2]
	case len(s) > minFoldStem && strings.HasSuffix(s, "s") && !strings.ContainsAny(s[len(s)-2:len(s)-1], "sui"):
		s = s[:len(s)-1]
	case strings.HasSuffix(s, "ing") && stemOK(s[:len(s)-3]):
		s, undouble = s[:len(s)-3], true
	case strings.HasSuffix(s, "ed") && stemOK(s[:len(s)-2]):
		s, undouble = s[:len(s)-2], true
	}
	if n := len(s); undouble && n > minFoldStem && s[n-1] == s[n-2] && !strings.ContainsRune("aeiouylsz", rune(s[n-1])) {
		s = s[:n-1]
	}
	if n := len(s); n > minFoldStem && s[n-1] == 'e' {
		s = s[:n-1]
	}
	return s
}

// stemOK reports whether what remains of a word after a suffix can be a
// stem: minFoldStem letters or more, with a vowel.
func stemOK(s string) bool { return len(s) >= minFoldStem && strings.ContainsAny(s, "aeiouy") }

// Variants are the other words that fold as w does and that a dictionary
// may hold, sorted: the inflections of w's stem (plural, -ed, -ing, with
// or without a final e or a doubled consonant) that Fold maps to the same
// stem. A word that does not fold has none.
func Variants(w string) []string {
	stem := Fold(w)
	if len(stem) < minFoldStem {
		return nil
	}
	for i := 0; i < len(stem); i++ {
		if stem[i] < 'a' || stem[i] > 'z' {
			return nil
		}
	}
	bases := []string{stem, stem + "e"}
	if last := stem[len(stem)-1]; !strings.ContainsRune("aeiouwxy", rune(last)) {
		bases = append(bases, stem+string(last)) // splitt(ing)
	}
	var out []string
	for _, b := range bases {
		for _, suf := range []string{"", "s", "es", "ed", "d", "ing"} {
			out = append(out, b+suf)
		}
	}
	if strings.HasSuffix(stem, "y") {
		out = append(out, stem[:len(stem)-1]+"ies", stem[:len(stem)-1]+"ied")
	}
	out = slices.DeleteFunc(out, func(v string) bool { return v == w || Fold(v) != stem || len(v) < MinPlainRunes })
	slices.Sort(out)
	return slices.Compact(out)
}
