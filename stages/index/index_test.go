package index

import (
	"bytes"
	"context"
	"iter"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-kb/cairn/artifacts"
	"github.com/cairn-kb/cairn/stages/load"
	"github.com/cairn-kb/cairn/stages/project"
)

// demoItems projects the golden demo base.
func demoItems(t *testing.T) ([]project.Item, load.Output) {
	t.Helper()
	loaded, err := load.Run(context.Background(), load.Input{FS: os.DirFS("../../golden/demo/base")})
	if err != nil || len(loaded.Diagnostics) > 0 {
		t.Fatalf("load: %v %v", err, loaded.Diagnostics)
	}
	proj, err := project.Run(context.Background(), project.Input{Base: loaded.Base, TermsOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	return proj.Items, loaded
}

// TestSplittingIntoRunsChangesNothing cuts the items into runs at many
// places: merging the runs' segments must give the same bytes as one
// segment of everything.
func TestSplittingIntoRunsChangesNothing(t *testing.T) {
	items, loaded := demoItems(t)
	build := func(cuts ...int) []artifacts.File {
		var segs []Segment
		prev := 0
		for _, c := range append(cuts, len(items)) {
			if c > prev {
				segs = append(segs, NewSegment(items[prev:c]))
			}
			prev = c
		}
		out, err := Run(context.Background(), Input{Config: loaded.Base.Config, Segments: segs, Documents: DocumentRows(loaded.Base.Config, loaded.Base.Documents)})
		if err != nil {
			t.Fatal(err)
		}
		return out.Files
	}
	want := build()
	for _, cuts := range [][]int{{1}, {len(items) - 1}, {5, 17, 30}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {24}} {
		got := build(cuts...)
		for i := range want {
			if !bytes.Equal(want[i].Data, got[i].Data) {
				t.Errorf("cut at %v: %s differs from the one-segment build", cuts, want[i].Path)
			}
		}
	}
}

// TestRunRefusesOverlappingSegments checks the one ordering rule Run
// relies on.
func TestRunRefusesOverlappingSegments(t *testing.T) {
	items, loaded := demoItems(t)
	segs := []Segment{NewSegment(items[10:20]), NewSegment(items[0:10])}
	if _, err := Run(context.Background(), Input{Config: loaded.Base.Config, Segments: segs}); err == nil {
		t.Fatal("Run accepted segments out of URI order")
	}
}

// TestSegmentWhereKeepsTheIndexsPostings: segments that keep only some
// terms, laid out and merged, give those terms exactly the postings of the
// whole index, and no other term.
func TestSegmentWhereKeepsTheIndexsPostings(t *testing.T) {
	items, loaded := demoItems(t)
	merged := func(keep func(string) bool) map[string][]artifacts.Posting {
		segs := []Segment{NewSegmentWhere(items[:7], keep), NewSegmentWhere(items[7:20], keep), NewSegmentWhere(items[20:], keep)}
		l, err := NewLayout(loaded.Base.Config, segs)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]artifacts.Posting{}
		l.Merge(segs, func(term string, n int, postings iter.Seq[artifacts.Posting]) {
			out[term] = slices.Collect(postings)
			if len(out[term]) != n {
				t.Errorf("%s: Merge counted %d postings and gave %d", term, n, len(out[term]))
			}
		})
		return out
	}
	all := merged(nil)
	kept := func(term string) bool { return term < "m" }
	some := merged(kept)
	if len(some) == 0 || len(some) == len(all) {
		t.Fatalf("kept %d of %d terms; the filter tests nothing", len(some), len(all))
	}
	for term, ps := range all {
		if got, ok := some[term]; ok != kept(term) || ok && !slices.Equal(got, ps) {
			t.Errorf("%s: kept %v with postings %v, want %v", term, ok, got, ps)
		}
	}
}

// TestRecordStartsPlace: documents.tsv's first is where a document's
// records start, and a build refuses rows of records its documents do not
// account for.
func TestRecordStartsPlace(t *testing.T) {
	docs := []artifacts.Document{{Path: "e/a.json", Records: 2}, {Path: "e/b.json"}}
	rs := recordStarts{}
	rs.note("e/a.json", 5)
	rs.note("e/a.json", 6)
	got, err := rs.place(docs)
	if err != nil || got[0].First != 5 || got[1].First != -1 || docs[0].First != 0 {
		t.Fatalf("place = %+v, %v; want first 5 and -1, the input unchanged", got, err)
	}
	rs.note("e/a.json", 7)
	if _, err := rs.place(docs); err == nil || !strings.Contains(err.Error(), "holds 2 records but 3 rows are its") {
		t.Errorf("a third row of a document of two: %v", err)
	}
	stray := recordStarts{"e/a.json": {5, 2}, "e/c.json": {7, 1}}
	if _, err := stray.place(docs); err == nil || !strings.Contains(err.Error(), "records of e/c.json, which is not a record document") {
		t.Errorf("a record of no document: %v", err)
	}
}
