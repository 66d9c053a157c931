package govern

import (
	"fmt"
	"strings"

	"github.com/cairn-kb/cairn/stages/model"
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

// VoiceBrief renders the writing brief of v.
func VoiceBrief(v model.Voice) Brief {
	b := Brief{Name: v.Name, Description: strings.TrimSpace(v.Description)}
	field := func(label, value string) {
		if value = strings.TrimSpace(value); value != "" {
			b.Lines = append(b.Lines, label+": "+value)
		}
	}
	field("Formality", v.Tone.Formality)
	field("Personality", v.Tone.Personality)
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
	for _, e := range v.Examples {
		line := fmt.Sprintf("Example: instead of %q, write %q", strings.TrimSpace(e.Before), strings.TrimSpace(e.After))
		if why := strings.TrimSpace(e.Why); why != "" {
			line += ". Why: " + why
		}
		b.Lines = append(b.Lines, line)
	}
	for _, c := range v.Constraints {
		field("Constraint", c)
	}
	return b
}

// patternLine renders one voice pattern: its description and severity,
// then the regular expression itself, which is what a check applies, in
// backquotes so that its spaces survive.
func patternLine(label string, p model.Pattern) string {
	if p.Severity != "" {
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
