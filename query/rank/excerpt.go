package rank

import (
	"bytes"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-kb/cairn/stages/lib/escape"
	"github.com/cairn-kb/cairn/stages/lib/lex"
	"github.com/cairn-kb/cairn/stages/project"
)

// maxExcerptBytes bounds an excerpt.
const maxExcerptBytes = 280

// excerptSkip are fields whose text never makes an excerpt: they are on
// the metadata line already, or are not prose.
var excerptSkip = map[string]bool{project.FieldID: true, project.FieldTitle: true, project.FieldSlug: true, project.FieldURL: true}

// Excerpt picks the passage of an item with the densest coverage of the
// query's terms: the sentence holding the most distinct terms (ties: the
// heavier field, then the earlier passage), not the first mention. An
// active project found by its exact identity keeps its commitment wording.
func (e *Ranking) Excerpt(s *Scored, it *project.Item) string {
	if len(e.Terms) == 1 && s.Direct && it.HasFlag(project.FlagActive) {
		var parts []string
		for _, name := range []string{"next_action", "blocker", "due"} {
			if f, ok := it.Field(name); ok && len(f.Values) > 0 {
				parts = append(parts, name+": "+f.Values[0])
			}
		}
		if len(parts) > 0 {
			return cut(strings.Join(parts, "; "))
		}
	}
	e.ExcerptWeights()
	// A passage ranks by the distinct query terms it holds, then by how
	// much prose it carries (up to a sentence's worth, so a heading or a
	// label loses to a sentence), then by its field's weight; the first
	// such passage wins.
	type rank struct{ hits, words, weight int }
	better := func(a, b rank) bool {
		if a.hits != b.hits {
			return a.hits > b.hits
		}
		if a.words != b.words {
			return a.words > b.words
		}
		return a.weight > b.weight
	}
	var best string
	bestRank := rank{-1, -1, -1}
	var scratch []string // the passages of one value, reused
	for _, f := range it.Fields {
		if excerptSkip[f.Name] || slices.ContainsFunc(it.Relations, func(r project.Relation) bool { return r.Field == f.Name }) {
			continue
		}
		for _, v := range f.Values {
			scratch = passages(v, scratch[:0])
			for _, passage := range scratch {
				r := rank{e.coverage(passage), fieldsUpTo(passage, proseWords), e.weight[f.Name]}
				if better(r, bestRank) {
					best, bestRank = passage, r
				}
			}
		}
	}
	return cut(best)
}

// ExcerptWeights fills the field weights excerpts rank passages by, once,
// before the first item is rendered.
func (e *Ranking) ExcerptWeights() {
	if e.weight == nil {
		e.weight = map[string]int{}
		for _, f := range e.Corpus.Fields() {
			e.weight[f.Name] = f.Weight
		}
	}
}

// proseWords is the passage length past which more words no longer make
// a passage a better excerpt.
const proseWords = 12

// fieldsUpTo is min(len(strings.Fields(s)), limit), counted without
// splitting.
func fieldsUpTo(s string, limit int) int {
	n, in := 0, false
	for _, r := range s {
		space := unicode.IsSpace(r)
		if !space && !in {
			n++
			if n == limit {
				return n
			}
		}
		in = !space
	}
	return n
}

// coverage counts the distinct query terms a passage holds. A term is a
// word of the passage only if the lower-cased passage contains it (words
// are lower-cased rune by rune, as the passage is), so the passage is
// split into words only when some word term could be one of them; an
// ASCII passage is folded as it is compared, never copied.
func (e *Ranking) coverage(passage string) int {
	n := 0
	var words []string
	if e.idents == nil {
		e.idents = make([]bool, len(e.Parsed.Terms))
		for i, t := range e.Parsed.Terms {
			e.idents[i] = lex.IsIdentifierShaped(t)
		}
	}
	lower := e.lowered(passage)
	for i, t := range e.Parsed.Terms {
		if !bytes.Contains(lower, []byte(t)) {
			continue
		}
		if e.idents[i] {
			n++
			continue
		}
		if words == nil {
			words = queryWords(passage)
		}
		if slices.Contains(words, t) {
			n++
		}
	}
	return n
}

// lowered is s lower-cased as containsLower folds it, into a buffer the
// engine reuses: a passage is folded once, then searched for every term
// with the standard library's substring search. It is valid until the
// next call.
func (e *Ranking) lowered(s string) []byte {
	b := e.lowerBuf[:0]
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			e.lowerBuf = append(b[:0], strings.ToLower(s)...)
			return e.lowerBuf
		}
		b = append(b, asciiLower(s[i]))
	}
	e.lowerBuf = b
	return b
}

// passages splits text into sentences, appended to out. Wrapped Markdown
// lines join into their paragraph first; a heading, a list item or a
// quote starts a new one. A paragraph of one line is cut into sentences
// in place: only wrapped paragraphs are copied, to be joined.
func passages(text string, out []string) []string {
	var cur []string // the lines of the paragraph being read
	sentences := func(para string) {
		start := 0
		for i := 0; i < len(para); i++ {
			if (para[i] == '.' || para[i] == '!' || para[i] == '?' || para[i] == ';') && (i+1 == len(para) || para[i+1] == ' ') {
				out = appendPassage(out, para[start:i+1])
				start = i + 1
			}
		}
		out = appendPassage(out, para[start:])
	}
	flush := func() {
		switch len(cur) {
		case 0:
			return
		case 1:
			sentences(cur[0])
		default:
			sentences(strings.Join(cur, " "))
		}
		cur = cur[:0]
	}
	for rest := text; rest != ""; {
		line, after, _ := strings.Cut(rest, "\n")
		rest = after
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			flush()
		case strings.HasPrefix(t, "#") || strings.HasPrefix(t, ">") || strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "+ ") || strings.HasPrefix(t, "|"):
			flush()
			cur = append(cur, t)
			if strings.HasPrefix(t, "#") {
				flush()
			}
		default:
			cur = append(cur, t)
		}
	}
	flush()
	return out
}

// appendPassage appends a sentence, its Markdown markers and spaces
// trimmed, unless nothing is left of it.
func appendPassage(out []string, p string) []string {
	if p = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(p), "#>-*+| ")); p != "" {
		out = append(out, p)
	}
	return out
}

// cut trims a passage to maxExcerptBytes on a word boundary.
func cut(s string) string {
	s = strings.Join(strings.Fields(escape.Line(s)), " ")
	if len(s) <= maxExcerptBytes {
		return s
	}
	i := maxExcerptBytes
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	if j := strings.LastIndexByte(s[:i], ' '); j > maxExcerptBytes/2 {
		i = j
	}
	return s[:i] + " …"
}

// ContainsLower reports whether s, lower-cased, contains the lower-case
// needle. It is the cheap gate before titleIs, run on every candidate,
// so an ASCII s is folded byte by byte instead of copied.
func ContainsLower(s, needle string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.Contains(strings.ToLower(s), needle)
		}
	}
	for i := 0; i+len(needle) <= len(s); i++ {
		j := 0
		for j < len(needle) && asciiLower(s[i+j]) == needle[j] {
			j++
		}
		if j == len(needle) {
			return true
		}
	}
	return false
}

func asciiLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
