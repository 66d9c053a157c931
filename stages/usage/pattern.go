package usage

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// Regexp sources of the rune classes the counting rules use.
const (
	// spaceClass is one rune of white space, as unicode.IsSpace has it.
	spaceClass = `[\t\n\v\f\r\x{85}\p{Z}]`
	// nonWordClass is one rune that is not a word rune (see isWordRune).
	nonWordClass = `[^\p{L}\p{Nd}\p{M}_]`
)

// anySpace stands in a term's rest for a run of white space.
const anySpace rune = -1

// termSpec is how one term is found. A term whose match must start with a
// word is found from the words of the text: lead is the folded start of
// that word. Otherwise the term is found by searching the whole text with
// its regexp.
type termSpec struct {
	lead string
	// exact means lead is the whole first word of every match (a term
	// without a pattern); otherwise the word only starts with lead.
	exact bool
	// rest is what follows the lead in a term without a pattern: folded
	// runes, and anySpace for each run of white space.
	rest []rune
	// re matches the term followed by a non-word rune or the end of the
	// text, with the term as its first group. It is anchored at the start
	// when the term has a lead, and searches when it has none.
	re *regexp.Regexp
}

// compileTerm makes the spec of one term. A term whose wording is blank
// and has no pattern gets a spec that never matches (lead and re empty).
func compileTerm(t model.Term) (termSpec, error) {
	term := strings.TrimSpace(t.Term)
	if t.Pattern == "" && term != "" {
		if r, _ := utf8.DecodeRuneInString(term); isWordRune(r) {
			return literalSpec(term), nil
		}
	}
	src, err := termSource(t)
	if src == "" || err != nil {
		return termSpec{}, err
	}
	// Every match starts with the literal prefix of src, in some case;
	// its leading word is the lead.
	plain, err := regexp.Compile(src)
	if err != nil {
		return termSpec{}, fmt.Errorf("term %q: pattern %q: %w", t.ID, t.Pattern, err)
	}
	prefix, _ := plain.LiteralPrefix()
	if n := strings.IndexFunc(prefix, func(r rune) bool { return !isWordRune(r) }); n >= 0 {
		prefix = prefix[:n]
	}
	re, err := termRegexp(src, prefix != "")
	if err != nil {
		return termSpec{}, fmt.Errorf("term %q: pattern %q: %w", t.ID, t.Pattern, err)
	}
	return termSpec{lead: foldString(prefix), re: re}, nil
}

// literalSpec is the spec of a term without a pattern whose wording starts
// with a word rune: its first word is the lead, and the rest is compared
// rune by rune.
func literalSpec(term string) termSpec {
	n := strings.IndexFunc(term, func(r rune) bool { return !isWordRune(r) })
	if n < 0 {
		n = len(term)
	}
	var rest []rune
	for _, r := range term[n:] {
		switch {
		case !unicode.IsSpace(r):
			rest = append(rest, fold(r))
		case len(rest) == 0 || rest[len(rest)-1] != anySpace:
			rest = append(rest, anySpace)
		}
	}
	return termSpec{lead: foldString(term[:n]), exact: true, rest: rest}
}

// termSource is the regexp source of what a term matches, before case
// folding and word boundaries: its wording, or its pattern (see the
// package comment for whole-word and ending patterns). It is empty for a
// blank term without a pattern.
func termSource(t model.Term) (string, error) {
	term := strings.TrimSpace(t.Term)
	if t.Pattern == "" {
		return literalSource(term), nil
	}
	pattern, err := spacedPattern(t.Pattern)
	if err != nil {
		return "", fmt.Errorf("term %q: pattern %q: %w", t.ID, t.Pattern, err)
	}
	whole, err := regexp.Compile(`(?i)\A(?:` + pattern + `)\z`)
	if err != nil {
		return "", fmt.Errorf("term %q: pattern %q: %w", t.ID, t.Pattern, err)
	}
	if whole.MatchString(term) {
		return pattern, nil
	}
	return literalSource(term) + `(?:` + pattern + `)`, nil
}

// termRegexp compiles src into a spec's regexp: case-insensitive, the
// match as group 1, followed by a non-word rune or the end of the text.
func termRegexp(src string, anchored bool) (*regexp.Regexp, error) {
	expr := `((?i:` + src + `))(?:` + nonWordClass + `|\z)`
	if anchored {
		expr = `\A` + expr
	}
	return regexp.Compile(expr)
}

// literalSource is a regexp source that matches term as written, each run
// of white space in it matching any run of white space.
func literalSource(term string) string {
	words := strings.Fields(term)
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	return strings.Join(words, spaceClass+"+")
}

// spacedPattern rewrites a pattern so that each run of literal white space
// in it (a space, \n, or a class of one such rune) matches any run of
// white space, as in a term's wording. Classes of several runes, such as
// [ \t] or \s, are left as they are.
func spacedPattern(pattern string) (string, error) {
	if !strings.ContainsFunc(pattern, unicode.IsSpace) {
		return pattern, nil
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", err
	}
	spaces, err := syntax.Parse(spaceClass+"+", syntax.Perl)
	if err != nil {
		return "", err
	}
	return respace(re, spaces).String(), nil
}

// respace replaces the runs of white space of every literal in re with
// spaces, a node that matches any run.
func respace(re, spaces *syntax.Regexp) *syntax.Regexp {
	for i, sub := range re.Sub {
		re.Sub[i] = respace(sub, spaces)
	}
	if re.Op != syntax.OpLiteral || !slices.ContainsFunc(re.Rune, unicode.IsSpace) {
		return re
	}
	var parts []*syntax.Regexp
	rest := re.Rune
	for len(rest) > 0 {
		n := slices.IndexFunc(rest, unicode.IsSpace)
		if n < 0 {
			n = len(rest)
		}
		if n > 0 {
			parts = append(parts, &syntax.Regexp{Op: syntax.OpLiteral, Flags: re.Flags, Rune: rest[:n]})
			rest = rest[n:]
			continue
		}
		n = slices.IndexFunc(rest, func(r rune) bool { return !unicode.IsSpace(r) })
		if n < 0 {
			n = len(rest)
		}
		parts = append(parts, spaces)
		rest = rest[n:]
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: parts}
}
