package check

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/cairn-kb/cairn/stages/lib/govern"
	"github.com/cairn-kb/cairn/stages/lib/model"
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

// ruleset is what is checked at one place: the wordings in force there,
// each with what its match means, and the voice's patterns.
type ruleset struct {
	// terms maps a wording of the shared finder (its index) to the rule a
	// match of it breaks here; wordings not in force here are absent.
	terms      map[int]termRule
	prohibited []patternRule
	required   []patternRule
	// endorsed are the wordings of the terms in force here that rule
	// nothing out: a longer one of them written is what the store asks
	// for, even where a shorter rule's wording lies inside it.
	endorsed map[int]bool
}

// wordings is every wording any place may look for, found by one usage
// matcher compiled once per check: each term in force somewhere, by its
// wording (and pattern), and each rename's new wording as written. A
// place's ruleset picks its own among them, so a file is read once for
// every term whatever its point.
type wordings struct {
	finder *usage.Finder
	own    map[string]int // term id → the index of its wording
	renew  map[string]int // term id → the index of its replacement
}

// newWordings compiles the wordings of the terms the resolver holds in
// force.
func newWordings(r *govern.Resolver, store []model.Term) (*wordings, error) {
	w := &wordings{own: map[string]int{}, renew: map[string]int{}}
	var words []model.Term
	for _, st := range store {
		t, ok := r.TermOf(st.ID)
		if !ok {
			continue
		}
		w.own[t.ID] = len(words)
		words = append(words, t.Term)
		if t.Replacement != "" {
			// The new wording as written, never the old one's pattern: its
			// own variants are wrong everywhere, and listed nowhere.
			w.renew[t.ID] = len(words)
			words = append(words, model.Term{ID: t.ID, Term: t.Replacement})
		}
	}
	f, err := usage.NewFinder(words)
	if err != nil {
		return nil, err
	}
	w.finder = f
	return w, nil
}

// compile builds the ruleset of an answer: every discouraged term and
// every name bound there, the new wording of every rename kept as it is
// there, and the voice's patterns.
func compile(a govern.Answer, w *wordings) (*ruleset, error) {
	s := &ruleset{terms: map[int]termRule{}, endorsed: map[int]bool{}}
	for _, t := range a.Terms {
		i, ok := w.own[t.ID]
		if ok && !t.Discouraged() {
			s.endorsed[i] = true
		}
		switch {
		case !ok:
		case t.Discouraged():
			s.terms[i] = termRule{kind: kindDiscouraged, term: t, rule: discouragedRule(t)}
		case t.Kind == model.KindName:
			s.terms[i] = termRule{kind: kindName, term: t, rule: Rule{
				ID: "terms.name:" + t.ID, Severity: SeverityError, Note: govern.Plain(t.Note),
				Short: "Write " + quoted(t.Term.Term) + " exactly as shown: it is a name.",
			}}
		}
	}
	correct := correctHere(a)
	for _, t := range a.KeepAsIs {
		i, ok := w.renew[t.ID]
		if !ok || correct[strings.ToLower(display(t.Replacement))] {
			continue
		}
		s.terms[i] = termRule{kind: kindKeep, term: t, rule: Rule{
			ID: "terms.keep:" + t.ID, Severity: termSeverity(t.Term), Note: govern.Plain(t.Note),
			Short: govern.KeepLine(t),
		}}
	}
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
	severity := termSeverity(t.Term)
	if t.KeptProposal() {
		severity = SeverityError // a person's keep made the proposal a rule
	}
	return Rule{ID: "terms." + t.Status + ":" + t.ID, Severity: severity, Short: short, Note: govern.Plain(t.Note)}
}

// correctHere lists the wordings correct at the answer's place in their
// own right, folded: what a term in force here writes, and what a rule in
// force here renames to. A rename to one of them held elsewhere asks
// nothing of here.
func correctHere(a govern.Answer) map[string]bool {
	out := map[string]bool{}
	for _, t := range a.Terms {
		if t.Discouraged() {
			out[strings.ToLower(display(t.Replacement))] = true
		} else {
			out[strings.ToLower(display(t.Term.Term))] = true
		}
	}
	return out
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
