package load

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/fieldpath"
	"github.com/cairn-kb/cairn/stages/lib/model"
)

// loadOneDocument loads the document at p whose bytes are data, under the
// default layers, and returns it with its diagnostics as printed.
func loadOneDocument(t *testing.T, p, data string) (model.Document, bool, []string) {
	t.Helper()
	var ds diag.List
	d, ok := loadDocument(fstest.MapFS{p: {Data: []byte(data)}}, model.Config{}.WithDefaults(), p, &ds)
	return d, ok, diagLines(ds.Sorted())
}

func diagLines(ds []diag.Diagnostic) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, d.String())
	}
	return out
}

// fm is one fields-map entry.
func fm(field string, paths ...string) model.FieldMap {
	return model.FieldMap{Field: field, Paths: paths}
}

const eventFields = `"fields": {"id": ".id", "title": ".title", "time": ".time"}`

func TestDocumentEnvelopeErrors(t *testing.T) {
	cases := []struct {
		name, path, data string
		want             []string
	}{
		// The first cases are the golden/bad documents, whose output is
		// reviewed in golden/bad/want/build.out.
		{"wrong marker version", "events/2026-05-04/marker.json", `{
  "cairn": 2,
  "source": "marker",
  "layer": "events",
  "date": "2026-05-04",
  "fields": {"id": ".id", "title": ".title", "time": ".time"},
  "records": [
    {"id": "m-1", "title": "Written by a future collector format", "time": "2026-05-04T10:00:00Z"}
  ]
}
`, []string{`events/2026-05-04/marker.json:2:12: error: marker "cairn": 2 is not a version this cairn reads; use "cairn": 1 [wrong-marker]`}},
		{"field paths outside the subset", "events/2026-05-04/paths.json", `{
  "cairn": 1,
  "source": "paths",
  "layer": "events",
  "date": "2026-05-04",
  "fields": {
    "id": ".id",
    "title": ".title",
    "time": ".time",
    "summary": ".a..b",
    "labels": ".labels | length"
  },
  "records": [
    {"id": "p-1", "title": "Two field paths outside the jq subset", "time": "2026-05-04T12:00:00Z", "a": {"b": "x"}, "labels": ["one"]}
  ]
}
`, []string{
			`events/2026-05-04/paths.json:10:16: error: field "summary" path ".a..b": column 4: empty key between two dots; remove one dot or quote the key [bad-field-path]`,
			`events/2026-05-04/paths.json:11:15: error: field "labels" path ".labels | length": column 8: unexpected space; quote keys containing spaces as ."odd key" [bad-field-path]`,
		}},
		{"syntax error in a record", "events/2026-05-04/syntax.json", `{
  "cairn": 1,
  "source": "syntax",
  "layer": "events",
  "date": "2026-05-04",
  "fields": {"id": ".id", "title": ".title", "time": ".time"},
  "records": [
    {
      "id": "s-1",
      "title": "The line above the time key is missing its comma"
      "time": "2026-05-04T09:00:00Z"
    }
  ]
}
`, []string{`events/2026-05-04/syntax.json:11:7: error: invalid JSON: expected , or } after an object member (a comma may be missing); fix the document so that it parses [json-syntax]`}},
		{"no marker", "events/2026-05-04/unmarked.json", `{
  "source": "unmarked",
  "layer": "events",
  "date": "2026-05-04",
  "fields": {"id": ".id", "title": ".title", "time": ".time"},
  "records": [
    {"id": "u-1", "title": "No cairn or fkf marker at all", "time": "2026-05-04T11:00:00Z"}
  ]
}
`, []string{`events/2026-05-04/unmarked.json:1:1: error: the document has no "cairn": 1 marker; add it as the first key [wrong-marker]`}},
		{"count disagrees", "events/2026-05-05/count.json", `{
  "fkf": 1,
  "source": "count",
  "layer": "events",
  "date": "2026-05-05",
  "count": 3,
  "fields": {"id": ".id", "title": ".title", "time": ".time"},
  "records": [
    {"id": "c-1", "title": "First of two records", "time": "2026-05-05T11:00:00Z"},
    {"id": "c-2", "title": "Second of two records", "time": "2026-05-05T11:30:00Z"}
  ]
}
`, []string{`events/2026-05-05/count.json:6:12: error: count is 3 but the document holds 2 records; fix count or remove it [bad-count]`}},
		{"envelope disagrees with its path", "events/2026-05-05/envelope.json", `{
  "cairn": 1,
  "source": "envelop",
  "layer": "events",
  "date": "2026-05-06",
  "colector": "nightly-cron",
  "fields": {"id": ".id", "time": ".time"},
  "records": [
    {"id": "e-1", "title": "The fields map does not map title", "time": "2026-05-05T12:00:00Z"}
  ]
}
`, []string{
			`events/2026-05-05/envelope.json:3:3: error: source "envelop" does not match the file name "envelope.json"; rename the file or fix source [bad-source]`,
			`events/2026-05-05/envelope.json:5:3: error: date "2026-05-06" does not match the folder day 2026-05-05; move the file or fix date [bad-date]`,
			`events/2026-05-05/envelope.json:6:3: error: unknown key "colector" in the document envelope; known keys: body, cairn, collected_at, count, date, fields, fkf, layer, records, schema, source, window_end, window_start [unknown-key]`,
			`events/2026-05-05/envelope.json:7:3: error: the fields map does not map "title"; every source maps id and title, and events map time too [missing-field]`,
		}},

		{"not an object", "events/2026-11-02/a.json", `[1, 2]`, []string{
			`events/2026-11-02/a.json:1:1: error: a record document is a JSON object with "cairn": 1, source, fields and records [not-a-document]`,
		}},
		{"empty file", "index/m.json", ``, []string{
			`index/m.json:1:1: error: a record document is a JSON object with "cairn": 1, source, fields and records [not-a-document]`,
		}},
		{"cut short", "events/2026-11-02/h.json", "{\"cairn\": 1, \"source\": \"h\",\n \"fields\": {\"id\": \".id\"", []string{
			`events/2026-11-02/h.json:2:24: error: invalid JSON: unexpected end of input; fix the document so that it parses [json-syntax]`,
		}},
		{"trailing comma in a record", "index/q.json", `{"cairn": 1, "source": "q", "fields": {"id": ".id", "title": ".title"}, "records": [{"id": "a",}]}`, []string{
			`index/q.json:1:96: error: invalid JSON: expected a member name; fix the document so that it parses [json-syntax]`,
		}},
		{"two markers", "events/2026-11-02/f.json", `{"cairn": 1, "fkf": 1, "source": "f", ` + eventFields + `, "records": []}`, []string{
			`events/2026-11-02/f.json:1:14: error: the document carries both "cairn" and "fkf" markers; keep one [wrong-marker]`,
		}},
		{"fkf marker of another version", "index/k.json", `{"fkf": 1.0, "source": "k", "fields": {"id": ".id", "title": ".title"}, "records": []}`, []string{
			`index/k.json:1:9: error: marker "fkf": 1.0 is not a version this cairn reads; use "fkf": 1 [wrong-marker]`,
		}},
		{"count of the wrong type", "events/2026-11-02/c.json", "{\n  \"cairn\": 1,\n  \"source\": \"c\",\n  \"count\": \"two\",\n  " + eventFields + ",\n  \"records\": []\n}\n", []string{
			`events/2026-11-02/c.json:4:12: error: expected int here, found JSON string [json-type]`,
		}},
		{"layer against folder, record not an object", "events/2026-11-02/d.json", `{"cairn": 1, "source": "d", "layer": "index", ` + eventFields + `, "records": [1, {"id": "x"}]}`, []string{
			`events/2026-11-02/d.json:1:29: error: layer "index" does not match the folder, which holds events documents; fix layer [bad-layer]`,
			`events/2026-11-02/d.json:1:120: error: record 1 is not a JSON object; each record is an object [json-type]`,
		}},
		{"events layer in the index folder", "index/n.json", `{"cairn": 1, "source": "n", "layer": "events", "fields": {"id": ".id", "title": ".title"}, "records": []}`, []string{
			`index/n.json:1:29: error: layer "events" does not match the folder, which holds index documents; fix layer [bad-layer]`,
		}},
		{"folder is not a day", "events/2026-13-45/e.json", `{"cairn": 1, "source": "e", ` + eventFields + `, "records": []}`, []string{
			`events/2026-13-45/e.json:1:1: error: folder "2026-13-45" is not a real day; name it YYYY-MM-DD [bad-date]`,
		}},
		{"index date not a day", "index/k.json", `{"cairn": 1, "source": "k", "date": "11/02/2026", "fields": {"id": ".id", "title": ".title"}, "records": []}`, []string{
			`index/k.json:1:29: error: date "11/02/2026" is not YYYY-MM-DD [bad-date]`,
		}},
		{"no source", "index/l.json", `{"cairn": 1, "fields": {"id": ".id", "title": ".title"}, "records": []}`, []string{
			`index/l.json:1:1: error: the document names no source; add "source": "l" [no-source]`,
		}},
		{"bad source name", "index/-bad name.json", `{"cairn": 1, "source": "-bad name", "fields": {"id": ".id", "title": ".title"}, "records": []}`, []string{
			`index/-bad name.json:1:1: error: source name "-bad name" must be letters, digits, dot, dash or underscore; rename the file [bad-source-name]`,
		}},
		{"trailing object after the document", "index/g.json", `{"cairn": 1, "source": "g", "fields": {"id": ".id", "title": ".title"}, "records": []}}`, []string{
			`index/g.json:1:87: error: unexpected data after the document's closing brace; a record document holds one JSON object [json-syntax]`,
		}},
		{"stamps without zone", "events/2026-11-02/i.json", `{"cairn": 1, "source": "i", "collected_at": "2026-11-02T09:00:00", "window_start": "monday", "window_end": "2026-11-02T09:00:00Z", ` + eventFields + `, "records": []}`, []string{
			`events/2026-11-02/i.json:1:45: error: collected_at "2026-11-02T09:00:00": the time has no zone; add Z for UTC or an offset like +01:00 [date-no-zone]`,
			`events/2026-11-02/i.json:1:84: error: window_start "monday": not an RFC 3339 time; write it like 2026-11-02T09:14:00Z [date-no-zone]`,
		}},
		{"schema and fields problems", "events/2026-11-02/j.json", "{\"cairn\": 1, \"source\": \"j\",\n" +
			" \"schema\": {\"Bad\": {\"relation\": true}, \"x\": {\"cardinality\": \"lots\"}, \"y\": {\"weight\": 3, \"nope\": 1}},\n" +
			" \"fields\": {\"id\": \".id\", \"title\": [], \"time\": 7, \"Up\": \".u\"}, \"records\": []}", []string{
			`events/2026-11-02/j.json:2:13: error: field name "Bad" must match ^[a-z][a-z0-9_-]*$; rename it [bad-field-name]`,
			`events/2026-11-02/j.json:2:45: error: cardinality of "x" is "lots"; use one of: one, optional, many [bad-cardinality]`,
			`events/2026-11-02/j.json:2:75: error: schema of field "y": json: unknown field "weight"; a document's schema declares relation, cardinality, description and examples (weights belong in cairn.yaml) [bad-schema]`,
			`events/2026-11-02/j.json:3:2: error: the fields map does not map "time"; every source maps id and title, and events map time too [missing-field]`,
			`events/2026-11-02/j.json:3:2: error: the fields map does not map "title"; every source maps id and title, and events map time too [missing-field]`,
			`events/2026-11-02/j.json:3:35: error: field "title" maps to []; map it to a path string like ".title" or a non-empty list of them [bad-field-path]`,
			`events/2026-11-02/j.json:3:47: error: field "time" maps to 7; map it to a path string like ".title" or a non-empty list of them [bad-field-path]`,
			`events/2026-11-02/j.json:3:50: error: field name "Up" must match ^[a-z][a-z0-9_-]*$; rename it [bad-field-name]`,
		}},
		{"fields not an object", "index/o.json", `{"cairn": 1, "source": "o", "fields": "id", "records": []}`, []string{
			`index/o.json:1:29: error: the fields map does not map "id"; every source maps id and title, and events map time too [missing-field]`,
			`index/o.json:1:29: error: the fields map does not map "title"; every source maps id and title, and events map time too [missing-field]`,
			`index/o.json:1:39: error: fields must be a JSON object [json-type]`,
		}},
		{"records not an array", "index/r.json", `{"cairn": 1, "source": "r", "fields": {"id": ".id", "title": ".title"}, "records": {}}`, []string{
			`index/r.json:1:84: error: records must be a JSON array of objects [json-type]`,
		}},
		{"a record that is a string", "index/p.json", "{\"cairn\": 1, \"source\": \"p\", \"fields\": {\"id\": \".id\", \"title\": \".title\"}, \"records\": [\n  {\"id\": \"a\"},\n  \"str\",\n  {\"id\": \"b\"}\n]}", []string{
			`index/p.json:3:3: error: record 2 is not a JSON object; each record is an object [json-type]`,
		}},
		{"control character in a record string", "index/s.json", `{"cairn": 1, "source": "s", "fields": {"id": ".id", "title": ".title"}, "records": [{"id": "a` + "\x01" + `"}]}`, []string{
			`index/s.json:1:94: error: invalid JSON: control character in string; fix the document so that it parses [json-syntax]`,
		}},
		{"nested too deeply", "index/s.json", `{"cairn": 1, "source": "s", "fields": {"id": ".id", "title": ".title"}, "records": [` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `]}`, []string{
			`index/s.json:1:596: error: invalid JSON: nested too deeply; fix the document so that it parses [json-syntax]`,
		}},
		{"invalid literal", "index/s.json", `{"cairn": 1, "source": "s", "fields": {"id": ".id", "title": ".title"}, "records": [{"id": tru}]}`, []string{
			`index/s.json:1:92: error: invalid JSON: invalid literal; fix the document so that it parses [json-syntax]`,
		}},
		{"source of the wrong type", "index/s.json", `{"cairn": 1, "source": 5, "fields": {"id": ".id", "title": ".title"}, "records": []}`, []string{
			`index/s.json:1:1: error: the document names no source; add "source": "s" [no-source]`,
			`index/s.json:1:24: error: expected string here, found JSON number [json-type]`,
		}},
		{"fractional count", "index/s.json", `{"cairn": 1, "source": "s", "fields": {"id": ".id", "title": ".title"}, "records": [], "count": 1.5}`, []string{
			`index/s.json:1:97: error: expected int here, found JSON number 1.5 [json-type]`,
		}},
		{"duplicate envelope key", "index/s.json", `{"cairn": 1, "source": "s", "source": "s", "fields": {"id": ".id", "title": ".title"}, "records": []}`, []string{
			`index/s.json:1:29: error: key "source" appears twice; keep one [duplicate-key]`,
		}},
		{"no records key", "index/s.json", `{"cairn": 1, "source": "s", "fields": {"id": ".id", "title": ".title"}}`, []string{
			`index/s.json:1:1: error: the document has no "records" list; add "records": [] even when it holds none, so that an empty source is said, not implied [no-records]`,
		}},
		{"duplicate field", "index/s.json", `{"cairn": 1, "source": "s", "fields": {"id": ".id", "title": ".a", "title": ".b"}, "records": []}`, []string{
			`index/s.json:1:68: error: key "title" appears twice in fields; keep one [duplicate-key]`,
		}},
		{"duplicate schema entry", "index/s.json", `{"cairn": 1, "source": "s", "fields": {"id": ".id", "title": ".title"}, "schema": {"owner": {"relation": true}, "owner": {}}, "records": []}`, []string{
			`index/s.json:1:113: error: key "owner" appears twice in schema; keep one [duplicate-key]`,
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, ok, got := loadOneDocument(t, c.path, c.data)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			if ok {
				t.Errorf("ok = true for a document with errors")
			}
		})
	}
}

func TestDocumentEscapedKeys(t *testing.T) {
	d, ok, diags := loadOneDocument(t, "index/s.json", `{"c\u0061irn": 1, "sour\u0063e": "s", "fields": {"\u0069d": ".id", "title": ".title"}, "records": []}`)
	if !ok || len(diags) != 0 || d.Marker != "cairn" || d.Source != "s" || len(d.Fields) != 2 || d.Fields[0].Field != "id" {
		t.Errorf("escaped keys: ok %v diagnostics %q document %+v", ok, diags, d)
	}
}

// TestMarkerMustBeANumber: the marker is the JSON number 1, not the string
// "1".
func TestMarkerMustBeANumber(t *testing.T) {
	_, ok, diags := loadOneDocument(t, "index/s.json", `{"cairn": "1", "source": "s", "fields": {"id": ".id", "title": ".title"}, "records": []}`)
	if ok || len(diags) == 0 {
		t.Errorf(`"cairn": "1" accepted (diagnostics %q); want a wrong-marker error: the marker is the number 1`, diags)
	}
}

// TestRepeatedMarkerKeyIsADuplicateOnly: a repeated "cairn" key is a duplicate
// key, not a cairn/fkf conflict.
func TestRepeatedMarkerKeyIsADuplicateOnly(t *testing.T) {
	_, _, got := loadOneDocument(t, "events/2026-11-02/b.json", `{"cairn": 1, "cairn": 1, "source": "b", `+eventFields+`, "records": []}`)
	want := []string{`events/2026-11-02/b.json:1:14: error: key "cairn" appears twice; keep one [duplicate-key]`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

// TestTrailingDataColumn checks that stray data after the document is
// reported where it starts, whatever token it begins with.
func TestTrailingDataColumn(t *testing.T) {
	doc := `{"cairn": 1, "source": "g", "fields": {"id": ".id", "title": ".title"}, "records": []}` // 86 bytes
	for _, c := range []struct{ tail, at string }{
		{" {}", "1:88"},
		{" 12", "1:88"},
		{"\n\n  [1]", "3:3"},
	} {
		_, _, got := loadOneDocument(t, "index/g.json", doc+c.tail)
		want := []string{"index/g.json:" + c.at + `: error: unexpected data after the document's closing brace; a record document holds one JSON object [json-syntax]`}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("tail %q (-want +got):\n%s", c.tail, diff)
		}
	}
}

// TestNegativeCountIsRefused: a negative count is an error.
func TestNegativeCountIsRefused(t *testing.T) {
	_, ok, got := loadOneDocument(t, "index/r.json", `{"cairn": 1, "source": "r", "fields": {"id": ".id", "title": ".title"}, "records": [], "count": -1}`)
	if ok || len(got) == 0 {
		t.Errorf("count -1 accepted (diagnostics %q); want an error: count is a number of records", got)
	}
}

func TestDocumentAccepted(t *testing.T) {
	cases := []struct {
		name, path, data string
		want             model.Document
	}{
		{"fkf marker, layer and date from the path", "events/2026-11-02/mail.json",
			`{"fkf": 1, "source": "mail", "fields": {"time": ".at", "title": [".subject", ".topic"], "id": ".id"}, "records": []}`,
			model.Document{Path: "events/2026-11-02/mail.json", Layer: "events", Marker: "fkf", Source: "mail", Date: "2026-11-02",
				Fields: []model.FieldMap{fm("id", ".id"), fm("time", ".at"), fm("title", ".subject", ".topic")}}},
		{"every envelope key", "events/2026-11-02/github.json", `{
  "cairn": 1,
  "source": "github",
  "layer": "events",
  "date": "2026-11-02",
  "schema": {"author": {"relation": true, "cardinality": "optional", "description": "who opened it"}},
  "fields": {"id": ".id", "title": ".title", "time": ".time", "author": ".user.login", "odd": ".\"odd key\"[-1]"},
  "records": [],
  "count": 0,
  "window_start": "2026-11-02T00:00:00Z",
  "window_end": "2026-11-03T00:00:00+01:00",
  "collected_at": "2026-11-03T01:02:03.5Z",
  "body": "Issues and pull requests of acme/harbor."
}`, model.Document{
			Path: "events/2026-11-02/github.json", Layer: "events", Marker: "cairn", Source: "github", Date: "2026-11-02",
			Schema: map[string]model.FieldSpec{"author": {Relation: true, Cardinality: "optional", Description: "who opened it"}},
			Fields: []model.FieldMap{fm("author", ".user.login"), fm("id", ".id"), fm("odd", `."odd key"[-1]`),
				fm("time", ".time"), fm("title", ".title")},
			WindowStart: "2026-11-02T00:00:00Z", WindowEnd: "2026-11-03T00:00:00+01:00", CollectedAt: "2026-11-03T01:02:03.5Z",
			Body: "Issues and pull requests of acme/harbor.",
		}},
		{"index document", "index/people.json", `{"cairn": 1, "source": "people", "date": "2026-11-02", "fields": {"id": ".email", "title": ".name"}, "records": []}`,
			model.Document{Path: "index/people.json", Layer: "index", Marker: "cairn", Source: "people", Date: "2026-11-02",
				Fields: []model.FieldMap{fm("id", ".email"), fm("title", ".name")}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, ok, diags := loadOneDocument(t, c.path, c.data)
			if !ok || len(diags) != 0 {
				t.Fatalf("ok = %v, diagnostics %q", ok, diags)
			}
			if diff := cmp.Diff(c.want, d); diff != "" {
				t.Errorf("document (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRecordSpans(t *testing.T) {
	head := `{"cairn": 1, "source": "s", "fields": {"id": ".id", "title": ".title"}, "records": [`
	recs := []struct {
		text      string
		line, col int
	}{
		{`{"id": "a", "title": "café"}`, 2, 3},
		{`{"id": "b", "nested": {"x": [1, {"y": "}"}]}}`, 3, 2},
		{`{"id": "c"}`, 3, 49},
		{`{"id":"d"}`, 4, 1},
		{`{"id": "é", "s": "line\nbreak"}`, 5, 4},
		{`{}`, 5, 38}, // columns count bytes: é is two
	}
	data := head + "\n" +
		"  " + recs[0].text + ",\n" +
		"\t" + recs[1].text + ", " + recs[2].text + ",\n" +
		recs[3].text + "\n" +
		"  ," + recs[4].text + ", " + recs[5].text + "\n" +
		"]}\n"
	for _, eol := range []string{"\n", "\r\n"} {
		text := strings.ReplaceAll(data, "\n", eol)
		d, ok, diags := loadOneDocument(t, "index/s.json", text)
		if !ok || len(diags) != 0 {
			t.Fatalf("ok = %v, diagnostics %q", ok, diags)
		}
		if len(d.Records) != len(recs) {
			t.Fatalf("%d records, want %d", len(d.Records), len(recs))
		}
		for i, r := range d.Records {
			want := recs[i]
			if got := string(r.Raw); got != want.text {
				t.Errorf("eol %q record %d: Raw = %q, want %q", eol, i, got, want.text)
			}
			if got := text[r.Offset : r.Offset+r.Length]; got != string(r.Raw) {
				t.Errorf("eol %q record %d: bytes at %d+%d = %q, not Raw", eol, i, r.Offset, r.Length, got)
			}
			if r.Line != want.line || r.Col != want.col {
				t.Errorf("eol %q record %d: at %d:%d, want %d:%d", eol, i, r.Line, r.Col, want.line, want.col)
			}
		}
	}
}

// oneLineDocument is a document of n records on one line, as a program
// that prints minified JSON writes it, the last record replaced by last.
func oneLineDocument(n int, last string) string {
	var b strings.Builder
	b.WriteString(`{"cairn":1,"source":"big","layer":"events","date":"2026-05-04",` + strings.ReplaceAll(eventFields, " ", "") + `,"records":[`)
	for i := range n - 1 {
		fmt.Fprintf(&b, `{"id":"r-%d","title":"record %d","time":"2026-05-04T10:00:00Z"},`, i, i)
	}
	b.WriteString(last + "]}\n")
	return b.String()
}

// TestMinifiedDocumentReadOnce checks that locating the records of a
// one-line document reads its text once, not once per record (which
// made 20,000 records take minutes), and that the last one is still
// reported at its line and column.
func TestMinifiedDocumentReadOnce(t *testing.T) {
	const n = 20000
	text := oneLineDocument(n, "7")
	var ds diag.List
	r := &docReader{path: "events/2026-05-04/big.json", s: text, ds: &ds, keys: map[string]int{}, lines: diag.NewLines(text)}
	var doc model.Document
	if !r.envelope(&doc) {
		t.Fatalf("the envelope did not load: %v", diagLines(ds.Sorted()))
	}
	if got := r.lines.Scanned(); got > len(text) {
		t.Errorf("finding the records' positions read %d bytes of a %d-byte document", got, len(text))
	}
	if len(doc.Records) != n-1 {
		t.Fatalf("%d records, want %d", len(doc.Records), n-1)
	}
	lastCol := strings.LastIndex(text, "7]") + 1
	want := fmt.Sprintf("events/2026-05-04/big.json:1:%d: error: record %d is not a JSON object; each record is an object [json-type]", lastCol, n)
	if got := diagLines(ds.Sorted()); len(got) != 1 || got[0] != want {
		t.Errorf("diagnostics %q, want %q", got, want)
	}
	prev := doc.Records[len(doc.Records)-1]
	if wantCol := strings.LastIndex(text, `{"id":"r-19998"`) + 1; prev.Line != 1 || prev.Col != wantCol {
		t.Errorf("record %d at %d:%d, want 1:%d", n-1, prev.Line, prev.Col, wantCol)
	}
}

// TestRecordPositions checks each record's line and column, and a
// diagnostic's, in a minified and an indented document.
func TestRecordPositions(t *testing.T) {
	const indented = `{
  "cairn": 1, "source": "pos", "date": "2026-05-04",
  ` + eventFields + `,
  "records": [
    {"id": "a", "title": "A", "time": "2026-05-04T10:00:00Z"},
      {"id": "b", "title": "B",
       "time": "2026-05-04T10:00:00Z"}, {"id": "c", "title": "C", "time": "2026-05-04T10:00:00Z"},
    "d"
  ]
}
`
	const minified = `{"cairn":1,"source":"pos","date":"2026-05-04",` + eventFields + `,"records":[{"id":"a","title":"A","time":"2026-05-04T10:00:00Z"},{"id":"b","title":"B","time":"2026-05-04T10:00:00Z"},"d"]}`
	cases := []struct {
		name, data string
		at         [][2]int
		diag       string
	}{
		{"indented", indented, [][2]int{{5, 5}, {6, 7}, {7, 41}}, "events/2026-05-04/pos.json:8:5: error: record 4 is not a JSON object; each record is an object [json-type]"},
		{"minified", minified, [][2]int{{1, strings.Index(minified, `{"id":"a"`) + 1}, {1, strings.Index(minified, `{"id":"b"`) + 1}},
			fmt.Sprintf("events/2026-05-04/pos.json:1:%d: error: record 3 is not a JSON object; each record is an object [json-type]", strings.Index(minified, `"d"`)+1)},
	}
	for _, c := range cases {
		d, _, diags := loadOneDocument(t, "events/2026-05-04/pos.json", c.data)
		if len(d.Records) != len(c.at) {
			t.Fatalf("%s: %d records, want %d", c.name, len(d.Records), len(c.at))
		}
		for i, r := range d.Records {
			if r.Line != c.at[i][0] || r.Col != c.at[i][1] {
				t.Errorf("%s: record %d at %d:%d, want %d:%d", c.name, i+1, r.Line, r.Col, c.at[i][0], c.at[i][1])
			}
		}
		if len(diags) != 1 || diags[0] != c.diag {
			t.Errorf("%s: diagnostics %q, want %q", c.name, diags, c.diag)
		}
	}
}

// TestBodyFlag: fkf's documents say with a boolean body whether their
// source declares a body command; in a cairn document body is words.
func TestBodyFlag(t *testing.T) {
	doc := `{"%s": 1, "source": "s", "layer": "events", "date": "2026-05-04", "fields": {"id": ".id", "time": ".time"}, "body": true, "count": 1,
 "records": [{"id": "s-1", "time": "2026-05-04T10:00:00Z"}]}`
	d, ok, ds := loadOneDocument(t, "events/2026-05-04/s.json", fmt.Sprintf(doc, "fkf"))
	if !ok || !d.BodyDeclared || len(ds) > 0 {
		t.Errorf("an fkf document with body true and no title mapped: ok=%v declared=%v %v", ok, d.BodyDeclared, ds)
	}
	_, ok, ds = loadOneDocument(t, "events/2026-05-04/s.json", fmt.Sprintf(doc, "cairn"))
	want := []string{
		`events/2026-05-04/s.json:1:70: error: the fields map does not map "title"; every source maps id and title, and events map time too [missing-field]`,
		`events/2026-05-04/s.json:1:120: error: body in a cairn document describes the body in words, a string; a true or false body is fkf's, in a document marked "fkf": 1 [json-type]`,
	}
	if ok || !cmp.Equal(ds, want) {
		t.Errorf("a cairn document with a boolean body: ok=%v\n%s", ok, cmp.Diff(want, ds))
	}
}

// TestWalkIsTheValidatingScan checks the one-pass walk of an envelope
// against the scanner it stands in for: on well-formed JSON it finds the
// members and record spans that checking the whole object and then each
// member would, and on anything else it gives up, so that the scanner
// reports the error.
func TestWalkIsTheValidatingScan(t *testing.T) {
	wellFormed := []string{
		`{}`,
		` { } `,
		`{"records": []}`,
		`{"records":[ ]}`,
		"{\n  \"cairn\": 1,\n  \"records\": [\n    {\"id\": \"a\"},\n    {\"id\": \"b\", \"n\": [1, {\"x\": \"}\"}]}\n  ]\n}\n",
		`{"cairn":1,"source":"git","fields":{"id":".id"},"records":[{"id":"a"},7,"s",[1]],"count":4}`,
		`{"re\u0063ords": [{"id": "escaped key"}], "records": [{"id": "twice"}]}`,
		`{"records": {"not": "an array"}, "body": true}`,
	}
	for _, doc := range wellFormed {
		r := &docReader{s: doc}
		i := r.space(0)
		got, end, ok := r.walk(i)
		if !ok {
			t.Errorf("walk gave up on well-formed %q", doc)
			continue
		}
		if _, wantEnd, err := fieldpath.SkipValue(doc, i); err != nil || end != wantEnd {
			t.Errorf("%q: walk ends at %d, the scanner at %d (%v)", doc, end, wantEnd, err)
		}
		var want []member
		r.eachMember(i, func(key string, keyOff, start, end int) bool {
			m := member{key: key, keyOff: keyOff, start: start, end: end}
			if key == "records" && doc[start] == '[' {
				m.elems = r.arrayElements(start, end)
			}
			want = append(want, m)
			return true
		})
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(member{})); diff != "" {
			t.Errorf("%q: walk differs from the scan (-scan +walk):\n%s", doc, diff)
		}
	}
	broken := []string{
		`{`,
		`{"records": [{"id": "a"},]}`,
		`{"records": [{"id": "a"} {"id": "b"}]}`,
		`{"records": [{"id": "a"}`,
		`{"cairn" 1}`,
		`{"cairn": 1,}`,
		`{cairn: 1}`,
		`{"cairn": 1 "source": "git"}`,
		`{"records": [{"id": "a\q"}]}`,
		`{"source": "git`,
	}
	for _, doc := range broken {
		r := &docReader{s: doc}
		if _, _, err := fieldpath.SkipValue(doc, 0); err == nil {
			t.Fatalf("the scanner accepts %q; the case is not broken", doc)
		}
		if _, _, ok := r.walk(r.space(0)); ok {
			t.Errorf("walk accepted broken %q", doc)
		}
	}
}

// TestPlainStringIsTheDecoders: a JSON string plainString takes is what
// the JSON decoder makes of it; the rest it leaves to the decoder.
func TestPlainStringIsTheDecoders(t *testing.T) {
	for _, s := range []string{`"git"`, `"2026-11-02"`, `"café"`, `"日本"`, `""`, `"a\"b"`, `"a\\b"`, `"\u00e9"`,
		"\"bad \xff byte\"", "\"tab\there\"", `"a/b"`, `7`, `null`, `"x`, `x"`, `["x"]`} {
		got := plainString(s)
		if got == "" {
			continue
		}
		var want string
		if err := json.Unmarshal([]byte(s), &want); err != nil || got != want {
			t.Errorf("plainString(%q) = %q; the decoder gives %q (%v)", s, got, want, err)
		}
	}
	for _, s := range []string{`"a\"b"`, `"\u00e9"`, "\"bad \xff byte\"", "\"tab\there\"", `7`, `""`} {
		if got := plainString(s); got != "" {
			t.Errorf("plainString(%q) = %q; it needs the decoder", s, got)
		}
	}
}

// TestFieldsMapReadOnce: documents that declare the same fields map, to
// the byte, share one (read and checked once, then handed out as it was
// read: sorted by field); a map with a mistake is read, and reported,
// for every document that declares it; a second fields key is read on
// its own and reported as the duplicate it is.
func TestFieldsMapReadOnce(t *testing.T) {
	const fields = `"fields": {"title": ".subject", "time": ".at", "id": ".id", "paths": ".files[]"}`
	doc := func(day, fields string) string {
		return `{"cairn": 1, "source": "git", ` + fields + `, "records": [{"id": "` + day + `", "subject": "s", "at": "` + day + `T10:00:00Z"}]}`
	}
	a, okA, diagsA := loadOneDocument(t, "events/2026-11-02/git.json", doc("2026-11-02", fields))
	b, okB, diagsB := loadOneDocument(t, "events/2026-11-03/git.json", doc("2026-11-03", fields))
	if !okA || !okB || len(diagsA)+len(diagsB) != 0 {
		t.Fatalf("ok %v %v, diagnostics %q %q", okA, okB, diagsA, diagsB)
	}
	want := []model.FieldMap{fm("id", ".id"), fm("paths", ".files[]"), fm("time", ".at"), fm("title", ".subject")}
	if diff := cmp.Diff(want, b.Fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	if &a.Fields[0] != &b.Fields[0] {
		t.Error("two documents declaring one fields map each read it")
	}
	const bad = `"fields": {"id": ".id", "title": ".title[", "time": ".at"}`
	for _, day := range []string{"2026-11-04", "2026-11-05"} {
		_, ok, diags := loadOneDocument(t, "events/"+day+"/git.json", doc(day, bad))
		if ok || len(diags) != 1 || !strings.Contains(diags[0], "bad-field-path") {
			t.Errorf("%s: ok %v, diagnostics %q; want the bad path reported", day, ok, diags)
		}
	}
	twice := strings.Replace(doc("2026-11-06", fields), `"records"`, `"fields": {"body": ".body"}, "records"`, 1)
	d, ok, diags := loadOneDocument(t, "events/2026-11-06/git.json", twice)
	if ok || len(diags) != 1 || !strings.Contains(diags[0], "duplicate-key") {
		t.Errorf("ok %v, diagnostics %q; want the second fields key reported", ok, diags)
	}
	if len(d.Fields) != 5 || d.Fields[0].Field != "body" {
		t.Errorf("fields %v, want both keys' entries, sorted", d.Fields)
	}
	again, _, _ := loadOneDocument(t, "events/2026-11-07/git.json", doc("2026-11-07", `"fields": {"body": ".body"}`))
	if len(again.Fields) != 1 {
		t.Errorf("a document declaring only the second key got %v", again.Fields)
	}
}
