package index

import (
	"context"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/cairn-kb/cairn/stages/lib/diag"
	"github.com/cairn-kb/cairn/stages/lib/model"
	"github.com/cairn-kb/cairn/stages/project"
)

// TestNumberedTermsInvertAsNamed: a run's segment counted by the numbers
// its tokenizer gave the terms is the one counted by name, and a
// dictionary that does not number the terms so is caught and not used.
func TestNumberedTermsInvertAsNamed(t *testing.T) {
	_, loaded := demoItems(t)
	p := project.NewProjector(loaded.Base)
	document := func(_ int, d model.Document, into []project.Item, s *project.Scratch, ds *diag.List, _ func([]project.Item)) []project.Item {
		return p.AppendDocument(into, d, s, ds, true)
	}
	var runs atomic.Int32 // reduce runs on every core
	reduce := func(items []project.Item, dict project.Dict) bool {
		runs.Add(1)
		inv := inversions.Get().(*inversion)
		numbered, _, _ := inv.numbered(items, dict)
		inv.release()
		if numbered == nil {
			t.Errorf("run of %s: its terms are not those its dictionary numbers", items[0].URI)
		}
		named := newSegment(items, nil, nil, true)
		if got := newSegment(items, nil, dict, true); !reflect.DeepEqual(got, named) {
			t.Errorf("run of %s: the segment counted by number differs from the one counted by name", items[0].URI)
		}
		if len(dict) > 1 {
			wrong := slices.Clone(dict)
			wrong[0], wrong[1] = wrong[1], wrong[0]
			if got := newSegment(items, nil, wrong, true); !reflect.DeepEqual(got, named) {
				t.Errorf("run of %s: a dictionary with two terms swapped changed the segment", items[0].URI)
			}
		}
		return true
	}
	if _, _, err := project.ProjectRuns(context.Background(), p, loaded.Base.Documents, true, document, reduce); err != nil {
		t.Fatal(err)
	}
	if n := runs.Load(); n < 2 {
		t.Fatalf("%d runs; the demo base has records and pages", n)
	}
}

// TestTermsSortAsStrings: the order sortTerms gives by eight-byte numbers
// is the terms' byte order, for terms that are prefixes of one another,
// that hold NUL or bytes above 0x7f, that share their first eight bytes,
// and for terms without postings, which it leaves out.
func TestTermsSortAsStrings(t *testing.T) {
	terms := []string{"harbor", "harbo", "harbor\x00", "harbor\x00\x00x", "", "\x00", "héron", "hé", "=events/2026-10-26/a.json",
		"=events/2026-10-26/b.json", "=events/2026-10-2", "abcdefgh", "abcdefghi", "abcdefgg\xff", "\xff\xfe", "zz", "a"}
	counts := make([]int32, len(terms))
	var want []string
	for i := range terms {
		if i%5 != 3 { // some terms have no postings
			counts[i] = 1
			want = append(want, terms[i])
		}
	}
	slices.Sort(want)
	var inv inversion
	var got []string
	for _, id := range inv.sortTerms(terms, counts) {
		got = append(got, terms[id])
	}
	if !slices.Equal(got, want) {
		t.Errorf("sorted terms:\n got %q\nwant %q", got, want)
	}
}
