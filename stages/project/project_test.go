package project

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/lex"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

const (
	githubDoc = "events/2026-11-02/github.json"
	peopleDoc = "index/people.json"
)

// testConfig is a root configuration with relation fields, source policies
// and one identity known by three names.
func testConfig() model.Config {
	return model.Config{
		Schema: map[string]model.FieldSpec{
			"title":  {Weight: 5},
			"author": {Relation: true},
			"repo":   {Relation: true, Cardinality: "optional"},
		},
		Sources: map[string]model.SourcePolicy{
			"github": {Category: "created", Visibility: "shared"},
			"mail":   {Category: "received", Visibility: "private"},
		},
		Identities: map[string]model.Identity{
			"marc": {Canonical: "person:email/marc@x.test", Aliases: []string{"person:github/marc-b", "marc@old.test"}},
		},
	}.WithDefaults()
}

// fields builds a fields map from "name=.path" pairs, sorted as load sorts it.
func fields(pairs ...string) []model.FieldMap {
	var out []model.FieldMap
	for _, p := range pairs {
		name, path, _ := strings.Cut(p, "=")
		out = append(out, model.FieldMap{Field: name, Paths: strings.Split(path, "|")})
	}
	slices.SortFunc(out, func(a, b model.FieldMap) int { return strings.Compare(a.Field, b.Field) })
	return out
}

// document builds a record document whose n-th record sits on line 8+n,
// column 5, at a made-up but distinct byte offset.
func document(path, layer, source, date string, fm []model.FieldMap, records ...string) model.Document {
	d := model.Document{Path: path, Layer: layer, Marker: "cairn", Source: source, Date: date, Fields: fm}
	off := int64(200)
	for i, r := range records {
		d.Records = append(d.Records, model.Record{Raw: r, Line: 8 + i, Col: 5, Offset: off, Length: int64(len(r))})
		off += int64(len(r)) + 6
	}
	return d
}

var githubFields = fields("id=.id", "title=.title", "time=.time", "author=.author", "repo=.repo", "labels=.labels", "visibility=.vis", "category=.cat")

const (
	recHAR     = `{"id": "HAR-142", "title": "Fix the Harbor build", "time": "2026-11-02T10:14:00+01:00", "author": "person:email/marc@x.test", "repo": "repo:github.com/acme/harbor", "labels": ["ci", "arm64"], "vis": "private", "extra": "never projected"}`
	recDessert = `{"id": "café/crème?brûlée%20#1", "title": "Dessert notes", "time": "2026-11-02T09:00:00.250Z", "author": "person:github/marc-b"}`
	recPerson  = `{"id": "person:email/maïa@x.test", "title": "Maïa Ng"}`
)

func run(t *testing.T, b model.Base) Output {
	t.Helper()
	out, err := Run(context.Background(), Input{Base: b})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func item(t *testing.T, out Output, uri string) Item {
	t.Helper()
	for _, it := range out.Items {
		if it.URI == uri {
			return it
		}
	}
	t.Fatalf("no item %s; have %v", uri, uris(out))
	return Item{}
}

func uris(out Output) []string {
	var u []string
	for _, it := range out.Items {
		u = append(u, it.URI)
	}
	return u
}

// terms lists a field's word and identifier terms; exactTerms lists its
// exact identifier terms.
func terms(t *testing.T, it Item, field string) []string { return fieldTerms(t, it, field, false) }

func exactTerms(t *testing.T, it Item, field string) []string { return fieldTerms(t, it, field, true) }

func fieldTerms(t *testing.T, it Item, field string, exact bool) []string {
	t.Helper()
	f, ok := it.Field(field)
	if !ok {
		t.Fatalf("%s has no field %q", it.URI, field)
	}
	var out []string
	for _, tf := range f.Terms {
		if strings.HasPrefix(tf.Term, lex.ExactPrefix) != exact {
			continue
		}
		s := tf.Term
		if tf.N > 1 {
			s += fmt.Sprintf("x%d", tf.N)
		}
		out = append(out, s)
	}
	slices.Sort(out) // a field lists its terms as they first occur
	return out
}

// termNames lists a field's terms without their frequencies.
func termNames(t *testing.T, it Item, field string) []string {
	t.Helper()
	f, ok := it.Field(field)
	if !ok {
		t.Fatalf("%s has no field %q", it.URI, field)
	}
	var out []string
	for _, tf := range f.Terms {
		if !strings.HasPrefix(tf.Term, lex.ExactPrefix) {
			out = append(out, tf.Term)
		}
	}
	slices.Sort(out)
	return out
}

func fieldNames(it Item) []string {
	var out []string
	for _, f := range it.Fields {
		out = append(out, f.Name)
	}
	return out
}

func diagStrings(ds []diag.Diagnostic) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, d.String())
	}
	return out
}

func TestRunRecords(t *testing.T) {
	out := run(t, model.Base{
		Config: testConfig(),
		Documents: []model.Document{
			document(githubDoc, model.LayerEvents, "github", "2026-11-02", githubFields, recHAR, recDessert),
			document(peopleDoc, model.LayerIndex, "people", "", fields("id=.id", "title=.title"), recPerson),
		},
	})
	if len(out.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %v", diagStrings(out.Diagnostics))
	}
	wantURIs := []string{
		githubDoc + "#HAR-142",
		githubDoc + "#caf%C3%A9/cr%C3%A8me%3Fbr%C3%BBl%C3%A9e%2520%231",
		peopleDoc + "#person:email/ma%C3%AFa@x.test",
	}
	if diff := cmp.Diff(wantURIs, uris(out)); diff != "" {
		t.Fatalf("URIs (-want +got):\n%s", diff)
	}

	har := out.Items[0]
	got := fmt.Sprintf("%s|%s|%s|%s|%q|%s:%d|%d+%d|%q", har.Kind, har.Source, har.Date, har.Time, har.Flags, har.DocPath, har.Line, har.SpanOff, har.SpanLen, har.Title)
	want := fmt.Sprintf("events|github|2026-11-02|2026-11-02T09:14:00Z|[\"created\" \"private\"]|%s:8|200+%d|\"Fix the Harbor build\"", githubDoc, len(recHAR))
	if got != want {
		t.Errorf("HAR-142:\n got %s\nwant %s", got, want)
	}
	// time, category and visibility carry policy, not text; "extra" is not mapped.
	if diff := cmp.Diff([]string{"author", "id", "labels", "repo", "title"}, fieldNames(har)); diff != "" {
		t.Errorf("HAR-142 fields (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Relation{{"author", "person:email/marc@x.test"}, {"repo", "repo:github.com/acme/harbor"}}, har.Relations); diff != "" {
		t.Errorf("HAR-142 relations (-want +got):\n%s", diff)
	}
	// Terms are words of three runes or more and identifier tokens, and
	// the exact identifiers of id, title and relation fields.
	wantTerms := map[string][]string{
		"author": {"email", "marc", "person", "person:email/marc@x.test", "test"},
		"id":     {"142", "har", "har-142"},
		"labels": {"arm64"},
		"repo":   {"acme", "com", "github", "harbor", "repo", "repo:github.com/acme/harbor"},
		"title":  {"build", "fix", "harbor", "the"},
	}
	for name, want := range wantTerms {
		if diff := cmp.Diff(want, terms(t, har, name)); diff != "" {
			t.Errorf("HAR-142 %s terms (-want +got):\n%s", name, diff)
		}
	}
	wantExact := map[string][]string{
		// The value's own forms; a query reaches the identity's other
		// names (person:github/marc-b, marc@old.test) itself.
		"author": {"=email/marc@x.test", "=marc@x.test", "=person:email/marc@x.test"},
		"id":     nil, // found exactly through the URI, which holds it
		"labels": nil,
		"repo":   {"=github.com/acme/harbor", "=harbor", "=repo:github.com/acme/harbor"},
	}
	for name, want := range wantExact {
		if diff := cmp.Diff(want, exactTerms(t, har, name)); diff != "" {
			t.Errorf("HAR-142 %s exact terms (-want +got):\n%s", name, diff)
		}
	}
	for name, want := range map[string]int{"author": 5, "id": 2, "labels": 2, "title": 4} {
		if f, _ := har.Field(name); f.Words != want {
			t.Errorf("HAR-142 %s words = %d, want %d", name, f.Words, want)
		}
	}
	if f, _ := har.Field("labels"); !cmp.Equal(f.Values, []string{"ci", "arm64"}) {
		t.Errorf("labels values = %q", f.Values)
	}

	dessert := out.Items[1]
	if dessert.Time != "2026-11-02T09:00:00.25Z" || !cmp.Equal(dessert.Flags, []string{"created", "shared"}) {
		t.Errorf("dessert time %q flags %q; want 2026-11-02T09:00:00.25Z and source defaults [created shared]", dessert.Time, dessert.Flags)
	}
	if dessert.Line != 9 || dessert.SpanOff != 200+int64(len(recHAR))+6 {
		t.Errorf("dessert line %d span %d", dessert.Line, dessert.SpanOff)
	}
	if diff := cmp.Diff([]Relation{{"author", "person:github/marc-b"}}, dessert.Relations); diff != "" {
		t.Errorf("dessert relations (-want +got):\n%s", diff)
	}

	person := out.Items[2]
	if person.Kind != "index" || person.Date != "" || person.Time != "" || person.Flags != nil || person.Relations != nil {
		t.Errorf("index item: %+v", person)
	}
	if diff := cmp.Diff([]string{"email", "maïa", "person", "person:email/maïa@x.test", "test"}, terms(t, person, "id")); diff != "" {
		t.Errorf("index id terms (-want +got):\n%s", diff)
	}
	for _, it := range out.Items {
		if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(it.Digest) {
			t.Errorf("%s digest %q is not 16 hex digits", it.URI, it.Digest)
		}
	}
}

func TestRunPolicyFlags(t *testing.T) {
	cases := []struct {
		name, source, raw string
		flags             []string
		diags             []string
	}{
		{"source defaults", "github", `{"id": "a", "title": "t", "time": "2026-11-02T09:00:00Z"}`, []string{"created", "shared"}, nil},
		{"fields override", "github", `{"id": "a", "title": "t", "time": "2026-11-02T09:00:00Z", "cat": "saved", "vis": "public"}`, []string{"public", "saved"}, nil},
		{"other source", "mail", `{"id": "a", "title": "t", "time": "2026-11-02T09:00:00Z"}`, []string{"private", "received"}, nil},
		{"no policy", "notes", `{"id": "a", "title": "t", "time": "2026-11-02T09:00:00Z"}`, nil, nil},
		{"empty field falls back", "mail", `{"id": "a", "title": "t", "time": "2026-11-02T09:00:00Z", "vis": ""}`, []string{"private", "received"}, nil},
		{"bad values", "notes", `{"id": "a", "title": "t", "time": "2026-11-02T09:00:00Z", "cat": "stolen", "vis": "secret"}`, nil, []string{
			`events/2026-11-02/x.json:8:5: error: record 1: category "stolen"; use one of: created, received, saved [bad-category]`,
			`events/2026-11-02/x.json:8:5: error: record 1: visibility "secret"; use one of: private, shared, public [bad-visibility]`,
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := run(t, model.Base{
				Config:    testConfig(),
				Documents: []model.Document{document("events/2026-11-02/x.json", model.LayerEvents, c.source, "2026-11-02", githubFields, c.raw)},
			})
			if diff := cmp.Diff(c.flags, out.Items[0].Flags); diff != "" {
				t.Errorf("flags (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(append([]string{}, c.diags...), diagStrings(out.Diagnostics)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunDocumentSchemaRelation(t *testing.T) {
	doc := document(githubDoc, model.LayerEvents, "github", "2026-11-02",
		fields("id=.id", "title=.title", "time=.time", "reviewer=.reviewers[]"),
		`{"id": "a", "title": "t", "time": "2026-11-02T09:00:00Z", "reviewers": ["person:github/marc-b", "person:github/ana"]}`)
	doc.Schema = map[string]model.FieldSpec{"reviewer": {Relation: true}}
	out := run(t, model.Base{Config: testConfig(), Documents: []model.Document{doc}})
	it := out.Items[0]
	want := []Relation{{"reviewer", "person:github/ana"}, {"reviewer", "person:github/marc-b"}}
	if diff := cmp.Diff(want, it.Relations); diff != "" {
		t.Errorf("relations (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"ana", "github", "marc", "person", "person:github/ana", "person:github/marc-b"}, termNames(t, it, "reviewer")); diff != "" {
		t.Errorf("reviewer terms (-want +got):\n%s", diff)
	}
}

func TestRunCachedBody(t *testing.T) {
	uri := githubDoc + "#HAR-142"
	out := run(t, model.Base{
		Config:    testConfig(),
		Documents: []model.Document{document(githubDoc, model.LayerEvents, "github", "2026-11-02", githubFields, recHAR)},
		Bodies: []model.Body{
			{URI: uri, Path: "bodies/har-142.txt", Text: "The arm64 runners time out on the Harbor build."},
			{URI: githubDoc + "#HAR-999", Path: "bodies/har-999.txt", Text: "orphan"},
		},
	})
	it := item(t, out, uri)
	f, ok := it.Field(FieldBody)
	if !ok {
		t.Fatalf("no body field; fields %q", fieldNames(it))
	}
	if !cmp.Equal(f.Values, []string{"The arm64 runners time out on the Harbor build."}) || f.Words != 9 {
		t.Errorf("body values %q words %d", f.Values, f.Words)
	}
	if !slices.Contains(terms(t, it, FieldBody), "runners") || slices.Contains(terms(t, it, FieldBody), "on") {
		t.Errorf("body terms %q", terms(t, it, FieldBody))
	}
	want := []string{"bodies/har-999.txt:1:1: warning: the cached body is for events/2026-11-02/github.json#HAR-999, which no record has; fix the URI in the bodies manifest [body-orphan]"}
	if diff := cmp.Diff(want, diagStrings(out.Diagnostics)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

func TestRunDiagnostics(t *testing.T) {
	const doc = "events/2026-11-02/x.json"
	cases := []struct {
		name    string
		schema  map[string]model.FieldSpec
		fm      []model.FieldMap
		records []string
		uris    []string
		diags   []string
	}{
		{
			name: "duplicate id",
			records: []string{
				`{"id": "HAR-142", "title": "first", "time": "2026-11-02T09:00:00Z"}`,
				`{"id": "HAR-7", "title": "other", "time": "2026-11-02T09:00:00Z"}`,
				`{"id": "HAR-142", "title": "second", "time": "2026-11-02T10:00:00Z"}`,
			},
			uris: []string{doc + "#HAR-142", doc + "#HAR-142", doc + "#HAR-7"},
			diags: []string{
				doc + ":10:1: error: two records share the URI " + doc + "#HAR-142; ids must be unique within a document [duplicate-id]",
			},
		},
		{
			name: "missing and empty id",
			records: []string{
				`{"title": "no id", "time": "2026-11-02T09:00:00Z"}`,
				`{"id": "", "title": "empty id", "time": "2026-11-02T09:00:00Z"}`,
				`{"id": null, "title": "null id", "time": "2026-11-02T09:00:00Z"}`,
				`{"id": 42, "title": "numeric id", "time": "2026-11-02T09:00:00Z"}`,
			},
			uris: []string{doc + "#42"},
			diags: []string{
				doc + ":8:5: error: record 1: no id: the id path gives nothing for this record; every record needs an id [missing-id]",
				doc + ":9:5: error: record 2: no id: the id path gives nothing for this record; every record needs an id [missing-id]",
				doc + ":10:5: error: record 3: no id: the id path gives nothing for this record; every record needs an id [missing-id]",
			},
		},
		{
			name: "times",
			records: []string{
				`{"id": "a", "title": "no zone", "time": "2026-11-02T09:00:00"}`,
				`{"id": "b", "title": "not a time", "time": "yesterday"}`,
				`{"id": "c", "title": "no time"}`,
				`{"id": "d", "title": "offset", "time": "2026-11-02T00:30:00-02:00"}`,
			},
			uris: []string{doc + "#a", doc + "#b", doc + "#c", doc + "#d"},
			diags: []string{
				doc + `:8:5: error: record 1: time "2026-11-02T09:00:00": the time has no zone; add Z for UTC or an offset like +01:00 [date-no-zone]`,
				doc + `:9:5: error: record 2: time "yesterday": not an RFC 3339 time; write it like 2026-11-02T09:14:00Z [date-no-zone]`,
				doc + ":10:5: error: record 3: no time: the time path gives nothing for this record; events need a time [missing-time]",
			},
		},
		{
			name:   "cardinality",
			schema: map[string]model.FieldSpec{"summary": {Cardinality: "one"}},
			fm:     fields("id=.id", "title=.title", "time=.time", "summary=.summary", "repo=.repo"),
			records: []string{
				`{"id": "a", "title": "t", "time": "2026-11-02T09:00:00Z", "summary": "s", "repo": "repo:x/a"}`,
				`{"id": "b", "title": "t", "time": "2026-11-02T09:00:00Z", "repo": ["repo:x/a", "repo:x/b"]}`,
				`{"id": "c", "title": "t", "time": "2026-11-02T09:00:00Z", "summary": ["s1", "s2"]}`,
			},
			uris: []string{doc + "#a", doc + "#b", doc + "#c"},
			diags: []string{
				doc + `:9:5: error: record 2: field "repo" may have at most one value, it has 2 [cardinality]`,
				doc + `:9:5: error: record 2: field "summary" must have exactly one value, it has 0 [cardinality]`,
				doc + `:10:5: error: record 3: field "summary" must have exactly one value, it has 2 [cardinality]`,
			},
		},
		{
			name:    "record that is not JSON",
			records: []string{`{"id": "a", "title": `, `{"id": "b", "title": "t", "time": "2026-11-02T09:00:00Z"}`},
			uris:    []string{doc + "#b"},
			diags:   []string{doc + ":8:5: error: record 1: offset 21: unexpected end of input [json-syntax]"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fm := c.fm
			if fm == nil {
				fm = fields("id=.id", "title=.title", "time=.time")
			}
			d := document(doc, model.LayerEvents, "x", "2026-11-02", fm, c.records...)
			d.Schema = c.schema
			out := run(t, model.Base{Config: testConfig(), Documents: []model.Document{d}})
			if diff := cmp.Diff(c.uris, uris(out)); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.diags, diagStrings(out.Diagnostics)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRunTimeNormalisedToUTC checks that times come out in UTC, across a day
// boundary and with fractions kept.
func TestRunTimeNormalisedToUTC(t *testing.T) {
	for in, want := range map[string]string{
		"2026-11-02T00:30:00-02:00":        "2026-11-02T02:30:00Z",
		"2026-11-02T00:30:00+01:00":        "2026-11-01T23:30:00Z",
		"2026-11-02T09:14:00Z":             "2026-11-02T09:14:00Z",
		"2026-11-02T09:14:00.000000001Z":   "2026-11-02T09:14:00.000000001Z",
		"2026-11-02T09:14:00.500+05:30":    "2026-11-02T03:44:00.5Z",
		"2026-11-02T09:14:00.000-00:00":    "2026-11-02T09:14:00Z",
		"2026-11-02T23:59:59.999999+14:00": "2026-11-02T09:59:59.999999Z",
	} {
		raw := fmt.Sprintf(`{"id": "a", "title": "t", "time": %q}`, in)
		out := run(t, model.Base{Config: testConfig(), Documents: []model.Document{
			document(githubDoc, model.LayerEvents, "github", "2026-11-02", fields("id=.id", "title=.title", "time=.time"), raw),
		}})
		if len(out.Items) != 1 || out.Items[0].Time != want {
			t.Errorf("time %q → %+v, %v; want %q", in, out.Items, diagStrings(out.Diagnostics), want)
		}
	}
}

// digestOf projects one base and returns each item's digest by URI.
func digestOf(t *testing.T, b model.Base) map[string]string {
	t.Helper()
	out := run(t, b)
	m := map[string]string{}
	for _, it := range out.Items {
		m[it.URI] = it.Digest
	}
	return m
}

func TestDigest(t *testing.T) {
	harURI := githubDoc + "#HAR-142"
	base := func(raw string, mutate func(*model.Base)) model.Base {
		b := model.Base{
			Config:    testConfig(),
			Documents: []model.Document{document(githubDoc, model.LayerEvents, "github", "2026-11-02", githubFields, raw)},
			Pages: []model.Page{page("wiki/new.md", model.LayerWiki, "new", model.Frontmatter{Title: "New way", Tags: []string{"ci"}},
				"See [old](old.md).")},
		}
		if mutate != nil {
			mutate(&b)
		}
		return b
	}
	before := digestOf(t, base(recHAR, nil))
	if again := digestOf(t, base(recHAR, nil)); !cmp.Equal(before, again) {
		t.Fatalf("digests differ between two runs: %v %v", before, again)
	}
	cases := []struct {
		name   string
		uri    string
		raw    string
		mutate func(*model.Base)
		same   bool
	}{
		{"unmapped raw field changed", harURI, strings.Replace(recHAR, "never projected", "changed", 1), nil, true},
		{"unmapped raw field added", harURI, strings.Replace(recHAR, `"extra"`, `"more": [1, 2], "extra"`, 1), nil, true},
		{"raw key order and spacing", harURI, `{"extra":"x","vis":"private","labels":["ci","arm64"],"repo":"repo:github.com/acme/harbor","author":"person:email/marc@x.test","time":"2026-11-02T10:14:00+01:00","title":"Fix the Harbor build","id":"HAR-142"}`, nil, true},
		{"same instant in another zone", harURI, strings.Replace(recHAR, "2026-11-02T10:14:00+01:00", "2026-11-02T09:14:00Z", 1), nil, true},
		{"record moved in its document", harURI, recHAR, func(b *model.Base) { b.Documents[0].Records[0].Offset = 9000; b.Documents[0].Records[0].Line = 99 }, true},
		{"title changed", harURI, strings.Replace(recHAR, "Fix the Harbor build", "Fix the Harbor builds", 1), nil, false},
		{"label changed", harURI, strings.Replace(recHAR, `"arm64"`, `"amd64"`, 1), nil, false},
		{"label order changed", harURI, strings.Replace(recHAR, `["ci", "arm64"]`, `["arm64", "ci"]`, 1), nil, false},
		{"relation changed", harURI, strings.Replace(recHAR, "acme/harbor", "acme/dock", 1), nil, false},
		{"time changed", harURI, strings.Replace(recHAR, "10:14:00", "10:15:00", 1), nil, false},
		{"visibility changed", harURI, strings.Replace(recHAR, `"vis": "private"`, `"vis": "public"`, 1), nil, false},
		{"source default changed", harURI, strings.Replace(recHAR, `"vis": "private", `, ``, 1), nil, false},
		{"body added", harURI, recHAR, func(b *model.Base) { b.Bodies = []model.Body{{URI: harURI, Path: "bodies/h.txt", Text: "more"}} }, false},
		{"page body changed", "wiki/new.md", recHAR, func(b *model.Base) { b.Pages[0].Body = "See [old](old.md)!" }, false},
		{"page link target changed", "wiki/new.md", recHAR, func(b *model.Base) { b.Pages[0].Body = "See [old](older.md)." }, false},
		{"page tag added", "wiki/new.md", recHAR, func(b *model.Base) { b.Pages[0].Front.Tags = []string{"ci", "arm64"} }, false},
		{"page superseded by another", "wiki/new.md", recHAR, func(b *model.Base) {
			b.Pages = append(b.Pages, page("wiki/newer.md", model.LayerWiki, "newer", model.Frontmatter{Title: "Newer", Supersedes: []string{"wiki/new.md"}}, ""))
		}, false},
		{"page extras are not semantics", "wiki/new.md", recHAR, func(b *model.Base) { b.Pages[0].FrontExtras = map[string]any{"owner_team": "infra"} }, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			after := digestOf(t, base(c.raw, c.mutate))
			if got := before[c.uri] == after[c.uri]; got != c.same {
				t.Errorf("digest %s → %s; same = %v, want %v", before[c.uri], after[c.uri], got, c.same)
			}
		})
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, Input{Base: model.Base{Config: testConfig(), Documents: []model.Document{
		document(githubDoc, model.LayerEvents, "github", "2026-11-02", githubFields, recHAR),
	}}})
	if err != context.Canceled {
		t.Errorf("Run on a cancelled context = %v, want context.Canceled", err)
	}
}

// TestRunInputOrderIndependent projects many documents on every worker and
// checks the output does not depend on scheduling or document order.
func TestRunInputOrderIndependent(t *testing.T) {
	var docs []model.Document
	for d := range 24 {
		var recs []string
		for r := range 5 {
			recs = append(recs, fmt.Sprintf(`{"id": "r-%d", "title": "Record %d of %d", "time": "2026-11-02T09:%02d:00Z", "cat": "bogus"}`, r, r, d, r))
		}
		docs = append(docs, document(fmt.Sprintf("events/2026-11-02/s%02d.json", d), model.LayerEvents, fmt.Sprintf("s%02d", d), "2026-11-02", githubFields, recs...))
	}
	first := run(t, model.Base{Config: testConfig(), Documents: docs})
	rev := slices.Clone(docs)
	slices.Reverse(rev)
	second := run(t, model.Base{Config: testConfig(), Documents: rev})
	if len(first.Items) != 120 || len(first.Diagnostics) != 120 {
		t.Fatalf("%d items, %d diagnostics; want 120 each", len(first.Items), len(first.Diagnostics))
	}
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("output depends on document order (-first +second):\n%s", diff)
	}
}

// TestDuplicateIDNamesTheRepeat: a duplicate id is reported at its later
// occurrence, whatever the sort does.
func TestDuplicateIDNamesTheRepeat(t *testing.T) {
	var recs []string
	for i := range 19 {
		id := fmt.Sprintf("r-%03d", i)
		if i == 18 {
			id = "r-000" // repeats record 1
		}
		recs = append(recs, fmt.Sprintf(`{"id": %q, "title": "t", "time": "2026-11-02T09:00:00Z"}`, id))
	}
	out := run(t, model.Base{Config: testConfig(), Documents: []model.Document{
		document(githubDoc, model.LayerEvents, "github", "2026-11-02", githubFields, recs...),
	}})
	want := []string{githubDoc + ":26:1: error: two records share the URI " + githubDoc + "#r-000; ids must be unique within a document [duplicate-id]"}
	if diff := cmp.Diff(want, diagStrings(out.Diagnostics)); diff != "" {
		t.Errorf("the diagnostic should name the repeated record, line 26 (-want +got):\n%s", diff)
	}
}

// TestEmptyRelationValueMakesNoEdge: an empty relation value is not a
// relation, so it never reaches the edge tables.
func TestEmptyRelationValueMakesNoEdge(t *testing.T) {
	out := run(t, model.Base{
		Config: testConfig(),
		Documents: []model.Document{document(githubDoc, model.LayerEvents, "github", "2026-11-02", githubFields,
			`{"id": "a", "title": "t", "time": "2026-11-02T09:00:00Z", "author": ""}`)},
		Pages: []model.Page{page("wiki/a.md", model.LayerWiki, "a", model.Frontmatter{Title: "A", Relations: map[string][]string{"owner": {""}}}, "")},
	})
	for _, it := range out.Items {
		for _, r := range it.Relations {
			if r.Value == "" {
				t.Errorf("%s has relation %s with the empty value %q", it.URI, r.Field, r.Value)
			}
		}
	}
}

func TestCompareStamps(t *testing.T) {
	// Each stamp is later than the one before it.
	ordered := []string{
		"2026-11-04",
		"2026-11-04T10:00:00Z",
		"2026-11-04T10:00:00.004Z",
		"2026-11-04T10:00:00.05Z",
		"2026-11-04T10:00:00.5Z",
		"2026-11-04T10:00:00.55Z",
		"2026-11-04T10:00:01Z",
		"2026-11-05",
	}
	for i, a := range ordered {
		for j, b := range ordered {
			want := 0
			switch {
			case i < j:
				want = -1
			case i > j:
				want = 1
			}
			if got := CompareStamps(a, b); got != want {
				t.Errorf("CompareStamps(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
}
