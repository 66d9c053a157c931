package query

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/query/corpus"
	"github.com/cairn-kb/cairn/query/internal/querytest"
	"github.com/cairn-kb/cairn/query/question"
	"github.com/cairn-kb/cairn/query/render"
)

// answer runs a JSON context query on dir and returns the pack.
func answer(t *testing.T, dir string, words ...string) Pack {
	t.Helper()
	out, err := Context(context.Background(), dir, Request{
		Words: words, Budget: DefaultBudget, AsOf: time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC),
		Format: render.FormatJSON, ToolVersion: "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	var p Pack
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return p
}

func uris(p Pack) []string {
	var out []string
	for _, it := range p.Items {
		out = append(out, it.URI)
	}
	return out
}

// TestFallbackToScan damages the artifacts in the ways a reader can meet
// and checks that the answer is the scan's, with receipt.index saying why.
func TestFallbackToScan(t *testing.T) {
	query := []string{"why", "did", "the", "arm64", "nightly", "time", "out"}
	want := uris(answer(t, querytest.BuiltDemo(t), query...))
	if len(want) < 5 {
		t.Fatalf("the reference answer has only %v", want)
	}
	cases := []struct {
		name   string
		damage func(t *testing.T, dir string)
		state  string
		reason string
	}{
		{"postings truncated", func(t *testing.T, dir string) {
			p := filepath.Join(dir, ".cairn", "postings.tsv")
			data, _ := os.ReadFile(p)
			os.WriteFile(p, data[:len(data)*2/3], 0o644)
		}, "corrupt", "postings.tsv"},
		{"postings edited", func(t *testing.T, dir string) {
			p := filepath.Join(dir, ".cairn", "postings.tsv")
			data, _ := os.ReadFile(p)
			i := strings.Index(string(data), "\narm64\t")
			data[i+3] = 'X'
			os.WriteFile(p, data, 0o644)
		}, "corrupt", "postings.tsv"},
		{"docs emptied", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, ".cairn", "docs.tsv"), nil, 0o644)
		}, "corrupt", "docs.tsv"},
		{"manifest garbled", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, ".cairn", "manifest.json"), []byte("{"), 0o644)
		}, "corrupt", "manifest"},
		{"record edited after the build", func(t *testing.T, dir string) {
			// An edit that changes no ranking input: the answer stays, and
			// it comes from the scan, which reads the edited record.
			querytest.Edit(t, dir, "events/2026-11-09/tickets.json", `"name": "In Review"`, `"name": "In Progress"`)
		}, "stale", "events/2026-11-09/tickets.json changed"},
		{"artifacts removed", func(t *testing.T, dir string) {
			os.RemoveAll(filepath.Join(dir, ".cairn"))
		}, "missing", "run cairn build"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := querytest.BuiltDemo(t)
			c.damage(t, dir)
			p := answer(t, dir, query...)
			if p.Receipt.Index.State != c.state || !strings.Contains(p.Receipt.Index.Reason, c.reason) {
				t.Errorf("receipt.index = %+v, want %s naming %q", p.Receipt.Index, c.state, c.reason)
			}
			if got := uris(p); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("answer from the scan:\n%v\nwant:\n%v", got, want)
			}
		})
	}
}

// indexedEngine builds the demo base and returns its folder, its opened
// artifacts (closed when the test ends) and an engine for a text query
// on them, not yet run.
func indexedEngine(t *testing.T, words ...string) (string, *corpus.IndexCorpus, *engine) {
	t.Helper()
	dir := querytest.BuiltDemo(t)
	ix, err := corpus.Open(context.Background(), dir)
	if err != nil || ix.State != corpus.StateUsed {
		t.Fatalf("Open: %v %+v", err, ix)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	c, err := corpus.OpenIndex(dir, root.FS(), ix.Config, ix.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	asOf := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
	req := Request{Words: words, Budget: DefaultBudget, AsOf: asOf, Format: render.FormatText}
	parsed, err := question.Parse(req.Words, asOf, "", "")
	if err != nil {
		t.Fatal(err)
	}
	return dir, c, newEngine(c, req, parsed, *ix, nil)
}

// TestQueryReadsOnlyItsTerms checks that an indexed query reads postings
// only in its terms' byte ranges, never the whole file.
func TestQueryReadsOnlyItsTerms(t *testing.T) {
	dir, c, e := indexedEngine(t, "retention", "policy")
	if _, err := e.run(); err != nil {
		t.Fatal(err)
	}
	var want int64
	for _, term := range []string{"retention", "policy", "=retention", "=policy"} {
		if entry, ok, _ := c.Tables.Term(term); ok {
			want += entry.Length
		}
	}
	data, _ := os.ReadFile(filepath.Join(dir, ".cairn", "postings.tsv"))
	header := int64(strings.IndexByte(string(data), '\n') + 1) // checked when the reader opens
	got := c.Tables.BytesRead()["postings.tsv"]
	if got < want || got > header+1+want || got >= int64(len(data)) {
		t.Errorf("read %d bytes of postings.tsv (%d in all), want the header's %d and the terms' %d", got, len(data), header, want)
	}
}

// TestArtifactCutShortWhileOpen truncates the artifacts in place after
// they were opened: the query must not crash but report the artifacts
// corrupt, so that Context answers from the scan.
func TestArtifactCutShortWhileOpen(t *testing.T) {
	dir, _, e := indexedEngine(t, "arm64", "nightly")
	for _, name := range []string{"docs.tsv", "docs.key", "terms.tsv", "postings.tsv"} {
		if err := os.Truncate(filepath.Join(dir, ".cairn", name), 0); err != nil {
			t.Fatal(err)
		}
	}
	_, err := e.run()
	var ce *artifacts.CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("a query over artifacts cut short under it: %v, want a CorruptError", err)
	}
}

// TestStaleIndexSplicesTheChangedFile edits a record after the build and
// requires the answer to come from the index with that one file read
// anew, item for item the answer a scan of the edited base gives.
func TestStaleIndexSplicesTheChangedFile(t *testing.T) {
	query := []string{"why", "did", "the", "arm64", "nightly", "time", "out"}
	dir := querytest.BuiltDemo(t)
	querytest.Edit(t, dir, "events/2026-11-09/tickets.json", `"name": "In Review"`, `"name": "In Review of the arm64 nightly timeout"`)
	got := answer(t, dir, query...)
	if got.Receipt.Index.State != "stale" || !strings.Contains(got.Receipt.Index.Reason, "answered from the index with the 1 changed file read anew") {
		t.Fatalf("receipt.index = %+v, want stale and answered from the index", got.Receipt.Index)
	}
	if err := os.RemoveAll(filepath.Join(dir, ".cairn")); err != nil {
		t.Fatal(err)
	}
	scanned := answer(t, dir, query...)
	if scanned.Receipt.Index.State != "missing" {
		t.Fatalf("the reference answer is not a scan: %+v", scanned.Receipt.Index)
	}
	g, _ := json.Marshal(got.Items)
	w, _ := json.Marshal(scanned.Items)
	if string(g) != string(w) {
		t.Errorf("the answer with the file spliced in:\n%s\nthe scan's:\n%s", g, w)
	}
}
