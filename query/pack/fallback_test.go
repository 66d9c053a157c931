package pack

import (
	"context"
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
			want += 1 + entry.Length // the LF before the range, and the range
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
