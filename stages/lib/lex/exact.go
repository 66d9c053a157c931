package lex

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
)

// Exact normalises a value for exact identifier matching: lowercase, with
// control characters read as spaces, runs of whitespace folded to one space
// and the ends trimmed. A value of printable ASCII without spaces or
// capitals, as most identifiers are, is already normal and is returned as
// it is, without allocating.
func Exact(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || 'A' <= c && c <= 'Z' {
			fields := strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
			return lower(strings.Join(fields, " "))
		}
	}
	return s
}

// ExactPrefix starts the dictionary terms of exact identifiers, which no
// word or identifier token can start with.
const ExactPrefix = "="

// ExactTerm is the dictionary term of an exact identifier value: its
// Exact form after ExactPrefix.
func ExactTerm(v string) string { return ExactPrefix + Exact(v) }

// FoldKey hashes s case-folded: every rune is replaced by the least rune
// of its simple case-folding orbit, so strings.EqualFold(a, b) implies
// FoldKey(a) == FoldKey(b). Equal keys are a hint to compare, not proof.
func FoldKey(s string) uint32 {
	var buf [64]byte
	b := buf[:0]
	for _, r := range s { // invalid bytes read as U+FFFD, as EqualFold reads them
		if r < utf8.RuneSelf { // an ASCII letter's least is its upper case
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
			b = append(b, byte(r))
			continue
		}
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b = utf8.AppendRune(b, least)
	}
	return uint32(xxhash.Sum64(b))
}
