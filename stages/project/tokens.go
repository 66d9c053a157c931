package project

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
	return isWordRune(r) || strings.ContainsRune("-/:@.+#%?=&~", r)
}

// Words calls fn for every word of s, lowercased, in order. Every word
// counts toward a field's length; callers decide which are long enough to
// index (see MinPlainRunes).
func Words(s string, fn func(w string, runes int)) {
	start, runes := -1, 0
	for i, r := range s {
		if isWordRune(r) {
			if start < 0 {
				start, runes = i, 0
			}
			runes++
			continue
		}
		if start >= 0 {
			fn(lower(s[start:i]), runes)
			start = -1
		}
	}
	if start >= 0 {
		fn(lower(s[start:]), runes)
	}
}

// Identifiers calls fn for every identifier-shaped token of s, lowercased:
// a run of word runes and URI punctuation, trimmed of punctuation at its
// ends, that still holds one of - / : @ . inside it. The words inside an
// identifier are also words, so "repo:github.com/acme/harbor" yields the
// identifier here and "repo", "github", "com", "acme", "harbor" from Words.
func Identifiers(s string, fn func(id string)) {
	start := -1
	emit := func(tok string) {
		tok = strings.TrimFunc(tok, func(r rune) bool { return !isWordRune(r) })
		if utf8.RuneCountInString(tok) >= MinIdentRunes && strings.ContainsAny(tok, identMarks) {
			fn(lower(tok))
		}
	}
	for i, r := range s {
		if isIdentRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			emit(s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		emit(s[start:])
	}
}

// IsIdentifierShaped reports whether a query term may match identifier
// substrings: it holds one of - / : @ .
func IsIdentifierShaped(term string) bool { return strings.ContainsAny(term, identMarks) }

// Exact normalises a value for exact identifier matching: lowercase, with
// control characters read as spaces, runs of whitespace folded to one space
// and the ends trimmed.
func Exact(s string) string {
	fields := strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
	return lower(strings.Join(fields, " "))
}

// ExactPrefix marks exact identifier terms in the dictionary, so they can
// never collide with a word or identifier token.
const ExactPrefix = "="

// lower lowercases s without allocating when it is already lowercase ASCII.
func lower(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || c >= 'A' && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}
