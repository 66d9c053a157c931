package kapi

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/load"
)

// defaultStem names the project-wide voice when it gives neither an id
// nor a name.
const defaultStem = "default"

// voiceStem is what a voice's file stem may be: the load stage takes a
// name of another shape for a display name.
var voiceStem = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// kapiOnlyKeys are top-level keys of kapi's profiles that have no place in
// cairn, with what the import says of them.
var kapiOnlyKeys = map[string]string{
	"id":           "kapi's id of the profile; the voice is named after the profile's folder",
	"channels":     "tone and style per channel; cairn binds voices to paths with governance.points in cairn.yaml instead; not imported",
	"autonomy":     "kapi's settings for its own automation; not imported",
	"workspace_id": "kapi's workspace; not imported",
	"version":      "kapi's record of the profile; not imported (git holds its history)",
	"version_note": "kapi's record of the profile; not imported (git holds its history)",
	"created_at":   "kapi's record of the profile; not imported (git holds its history)",
	"updated_at":   "kapi's record of the profile; not imported (git holds its history)",
	"created_by":   "kapi's record of the profile; not imported (git holds its history)",
}

// convertedVoice is a voice file to write.
type convertedVoice struct {
	stem string
	data []byte
}

// convertVoice converts one kapi profile (file names it for findings; stem
// is its folder's name, "" for the project-wide voice) into a cairn voice
// file. Keys cairn has no place for are findings and are left out; any
// other mistake the load stage finds fails the profile.
func convertVoice(file, stem string, data []byte) (convertedVoice, []Finding, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return convertedVoice{}, nil, fmt.Errorf("%s: invalid YAML: %v; fix the YAML", file, err)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	name, id := topScalar(root, "name"), topScalar(root, "id")
	stem = voiceName(stem, id, name)
	v, ds := load.DecodeVoice(file, stem, data)
	var findings []Finding
	var problems []string
	for _, d := range ds {
		switch {
		case d.Code == "unknown-key":
			key := keyPathAt(root, d.Line, d.Col)
			what, known := kapiOnlyKeys[key]
			switch {
			case key == "id" && stem == id:
				continue // the project-wide voice is named after it
			case !known:
				what = "not a key cairn knows; not imported"
			}
			findings = append(findings, Finding{file, fmt.Sprintf("%s (line %d)", key, d.Line), what})
		case d.Code == "voice-name":
			// The import names the voice; kapi's name stays as its title.
		case d.Severity == diag.Error:
			problems = append(problems, d.String())
		}
	}
	if len(problems) > 0 {
		return convertedVoice{}, findings, fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	if name != "" && name != stem && v.Title == "" {
		v.Title = name
	}
	findings = append(findings, weakerFindings(file, data, v)...)
	out, err := renderVoice(file, stem, v)
	if err != nil {
		return convertedVoice{}, findings, err
	}
	return convertedVoice{stem: stem, data: out}, findings, nil
}

// voiceName is the voice a profile becomes: a profile is named after its
// folder, as kapi addresses it; the project-wide voice after its id, else
// its name, as a file stem.
func voiceName(folder, id, name string) string {
	for _, s := range []string{folder, id, name} {
		if s == "" {
			continue
		}
		if voiceStem.MatchString(s) {
			return s
		}
		return slug(s)
	}
	return defaultStem
}

// weakerFindings reports what the voice keeps in a weaker form than kapi
// uses it: its vocabulary and locales are in its brief but drive no check,
// and the file's comments are not carried over.
func weakerFindings(file string, data []byte, v model.Voice) []Finding {
	var out []Finding
	voc := v.Vocabulary
	if len(voc.Preferred)+len(voc.Forbidden)+len(voc.Competitor)+len(voc.Abbreviations) > 0 {
		out = append(out, Finding{file, "vocabulary", "kept in the voice's writing brief; cairn counts and checks the terms of terms.yaml, not a voice's vocabulary"})
	}
	if len(v.Locales) > 0 {
		out = append(out, Finding{file, "locales", "kept in the voice's writing brief, a line per locale; no cairn command applies a locale's adjustments"})
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			out = append(out, Finding{file, "(comments)", "the YAML comments are not carried over; read them in the kapi file"})
			break
		}
	}
	return out
}

// topScalar is the value of a top-level key when it is a scalar.
func topScalar(root *yaml.Node, key string) string {
	if root.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key && root.Content[i+1].Kind == yaml.ScalarNode {
			return strings.TrimSpace(root.Content[i+1].Value)
		}
	}
	return ""
}

// keyPathAt names the mapping key at line:col below n, as a path of keys
// and list indexes (tone.mood, examples[1].score), or "?" when none is.
func keyPathAt(n *yaml.Node, line, col int) string {
	var walk func(n *yaml.Node, path string) (string, bool)
	walk = func(n *yaml.Node, path string) (string, bool) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := k.Value
				if path != "" {
					p = path + "." + k.Value
				}
				if k.Line == line && k.Column == col {
					return p, true
				}
				if got, ok := walk(v, p); ok {
					return got, true
				}
			}
		case yaml.SequenceNode:
			for i, item := range n.Content {
				if got, ok := walk(item, fmt.Sprintf("%s[%d]", path, i)); ok {
					return got, true
				}
			}
		}
		return "", false
	}
	if p, ok := walk(n, ""); ok {
		return p
	}
	return "?"
}

// renderVoice writes v as a cairn voice file in cairn's own keys, with a
// pattern's severity as the profile wrote it (the load stage maps kapi's).
// The bytes are decoded again before they are returned: an import never
// writes a voice that reads back as anything else.
func renderVoice(file, stem string, v model.Voice) ([]byte, error) {
	out := voiceOut{
		Name: stem, Title: v.Title, Description: v.Description,
		Tone: toneOut{Formality: v.Tone.Formality, Personality: v.Tone.Personality, Emotion: v.Tone.Emotion, Humor: v.Tone.Humor, Guidelines: v.Tone.Guidelines},
		Style: styleOut{SentenceLength: v.Style.SentenceLength, PersonPOV: v.Style.PersonPOV,
			Contractions: v.Style.Contractions, ActiveVoice: v.Style.ActiveVoice},
		Patterns:    patternsOut{Prohibited: patternsOf(v.Patterns.Prohibited), Required: patternsOf(v.Patterns.Required)},
		Comments:    commentsOut(v.Comments),
		Vocabulary:  vocabularyOf(v.Vocabulary),
		Examples:    examplesOf(v.Examples),
		Constraints: v.Constraints, ValidFrom: v.ValidFrom, ValidUntil: v.ValidUntil,
	}
	if len(v.Locales) > 0 {
		out.Locales = map[string]localeOut{}
		for code, l := range v.Locales {
			out.Locales[code] = localeOut{Formality: l.Formality, Humor: l.Humor, PersonPOV: l.PersonPOV, CulturalNotes: l.CulturalNotes,
				Vocabulary: termsOf(l.Vocabulary), Examples: examplesOf(l.Examples)}
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Imported by `cairn import kapi` from %s.\n", file)
	b.WriteString("# Severities are kapi's: critical is checked as an error, major as a warning, minor as info.\n")
	if err := encodeYAML(&b, out); err != nil {
		return nil, err
	}
	back, ds := load.DecodeVoice("voices/"+stem+".yaml", stem, b.Bytes())
	want := v
	want.Name, want.Path, back.Path = stem, "", ""
	if len(ds) > 0 || !reflect.DeepEqual(stripLines(back), stripLines(want)) {
		return nil, fmt.Errorf("%s: the converted voice does not read back as the profile (%v); this is a bug in cairn import kapi, please report it with the profile", file, ds)
	}
	return b.Bytes(), nil
}

// stripLines clears what depends on where a value sits in its file.
func stripLines(v model.Voice) model.Voice {
	v.Patterns.Prohibited, v.Patterns.Required = clearLines(v.Patterns.Prohibited), clearLines(v.Patterns.Required)
	return v
}

func clearLines(ps []model.Pattern) []model.Pattern {
	out := make([]model.Pattern, len(ps))
	for i, p := range ps {
		p.Line = 0
		out[i] = p
	}
	return out
}
