package govern

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// Brief is a voice's writing brief: its name and description, then one
// line per tone and style field the profile sets (no line for a field it
// leaves unset), then its patterns, comment limits, examples and shared
// constraints. Lines are plain text, as stored: a renderer that writes
// them somewhere privileged sanitises them.
type Brief struct {
	Name        string
	Description string
	Lines       []string
}

// VoiceBrief renders the writing brief of v. What kapi's profiles add to
// cairn's (emotion, humor, the voice's own vocabulary, an example's
// category, the adjustments per locale) has lines of its own, so that a
// profile read from kapi loses nothing on its way to a writer.
func VoiceBrief(v model.Voice) Brief { return voiceBrief(v, true) }

// VoiceBriefForRules is the brief as the rules files and the by-location
// answers write it: the voice's own vocabulary (the wordings it prefers
// and rules out) is left out of it, since Say this, not that lists it
// with the terms in force (RuleLinesFor), one line per wording to use.
func VoiceBriefForRules(v model.Voice) Brief { return voiceBrief(v, false) }

func voiceBrief(v model.Voice, vocabulary bool) Brief {
	b := Brief{Name: v.Name, Description: strings.TrimSpace(v.Description)}
	field := func(label, value string) {
		if value = strings.TrimSpace(value); value != "" {
			b.Lines = append(b.Lines, label+": "+value)
		}
	}
	field("Title", v.Title)
	field("Formality", v.Tone.Formality)
	field("Personality", strings.Join(nonEmpty(v.Tone.Personality), ", "))
	field("Emotion", v.Tone.Emotion)
	field("Humor", v.Tone.Humor)
	for _, g := range v.Tone.Guidelines {
		field("Guideline", g)
	}
	field("Sentence length", v.Style.SentenceLength)
	field("Point of view", v.Style.PersonPOV)
	field("Contractions", v.Style.Contractions)
	field("Active voice", v.Style.ActiveVoice)
	for _, list := range []struct {
		label string
		ps    []model.Pattern
	}{{"Avoid", v.Patterns.Prohibited}, {"Required", v.Patterns.Required}} {
		for _, p := range list.ps {
			b.Lines = append(b.Lines, patternLine(list.label, p))
		}
	}
	if line := commentLimits(v.Comments); line != "" {
		b.Lines = append(b.Lines, line)
	}
	if vocabulary {
		b.Lines = append(b.Lines, vocabularyLines("", v.Vocabulary)...)
	} else {
		b.Lines = append(b.Lines, abbreviationLines("", v.Vocabulary)...)
	}
	for _, e := range v.Examples {
		b.Lines = append(b.Lines, exampleLine("Example", e))
	}
	for _, code := range slices.Sorted(maps.Keys(v.Locales)) {
		b.Lines = append(b.Lines, localeLines(code, v.Locales[code])...)
	}
	for _, c := range v.Constraints {
		field("Constraint", c)
	}
	return b
}

// exampleLine renders a before/after example, with its category when the
// profile gives one.
func exampleLine(label string, e model.Example) string {
	if c := strings.TrimSpace(e.Category); c != "" {
		label += " (" + c + ")"
	}
	line := fmt.Sprintf("%s: instead of %q, write %q", label, strings.TrimSpace(e.Before), strings.TrimSpace(e.After))
	if why := strings.TrimSpace(e.Why); why != "" {
		line += ". Why: " + why
	}
	return line
}

// vocabularyLines renders a voice's own vocabulary: the wordings it
// prefers, those it rules out (with what to write instead), a
// competitor's wordings and the abbreviations it spells out. prefix starts
// each line ("For nb, " for a locale's).
func vocabularyLines(prefix string, voc model.Vocabulary) []string {
	start := func(words string) string {
		if prefix == "" {
			return strings.ToUpper(words[:1]) + words[1:]
		}
		return prefix + words
	}
	var out []string
	for _, t := range voc.Preferred {
		out = append(out, withNote(start("prefer ")+quoted(t.Term)+severityNote(t.Severity)+".", Plain(t.Note)))
	}
	for _, list := range []struct {
		label string
		ts    []model.VoiceTerm
	}{{"avoid ", voc.Forbidden}, {"avoid the competitor's term ", voc.Competitor}} {
		for _, t := range list.ts {
			line := start(list.label) + quoted(t.Term)
			if r := Plain(t.Replacement); r != "" {
				line += ", write " + quoted(r)
			}
			out = append(out, withNote(line+severityNote(t.Severity)+".", Plain(t.Note)))
		}
	}
	return append(out, abbreviationLines(prefix, voc)...)
}

// abbreviationLines renders the abbreviations a voice spells out, which
// stay in its brief: they rule no wording out.
func abbreviationLines(prefix string, voc model.Vocabulary) []string {
	var out []string
	for _, abbr := range slices.Sorted(maps.Keys(voc.Abbreviations)) {
		line := "Abbreviation " + quoted(abbr) + " stands for " + quoted(voc.Abbreviations[abbr]) + "."
		if prefix != "" {
			line = prefix + "abbreviation " + quoted(abbr) + " stands for " + quoted(voc.Abbreviations[abbr]) + "."
		}
		out = append(out, line)
	}
	return out
}

// localeLines renders a voice's adjustments for one locale: its register,
// its cultural notes, its wordings and its examples.
func localeLines(code string, l model.VoiceLocale) []string {
	var out, parts []string
	for _, f := range []struct{ label, value string }{{"formality", l.Formality}, {"humor", l.Humor}, {"point of view", l.PersonPOV}} {
		if f.value = strings.TrimSpace(f.value); f.value != "" {
			parts = append(parts, f.label+" "+f.value)
		}
	}
	if len(parts) > 0 {
		out = append(out, "For "+code+": "+strings.Join(parts, ", ")+".")
	}
	if n := strings.TrimSpace(l.CulturalNotes); n != "" {
		out = append(out, "For "+code+": "+n)
	}
	out = append(out, vocabularyLines("For "+code+", ", model.Vocabulary{Preferred: l.Vocabulary})...)
	for _, e := range l.Examples {
		out = append(out, exampleLine("For "+code+", example", e))
	}
	return out
}

// severityNote renders a severity in brackets, cairn's first: a kapi
// severity is shown as cairn applies it and as the profile wrote it.
func severityNote(s string) string {
	switch mapped, ok := model.KapiSeverities[s]; {
	case ok:
		return " (" + mapped + ", written " + s + ")"
	case s != "":
		return " (" + s + ")"
	}
	return ""
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// patternLine renders one voice pattern: its description and severity,
// then the regular expression itself, which is what a check applies, in
// backquotes so that its spaces survive. A severity mapped from kapi's
// shows the word the profile wrote beside cairn's.
func patternLine(label string, p model.Pattern) string {
	switch {
	case p.Written != "":
		label += " (" + p.Severity + ", written " + p.Written + ")"
	case p.Severity != "":
		label += " (" + p.Severity + ")"
	}
	if d := strings.TrimSpace(p.Description); d != "" {
		return fmt.Sprintf("%s: %s Pattern: `%s`", label, strings.TrimSuffix(d, ".")+".", p.Regex)
	}
	return fmt.Sprintf("%s: text matching `%s`", label, p.Regex)
}

// CommentsLabel starts the brief's line of limits for code comments.
const CommentsLabel = "Code comments: "

// commentLimits renders the limits a voice sets on code comments, or ""
// when it sets none.
func commentLimits(c model.Comments) string {
	var parts []string
	if c.MaxLines > 0 {
		parts = append(parts, fmt.Sprintf("at most %d lines", c.MaxLines))
	}
	if c.MaxLineLength > 0 {
		parts = append(parts, fmt.Sprintf("lines of at most %d characters", c.MaxLineLength))
	}
	if c.Language != "" {
		parts = append(parts, "written in "+c.Language)
	}
	if len(parts) == 0 {
		return ""
	}
	return CommentsLabel + strings.Join(parts, ", ")
}
