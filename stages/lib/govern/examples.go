package govern

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// PatternExamples are the whole words a term's pattern stands for besides
// the term's own wording, which the rules files list with it: a pattern
// that is a choice of words (sprint|scrum, \b(master|slave)\b) yields
// them, in the pattern's order. A pattern over the endings of one word
// (whitelist(s|ed|ing)?, glossar(y|ies)) or anything but a choice of
// literal words yields none: its matches are forms of the term, not other
// words to avoid.
func PatternExamples(t model.Term) []string {
	alts, ok := wordChoices(t.Pattern)
	if !ok {
		return nil
	}
	var out []string
	for _, w := range alts {
		if !strings.EqualFold(w, t.Term) && !slices.ContainsFunc(out, func(x string) bool { return strings.EqualFold(x, w) }) {
			out = append(out, w)
		}
	}
	return out
}

// wordChoices splits a pattern into the literal words of its top-level
// choice, after a leading (?i) and \b at either end, and a group around
// the whole; false when any choice is not a literal word.
func wordChoices(pattern string) ([]string, bool) {
	p := strings.TrimPrefix(pattern, "(?i)")
	p = strings.TrimPrefix(p, `\b`)
	p = strings.TrimSuffix(p, `\b`)
	if inner, ok := wholeGroup(p); ok {
		p = inner
	}
	parts := splitTop(p)
	if len(parts) < 2 {
		return nil, false
	}
	var words []string
	for _, part := range parts {
		re, err := syntax.Parse(part, syntax.Perl)
		if err != nil || re.Op != syntax.OpLiteral {
			return nil, false
		}
		w := string(re.Rune)
		if !isWord(w) {
			return nil, false
		}
		words = append(words, w)
	}
	return words, true
}

// wholeGroup unwraps a pattern that is one group, (…) or (?:…), from its
// first byte to its last.
func wholeGroup(p string) (string, bool) {
	if !strings.HasPrefix(p, "(") || !strings.HasSuffix(p, ")") {
		return "", false
	}
	depth := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 && i != len(p)-1 {
				return "", false // the first group closes before the end
			}
		}
	}
	inner := p[1 : len(p)-1]
	return strings.TrimPrefix(inner, "?:"), true
}

// splitTop splits p at the | that are outside every group and class.
func splitTop(p string) []string {
	var parts []string
	depth, class, start := 0, false, 0
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			i++
		case class:
			class = c != ']'
		case c == '[':
			class = true
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			parts = append(parts, p[start:i])
			start = i + 1
		}
	}
	return append(parts, p[start:])
}

// isWord reports whether s is a word or words as prose writes them:
// letters and digits, joined by single spaces, hyphens or apostrophes.
func isWord(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != ' ' && r != '-' && r != '\'' {
			return false
		}
	}
	return !strings.HasPrefix(s, " ") && !strings.HasSuffix(s, " ")
}
