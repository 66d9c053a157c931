package govern

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// Governance is what a resolution reads: a base's governance, as loaded.
type Governance struct {
	DefaultVoice string
	Points       []model.Point
	Axes         map[string]model.Axis
	Voices       []model.Voice
	Terms        []model.Term
	Log          []model.LogOp
	// Usage, when set, gives how often content uses a term (by term id),
	// to fill Standing.Uses; the query stage sets it from usage.tsv. The
	// build leaves it nil: the rules files do not show uses.
	Usage func(termID string) (uses int, ok bool)
}

// FromBase gathers the governance of a loaded base.
func FromBase(b model.Base) Governance {
	g := b.Config.Governance
	return Governance{DefaultVoice: g.DefaultVoice, Points: g.Points, Axes: g.Axes,
		Voices: b.Voices, Terms: b.Terms, Log: b.Log}
}

// Place is where a question is asked.
type Place struct {
	// Path is a base-relative content path; "" asks about the project's
	// default point itself, where only rules scoped nowhere in particular
	// hold.
	Path string
	// Point is the file's frontmatter point:, if any.
	Point string
}

// Binding fields: what decided the point a path resolves to.
const (
	BoundByFrontmatter = "frontmatter point:"
	BoundByPaths       = "governance.points.paths"
	BoundByDefault     = "default"
)

// Voice bindings: where the voice in force comes from.
const (
	VoiceFromPoint   = "point"
	VoiceFromDefault = "default_voice"
)

// Answer is what applies at a place on a day.
type Answer struct {
	Path string
	// Point is the point in force; its Name is empty at the default point.
	Point model.Point
	// Binding says what decided the point: BoundByFrontmatter,
	// BoundByPaths (Glob is then the matching glob) or BoundByDefault.
	Binding string
	Glob    string
	// Voice is the voice in force, nil when none is; VoiceBinding is
	// VoiceFromPoint or VoiceFromDefault.
	Voice        *model.Voice
	VoiceBinding string
	// Transitions name the bindings skipped because the day is outside
	// their window, most specific first.
	Transitions []Transition
	// Terms are the terms bound here: discouraged (forbidden, then
	// deprecated) first, then by wording.
	Terms []Term
	// KeepAsIs are the discouraged terms in force somewhere else and not
	// here, by wording: their old wording stays correct here.
	KeepAsIs []Term
	// Notes are the notes a person kept that hold here, newest first.
	Notes []Note
	// Suggestions are the positions nobody has decided on that hold here,
	// newest first.
	Suggestions []Suggestion
	Coverage    Coverage
}

// Term is a term of the store in force, with how the log bears on it.
type Term struct {
	model.Term
	// EstablishedBy is the op id of the person's keep that put the term
	// in force through the log, if one did.
	EstablishedBy string
	// Scope is where the term holds: the store's paths and axes, unless a
	// person's operation rescoped it.
	Scope Scope
}

// Discouraged reports whether the term rules its wording out: a term the
// store forbids or deprecates, or a proposal of a replacement that a
// person kept, which the keep makes a rule like a forbidden term's.
func (t Term) Discouraged() bool {
	return t.Term.Discouraged() || t.KeptProposal() && t.Replacement != ""
}

// KeptProposal reports whether the term is a proposal a person kept.
func (t Term) KeptProposal() bool {
	return t.Status == model.StatusProposed && t.EstablishedBy != ""
}

// Resolver answers for one governance. It is safe for concurrent use.
type Resolver struct {
	defaultVoice string
	points       []model.Point
	axes         axes
	voices       map[string]*model.Voice
	terms        []Term // in force somewhere at some day: proposed-unkept and dropped are gone
	notes        []Note
	suggestions  []Suggestion
	usage        func(string) (int, bool)
	boundaries   []string // sorted days on which some window opens or closes
	// globLists are the distinct non-empty path lists of every scope: the
	// only way, besides the points, that a path bears on an answer.
	globLists [][]string
}

// New prepares a Resolver: it folds the log and indexes the voices.
func New(g Governance) *Resolver {
	r := &Resolver{defaultVoice: g.DefaultVoice, points: g.Points, axes: newAxes(g.Axes),
		voices: map[string]*model.Voice{}, usage: g.Usage}
	for i := range g.Voices {
		r.voices[g.Voices[i].Name] = &g.Voices[i]
	}
	byID := make(map[string]model.LogOp, len(g.Log))
	for _, op := range g.Log {
		byID[op.Op] = op
	}
	folded := map[string]*target{}
	for _, t := range foldLog(g.Log) {
		folded[t.id] = t
		if n, ok := t.note(); ok {
			r.notes = append(r.notes, n)
		}
		r.suggestions = append(r.suggestions, t.suggestions(byID)...)
	}
	for _, st := range g.Terms {
		t := Term{Term: st, Scope: Scope{Paths: st.Paths, Axes: st.Axes}}
		if f := folded[TargetTerm+":"+st.ID]; f != nil {
			if f.state == dropped {
				continue
			}
			if f.state == established {
				t.EstablishedBy = f.decider.Op
			}
			if f.scoped {
				t.Scope = f.scope
			}
			if f.validFrom != "" || f.validUntil != "" {
				t.ValidFrom, t.ValidUntil = f.validFrom, f.validUntil
			}
		}
		if st.Status == model.StatusProposed && t.EstablishedBy == "" {
			continue // a proposal is not a rule until a person keeps it
		}
		r.terms = append(r.terms, t)
	}
	slices.SortFunc(r.terms, compareTerms)
	slices.SortFunc(r.notes, func(a, b Note) int {
		return cmp.Or(strings.Compare(b.Op, a.Op), strings.Compare(a.Target, b.Target))
	})
	sortSuggestions(r.suggestions)
	r.boundaries = boundaries(g, r)
	r.globLists = globLists(r)
	return r
}

// globLists gathers the distinct non-empty path lists of the resolver's
// scopes, in a fixed order.
func globLists(r *Resolver) [][]string {
	seen := map[string]bool{}
	var out [][]string
	add := func(paths []string) {
		key := strings.Join(paths, "\x00")
		if len(paths) > 0 && !seen[key] {
			seen[key] = true
			out = append(out, paths)
		}
	}
	for _, t := range r.terms {
		add(t.Scope.Paths)
	}
	for _, n := range r.notes {
		add(n.Scope.Paths)
	}
	for _, s := range r.suggestions {
		add(s.Scope.Paths)
	}
	return out
}

// PlaceKey returns a string that two places share only when every answer
// for them is the same but for Answer.Path, on any day: the frontmatter
// point, the points whose paths match, and which scopes' paths match. A
// caller resolving many files resolves once per key.
func (r *Resolver) PlaceKey(p Place) string {
	var b strings.Builder
	b.WriteString(p.Point)
	if p.Path == "" {
		b.WriteString("\x00-") // the default point itself: no glob applies
		return b.String()
	}
	b.WriteByte(0)
	for _, c := range r.candidates(p.Path) {
		b.WriteString(c.point.Name + "=" + c.glob + "\x01")
	}
	b.WriteByte(0)
	for _, list := range r.globLists {
		if pathsMatch(list, p.Path) {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}
	return b.String()
}

// statusRank orders statuses for display: what rules a wording out first.
var statusRank = map[string]int{
	model.StatusForbidden: 0, model.StatusDeprecated: 1, model.StatusPreferred: 2,
	model.StatusApproved: 3, model.StatusAdmitted: 4, model.StatusProposed: 5,
}

// compareTerms orders terms discouraged first, then by status, wording
// (case-insensitively) and id, which is unique.
func compareTerms(a, b Term) int {
	rank := func(t Term) int {
		if t.KeptProposal() && t.Discouraged() {
			return statusRank[model.StatusForbidden]
		}
		return statusRank[t.Status]
	}
	return cmp.Or(
		cmp.Compare(rank(a), rank(b)),
		strings.Compare(strings.ToLower(a.Term.Term), strings.ToLower(b.Term.Term)),
		strings.Compare(a.ID, b.ID),
	)
}

// Voice returns the voice profile of that name.
func (r *Resolver) Voice(name string) (model.Voice, bool) {
	v, ok := r.voices[name]
	if !ok {
		return model.Voice{}, false
	}
	return *v, true
}

// At resolves the governance at place p on the given day.
func (r *Resolver) At(p Place, at time.Time) Answer {
	day := Day(at)
	a := Answer{Path: p.Path}
	r.resolvePoint(p, day, &a)
	r.resolveVoice(day, &a)
	pointAxes := a.Point.Axes
	for _, t := range r.terms {
		if !inWindow(t.ValidFrom, t.ValidUntil, day) {
			continue // outside its window a rule holds nowhere
		}
		switch {
		case r.axes.holds(t.Scope, p.Path, pointAxes):
			a.Terms = append(a.Terms, t)
		case t.Discouraged() && !t.Scope.Everywhere():
			a.KeepAsIs = append(a.KeepAsIs, t)
		}
	}
	slices.SortFunc(a.KeepAsIs, func(x, y Term) int {
		return cmp.Or(strings.Compare(strings.ToLower(x.Term.Term), strings.ToLower(y.Term.Term)), strings.Compare(x.ID, y.ID))
	})
	for _, n := range r.notes {
		if inWindow(n.ValidFrom, n.ValidUntil, day) && r.axes.holds(n.Scope, p.Path, pointAxes) {
			a.Notes = append(a.Notes, n)
		}
	}
	stated := statedHere(a)
	for _, s := range r.suggestions {
		if inWindow(s.ValidFrom, s.ValidUntil, day) && r.axes.holds(s.Scope, p.Path, pointAxes) && !stated[sameWording(s.Text)] {
			a.Suggestions = append(a.Suggestions, r.withUses(s))
		}
	}
	a.Coverage = grade(a)
	return a
}

// statedHere is what an answer already states, each as sameWording
// writes it: its established notes' texts and its rules' lines. A
// suggestion that says one of them again is no news there, so the answer
// leaves it out of its suggestions (seed 004: "less any the list already
// states").
func statedHere(a Answer) map[string]bool {
	out := map[string]bool{}
	for _, n := range a.Notes {
		out[sameWording(n.Text)] = true
	}
	for _, l := range RuleLinesFor(a.Terms, a.Voice) {
		out[sameWording(l)] = true
	}
	delete(out, "")
	return out
}

// sameWording is text as two statements of one thing compare: plain, in
// lower case, its white space runs as one space, without a final period.
func sameWording(text string) string {
	return strings.TrimSuffix(strings.ToLower(strings.Join(strings.Fields(Plain(text)), " ")), ".")
}

// withUses is s with its standing's uses filled from the usage hook, when
// it is a term suggestion and the hook is set.
func (r *Resolver) withUses(s Suggestion) Suggestion {
	if s.Standing != nil && r.usage != nil {
		st := *s.Standing
		if n, ok := r.usage(strings.TrimPrefix(s.Target, TargetTerm+":")); ok {
			st.Uses = &n
		}
		s.Standing = &st
	}
	return s
}

// Notes are every note a person kept, whatever its scope and window,
// newest first: what a by-content question searches.
func (r *Resolver) Notes() []Note { return slices.Clone(r.notes) }

// Suggestions are every position nobody has decided on, whatever its
// scope and window, newest first, with their uses filled as At fills them.
func (r *Resolver) Suggestions() []Suggestion {
	out := make([]Suggestion, len(r.suggestions))
	for i, s := range r.suggestions {
		out[i] = r.withUses(s)
	}
	return out
}
