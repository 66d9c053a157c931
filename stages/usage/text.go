package usage

import (
	"unicode"
	"unicode/utf8"
)

// asciiWord and asciiFold are the word-rune test and the case fold of the
// ASCII runes, looked up instead of computed in the scan's inner loop;
// asciiWordFold is both at once: the fold of a word rune, 0 for others.
var asciiWord, asciiFold, asciiWordFold = func() (word [utf8.RuneSelf]bool, fold, wordFold [utf8.RuneSelf]byte) {
	for c := range utf8.RuneSelf {
		b := byte(c)
		word[c] = 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '_'
		fold[c] = b
		if 'A' <= b && b <= 'Z' {
			fold[c] = b + 'a' - 'A'
		}
		if word[c] {
			wordFold[c] = fold[c]
		}
	}
	return word, fold, wordFold
}()

// isWordRune reports whether r continues a word: a letter, a decimal
// digit, a mark or _.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiWord[r]
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// fold maps r to one representative of its Unicode simple case-folding
// orbit, so that two runes fold alike exactly when simple folding equates
// them. The representative is the smallest rune of the orbit, lowered when
// it is ASCII, so that ASCII text folds to its own lower case.
func fold(r rune) rune {
	if r < utf8.RuneSelf {
		return rune(asciiFold[r])
	}
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	if least < utf8.RuneSelf {
		return rune(asciiFold[least])
	}
	return least
}

// foldString folds every rune of s.
func foldString(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		b = utf8.AppendRune(b, fold(r))
	}
	return string(b)
}

// runeAt decodes the rune starting at text[i], with an ASCII fast path.
func runeAt(text string, i int) (rune, int) {
	if c := text[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(text[i:])
}

// wordBefore reports whether the rune that ends just before text[i] is a
// word rune.
func wordBefore(text string, i int) bool {
	if i == 0 {
		return false
	}
	if c := text[i-1]; c < utf8.RuneSelf {
		return asciiWord[c]
	}
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return isWordRune(r)
}

// wordAt reports whether text[i] starts a word rune; false at the end.
func wordAt(text string, i int) bool {
	if i >= len(text) {
		return false
	}
	r, _ := runeAt(text, i)
	return isWordRune(r)
}
