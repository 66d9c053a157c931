package lex

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MinPlainRunes is how many runes a plain word needs to be indexed and to
// count as a query term; shorter words only count toward field length.
const MinPlainRunes = 3

// MinIdentRunes is how many runes an identifier-shaped token needs.
const MinIdentRunes = 2

// identMarks are the runes that make a token identifier-shaped.
const identMarks = "-/:@."

// isWordRune reports whether r belongs to a word: letters, digits,
// combining marks and the underscore of snake_case names.
func isWordRune(r rune) bool {
	return r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') ||
		r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r))
}

// isIdentRune reports whether r can appear inside an identifier token:
// a word rune or the punctuation of URIs, emails, paths and ticket ids.
func isIdentRune(r rune) bool {
	return isWordRune(r) || strings.ContainsRune(identPunct, r)
}

// identPunct is the punctuation an identifier token may hold.
const identPunct = "-/:@.+#%?=&~"

// The classes of an ASCII rune, for Tokens: it classifies every rune of
// every field the build indexes, and a table lookup is the cheapest way.
const (
	classWord  = 1 << iota // isWordRune
	classIdent             // isIdentRune
	classMark              // in identMarks
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for r := range rune(utf8.RuneSelf) {
		if isWordRune(r) {
			t[r] |= classWord
		}
		if isIdentRune(r) {
			t[r] |= classIdent
		}
		if strings.ContainsRune(identMarks, r) {
			t[r] |= classMark
		}
	}
	return t
}()

// runeClass is the class bits of any rune.
func runeClass(r rune) uint8 {
	if r < utf8.RuneSelf {
		return asciiClass[r]
	}
	var c uint8
	if isWordRune(r) {
		c |= classWord | classIdent // no non-ASCII rune is identifier punctuation or a mark
	}
	return c
}

// Words calls fn for every word of s, lowercased, in order. Every word
// counts toward a field's length; callers decide which are long enough to
// index (see MinPlainRunes).
func Words(s string, fn func(w string, runes int)) { Tokens(s, fn, nil) }

// Identifiers calls fn for every identifier-shaped token of s, lowercased:
// a run of word runes and URI punctuation, trimmed of punctuation at its
// ends, that still holds one of - / : @ . inside it. The words inside an
// identifier are also words, so "repo:github.com/acme/harbor" yields the
// identifier here and "repo", "github", "com", "acme", "harbor" from Words.
func Identifiers(s string, fn func(id string)) { Tokens(s, nil, fn) }

// Tokens finds the words and the identifier tokens of s in one pass,
// lowercased; either callback may be nil.
func Tokens(s string, word func(w string, runes int), ident func(id string)) {
	var w func(string, int)
	var id func(string)
	if word != nil {
		w = func(t string, runes int) { word(lower(t), runes) }
	}
	if ident != nil {
		id = func(t string) { ident(lower(t)) }
	}
	RawTokens(s, w, id)
}

// RawTokens is Tokens with each token as s spells it, a substring of s:
// a caller that looks tokens up in a dictionary lowercases them into a
// buffer of its own (IsLowerASCII, AppendLower), and copies only the ones
// it keeps.
func RawTokens(s string, word func(w string, runes int), ident func(id string)) {
	ws, wr := -1, 0         // current word: start, runes
	is, marked := -1, false // current identifier run: start, holds a mark
	flushIdent := func(end int) {
		if ident != nil && marked {
			tok := strings.TrimFunc(s[is:end], func(r rune) bool { return !isWordRune(r) })
			if utf8.RuneCountInString(tok) >= MinIdentRunes && IsIdentifierShaped(tok) {
				ident(tok)
			}
		}
		is = -1
	}
	for i, r := range s {
		class := runeClass(r)
		w := class&classWord != 0
		if w {
			if ws < 0 {
				ws, wr = i, 0
			}
			wr++
		} else if ws >= 0 {
			if word != nil {
				word(s[ws:i], wr)
			}
			ws = -1
		}
		if class&classIdent != 0 {
			if is < 0 {
				is, marked = i, false
			}
			if class&classMark != 0 {
				marked = true
			}
		} else if is >= 0 {
			flushIdent(i)
		}
	}
	if ws >= 0 && word != nil {
		word(s[ws:], wr)
	}
	if is >= 0 {
		flushIdent(len(s))
	}
}

// IsIdentifierShaped reports whether a query term may match identifier
// substrings: it holds one of - / : @ . The marks are ASCII, which no
// byte of a multi-byte rune equals, so the bytes are compared directly:
// the build asks this of every word of every title.
func IsIdentifierShaped(term string) bool {
	for i := 0; i < len(term); i++ {
		switch term[i] {
		case '-', '/', ':', '@', '.':
			return true
		}
	}
	return false
}

// lower lowercases s without allocating when it is already lowercase ASCII.
func lower(s string) string {
	if IsLowerASCII(s) {
		return s
	}
	return strings.ToLower(s)
}

// IsLowerASCII reports whether s is ASCII with no capital: a token that
// Tokens gives as RawTokens finds it.
func IsLowerASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || c >= 'A' && c <= 'Z' {
			return false
		}
	}
	return true
}

// AppendLower appends to dst the token s lowercased as Tokens gives it,
// without a string of its own when s is ASCII.
func AppendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return append(dst, strings.ToLower(s)...)
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
