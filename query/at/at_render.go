package at

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/provenance"
	"github.com/cairn-kb/cairn/query/render"
	"github.com/cairn-kb/cairn/stages/lib/govern"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// Answer is the by-location answer as a document: what --format json
// prints, and what the markdown is rendered from.
type Answer struct {
	// Path is the asked location, base-relative ("." for the root); empty
	// for a profile answer.
	Path    string `json:"path,omitempty"`
	Profile string `json:"profile,omitempty"`
	// Scope is project (the base's governance at a point) or profile (one
	// voice profile and nothing else).
	Scope string `json:"scope"`
	// For is what is written at the place the answer is for: content, or
	// code comments (--comments).
	For  string `json:"for"`
	AsOf string `json:"as_of"`
	// Point is where the path resolves; nil for a profile answer.
	Point *Point `json:"point,omitempty"`
	Voice *Voice `json:"voice"`
	// Rules are the lines of "Say this, not that": the rules an agent
	// writing here can break, worded as the rules files word them.
	Rules       []string     `json:"rules"`
	Terms       []Term       `json:"terms"`
	KeepAsIs    []string     `json:"keep_as_is"`
	Notes       []Note       `json:"notes"`
	Suggestions []Suggestion `json:"suggestions"`
	// Windows are the bindings skipped because the day is outside their
	// window, with what governs instead.
	Windows    []string              `json:"windows"`
	Coverage   provenance.Coverage   `json:"coverage"`
	Provenance provenance.Provenance `json:"provenance"`
	Attention  []string              `json:"attention"`
	Record     string                `json:"record"`
	notes      []govern.Note         // what the markdown's notes are rendered from
	// lineRunes caps each stored line of the markdown, as in the rules
	// files; the JSON holds the whole text.
	lineRunes int
}

// Point is the point a path resolves to and what decided it.
type Point struct {
	Name    string            `json:"name"` // "" for the default point
	Binding string            `json:"binding"`
	Glob    string            `json:"glob,omitempty"`
	Axes    map[string]string `json:"axes,omitempty"`
}

// Voice is the voice in force and its writing brief.
type Voice struct {
	Name        string   `json:"name"`
	Binding     string   `json:"binding,omitempty"` // point or default_voice
	Description string   `json:"description"`
	Brief       []string `json:"brief"`
}

// Term is one term bound here.
type Term struct {
	ID            string `json:"id"`
	Term          string `json:"term"`
	Status        string `json:"status"`
	Kind          string `json:"kind,omitempty"`
	Replacement   string `json:"replacement,omitempty"`
	Definition    string `json:"definition,omitempty"`
	Note          string `json:"note,omitempty"`
	Scope         string `json:"scope,omitempty"`
	ValidFrom     string `json:"valid_from,omitempty"`
	ValidUntil    string `json:"valid_until,omitempty"`
	EstablishedBy string `json:"established_by,omitempty"`
}

// Note is a note a person kept that holds here.
type Note struct {
	Target   string   `json:"target"`
	Text     string   `json:"text"`
	Op       string   `json:"op"`
	Actor    string   `json:"actor"`
	Evidence []string `json:"evidence,omitempty"`
	Scope    string   `json:"scope,omitempty"`
}

// Suggestion is a position nobody has decided on.
type Suggestion struct {
	Target      string               `json:"target"`
	Kind        string               `json:"kind"`   // rule or note
	Status      string               `json:"status"` // suggested or contested
	Text        string               `json:"text"`
	Actor       string               `json:"actor"`
	Session     string               `json:"session,omitempty"`
	Evidence    []string             `json:"evidence,omitempty"`
	Op          string               `json:"op"`
	ContestedBy []string             `json:"contested_by"`
	Standing    *provenance.Standing `json:"standing,omitempty"`
}

// project fills the answer for a path.
func (d *Answer) project(rel string, a govern.Answer) {
	d.Path, d.Scope = rel, provenance.ScopeProject
	d.Point = &Point{Name: a.Point.Name, Binding: a.Binding, Glob: a.Glob, Axes: a.Point.Axes}
	if a.Voice != nil {
		d.Voice = voiceOf(*a.Voice)
		d.Voice.Binding = a.VoiceBinding
	}
	d.notes = a.Notes
	for _, t := range a.Terms {
		d.Terms = append(d.Terms, Term{
			ID: t.ID, Term: t.Term.Term, Status: t.Status, Kind: t.Kind, Replacement: t.Replacement,
			Definition: t.Definition, Note: t.Note, Scope: t.Scope.Text(), ValidFrom: t.ValidFrom,
			ValidUntil: t.ValidUntil, EstablishedBy: t.EstablishedBy,
		})
	}
	d.Rules = govern.RuleLinesFor(a.Terms, a.Voice)
	for _, t := range a.KeepAsIs {
		d.KeepAsIs = append(d.KeepAsIs, govern.KeepLine(t))
	}
	if line := claimedNote(a); line != "" {
		d.Attention = append(d.Attention, line)
	}
	for _, n := range a.Notes {
		d.Notes = append(d.Notes, Note{Target: govern.Plain(n.Target), Text: govern.Plain(n.Text), Op: n.Op, Actor: govern.Plain(n.Actor), Evidence: plainAll(n.Evidence), Scope: govern.Plain(n.Scope.Text())})
	}
	for _, s := range a.Suggestions {
		as := Suggestion{Target: govern.Plain(s.Target), Kind: s.Kind, Status: s.Status, Text: govern.Plain(s.Text), Actor: govern.Plain(s.Actor),
			Session: govern.Plain(s.Session), Evidence: plainAll(s.Evidence), Op: s.Op, ContestedBy: render.NonNil(s.ContestedBy)}
		if st := s.Standing; st != nil {
			as.Standing = &provenance.Standing{Sessions: st.Sessions, Corrections: st.Corrections, Merges: st.Merges, MergedIn: st.MergedIn, Uses: st.Uses}
		}
		d.Suggestions = append(d.Suggestions, as)
	}
	for _, t := range a.Transitions {
		d.Windows = append(d.Windows, t.Text())
	}
	d.Coverage = provenance.Coverage{Grade: a.Coverage.Grade, Kinds: render.NonNil(a.Coverage.Kinds), Missing: render.NonNil(a.Coverage.Missing), Pending: a.Coverage.Pending}
}

// profile fills the answer for a named voice profile: its brief and
// nothing else, since no point of the project stands behind it.
func (d *Answer) profile(v model.Voice) {
	d.Profile, d.Scope = v.Name, provenance.ScopeProfile
	d.Voice = voiceOf(v)
	d.Rules = govern.RuleLinesFor(nil, &v)
	d.Coverage = provenance.Coverage{Grade: govern.GradeThin, Kinds: []string{govern.CoverVoice}, Missing: []string{govern.CoverTerms, govern.CoverEstablished}}
	d.Attention = append(d.Attention, "This is the voice profile "+v.Name+" alone: no point of the project stands behind it, so no terms, notes or suggestions are in it. Ask with --at PATH for what applies to a file.")
}

// forComments turns the answer to the code comments written at the
// place: the voice's limits for comments lead its brief, and a voice that
// sets none says so. Terms and notes hold in comments as in prose.
func (d *Answer) forComments() {
	d.For = forComments
	if d.Voice == nil {
		return
	}
	i := slices.IndexFunc(d.Voice.Brief, func(l string) bool { return strings.HasPrefix(l, govern.CommentsLabel) })
	if i < 0 {
		d.Attention = append(d.Attention, "The voice "+d.Voice.Name+" sets no limits for code comments (comments: in its profile); its tone and style hold for them.")
		return
	}
	line := d.Voice.Brief[i]
	d.Voice.Brief = append([]string{line}, slices.Delete(slices.Clone(d.Voice.Brief), i, i+1)...)
}

// What an answer is for.
const (
	forContent  = "content"
	forComments = "comments"
)

func voiceOf(v model.Voice) *Voice {
	b := govern.VoiceBriefForRules(govern.PlainVoice(v))
	return &Voice{Name: b.Name, Description: b.Description, Brief: render.NonNil(b.Lines)}
}

// finish adds what every answer carries: empty lists as [], the freshness
// of the artifacts first among the notes to the reader, what a thin or
// empty answer lacks, and the invitation to record an observation.
func (d *Answer) finish(f provenance.Freshness) {
	d.Rules, d.Terms, d.KeepAsIs = render.NonNil(d.Rules), render.NonNilOf(d.Terms), render.NonNil(d.KeepAsIs)
	d.Notes, d.Suggestions, d.Windows = render.NonNilOf(d.Notes), render.NonNilOf(d.Suggestions), render.NonNil(d.Windows)
	var first []string
	if f.State != corpus.StateUsed {
		first = append(first, fmt.Sprintf("The artifacts are %s (%s): term usage counts are left out until `cairn build` runs; voice, terms and notes are read from the base and hold.", f.State, f.Reason))
	}
	if d.Scope == provenance.ScopeProject && d.Coverage.Grade != govern.GradeCovered {
		missing := strings.Join(d.Coverage.Missing, ", ")
		line := fmt.Sprintf("Coverage is %s here: nothing of %s applies.", d.Coverage.Grade, missing)
		if d.Coverage.Pending > 0 {
			line += fmt.Sprintf(" %d suggestion(s) wait for a person's decision (`cairn note list`).", d.Coverage.Pending)
		}
		line += " If you notice how this project names things, spells them or writes, record it."
		d.Attention = append(d.Attention, line)
	}
	if d.For == "" {
		d.For = forContent
	}
	d.Attention = append(first, d.Attention...)
	d.Attention = render.NonNil(d.Attention)
	d.Record = provenance.RecordLine
}

// markdown renders the answer as a brief for a model: the voice, then
// Say this, not that, Keep as it is, the notes, the suggestions apart
// from them, the windows, and what needs attention. explain adds the
// point's binding, the scope, the coverage and the provenance.
func (d *Answer) markdown(explain bool) string {
	var b strings.Builder
	switch {
	case d.Scope == provenance.ScopeProfile:
		fmt.Fprintf(&b, "# Voice profile %s\n", govern.Plain(d.Profile))
	case d.For == forComments:
		fmt.Fprintf(&b, "# What applies to code comments at %s\n", govern.Plain(d.Path))
	default:
		fmt.Fprintf(&b, "# What applies at %s\n", govern.Plain(d.Path))
	}
	for _, a := range d.Attention {
		fmt.Fprintf(&b, "\n> %s\n", a)
	}
	if v := d.Voice; v != nil {
		fmt.Fprintf(&b, "\n## Voice: %s\n", v.Name)
		if v.Description != "" {
			fmt.Fprintf(&b, "%s\n", v.Description)
		}
		list(&b, v.Brief, d.lineRunes)
	} else if d.Scope == provenance.ScopeProject {
		b.WriteString("\n## Voice\nNo voice profile governs here.\n")
	}
	section(&b, "Say this, not that", d.Rules, d.lineRunes)
	section(&b, "Keep as it is", d.KeepAsIs, d.lineRunes)
	section(&b, "Notes a person kept", govern.NoteLines(d.notes), d.lineRunes)
	if len(d.Suggestions) > 0 {
		b.WriteString("\n## Suggested, not yet established\n")
		for _, s := range d.Suggestions {
			fmt.Fprintf(&b, "- %s\n  %s\n", govern.CapLine(fmt.Sprintf("%s (%s, %s): %s", s.Target, s.Kind, s.Status, s.Text), d.lineRunes), suggestionMeta(s))
		}
	}
	section(&b, "Governance windows", d.Windows, d.lineRunes)
	if explain {
		b.WriteString("\n## How this was reached\n")
		var lines []string
		if p := d.Point; p != nil {
			name := p.Name
			if name == "" {
				name = "the default point"
			}
			how := p.Binding
			if p.Glob != "" {
				how += " " + p.Glob
			}
			lines = append(lines, fmt.Sprintf("Point: %s (bound by %s)", name, how))
		}
		if v := d.Voice; v != nil && v.Binding != "" {
			lines = append(lines, fmt.Sprintf("Voice: %s (from %s)", v.Name, v.Binding))
		}
		lines = append(lines,
			fmt.Sprintf("Scope: %s · as of %s", d.Scope, d.AsOf),
			fmt.Sprintf("Coverage: %s (has: %s; lacks: %s; pending suggestions: %d)", d.Coverage.Grade, orNone(d.Coverage.Kinds), orNone(d.Coverage.Missing), d.Coverage.Pending),
			fmt.Sprintf("Provenance: project %s · log revision %s (%d operations) · artifacts %s %s", d.Provenance.Project, render.OrDash(d.Provenance.LogRevision), d.Provenance.LogOperations, d.Provenance.Artifacts.Path, d.Provenance.Artifacts.State))
		list(&b, lines, 0)
	}
	fmt.Fprintf(&b, "\n%s\n", d.Record)
	return b.String()
}

// suggestionMeta is a suggestion's second line: who, where, on what
// evidence, its op, what contests it, and a term's standing as counts.
func suggestionMeta(s Suggestion) string {
	parts := []string{"by " + s.Actor}
	if s.Session != "" {
		parts = append(parts, "session "+s.Session)
	}
	if len(s.Evidence) > 0 {
		parts = append(parts, "evidence "+strings.Join(s.Evidence, ", "))
	}
	parts = append(parts, "op "+s.Op)
	if len(s.ContestedBy) > 0 {
		parts = append(parts, "contested by "+strings.Join(s.ContestedBy, ", "))
	}
	if st := s.Standing; st != nil {
		parts = append(parts, fmt.Sprintf("seen in %d session(s)", st.Sessions))
		if st.Corrections > 0 {
			parts = append(parts, fmt.Sprintf("%d correction(s) toward it", st.Corrections))
		}
		if st.Uses != nil {
			parts = append(parts, fmt.Sprintf("used %d time(s) in content", *st.Uses))
		}
		for _, m := range st.MergedIn {
			parts = append(parts, "merged in "+m)
		}
	}
	return strings.Join(parts, " · ")
}

func section(b *strings.Builder, heading string, items []string, lineRunes int) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## %s\n", heading)
	list(b, items, lineRunes)
}

func list(b *strings.Builder, items []string, lineRunes int) {
	for _, it := range items {
		fmt.Fprintf(b, "- %s\n", govern.CapLine(it, lineRunes))
	}
}

// plainAll makes each stored one-line value plain; the log is anyone's to
// write, so nothing from it reaches the answer raw.
func plainAll(l []string) []string {
	var out []string
	for _, v := range l {
		out = append(out, govern.Plain(v))
	}
	return out
}

func orNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}

// claimedNote is the note an answer carries when a point claims its
// location and rules held elsewhere are listed as kept as they are here:
// an agent must not carry those rules over (seed 004: a location a
// profile claims, where the rules listed are the ones that hold). "" when
// no point claims it, or nothing held elsewhere could be carried over.
func claimedNote(a govern.Answer) string {
	if a.Binding == govern.BoundByDefault || a.Point.Name == "" || len(a.KeepAsIs) == 0 {
		return ""
	}
	how := "by its frontmatter"
	if a.Binding == govern.BoundByPaths {
		how = "by its paths " + govern.Plain(a.Glob)
	}
	return "The point " + govern.Plain(a.Point.Name) + " claims this location (" + how + "): the rules listed are the ones that hold here, and a rule held elsewhere (Keep as it is) does not apply."
}
