package kapi

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// terms is a small kapi terms store written for these tests: a key cairn
// does not know on a term, a status it does not have, a concept without
// an id, two wordings with one slug, and a deprecated wording whose
// locale has no preferred one.
const terms = `{
  "schemaVersion": "1.2",
  "kind": "kapi-terms",
  "concepts": [
    {"id": "term:aa", "domain": "x", "definition": " A quay. ",
     "terms": [
       {"text": "quay", "locale": "en", "status": "preferred"},
       {"text": "Quay", "locale": "en", "status": "admitted"},
       {"text": "wharf", "locale": "en", "status": "deprecated", "usage": "old"},
       {"text": "Kai", "locale": "de", "status": "superseded"},
       {"text": "Kaje", "locale": "de", "status": "deprecated"}
     ]},
    {"definition": "no id", "terms": []},
    {"id": "bb", "terms": [{"text": "slip way!", "locale": "", "status": "forbidden"}]}
  ]
}`

func TestRunTerms(t *testing.T) {
	out, err := Run(context.Background(), Input{FS: fstest.MapFS{".kapi/terms.json": {Data: []byte(terms)}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `# Imported by ` + "`cairn import kapi`" + ` from .kapi/terms.json: one term per kapi term.
# An id is the kapi concept's id (term:<id> in kapi), the locale and the wording.
- id: aa.en.quay
  term: quay
  status: preferred
  definition: A quay.
  language: en
- id: aa.en.quay-2
  term: Quay
  status: admitted
  definition: A quay.
  language: en
- id: aa.en.wharf
  term: wharf
  status: deprecated
  replacement: quay
  definition: A quay.
  language: en
- id: aa.de.kaje
  term: Kaje
  status: deprecated
  definition: A quay.
  language: de
- id: bb.slip-way
  term: slip way!
  status: forbidden
`
	if len(out.Files) != 1 || out.Files[0].Path != "terms.yaml" || out.Terms != 5 {
		t.Fatalf("files = %+v, terms = %d", out.Files, out.Terms)
	}
	if got := string(out.Files[0].Data); got != want {
		t.Errorf("terms.yaml (-want +got):\n%s", cmp.Diff(want, got))
	}
	var findings []string
	for _, f := range out.Unmapped {
		findings = append(findings, f.String())
	}
	wantFindings := []string{
		".kapi/terms.json: concepts[].domain: cairn terms have no domain; not imported (the definition is kept on every term of the concept) (1 concepts)",
		".kapi/terms.json: concepts[].terms[].usage: not a key of kapi's terms cairn knows; not imported (1 terms)",
		`.kapi/terms.json: concepts[0].terms[3]: status "superseded" of "Kai" is not one of cairn's (preferred, approved, admitted, proposed, deprecated, forbidden); not imported`,
		".kapi/terms.json: concepts[1]: the concept has no id; not imported (cairn keeps kapi's ids)",
	}
	if !cmp.Equal(findings, wantFindings) {
		t.Errorf("findings (-want +got):\n%s", cmp.Diff(wantFindings, findings))
	}
}

// TestRunDeterministic: the same files give the same bytes, and the
// profiles come in folder order after the project-wide voice.
func TestRunDeterministic(t *testing.T) {
	fsys := fstest.MapFS{
		"voice.yaml":                    {Data: []byte("name: Main voice\ntone: {personality: [calm]}\n")},
		"profiles/zeta/voice.yaml":      {Data: []byte("name: zeta\n")},
		"profiles/alpha/voice.yaml":     {Data: []byte("name: Alpha site\nstyle:\n  prohibited_patterns: [{regex: x, severity: minor}]\n")},
		"profiles/alpha/terms.json":     {Data: []byte(`{"concepts": []}`)},
		"profiles/.hidden/voice.yaml":   {Data: []byte("name: hidden\n")},
		"profiles/empty/README.md":      {Data: []byte("no voice here\n")},
		"terms.json":                    {Data: []byte(`{"concepts": []}`)},
		"unrelated/profiles/voice.yaml": {Data: []byte("name: not read\n")},
	}
	first, err := Run(context.Background(), Input{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	second, _ := Run(context.Background(), Input{FS: fsys})
	if !cmp.Equal(first, second) {
		t.Fatal("two runs over the same files differ")
	}
	if !cmp.Equal(first.Voices, []string{"main-voice", "alpha", "zeta"}) {
		t.Errorf("voices = %v", first.Voices)
	}
	var paths []string
	for _, f := range first.Files {
		paths = append(paths, f.Path)
	}
	if !cmp.Equal(paths, []string{"terms.yaml", "voices/alpha.yaml", "voices/main-voice.yaml", "voices/zeta.yaml"}) {
		t.Errorf("paths = %v", paths)
	}
	alpha := string(first.Files[1].Data)
	for _, want := range []string{"name: alpha\n", "title: Alpha site\n", "      severity: minor\n"} {
		if !strings.Contains(alpha, want) {
			t.Errorf("voices/alpha.yaml lacks %q:\n%s", want, alpha)
		}
	}
	found := false
	for _, f := range first.Unmapped {
		if f.File == "profiles/alpha/terms.json" {
			found = true
		}
	}
	if !found {
		t.Errorf("a profile's own terms.json is not reported: %v", first.Unmapped)
	}
}

func TestRunUnknownVoiceKeysReported(t *testing.T) {
	fsys := fstest.MapFS{"voice.yaml": {Data: []byte("name: x\ntone:\n  mood: grim\nexamples:\n  - {before: a, after: b, score: 3}\n")}}
	out, err := Run(context.Background(), Input{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range out.Unmapped {
		got = append(got, f.String())
	}
	want := []string{
		"voice.yaml: tone.mood (line 3): not a key cairn knows; not imported",
		"voice.yaml: examples[0].score (line 5): not a key cairn knows; not imported",
	}
	if !cmp.Equal(got, want) {
		t.Errorf("findings (-want +got):\n%s", cmp.Diff(want, got))
	}
	if data := string(out.Files[0].Data); strings.Contains(data, "mood") || strings.Contains(data, "score") {
		t.Errorf("unknown keys were written:\n%s", data)
	}
}

func TestRunTwoVoicesOneName(t *testing.T) {
	fsys := fstest.MapFS{
		"voice.yaml":               {Data: []byte("name: Docs\n")},
		"profiles/docs/voice.yaml": {Data: []byte("name: docs\n")},
	}
	_, err := Run(context.Background(), Input{FS: fsys})
	if err == nil || !strings.Contains(err.Error(), `it would be the voice "docs", as voice.yaml is`) {
		t.Fatalf("err = %v", err)
	}
}
