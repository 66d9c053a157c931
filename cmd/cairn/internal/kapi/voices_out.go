package kapi

import "github.com/cairn-kb/cairn/stages/lib/model"

// The shape of a voice file an import writes: cairn's keys in cairn's
// order, empty ones left out, kapi's own keys where cairn has no other
// (emotion, humor, vocabulary, category, locales).
type (
	voiceOut struct {
		Name        string               `yaml:"name"`
		Title       string               `yaml:"title,omitempty"`
		Description string               `yaml:"description,omitempty"`
		Tone        toneOut              `yaml:"tone,omitempty"`
		Style       styleOut             `yaml:"style,omitempty"`
		Patterns    patternsOut          `yaml:"patterns,omitempty"`
		Comments    commentsOut          `yaml:"comments,omitempty"`
		Vocabulary  vocabularyOut        `yaml:"vocabulary,omitempty"`
		Examples    []exampleOut         `yaml:"examples,omitempty"`
		Locales     map[string]localeOut `yaml:"locales,omitempty"`
		Constraints []string             `yaml:"constraints,omitempty"`
		ValidFrom   string               `yaml:"valid_from,omitempty"`
		ValidUntil  string               `yaml:"valid_until,omitempty"`
	}
	toneOut struct {
		Formality   string   `yaml:"formality,omitempty"`
		Personality []string `yaml:"personality,omitempty,flow"`
		Emotion     string   `yaml:"emotion,omitempty"`
		Humor       string   `yaml:"humor,omitempty"`
		Guidelines  []string `yaml:"guidelines,omitempty"`
	}
	styleOut struct {
		SentenceLength string `yaml:"sentence_length,omitempty"`
		PersonPOV      string `yaml:"person_pov,omitempty"`
		Contractions   string `yaml:"contractions,omitempty"`
		ActiveVoice    string `yaml:"active_voice,omitempty"`
	}
	patternsOut struct {
		Prohibited []patternOut `yaml:"prohibited,omitempty"`
		Required   []patternOut `yaml:"required,omitempty"`
	}
	patternOut struct {
		Regex       string `yaml:"regex"`
		Description string `yaml:"description,omitempty"`
		Severity    string `yaml:"severity,omitempty"`
	}
	commentsOut struct {
		MaxLines      int    `yaml:"max_lines,omitempty"`
		MaxLineLength int    `yaml:"max_line_length,omitempty"`
		Language      string `yaml:"language,omitempty"`
	}
	vocabularyOut struct {
		Preferred     []termOut         `yaml:"preferred_terms,omitempty"`
		Forbidden     []termOut         `yaml:"forbidden_terms,omitempty"`
		Competitor    []termOut         `yaml:"competitor_terms,omitempty"`
		Abbreviations map[string]string `yaml:"abbreviations,omitempty"`
	}
	termOut struct {
		Term        string `yaml:"term"`
		Replacement string `yaml:"replacement,omitempty"`
		Note        string `yaml:"note,omitempty"`
		Severity    string `yaml:"severity,omitempty"`
		ConceptID   string `yaml:"concept_id,omitempty"`
	}
	exampleOut struct {
		Before   string `yaml:"before"`
		After    string `yaml:"after"`
		Why      string `yaml:"why,omitempty"`
		Category string `yaml:"category,omitempty"`
	}
	localeOut struct {
		Formality     string       `yaml:"formality,omitempty"`
		Humor         string       `yaml:"humor,omitempty"`
		PersonPOV     string       `yaml:"person_pov,omitempty"`
		CulturalNotes string       `yaml:"cultural_notes,omitempty"`
		Vocabulary    []termOut    `yaml:"vocabulary_overrides,omitempty"`
		Examples      []exampleOut `yaml:"example_overrides,omitempty"`
	}
)

// patternsOf writes patterns with the severity as the profile wrote it.
func patternsOf(ps []model.Pattern) []patternOut {
	var out []patternOut
	for _, p := range ps {
		sev := p.Severity
		if p.Written != "" {
			sev = p.Written
		}
		out = append(out, patternOut{Regex: p.Regex, Description: p.Description, Severity: sev})
	}
	return out
}

func vocabularyOf(v model.Vocabulary) vocabularyOut {
	return vocabularyOut{Preferred: termsOf(v.Preferred), Forbidden: termsOf(v.Forbidden), Competitor: termsOf(v.Competitor), Abbreviations: v.Abbreviations}
}

func termsOf(ts []model.VoiceTerm) []termOut {
	var out []termOut
	for _, t := range ts {
		out = append(out, termOut(t))
	}
	return out
}

func examplesOf(es []model.Example) []exampleOut {
	var out []exampleOut
	for _, e := range es {
		out = append(out, exampleOut{Before: e.Before, After: e.After, Why: e.Why, Category: e.Category})
	}
	return out
}
