package rules

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-kb/cairn/stages/model"
)

// ellipsis ends a line cut at its cap.
const ellipsis = "…"

// inert are the sequences that could end cairn's section, open a comment
// or a code block: removed from stored text, repeatedly, since removing
// one can join the halves of another.
var inert = []string{"<!--", "-->", "--!>", "```", "~~~"}

// plain turns stored text (a term, a note, a field of a voice) into one
// plain line: line breaks and control characters become spaces, comment
// delimiters and code fences are removed, an em dash becomes a comma, runs
// of space collapse, and leading heading markers go, so that the text can
// neither close the section nor read as structure of its own.
func plain(s string) string { return strings.TrimLeft(flatten(s), "# ") }

// flatten is plain without removing leading heading markers: for text
// that never starts a line, such as a regular expression in backquotes.
func flatten(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == utf8.RuneError {
			return ' '
		}
		return r
	}, s)
	for changed := true; changed; {
		changed = false
		for _, seq := range inert {
			if strings.Contains(s, seq) {
				s, changed = strings.ReplaceAll(s, seq, ""), true
			}
		}
	}
	if strings.Contains(s, "—") {
		// An em dash and the space around it become a comma.
		parts := strings.Split(s, "—")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		s = strings.Join(parts, ", ")
	}
	return strings.Join(strings.Fields(s), " ")
}

// plainVoice returns v with every stored text made plain, so that its
// brief is built from plain values: a guideline stored as "# Do this"
// loses its heading marker even though its line starts with a label.
func plainVoice(v model.Voice) model.Voice {
	v.Name, v.Description = plain(v.Name), plain(v.Description)
	v.Tone.Formality, v.Tone.Personality = plain(v.Tone.Formality), plain(v.Tone.Personality)
	v.Tone.Guidelines = plainAll(v.Tone.Guidelines)
	st := &v.Style
	st.SentenceLength, st.PersonPOV, st.Contractions, st.ActiveVoice = plain(st.SentenceLength), plain(st.PersonPOV), plain(st.Contractions), plain(st.ActiveVoice)
	v.Patterns.Prohibited = plainPatterns(v.Patterns.Prohibited)
	v.Patterns.Required = plainPatterns(v.Patterns.Required)
	v.Comments.Language = plain(v.Comments.Language)
	v.Examples = slices.Clone(v.Examples)
	for i := range v.Examples {
		e := &v.Examples[i]
		e.Before, e.After, e.Why = plain(e.Before), plain(e.After), plain(e.Why)
	}
	v.Constraints = plainAll(v.Constraints)
	return v
}

func plainAll(ss []string) []string {
	out := make([]string, 0, len(ss))
	for _, s := range ss {
		if s = plain(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func plainPatterns(ps []model.Pattern) []model.Pattern {
	ps = slices.Clone(ps)
	for i := range ps {
		ps[i].Regex = strings.ReplaceAll(flatten(ps[i].Regex), "`", "'")
		ps[i].Description, ps[i].Severity = plain(ps[i].Description), plain(ps[i].Severity)
	}
	return ps
}

// capLine cuts a line to at most limit runes, ending a cut line with an
// ellipsis.
func capLine(line string, limit int) string {
	if limit <= 0 || utf8.RuneCountInString(line) <= limit {
		return line
	}
	n := 0
	for i := range line {
		if n == limit-1 {
			return strings.TrimRight(line[:i], " ") + ellipsis
		}
		n++
	}
	return line
}
