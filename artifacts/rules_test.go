package artifacts

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var sampleRules = RulesTable{
	Holds: RulesSpan{From: "2026-01-01", Until: "2027-06-30"},
	Voices: []RulesVoice{
		{Name: "blog", Description: "Launch posts.", Brief: []string{"Formality: informal"}, ValidFrom: "2026-01-01"},
		{Name: "docs", Description: "Reference.", Brief: []string{"Contractions: avoid", "Constraint: run as written"}},
	},
	Terms: []RulesTerm{
		{ID: "api-key", Term: "API key", Status: "forbidden", Replacement: "push token", Paths: []string{"docs/api/**"}, Note: "The API has no keys."},
		{ID: "harbor", Term: "Harbor", Status: "preferred", Kind: "name"},
		{ID: "referentiel", Term: "référentiel", Status: "forbidden", Axes: map[string]string{"market": "emea"}, EstablishedBy: "20261102T091512.000Z-4c1d7e"},
	},
	Notes: []RulesNote{{Target: "note:shell", Text: "No $ prompts.", Op: "20261102T153040.120Z-9a03bf", Actor: "person:marc", Paths: []string{"docs/**"}, Evidence: []string{"docs/a.md"}}},
	Suggestions: []RulesSuggestion{
		{Op: "20261103T081455.500Z-b7e210", Target: "term:pull", Kind: "rule", Status: "contested", Text: "Say pull-through cache.", Actor: "agent:codex", Session: "cx",
			ContestedBy: []string{"20261104T110301.004Z-0f5a9c"}, Standing: &RulesStanding{Sessions: 2, Merges: 1, MergedIn: []string{"#412"}}},
		{Op: "20261104T110301.004Z-0f5a9c", Target: "term:pull", Kind: "rule", Status: "contested", Actor: "agent:claude", Standing: &RulesStanding{Sessions: 2}},
	},
	Places: []RulesPlace{
		{Folder: "", Binding: "default", Voice: "docs", VoiceFrom: "default_voice", Terms: []string{"harbor"}, KeepAsIs: []string{"api-key"}, Coverage: "covered", RulesFiles: []string{"AGENTS.md", "CLAUDE.md"}},
		{Folder: "", Files: []string{"README.md"}, Binding: "default", Voice: "docs", Coverage: "thin", Missing: []string{"terms", "established"}},
		{Folder: "docs/fr", Files: []string{"guide.md"}, Point: "docs-fr", Binding: "frontmatter point:", Axes: map[string]string{"market": "fr"},
			Transitions: []RulesTransition{{Kind: "voice", Name: "blog", ValidUntil: "2026-11-09", Closed: true, Now: "docs"}},
			Terms:       []string{"referentiel"}, Notes: []string{"note:shell"}, Suggestions: []string{"20261103T081455.500Z-b7e210"}, Coverage: "covered"},
	},
	Files: []string{"AGENTS.md", "CLAUDE.md"},
}

func TestRulesRoundTrip(t *testing.T) {
	data, err := EncodeRules(sampleRules)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRules(data)
	if err != nil {
		t.Fatalf("decode: %v\n%s", err, data)
	}
	if d := cmp.Diff(sampleRules, got); d != "" {
		t.Errorf("Decode(Encode(x)) (-x +got):\n%s", d)
	}
	again, err := EncodeRules(got)
	if err != nil || !bytes.Equal(again, data) {
		t.Errorf("Encode(Decode(b)) differs from b (err %v)", err)
	}
	if !bytes.HasPrefix(data, fmt.Appendf(nil, "{\n  \"cairn-rules\": 1,\n  \"format\": %d,\n", FormatVersion)) || !bytes.HasSuffix(data, []byte("}\n")) {
		t.Errorf("unexpected framing:\n%s", data)
	}
	empty, err := EncodeRules(RulesTable{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := DecodeRules(empty); err != nil || !cmp.Equal(got, RulesTable{}) {
		t.Errorf("empty table: %+v, %v", got, err)
	}
}

func TestRulesCorruption(t *testing.T) {
	good, err := EncodeRules(sampleRules)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(old, new string) []byte {
		if !bytes.Contains(good, []byte(old)) {
			t.Fatalf("sample lacks %q", old)
		}
		return bytes.Replace(good, []byte(old), []byte(new), 1)
	}
	cases := map[string][]byte{
		"empty":              nil,
		"truncated":          good[:len(good)/2],
		"no final LF":        good[:len(good)-1],
		"trailing bytes":     append(bytes.Clone(good), "{}\n"...),
		"not a rules table":  edit(`"cairn-rules": 1`, `"cairn-rules": 2`),
		"another format":     edit(fmt.Sprintf(`"format": %d`, FormatVersion), `"format": 99`),
		"unknown key":        edit(`"holds": {`, `"held": 1, "holds": {`),
		"terms out of order": edit(`"id": "harbor"`, `"id": "zebra"`),
		"unknown term":       edit(`"keep_as_is": [`+"\n        \"api-key\"", `"keep_as_is": [`+"\n        \"no-such-term\""),
		"unknown voice":      edit(`"voice": "docs"`, `"voice": "nobody"`),
		"places repeated":    bytes.Replace(edit(`"folder": "docs/fr"`, `"folder": ""`), []byte(`"guide.md"`), []byte(`"README.md"`), 1),
		"wrong type":         edit(`"sessions": 2`, `"sessions": "2"`),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := DecodeRules(data)
			ce := asCorrupt(t, err, RulesPath)
			if !strings.Contains(ce.Error(), "corrupt artifact") {
				t.Errorf("message %q", ce.Error())
			}
		})
	}
	// The encoder refuses what the decoder would.
	bad := sampleRules
	bad.Places = []RulesPlace{sampleRules.Places[2], sampleRules.Places[0]}
	if _, err := EncodeRules(bad); err == nil {
		t.Error("EncodeRules accepted places out of order")
	}
}
