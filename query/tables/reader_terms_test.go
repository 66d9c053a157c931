package tables

import (
	"slices"
	"testing"

	"github.com/cairn-kb/cairn/artifacts"
)

// TestPostingsReadsOnlyRanges proves that a query reads its terms' byte
// ranges of postings.tsv, each with the LF before it, and nothing else.
func TestPostingsReadsOnlyRanges(t *testing.T) {
	dir := builtDemo(t)
	r := mustOpen(t, dir)
	terms := must(artifacts.DecodeTerms(readArtifact(t, dir, artifacts.TermsPath), int64(len(readArtifact(t, dir, artifacts.PostingsPath)))))
	slices.SortFunc(terms, func(a, b artifacts.TermEntry) int { return b.DF - a.DF })
	before := r.BytesRead()
	var sum int64
	for _, want := range terms[:3] {
		e, found, err := r.Term(want.Term)
		if err != nil || !found {
			t.Fatalf("Term(%q): %v, %v", want.Term, found, err)
		}
		must(r.Postings(e))
		sum += 1 + e.Length
	}
	after := r.BytesRead()
	if got := after["postings.tsv"] - before["postings.tsv"]; got != sum {
		t.Errorf("read %d bytes of postings.tsv for 3 terms, want exactly their %d and an LF each", got, sum)
	}
	size := int64(len(readArtifact(t, dir, artifacts.PostingsPath)))
	if after["postings.tsv"] >= size {
		t.Errorf("read %d bytes of postings.tsv, the whole file has %d", after["postings.tsv"], size)
	}
	for _, name := range []string{"docs.tsv", "docs.key", "edges.tsv", "edges.dst.tsv"} {
		if after[name] != before[name] {
			t.Errorf("term lookups read %d bytes of %s", after[name]-before[name], name)
		}
	}
	t.Logf("3 terms: %d bytes of terms.tsv, %d of postings.tsv (file %d)", after["terms.tsv"]-before["terms.tsv"], sum, size)
}
