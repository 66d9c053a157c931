package query

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/cairn-kb/cairn/query/internal/querytest"
	"github.com/cairn-kb/cairn/query/render"
)

// manyValuesBase holds one commit whose relation fields hold several
// values each, two tickets and five co-authors, and two other commits.
func manyValuesBase() fstest.MapFS {
	doc := `{"cairn": 1, "source": "git",
  "fields": {"id": ".sha", "title": ".subject", "time": ".time", "author": ".author", "co_author": ".co_authors[]", "ticket": ".tickets[]"},
  "records": [
    {"sha": "a1b2c3", "subject": "Stream uploads in chunks", "time": "2026-11-02T10:00:00Z", "author": "person:email/ana@x.test",
     "co_authors": ["person:email/bo@x.test", "person:email/cy@x.test", "person:email/di@x.test", "person:email/ed@x.test", "person:email/fay@x.test"],
     "tickets": ["ticket:#2165", "ticket:#2171"]},
    {"sha": "d4e5f6", "subject": "Rotate signing keys", "time": "2026-11-02T11:00:00Z", "author": "person:email/bo@x.test"},
    {"sha": "0a0b0c", "subject": "Retry pushes on 503", "time": "2026-11-02T12:00:00Z", "author": "person:email/cy@x.test"}
  ]}`
	return fstest.MapFS{
		"cairn.yaml":                 {Data: []byte("schema:\n  author: {relation: true}\n  co_author: {relation: true, cardinality: many}\n  ticket: {relation: true, cardinality: many}\n")},
		"events/2026-11-02/git.json": {Data: []byte(doc)},
	}
}

// TestPackShowsEveryRelationValue: a field with several values carries
// them all in JSON, and text shows the first packTextValues and counts the
// rest, from the index and the scan alike.
func TestPackShowsEveryRelationValue(t *testing.T) {
	dir := querytest.BuiltFS(t, manyValuesBase())
	run := func(format string) string {
		out, err := Context(context.Background(), dir, Request{Words: []string{"uploads"}, Budget: DefaultBudget, Format: format,
			AsOf: time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	// The items, before the receipt, whose index state and size differ.
	items := regexp.MustCompile(`(?s)^.*?(receipt|"receipt")`)
	for _, format := range []string{render.FormatText, render.FormatJSON} {
		indexed := run(format)
		var scanned string
		querytest.WithoutIndex(t, dir, func() { scanned = run(format) })
		if a, b := items.FindString(indexed), items.FindString(scanned); a != b || a == "" {
			t.Errorf("%s: the indexed and scanned items differ:\n%s\n---\n%s", format, a, b)
		}
		if format == render.FormatText {
			for _, want := range []string{" ticket=ticket:#2165,ticket:#2171", " co_author=person:email/bo@x.test,person:email/cy@x.test,person:email/di@x.test +2 more", " author=person:email/ana@x.test"} {
				if !strings.Contains(indexed, want) {
					t.Errorf("the text pack lacks %q:\n%s", want, indexed)
				}
			}
			continue
		}
		var pack struct {
			Items []struct {
				Fields []struct {
					Field  string   `json:"field"`
					Values []string `json:"values"`
				} `json:"fields"`
			} `json:"items"`
		}
		if err := json.Unmarshal([]byte(indexed), &pack); err != nil || len(pack.Items) != 1 {
			t.Fatalf("%v: %s", err, indexed)
		}
		got := map[string][]string{}
		for _, f := range pack.Items[0].Fields {
			got[f.Field] = f.Values
		}
		if c := got["co_author"]; len(c) != 5 || c[4] != "person:email/fay@x.test" || !slices.Equal(got["ticket"], []string{"ticket:#2165", "ticket:#2171"}) {
			t.Errorf("JSON fields %v; want every value", got)
		}
	}
}
