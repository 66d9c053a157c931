package govern

import (
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-kb/cairn/stages/lib/escape"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// This file words governance for a reader: stored text made plain, and
// the lines that state rules, the wording kept elsewhere and the notes.
// The rules files and the by-location answer both write them, so a rule
// reads the same wherever an agent meets it.

// inert are the sequences that could end cairn's section, open a comment
// or a code block: removed from stored text, repeatedly, since removing
// one can join the halves of another.
var inert = []string{"<!--", "-->", "--!>", "```", "~~~"}

// Plain turns stored text (a term, a note, a field of a voice) into one
// plain line: line breaks and control characters become spaces, comment
// delimiters and code fences are removed, an em dash becomes a comma, runs
// of space collapse, and leading heading markers go, so that the text can
// neither close the section nor read as structure of its own; a
// bidirectional control is escaped (escape.Line), so that a line of a
// rules file reads as it is written.
func Plain(s string) string { return strings.TrimLeft(flatten(s), "# ") }

// flatten is Plain without removing leading heading markers: for text
// that never starts a line, such as a regular expression in backquotes.
func flatten(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == utf8.RuneError {
			return ' '
		}
		return r
	}, s)
	s = Defuse(s)
	if strings.Contains(s, "—") {
		// An em dash and the space around it become a comma.
		parts := strings.Split(s, "—")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		s = strings.Join(parts, ", ")
	}
	return escape.Line(strings.Join(strings.Fields(s), " "))
}

// Defuse removes from s the sequences that could close a section, open a
// comment or a code block, repeatedly, since removing one can join the
// halves of another; it leaves line breaks and spacing as they are, for
// text shown line by line.
func Defuse(s string) string {
	for changed := true; changed; {
		changed = false
		for _, seq := range inert {
			if strings.Contains(s, seq) {
				s, changed = strings.ReplaceAll(s, seq, ""), true
			}
		}
	}
	return s
}

// PlainVoice returns v with every stored text made plain, so that its
// brief is built from plain values: a guideline stored as "# Do this"
// loses its heading marker even though its line starts with a label.
func PlainVoice(v model.Voice) model.Voice {
	v.Name, v.Title, v.Description = Plain(v.Name), Plain(v.Title), Plain(v.Description)
	tn := &v.Tone
	tn.Formality, tn.Emotion, tn.Humor = Plain(tn.Formality), Plain(tn.Emotion), Plain(tn.Humor)
	tn.Personality, tn.Guidelines = plainAll(tn.Personality), plainAll(tn.Guidelines)
	st := &v.Style
	st.SentenceLength, st.PersonPOV, st.Contractions, st.ActiveVoice = Plain(st.SentenceLength), Plain(st.PersonPOV), Plain(st.Contractions), Plain(st.ActiveVoice)
	v.Patterns.Prohibited = plainPatterns(v.Patterns.Prohibited)
	v.Patterns.Required = plainPatterns(v.Patterns.Required)
	v.Comments.Language = Plain(v.Comments.Language)
	v.Vocabulary = plainVocabulary(v.Vocabulary)
	v.Examples = plainExamples(v.Examples)
	if v.Locales != nil {
		locales := make(map[string]model.VoiceLocale, len(v.Locales))
		for code, l := range v.Locales {
			l.Formality, l.Humor, l.PersonPOV, l.CulturalNotes = Plain(l.Formality), Plain(l.Humor), Plain(l.PersonPOV), Plain(l.CulturalNotes)
			l.Vocabulary, l.Examples = plainVoiceTerms(l.Vocabulary), plainExamples(l.Examples)
			locales[Plain(code)] = l
		}
		v.Locales = locales
	}
	v.Constraints = plainAll(v.Constraints)
	return v
}

func plainExamples(es []model.Example) []model.Example {
	es = slices.Clone(es)
	for i := range es {
		e := &es[i]
		e.Before, e.After, e.Why, e.Category = Plain(e.Before), Plain(e.After), Plain(e.Why), Plain(e.Category)
	}
	return es
}

func plainVocabulary(voc model.Vocabulary) model.Vocabulary {
	voc.Preferred, voc.Forbidden, voc.Competitor = plainVoiceTerms(voc.Preferred), plainVoiceTerms(voc.Forbidden), plainVoiceTerms(voc.Competitor)
	if voc.Abbreviations != nil {
		abbr := make(map[string]string, len(voc.Abbreviations))
		for k, v := range voc.Abbreviations {
			abbr[Plain(k)] = Plain(v)
		}
		voc.Abbreviations = abbr
	}
	return voc
}

func plainVoiceTerms(ts []model.VoiceTerm) []model.VoiceTerm {
	ts = slices.Clone(ts)
	for i := range ts {
		t := &ts[i]
		t.Term, t.Replacement, t.Note, t.Severity = Plain(t.Term), Plain(t.Replacement), Plain(t.Note), Plain(t.Severity)
	}
	return ts
}

func plainAll(ss []string) []string {
	out := make([]string, 0, len(ss))
	for _, s := range ss {
		if s = Plain(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func plainPatterns(ps []model.Pattern) []model.Pattern {
	ps = slices.Clone(ps)
	for i := range ps {
		ps[i].Regex = strings.ReplaceAll(flatten(ps[i].Regex), "`", "'")
		ps[i].Description, ps[i].Severity, ps[i].Written = Plain(ps[i].Description), Plain(ps[i].Severity), Plain(ps[i].Written)
	}
	return ps
}

// Writable reports whether a term is a rule an agent writing the source
// can break: a wording to avoid, a capitalised name, or a name to keep
// untranslated. A term that only names a concept is not one. cairn has no
// translation loop writing a target language, so every language is a
// source language here: a rule's language never keeps it out.
func Writable(t Term) bool {
	return t.Discouraged() || t.Kind == model.KindName || t.Kind == model.KindKeep
}

// quoted renders stored wording inside quotes, as a plain line fragment.
func quoted(s string) string { return `"` + strings.ReplaceAll(Plain(s), `"`, `'`) + `"` }

// RuleLines renders the rules among terms (see RuleLinesFor), with no
// voice's vocabulary.
func RuleLines(terms []Term) []string { return RuleLinesFor(terms, nil) }

// RuleLinesFor renders one list, Say this, not that: the rules among terms
// (kept in their order: discouraged first) and the wordings the voice
// itself prefers and rules out, keyed by the wording to use, so that
// several wordings with one replacement make one line, and a rule the
// terms store and the voice both hold is one line naming where it is held
// (from terms.yaml and voice NAME). voice may be nil. Stored text is made
// plain here, the voice's as the terms'.
func RuleLinesFor(terms []Term, voice *model.Voice) []string {
	type rename struct {
		use    string
		avoid  []string // quoted, as written
		words  map[string]bool
		notes  []string
		from   []string
		plainT bool   // no replacement: one line per wording
		prefer bool   // a wording preferred, with nothing to avoid
		marks  string // a preferred wording's severity, as the voice writes it
	}
	var renames []*rename
	byKey := map[string]*rename{}
	get := func(use, avoided string) *rename {
		key := strings.ToLower(Plain(use))
		if key == "" {
			key = "\x00" + strings.ToLower(Plain(avoided)) // one line per wording to avoid
		}
		r := byKey[key]
		if r == nil {
			r = &rename{use: use, plainT: use == "", words: map[string]bool{}}
			renames = append(renames, r)
			byKey[key] = r
		}
		return r
	}
	held := func(r *rename, from, note string) {
		if !slices.Contains(r.from, from) {
			r.from = append(r.from, from)
		}
		if note != "" && !slices.Contains(r.notes, note) {
			r.notes = append(r.notes, note)
		}
	}
	avoid := func(r *rename, word, shown string) {
		if w := strings.ToLower(Plain(word)); !r.words[w] {
			r.words[w] = true
			r.avoid = append(r.avoid, shown)
		}
		r.prefer = false
	}
	const store = "terms.yaml"
	var names []string
	for _, t := range terms {
		if !Writable(t) {
			continue
		}
		note := Plain(t.Note)
		switch {
		case t.Discouraged():
			words := []string{quoted(t.Term.Term)}
			for _, w := range PatternExamples(t.Term) {
				words = append(words, quoted(w))
			}
			shown := orList(words)
			if t.Status == model.StatusDeprecated {
				shown += " (deprecated)"
			}
			r := get(t.Replacement, t.Term.Term)
			avoid(r, t.Term.Term, shown)
			held(r, store, note)
		case t.Kind == model.KindName:
			names = append(names, withNote("Write "+quoted(t.Term.Term)+" exactly as shown: it is a name.", note))
		case t.Kind == model.KindKeep:
			what := "Keep " + quoted(t.Term.Term) + " as it is, untranslated"
			if lang := Plain(t.Language); lang != "" {
				what += " (" + lang + ")"
			}
			names = append(names, withNote(what+".", note))
		}
	}
	if voice != nil {
		from := "voice " + Plain(voice.Name)
		voc := voice.Vocabulary
		for _, list := range []struct {
			ts         []model.VoiceTerm
			competitor bool
		}{{voc.Forbidden, false}, {voc.Competitor, true}} {
			for _, t := range list.ts {
				shown := quoted(t.Term) + severityNote(Plain(t.Severity))
				if list.competitor {
					shown = "the competitor's term " + shown
				}
				r := get(t.Replacement, t.Term)
				avoid(r, t.Term, shown)
				held(r, from, Plain(t.Note))
			}
		}
		for _, t := range voc.Preferred {
			r := byKey[strings.ToLower(Plain(t.Term))]
			if r == nil {
				r = get(t.Term, "")
				r.prefer, r.marks = true, severityNote(Plain(t.Severity))
			}
			held(r, from, Plain(t.Note))
		}
	}
	var out []string
	for _, r := range renames {
		var line string
		switch {
		case r.prefer:
			line = "Prefer " + quoted(r.use) + r.marks + "."
		case r.plainT:
			line = "Do not write " + orList(r.avoid) + "."
		default:
			line = "Write " + quoted(r.use) + ", not " + orList(r.avoid) + "."
		}
		line = withNote(line, strings.Join(r.notes, " "))
		if len(r.from) > 1 {
			line += " (from " + orAnd(r.from) + ")"
		}
		out = append(out, line)
	}
	return append(out, names...)
}

// orAnd joins items as "a, b and c".
func orAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

func withNote(line, note string) string {
	if note == "" {
		return line
	}
	return line + " " + note
}

// orList joins items as `a`, `a or b`, `a, b or c`.
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// KeepLine renders a rule held elsewhere and not here: the rule's old
// wording stays correct here. The new wording's own variants are never
// listed: they are wrong everywhere.
func KeepLine(t Term) string {
	where := whereText(t.Scope)
	if t.Replacement == "" {
		return quoted(t.Term.Term) + " is allowed here; the rule against it holds only " + where + "."
	}
	return quoted(t.Term.Term) + " is correct here; do not rename it to " + quoted(t.Replacement) + ". That rename holds only " + where + "."
}

// whereText says where a scope holds: "in docs/api/**", "where market is
// emea", or both.
func whereText(s Scope) string {
	var parts []string
	if len(s.Paths) > 0 {
		var ps []string
		for _, p := range s.Paths {
			ps = append(ps, Plain(p))
		}
		parts = append(parts, "in "+strings.Join(ps, ", "))
	}
	var axes []string
	for _, name := range slices.Sorted(maps.Keys(s.Axes)) {
		axes = append(axes, Plain(name)+" is "+Plain(s.Axes[name]))
	}
	if len(axes) > 0 {
		parts = append(parts, "where "+strings.Join(axes, " and "))
	}
	return strings.Join(parts, " ")
}

// NoteLines renders notes (newest first) as one line each; notes with
// identical text make one line.
func NoteLines(notes []Note) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range notes {
		text := Plain(n.Text)
		if text == "" || seen[text] { // identical text is one line
			continue
		}
		seen[text] = true
		out = append(out, text)
	}
	return out
}

// Ellipsis ends a line cut at its cap.
const Ellipsis = "…"

// CapLine cuts a line to at most limit runes, ending a cut line with an
// ellipsis.
func CapLine(line string, limit int) string {
	if limit <= 0 || utf8.RuneCountInString(line) <= limit {
		return line
	}
	n := 0
	for i := range line {
		if n == limit-1 {
			return strings.TrimRight(line[:i], " ") + Ellipsis
		}
		n++
	}
	return line
}
