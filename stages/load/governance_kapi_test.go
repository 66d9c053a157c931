package load

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// kapiVoice is a voice profile in kapi's shape, written for this test: a
// display name, personality as a list, guidelines as one string, patterns
// under style with kapi's severities, an example's explanation and
// category, the voice's own vocabulary and a locale.
const kapiVoice = `# A profile as kapi writes it.
name: Harbour guides
description: Calm register for the harbour guides.
tone:
  personality: [calm, exact]
  formality: neutral
  emotion: warm
  humor: light
  guidelines: >-
    Say what the reader does next. One step per sentence.
style:
  active_voice: true
  sentence_length: short
  person_pov: second
  contractions: never
  prohibited_patterns:
    - regex: '\b(awesome|amazing)\b'
      description: Hype words
      severity: major
    - regex: '\d+\+ berths'
      description: Counts the code controls
      severity: critical
  required_patterns:
    - regex: '^# '
      description: A page starts with a heading
      severity: minor
vocabulary:
  preferred_terms:
    - term: berth
      note: not "parking spot"
  forbidden_terms:
    - term: simply
      replacement: ""
      severity: minor
  abbreviations:
    ETA: estimated time of arrival
examples:
  - before: "Simply park your awesome boat."
    after: "Moor at the berth you were given."
    explanation: No hype, the harbour's own word
    category: vocabulary
locales:
  nb:
    formality: neutral
    person_pov: second
    cultural_notes: Address the reader as "du".
    vocabulary_overrides:
      - term: kaiplass
        note: berth
`

func TestGovernanceKapiVoice(t *testing.T) {
	const vf = "governance/voices/harbour.yaml"
	r := runGovernance(t, map[string]string{vf: kapiVoice})
	if len(r.diags) != 0 {
		t.Fatalf("unexpected diagnostics:\n%v", r.diags)
	}
	var v model.Voice
	for _, got := range r.voices {
		if got.Name == "harbour" {
			v = got
		}
	}
	if v.Title != "Harbour guides" {
		t.Errorf("title = %q; the display name should become the title", v.Title)
	}
	if !cmp.Equal([]string(v.Tone.Personality), []string{"calm", "exact"}) || !cmp.Equal([]string(v.Tone.Guidelines), []string{"Say what the reader does next. One step per sentence."}) {
		t.Errorf("tone = %+v", v.Tone)
	}
	if v.Tone.Emotion != "warm" || v.Tone.Humor != "light" || v.Style.ActiveVoice != "true" {
		t.Errorf("tone, style = %+v, %+v", v.Tone, v.Style)
	}
	type pat struct {
		Regex, Severity, Written string
		Line                     int
	}
	var got []pat
	for _, p := range append(v.Patterns.Prohibited, v.Patterns.Required...) {
		got = append(got, pat{p.Regex, p.Severity, p.Written, p.Line})
	}
	want := []pat{
		{`\b(awesome|amazing)\b`, "warning", "major", 17},
		{`\d+\+ berths`, "error", "critical", 20},
		{`^# `, "info", "minor", 24},
	}
	if !cmp.Equal(got, want) {
		t.Errorf("patterns (-want +got):\n%s", cmp.Diff(want, got))
	}
	if v.Style.ProhibitedPatterns != nil || v.Style.RequiredPatterns != nil {
		t.Errorf("style patterns were not moved into patterns: %+v", v.Style)
	}
	if e := v.Examples[0]; e.Why != "No hype, the harbour's own word" || e.Explanation != "" || e.Category != "vocabulary" {
		t.Errorf("example = %+v", e)
	}
	if v.Vocabulary.Forbidden[0].Severity != "minor" || v.Vocabulary.Abbreviations["ETA"] != "estimated time of arrival" {
		t.Errorf("vocabulary = %+v", v.Vocabulary)
	}
	if l := v.Locales["nb"]; l.PersonPOV != "second" || l.Vocabulary[0].Term != "kaiplass" {
		t.Errorf("locale nb = %+v", l)
	}
}

func TestGovernanceKapiVoiceErrors(t *testing.T) {
	const vf = "governance/voices/plain.yaml"
	runGovCases(t, []govCase{
		{"a name that could be a stem must be the stem", map[string]string{vf: "name: plain-docs\n"},
			[]string{vf + ":1:7 voice-name"}, `set name: plain`},
		{"a display name is kept as the title", map[string]string{vf: "name: Plain docs\n"},
			[]string{}, ""},
		{"a display name beside a title is a mistake", map[string]string{vf: "name: Plain docs\ntitle: Plain\n"},
			[]string{vf + ":1:7 voice-name"}, `set name: plain`},
		{"unknown severity in style patterns", map[string]string{vf: "name: plain\nstyle:\n  prohibited_patterns:\n    - {regex: x, severity: blocker}\n"},
			[]string{vf + ":4:28 bad-severity"}, `style.prohibited_patterns[0].severity "blocker" is not a severity; use one of: error, warning, info (or kapi's critical, major, minor)`},
		{"bad regex in style patterns", map[string]string{vf: "name: plain\nstyle:\n  required_patterns:\n    - regex: 'a(b'\n"},
			[]string{vf + ":4:14 bad-regex"}, "style.required_patterns[0].regex on line 4"},
		{"unknown severity in the vocabulary", map[string]string{vf: "name: plain\nvocabulary:\n  forbidden_terms:\n    - {term: x, severity: huge}\n"},
			[]string{vf + ":4:27 bad-severity"}, `vocabulary.forbidden_terms[0].severity "huge"`},
		{"why and explanation both", map[string]string{vf: "name: plain\nexamples:\n  - {before: a, after: b, why: c, explanation: d}\n"},
			[]string{vf + ":3:48 duplicate-key"}, "examples[0] has both why and explanation"},
		{"personality as a mapping", map[string]string{vf: "name: plain\ntone:\n  personality: {calm: yes}\n"},
			[]string{vf + ":3:16 yaml-type"}, "tone.personality"},
		{"a kapi key cairn does not know stays an error", map[string]string{vf: "name: plain\nchannels:\n  email: {}\n"},
			[]string{vf + ":2:1 unknown-key"}, `unknown key "channels"`},
	})
}
