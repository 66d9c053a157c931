package lex

import (
	"iter"
	"strings"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
)

// The words of a query, and of titles as a query would read them. They
// live here rather than with the query stage because the build keys every
// title by its query terms (docs.key's title-terms column), so that a
// query can tell which of thousands of candidates may have a title equal
// to the query without reading their titles.

// Scaffolding is the seed's closed conversational-scaffolding vocabulary:
// words that say how an answer was asked for, not what to retrieve. A
// query drops them from its terms.
var Scaffolding = map[string]bool{
	"about": true, "can": true, "could": true, "did": true, "do": true,
	"does": true, "for": true, "from": true, "give": true, "how": true,
	"i": true, "is": true, "last": true, "me": true, "my": true,
	"our": true, "please": true, "prepare": true, "show": true,
	"summarize": true, "take": true, "tell": true, "the": true,
	"was": true, "were": true, "what": true, "when": true, "where": true,
	"which": true, "who": true, "why": true, "with": true, "would": true,
	"your": true,
}

// QueryWords yields the words of text the way a query is split into
// terms, lowercased, keeping every word (KeepAsTerm tells which a query
// keeps): an identifier-shaped chunk is one word, other chunks are split
// into words.
func QueryWords(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for chunk := range strings.FieldsSeq(text) {
			chunk = strings.TrimFunc(chunk, isQuotePunct)
			if chunk == "" {
				continue
			}
			if IsIdentifierShaped(chunk) {
				if !yield(strings.ToLower(chunk)) {
					return
				}
				continue
			}
			stop := false
			Words(chunk, func(w string, _ int) { stop = stop || !yield(w) })
			if stop {
				return
			}
		}
	}
}

// quotePunct marks the ASCII punctuation a query trims from the ends of
// its chunks: quotes, brackets and sentence marks.
var quotePunct = func() (t [utf8.RuneSelf]bool) {
	for _, c := range "\"'()[]{}<>,;:!?." {
		t[c] = true
	}
	return t
}()

// isQuotePunct reports whether r is trimmed from a chunk's ends.
func isQuotePunct(r rune) bool { return r < utf8.RuneSelf && quotePunct[r] }

// KeepAsTerm reports whether a word would survive query normalisation.
func KeepAsTerm(w string) bool {
	if IsIdentifierShaped(w) {
		return utf8.RuneCountInString(w) >= 2
	}
	return utf8.RuneCountInString(w) >= MinPlainRunes && !Scaffolding[w]
}

// TitleTerms are the terms a title normalises to as a query: its kept
// words, each once, in the order they first appear. A title "is" a query
// exactly when its terms are the query's.
func TitleTerms(title string) []string {
	var out []string
	var seen firstSeen
	for w := range QueryWords(title) {
		if KeepAsTerm(w) && seen.add(w) {
			out = append(out, w)
		}
	}
	return out
}

// TitleKey is TermsKey(TitleTerms(title)), without the list: the build
// keys every title.
func TitleKey(title string) uint32 {
	var seen firstSeen
	h := xxhash.New()
	for w := range QueryWords(title) {
		if KeepAsTerm(w) && seen.add(w) {
			h.WriteString(w)
			h.WriteString("\x00")
		}
	}
	return uint32(h.Sum64())
}

// firstSeen tells a word met for the first time. A title's few words are
// compared in a small array; past firstSeenList distinct words a map
// takes over, so a title of millions of words costs time linear in its
// length, not in its length times its vocabulary.
type firstSeen struct {
	small [firstSeenList]string
	n     int
	big   map[string]bool
}

// firstSeenList is how many distinct words firstSeen compares one by one.
const firstSeenList = 16

// add reports whether w is new, and remembers it.
func (f *firstSeen) add(w string) bool {
	if f.big != nil {
		if f.big[w] {
			return false
		}
		f.big[w] = true
		return true
	}
	for _, v := range f.small[:f.n] {
		if v == w {
			return false
		}
	}
	if f.n < firstSeenList {
		f.small[f.n] = w
		f.n++
		return true
	}
	f.big = make(map[string]bool, 2*firstSeenList)
	for _, v := range f.small {
		f.big[v] = true
	}
	f.big[w] = true
	return true
}

// TermsKey hashes a list of terms, each followed by a NUL: equal lists,
// equal keys.
func TermsKey(terms []string) uint32 {
	h := xxhash.New()
	for _, t := range terms {
		h.WriteString(t)
		h.WriteString("\x00")
	}
	return uint32(h.Sum64())
}
