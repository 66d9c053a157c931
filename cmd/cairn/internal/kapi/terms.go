package kapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// termsKind is what a kapi terms store says it is.
const termsKind = "kapi-terms"

// termsSchemaMajor is the schemaVersion major this import reads.
const termsSchemaMajor = "1"

// kapiTerms is a kapi terms store, key by key; every other key is a
// finding.
type kapiTerms struct {
	SchemaVersion string                       `json:"schemaVersion"`
	Kind          string                       `json:"kind"`
	Concepts      []map[string]json.RawMessage `json:"concepts"`
}

// kapiTerm is one wording of a concept.
type kapiTerm struct {
	Text, Locale, Status string
}

// conceptKeys says what becomes of each key of a kapi concept: "" for a
// key the import maps, else the finding's text.
var conceptKeys = map[string]string{
	"id":         "",
	"definition": "",
	"terms":      "",
	"domain":     "cairn terms have no domain; not imported (the definition is kept on every term of the concept)",
	"source":     "where kapi took the concept from; not imported",
	"created_at": "cairn terms carry no history; not imported (git holds when terms.yaml changed)",
	"updated_at": "cairn terms carry no history; not imported (git holds when terms.yaml changed)",
}

// termKeys is conceptKeys for a concept's terms.
var termKeys = map[string]string{"text": "", "locale": "", "status": ""}

// replacementOrder is which wording of the concept, in the same locale, a
// discouraged term points to: the most endorsed first.
var replacementOrder = []string{model.StatusPreferred, model.StatusApproved, model.StatusAdmitted}

// cairnTerm is one entry of the terms.yaml an import writes, in cairn's
// key order; empty keys are left out.
type cairnTerm struct {
	ID          string `yaml:"id"`
	Term        string `yaml:"term"`
	Status      string `yaml:"status"`
	Replacement string `yaml:"replacement,omitempty"`
	Definition  string `yaml:"definition,omitempty"`
	Language    string `yaml:"language,omitempty"`
}

// convertTerms converts a kapi terms store (file names it for findings)
// into terms.yaml: one cairn term per kapi term, in the store's order.
func convertTerms(file string, data []byte) (File, int, []Finding, error) {
	var store kapiTerms
	if err := strictJSON(data, &store); err != nil {
		return File{}, 0, nil, fmt.Errorf("%s: %s", file, jsonProblem(data, err))
	}
	if store.Kind != "" && store.Kind != termsKind {
		return File{}, 0, nil, fmt.Errorf("%s: kind is %q, not %q: this is not a kapi terms store; point at the project's terms.json", file, store.Kind, termsKind)
	}
	if major, _, _ := strings.Cut(store.SchemaVersion, "."); store.SchemaVersion != "" && major != termsSchemaMajor {
		return File{}, 0, nil, fmt.Errorf("%s: schemaVersion %q is not one this cairn reads (%s.x); export the terms with a kapi of that schema", file, store.SchemaVersion, termsSchemaMajor)
	}
	tally := newTally(file)
	var out []cairnTerm
	ids := map[string]bool{}
	for ci, raw := range store.Concepts {
		concept, ok := decodeConcept(file, ci, raw, tally)
		if !ok {
			continue
		}
		for ti, t := range concept.terms {
			where := fmt.Sprintf("concepts[%d].terms[%d]", ci, ti)
			switch {
			case t.Text == "":
				tally.skip(where, "the term has no text; not imported")
				continue
			case !slices.Contains(model.TermStatuses, t.Status):
				tally.skip(where, fmt.Sprintf("status %q of %q is not one of cairn's (%s); not imported", t.Status, t.Text, strings.Join(model.TermStatuses, ", ")))
				continue
			}
			ct := cairnTerm{ID: termID(concept.id, t, ids), Term: t.Text, Status: t.Status, Definition: concept.definition, Language: t.Locale}
			if ct.Status == model.StatusDeprecated || ct.Status == model.StatusForbidden {
				ct.Replacement = replacementFor(concept.terms, t)
			}
			out = append(out, ct)
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Imported by `cairn import kapi` from %s: one term per kapi term.\n", file)
	b.WriteString("# An id is the kapi concept's id (term:<id> in kapi), the locale and the wording.\n")
	if len(out) == 0 {
		b.WriteString("[]\n")
	} else if err := encodeYAML(&b, out); err != nil {
		return File{}, 0, nil, err
	}
	return File{Path: "terms.yaml", Data: b.Bytes()}, len(out), tally.findings(), nil
}

// concept is a kapi concept as the import uses it.
type concept struct {
	id, definition string
	terms          []kapiTerm
}

// decodeConcept reads one concept, reporting each key it does not map.
func decodeConcept(file string, ci int, raw map[string]json.RawMessage, tally *tally) (concept, bool) {
	where := fmt.Sprintf("concepts[%d]", ci)
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		what, known := conceptKeys[k]
		if !known {
			what = "not a key of kapi's concepts cairn knows; not imported"
		}
		if what != "" {
			tally.key("concepts[]."+k, what)
		}
	}
	var c concept
	if !decodeString(raw, "id", &c.id) || !decodeString(raw, "definition", &c.definition) {
		tally.skip(where, "id and definition must be strings; concept not imported")
		return c, false
	}
	if c.id == "" {
		tally.skip(where, "the concept has no id; not imported (cairn keeps kapi's ids)")
		return c, false
	}
	var terms []map[string]json.RawMessage
	if t, ok := raw["terms"]; ok {
		if err := json.Unmarshal(t, &terms); err != nil {
			tally.skip(where, "terms is not a list of objects; concept not imported")
			return c, false
		}
	}
	for ti, t := range terms {
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if _, known := termKeys[k]; !known {
				tally.key("concepts[].terms[]."+k, "not a key of kapi's terms cairn knows; not imported")
			}
		}
		var kt kapiTerm
		if !decodeString(t, "text", &kt.Text) || !decodeString(t, "locale", &kt.Locale) || !decodeString(t, "status", &kt.Status) {
			tally.skip(fmt.Sprintf("%s.terms[%d]", where, ti), "text, locale and status must be strings; not imported")
			continue
		}
		c.terms = append(c.terms, kt)
	}
	c.definition = strings.TrimSpace(c.definition)
	return c, true
}

func decodeString(raw map[string]json.RawMessage, key string, dst *string) bool {
	v, ok := raw[key]
	if !ok || string(v) == "null" {
		return true
	}
	return json.Unmarshal(v, dst) == nil
}

// termID is the cairn id of one kapi term: the concept's id without kapi's
// term: prefix (so that cairn's term:<id> reads as kapi's concept id),
// the locale and the wording as a slug, unique among ids.
func termID(conceptID string, t kapiTerm, ids map[string]bool) string {
	parts := []string{strings.TrimPrefix(conceptID, "term:")}
	if t.Locale != "" {
		parts = append(parts, t.Locale)
	}
	parts = append(parts, slug(t.Text))
	id := strings.Join(parts, ".")
	for n := 2; ids[id]; n++ {
		id = fmt.Sprintf("%s-%d", strings.Join(parts, "."), n)
	}
	ids[id] = true
	return id
}

// slug lowers a wording and joins its words with hyphens: letters and
// digits of any script stay.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	if b.Len() == 0 {
		return "term"
	}
	return b.String()
}

// replacementFor is the wording a discouraged term points to: the most
// endorsed wording of its concept in its locale, the first in the store's
// order at that status; "" when the concept has none.
func replacementFor(terms []kapiTerm, t kapiTerm) string {
	for _, status := range replacementOrder {
		for _, o := range terms {
			if o.Locale == t.Locale && o.Status == status && o.Text != "" {
				return o.Text
			}
		}
	}
	return ""
}

// strictJSON decodes one JSON value, refusing trailing data.
func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("a second JSON value starts at offset %d", dec.InputOffset())
	}
	return nil
}

// jsonProblem words a JSON error with its line and column.
func jsonProblem(data []byte, err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case asErr(err, &syn):
		// The scanner has read the offending byte when it stops.
		line, col := diag.LineCol(data, max(syn.Offset-1, 0))
		return fmt.Sprintf("line %d, column %d: %v; fix the JSON", line, col, err)
	case asErr(err, &typ):
		line, col := diag.LineCol(data, typ.Offset)
		return fmt.Sprintf("line %d, column %d: %s should be %s, not %s; fix the value", line, col, typ.Field, typ.Type, typ.Value)
	}
	return err.Error() + "; fix the JSON"
}

// encodeYAML writes v as YAML indented by two spaces.
func encodeYAML(b *bytes.Buffer, v any) error {
	enc := yaml.NewEncoder(b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return enc.Close()
}

// tally collects the findings of one file: a key cairn does not map is
// one finding however many concepts hold it, with their count; a term or
// concept left out is one finding each.
type tally struct {
	file  string
	keys  map[string]*keyCount
	order []string
	skips []Finding
}

type keyCount struct {
	what string
	n    int
}

func newTally(file string) *tally { return &tally{file: file, keys: map[string]*keyCount{}} }

func (t *tally) key(key, what string) {
	if c := t.keys[key]; c != nil {
		c.n++
		return
	}
	t.keys[key] = &keyCount{what: what, n: 1}
	t.order = append(t.order, key)
}

func (t *tally) skip(where, what string) { t.skips = append(t.skips, Finding{t.file, where, what}) }

// findings lists the keys (sorted) with their counts, then the skips in
// the store's order.
func (t *tally) findings() []Finding {
	var out []Finding
	for _, k := range slices.Sorted(slices.Values(t.order)) {
		c := t.keys[k]
		what := "concepts"
		if strings.HasPrefix(k, "concepts[].terms[]") {
			what = "terms"
		}
		out = append(out, Finding{t.file, k, fmt.Sprintf("%s (%d %s)", c.what, c.n, what)})
	}
	return append(out, t.skips...)
}
