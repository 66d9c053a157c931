package check

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/cairn-kb/cairn/stages/govern"
	"github.com/cairn-kb/cairn/stages/model"
	"github.com/cairn-kb/cairn/stages/usage"
)

// Kinds of a term rule: what a match of its wording means.
const (
	kindDiscouraged = iota // the wording is ruled out here
	kindName               // the wording is a name, to be written exactly
	kindKeep               // the wording is a rename's new one, which holds elsewhere
)

// termRule is one wording a ruleset looks for.
type termRule struct {
	kind int
	term govern.Term
	rule Rule
}

// patternRule is one compiled voice pattern.
type patternRule struct {
	re      *regexp.Regexp
	pattern model.Pattern
	rule    Rule
}

// ruleset is what is checked at one place: the wordings, found together
// by one usage matcher, and the voice's patterns.
type ruleset struct {
	terms      []termRule // parallel to the finder's terms
	finder     *usage.Finder
	prohibited []patternRule
	required   []patternRule
}

// compile builds the ruleset of an answer: every discouraged term and
// every name bound there, the new wording of every rename kept as it is
// there, and the voice's patterns.
func compile(a govern.Answer) (*ruleset, error) {
	s := &ruleset{}
	for _, t := range a.Terms {
		switch {
		case t.Discouraged():
			s.terms = append(s.terms, termRule{kind: kindDiscouraged, term: t, rule: discouragedRule(t)})
		case t.Kind == model.KindName:
			s.terms = append(s.terms, termRule{kind: kindName, term: t, rule: Rule{
				ID: "terms.name:" + t.ID, Severity: SeverityError, Note: govern.Plain(t.Note),
				Short: "Write " + quoted(t.Term.Term) + " exactly as shown: it is a name.",
			}})
		}
	}
	for _, t := range a.KeepAsIs {
		if t.Replacement == "" || correctHere(a, t.Replacement) {
			continue
		}
		s.terms = append(s.terms, termRule{kind: kindKeep, term: t, rule: Rule{
			ID: "terms.keep:" + t.ID, Severity: termSeverity(t.Term), Note: govern.Plain(t.Note),
			Short: govern.KeepLine(t),
		}})
	}
	words := make([]model.Term, len(s.terms))
	for i, r := range s.terms {
		words[i] = r.term.Term
		if r.kind == kindKeep {
			// The new wording as written, never the old one's pattern: its
			// own variants are wrong everywhere, and listed nowhere.
			words[i] = model.Term{ID: r.term.ID, Term: r.term.Replacement}
		}
	}
	f, err := usage.NewFinder(words)
	if err != nil {
		return nil, err
	}
	s.finder = f
	if v := a.Voice; v != nil {
		var err error
		if s.prohibited, err = patterns(v.Name, "prohibited", v.Patterns.Prohibited); err != nil {
			return nil, err
		}
		if s.required, err = patterns(v.Name, "required", v.Patterns.Required); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// discouragedRule is the rule of a discouraged term, worded as the rules
// files word it.
func discouragedRule(t govern.Term) Rule {
	short := "Do not write " + quoted(t.Term.Term) + "."
	if t.Replacement != "" {
		short = "Write " + quoted(t.Replacement) + ", not " + quoted(t.Term.Term) + "."
	}
	return Rule{ID: "terms." + t.Status + ":" + t.ID, Severity: termSeverity(t.Term), Short: short, Note: govern.Plain(t.Note)}
}

// correctHere reports whether wording is correct at the answer's place in
// its own right: a term in force here writes it, or a rule in force here
// renames to it. Then a rename to it held elsewhere asks nothing of here.
func correctHere(a govern.Answer, wording string) bool {
	same := func(x string) bool { return strings.EqualFold(display(x), display(wording)) }
	for _, t := range a.Terms {
		if !t.Discouraged() && same(t.Term.Term) || t.Discouraged() && same(t.Replacement) {
			return true
		}
	}
	return false
}

// patterns compiles a voice's patterns of one list (load has checked that
// they compile; a pattern that does not is an error naming it).
func patterns(voice, list string, ps []model.Pattern) ([]patternRule, error) {
	out := make([]patternRule, 0, len(ps))
	for i, p := range ps {
		re, err := regexp.Compile(p.Regex)
		if err != nil {
			return nil, fmt.Errorf("voice %q: patterns.%s[%d]: %w", voice, list, i, err)
		}
		sev := p.Severity
		if sev == "" {
			sev = SeverityWarning
		}
		desc := govern.Plain(p.Description)
		if desc == "" {
			desc = "pattern " + p.Regex
		}
		verb := "Avoid"
		if list == "required" {
			verb = "Include"
		}
		out = append(out, patternRule{re: re, pattern: p, rule: Rule{
			ID:       fmt.Sprintf("voice.%s:%s#%d", list, voice, i+1),
			Severity: sev,
			Short:    fmt.Sprintf("%s (voice %s): %s", verb, govern.Plain(voice), desc),
		}})
	}
	return out, nil
}
