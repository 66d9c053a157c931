package model

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Voice is a voice profile: governance/voices/<name>.yaml. It also reads
// kapi's voice profiles as kapi writes them (`cairn help voices`, "kapi's voice
// profiles and terms"): the kapi keys that cairn's own keys do not cover have fields
// of their own, so nothing a profile says is dropped on the way to its
// writing brief.
type Voice struct {
	Path string `yaml:"-"`
	Name string `yaml:"name"`
	// Title is a display name: kapi names a profile for people ("bowrain
	// platform") and files it under an id, which cairn takes as the name.
	Title       string     `yaml:"title"`
	Description string     `yaml:"description"`
	Tone        Tone       `yaml:"tone"`
	Style       Style      `yaml:"style"`
	Patterns    Patterns   `yaml:"patterns"`
	Comments    Comments   `yaml:"comments"`
	Vocabulary  Vocabulary `yaml:"vocabulary"`
	Examples    []Example  `yaml:"examples"`
	// Locales adjust the voice for one locale (kapi's locales:), by code.
	Locales     map[string]VoiceLocale `yaml:"locales"`
	Constraints []string               `yaml:"constraints"`
	ValidFrom   string                 `yaml:"valid_from"`
	ValidUntil  string                 `yaml:"valid_until"`
}

// Tone is the register a voice writes in.
type Tone struct {
	Formality   string `yaml:"formality"`
	Personality Words  `yaml:"personality"`
	Emotion     string `yaml:"emotion"`
	Humor       string `yaml:"humor"`
	Guidelines  Words  `yaml:"guidelines"`
}

// Style is the sentence-level shape of a voice.
type Style struct {
	SentenceLength string `yaml:"sentence_length"`
	PersonPOV      string `yaml:"person_pov"`
	Contractions   string `yaml:"contractions"`
	ActiveVoice    string `yaml:"active_voice"`
	// ProhibitedPatterns and RequiredPatterns are kapi's place for the
	// voice's patterns; the load stage moves them into Patterns, so every
	// later stage reads one list.
	ProhibitedPatterns []Pattern `yaml:"prohibited_patterns"`
	RequiredPatterns   []Pattern `yaml:"required_patterns"`
}

// Patterns are the regular expressions a voice forbids or requires.
type Patterns struct {
	Prohibited []Pattern `yaml:"prohibited"`
	Required   []Pattern `yaml:"required"`
}

// Pattern is one voice pattern; Regex is validated at load.
type Pattern struct {
	Regex       string `yaml:"regex"`
	Description string `yaml:"description"`
	// Severity is cairn's: error, warning or info. A profile may write
	// kapi's critical, major or minor; the load stage maps it (see
	// KapiSeverities) and keeps the word as written in Written.
	Severity string `yaml:"severity"`
	Written  string `yaml:"-"`
	Line     int    `yaml:"-"`
}

// KapiSeverities maps kapi's severities onto cairn's: a critical finding
// fails a check as an error does, a major one is worth a warning, a minor
// one is information.
var KapiSeverities = map[string]string{"critical": "error", "major": "warning", "minor": "info"}

// Comments limits code comments written in a voice.
type Comments struct {
	MaxLines      int    `yaml:"max_lines"`
	MaxLineLength int    `yaml:"max_line_length"`
	Language      string `yaml:"language"`
}

// Example is a before/after rewrite that shows a voice.
type Example struct {
	Before string `yaml:"before"`
	After  string `yaml:"after"`
	Why    string `yaml:"why"`
	// Explanation is kapi's name for Why; the load stage moves it there.
	Explanation string `yaml:"explanation"`
	// Category says what the example shows (kapi: tone, style, vocabulary).
	Category string `yaml:"category"`
}

// Vocabulary is the wording a voice itself prefers and avoids (kapi's
// vocabulary:). It is part of the voice's brief; the terms store, not the
// voice, holds the terms cairn counts and checks.
type Vocabulary struct {
	Preferred  []VoiceTerm `yaml:"preferred_terms"`
	Forbidden  []VoiceTerm `yaml:"forbidden_terms"`
	Competitor []VoiceTerm `yaml:"competitor_terms"`
	// Abbreviations maps an abbreviation to what it stands for.
	Abbreviations map[string]string `yaml:"abbreviations"`
}

// VoiceTerm is one wording of a voice's vocabulary.
type VoiceTerm struct {
	Term        string `yaml:"term"`
	Replacement string `yaml:"replacement"`
	Note        string `yaml:"note"`
	// Severity is as written: kapi's critical, major or minor, or cairn's
	// error, warning or info.
	Severity string `yaml:"severity"`
	// ConceptID is the kapi concept the wording denotes, when it has one.
	ConceptID string `yaml:"concept_id"`
}

// VoiceLocale adjusts a voice for one locale (kapi's locales.<code>).
type VoiceLocale struct {
	Formality     string      `yaml:"formality"`
	Humor         string      `yaml:"humor"`
	PersonPOV     string      `yaml:"person_pov"`
	CulturalNotes string      `yaml:"cultural_notes"`
	Vocabulary    []VoiceTerm `yaml:"vocabulary_overrides"`
	Examples      []Example   `yaml:"example_overrides"`
}

// Words is a list of short texts that a profile may also write as one
// string: cairn writes tone.guidelines as a list and kapi as one string,
// kapi writes tone.personality as a list and cairn as one string.
type Words []string

// UnmarshalYAML reads a string (one item) or a list of strings.
func (w *Words) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			*w = nil
			return nil
		}
		*w = Words{n.Value}
		return nil
	case yaml.SequenceNode:
		var items []string
		if err := n.Decode(&items); err != nil {
			return err
		}
		*w = items
		return nil
	}
	// A *yaml.TypeError is what yaml itself reports for a value of the
	// wrong shape, so the loader words this one as it words every other.
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: expected a string or a list of strings", n.Line)}}
}

// Term statuses, from most to least endorsed.
const (
	StatusPreferred  = "preferred"
	StatusApproved   = "approved"
	StatusAdmitted   = "admitted"
	StatusProposed   = "proposed"
	StatusDeprecated = "deprecated"
	StatusForbidden  = "forbidden"
)

// TermStatuses lists every valid term status.
var TermStatuses = []string{StatusPreferred, StatusApproved, StatusAdmitted, StatusProposed, StatusDeprecated, StatusForbidden}

// Term kinds.
const (
	KindTerm = "term" // a wording
	KindName = "name" // a capitalised name to write exactly
	KindKeep = "keep" // never translated
)

// Term is one entry of governance/terms.yaml.
type Term struct {
	ID          string            `yaml:"id"`
	Term        string            `yaml:"term"`
	Status      string            `yaml:"status"`
	Replacement string            `yaml:"replacement"`
	Kind        string            `yaml:"kind"`
	Pattern     string            `yaml:"pattern"`
	Definition  string            `yaml:"definition"`
	Language    string            `yaml:"language"`
	Paths       []string          `yaml:"paths"`
	Axes        map[string]string `yaml:"axes"`
	ValidFrom   string            `yaml:"valid_from"`
	ValidUntil  string            `yaml:"valid_until"`
	Note        string            `yaml:"note"`
	Line        int               `yaml:"-"`
}

// Discouraged reports whether the term rules its wording out.
func (t Term) Discouraged() bool {
	return t.Status == StatusForbidden || t.Status == StatusDeprecated
}

// Operation kinds of the notes log.
const (
	OpSuggest = "suggest"
	OpKeep    = "keep"
	OpDrop    = "drop"
	OpWiden   = "widen"
	OpReset   = "reset"
	OpCorrect = "correct"
	OpMerge   = "merge"
)

// OpKinds lists every valid operation kind.
var OpKinds = []string{OpSuggest, OpKeep, OpDrop, OpWiden, OpReset, OpCorrect, OpMerge}

// LogOp is one line of governance/log.jsonl.
type LogOp struct {
	Op         string            `json:"op"`
	At         string            `json:"at"`
	Actor      string            `json:"actor"`
	Session    string            `json:"session,omitempty"`
	Kind       string            `json:"kind"`
	Target     string            `json:"target"`
	Text       string            `json:"text,omitempty"`
	Paths      []string          `json:"paths,omitempty"`
	Axes       map[string]string `json:"axes,omitempty"`
	Evidence   []string          `json:"evidence,omitempty"`
	ValidFrom  string            `json:"valid_from,omitempty"`
	ValidUntil string            `json:"valid_until,omitempty"`
	Ref        string            `json:"ref,omitempty"`
	Line       int               `json:"-"`
}
