package usage

import (
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// matcher counts the uses of every term of a store in one text at a time.
// The text is read once, word by word: each word is looked up among the
// terms' leads, and only the terms that a word can start are tried there.
// Terms without a lead are searched for on their own, with their regexp.
type matcher struct {
	specs []termSpec
	// exact holds the first words of the terms without a pattern.
	exact leadTable
	// prefix holds the word starts that pattern terms' matches begin
	// with; prefixLens lists their byte lengths, ascending.
	prefix     leadTable
	prefixLens []int
	// scan lists the terms without a lead.
	scan []int32
}

// newMatcher compiles every term; spec i is terms[i]'s.
func newMatcher(terms []model.Term) (*matcher, error) {
	m := &matcher{specs: make([]termSpec, len(terms))}
	exact, prefix := map[string][]int32{}, map[string][]int32{}
	for i, t := range terms {
		s, err := compileTerm(t)
		if err != nil {
			return nil, err
		}
		m.specs[i] = s
		switch {
		case s.lead != "" && s.exact:
			exact[s.lead] = append(exact[s.lead], int32(i))
		case s.lead != "":
			if _, ok := prefix[s.lead]; !ok {
				m.prefixLens = append(m.prefixLens, len(s.lead))
			}
			prefix[s.lead] = append(prefix[s.lead], int32(i))
		case s.re != nil:
			m.scan = append(m.scan, int32(i))
		}
	}
	m.exact, m.prefix = newLeadTable(exact), newLeadTable(prefix)
	slices.Sort(m.prefixLens)
	m.prefixLens = slices.Compact(m.prefixLens)
	return m, nil
}

// termCount is how often one text uses one term (by its index).
type termCount struct {
	term  int32
	count int
}

// counter is one worker's scratch space, reused from text to text.
type counter struct {
	counts []int
	// next is, per term, where its next match may start: the end of its
	// last match, so that matches of one term never overlap.
	next    []int
	touched []int32
	word    []byte
	// spans, when set, receives every match as it is found: what Finder
	// reports, where counting alone needs only the counts.
	spans func(t int32, start, end int)
}

func (m *matcher) newCounter() *counter {
	return &counter{counts: make([]int, len(m.specs)), next: make([]int, len(m.specs))}
}

// hit records a match of term t from start to end.
func (c *counter) hit(t int32, start, end int) {
	if c.spans != nil {
		c.spans(t, start, end)
	}
	if c.counts[t] == 0 {
		c.touched = append(c.touched, t)
	}
	c.counts[t]++
	c.next[t] = end
}

// count returns how often text uses each term it uses, by term index.
func (m *matcher) count(text string, c *counter) []termCount {
	word := c.word[:0]
	for i := 0; i < len(text); {
		if b := text[i]; b < utf8.RuneSelf {
			if asciiWordFold[b] == 0 {
				i++
				continue
			}
		} else if r, size := utf8.DecodeRuneInString(text[i:]); !isWordRune(r) {
			i += size
			continue
		}
		// A word starts at i: the rune before it is not a word rune. Fold
		// it into word and hash it on the way.
		start := i
		word = word[:0]
		h := fnvOffset
		for i < len(text) {
			if b := text[i]; b < utf8.RuneSelf {
				f := asciiWordFold[b]
				if f == 0 {
					break
				}
				word = append(word, f)
				h = (h ^ uint64(f)) * fnvPrime
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[i:])
			if !isWordRune(r) {
				break
			}
			n := len(word)
			word = utf8.AppendRune(word, fold(r))
			for _, f := range word[n:] {
				h = (h ^ uint64(f)) * fnvPrime
			}
			i += size
		}
		m.tryWord(text, start, i, word, h, c)
	}
	c.word = word
	for _, t := range m.scan {
		m.search(text, t, c)
	}
	slices.Sort(c.touched)
	out := make([]termCount, len(c.touched))
	for i, t := range c.touched {
		out[i] = termCount{term: t, count: c.counts[t]}
		c.counts[t], c.next[t] = 0, 0
	}
	c.touched = c.touched[:0]
	return out
}

// tryWord tries the terms that the word text[start:end] can start: word is
// the word folded, h its hash.
func (m *matcher) tryWord(text string, start, end int, word []byte, h uint64, c *counter) {
	if m.exact.has(len(word)) && m.exact.starts(word[0]) {
		for _, t := range m.exact.find(h, word) {
			if start >= c.next[t] {
				if e, ok := matchRest(text, end, m.specs[t].rest); ok {
					c.hit(t, start, e)
				}
			}
		}
	}
	if !m.prefix.starts(word[0]) {
		return
	}
	// Each prefix's hash extends the shorter one's.
	ph, hashed := fnvOffset, 0
	for _, n := range m.prefixLens {
		if n > len(word) {
			return
		}
		for _, f := range word[hashed:n] {
			ph = (ph ^ uint64(f)) * fnvPrime
		}
		hashed = n
		for _, t := range m.prefix.find(ph, word[:n]) {
			if start >= c.next[t] {
				if loc := m.specs[t].re.FindStringSubmatchIndex(text[start:]); loc != nil && loc[3] > loc[2] {
					c.hit(t, start+loc[2], start+loc[3])
				}
			}
		}
	}
}

// matchRest matches a term's rest at text[i:], just after its first word,
// and reports where the match ends. The match must not end inside a word.
func matchRest(text string, i int, rest []rune) (int, bool) {
	for _, want := range rest {
		if want == anySpace {
			from := i
			for i < len(text) {
				r, size := runeAt(text, i)
				if !unicode.IsSpace(r) {
					break
				}
				i += size
			}
			if i == from {
				return 0, false
			}
			continue
		}
		if i >= len(text) {
			return 0, false
		}
		r, size := runeAt(text, i)
		if fold(r) != want {
			return 0, false
		}
		i += size
	}
	return i, !wordAt(text, i)
}

// search counts term t, which has no lead, with its regexp: a match that
// starts right after a word rune is refused, and the search goes on one
// rune further.
func (m *matcher) search(text string, t int32, c *counter) {
	re := m.specs[t].re
	for at := 0; at <= len(text); {
		loc := re.FindStringSubmatchIndex(text[at:])
		if loc == nil {
			return
		}
		start, end := at+loc[2], at+loc[3]
		if end > start && !wordBefore(text, start) {
			c.hit(t, start, end)
			at = end
			continue
		}
		if start == len(text) {
			return
		}
		_, size := runeAt(text, start)
		at = start + size
	}
}
