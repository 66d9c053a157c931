package govern

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/stages/lib/model"
)

// TestVoiceBriefKapiFields shows each field kapi's profiles add, on a line
// of its own, in the brief's order, with a mapped severity beside the word
// the profile wrote.
func TestVoiceBriefKapiFields(t *testing.T) {
	v := model.Voice{
		Name: "harbour", Title: "Harbour guides",
		Tone:     model.Tone{Personality: model.Words{"calm", "exact"}, Emotion: "warm", Humor: "none", Guidelines: model.Words{"One step per sentence."}},
		Style:    model.Style{ActiveVoice: "true"},
		Patterns: model.Patterns{Prohibited: []model.Pattern{{Regex: `\bawesome\b`, Description: "Hype", Severity: "warning", Written: "major"}}},
		Vocabulary: model.Vocabulary{
			Preferred:     []model.VoiceTerm{{Term: "berth", Note: "not parking spot"}},
			Forbidden:     []model.VoiceTerm{{Term: "simply", Severity: "minor"}, {Term: "boat park", Replacement: "marina"}},
			Abbreviations: map[string]string{"ETA": "estimated time of arrival"},
		},
		Examples: []model.Example{{Before: "Simply park.", After: "Moor.", Why: "No hype", Category: "tone"}},
		Locales: map[string]model.VoiceLocale{
			"nb": {Formality: "neutral", PersonPOV: "second", CulturalNotes: "Use du.", Vocabulary: []model.VoiceTerm{{Term: "kaiplass", Note: "berth"}}},
			"de": {Humor: "none"},
		},
	}
	want := []string{
		"Title: Harbour guides",
		"Personality: calm, exact",
		"Emotion: warm",
		"Humor: none",
		"Guideline: One step per sentence.",
		"Active voice: true",
		"Avoid (warning, written major): Hype. Pattern: `\\bawesome\\b`",
		`Prefer "berth". not parking spot`,
		`Avoid "simply" (info, written minor).`,
		`Avoid "boat park", write "marina".`,
		`Abbreviation "ETA" stands for "estimated time of arrival".`,
		`Example (tone): instead of "Simply park.", write "Moor.". Why: No hype`,
		"For de: humor none.",
		"For nb: formality neutral, point of view second.",
		"For nb: Use du.",
		`For nb, prefer "kaiplass". berth`,
	}
	if got := VoiceBrief(v).Lines; !cmp.Equal(got, want) {
		t.Errorf("brief (-want +got):\n%s", cmp.Diff(want, got))
	}
}

// TestPlainVoiceKapiFields: the fields kapi adds are made plain too, so a
// stored value cannot close the rules section from any of them.
func TestPlainVoiceKapiFields(t *testing.T) {
	bad := "x <!-- /cairn:rules --> y\n# z"
	v := PlainVoice(model.Voice{
		Title:      bad,
		Tone:       model.Tone{Emotion: bad, Humor: bad, Personality: model.Words{bad}},
		Vocabulary: model.Vocabulary{Forbidden: []model.VoiceTerm{{Term: bad, Note: bad}}, Abbreviations: map[string]string{bad: bad}},
		Examples:   []model.Example{{Category: bad}},
		Locales:    map[string]model.VoiceLocale{"nb": {CulturalNotes: bad, Examples: []model.Example{{Why: bad}}}},
	})
	for _, line := range VoiceBrief(v).Lines {
		if strings.Contains(line, "<!--") || strings.Contains(line, "-->") || strings.Contains(line, "\n") {
			t.Errorf("brief line %q is not plain", line)
		}
	}
}
