package eval

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/cairn-kb/cairn/query"
)

// TestTotals adds up a hand-built report: recall@k counts a question only
// when all its expected URIs are within k, in-pack recall counts URIs,
// MRR takes each question's first relevant rank, and questions that
// expect nothing stay out of both.
func TestTotals(t *testing.T) {
	r := Report{K: 5, Queries: []QueryResult{
		{N: 1, Pass: true, FirstRelevantRank: 1, Expected: []Ranked{{URI: "a", Rank: 1, Kind: "wiki", Source: "wiki"}}, Excerpts: []ExcerptResult{{Pass: true}}},
		{N: 2, FirstRelevantRank: 3, Expected: []Ranked{{URI: "a", Rank: 3, Kind: "wiki", Source: "wiki"}, {URI: "b", Rank: 7, Kind: "record", Source: "git"}}, Excerpts: []ExcerptResult{{Pass: false}}},
		{N: 3, Expected: []Ranked{{URI: "c", Rank: 0, Kind: "project", Source: "projects"}}},
		{N: 4, Pass: true, Forbidden: []Ranked{{URI: "f", Rank: 0, Kind: "record", Source: "git"}}},
		{N: 5, Pass: true, FirstRelevantRank: 2, Expected: []Ranked{{URI: "d", Rank: 2, Kind: "record", Source: "git"}}},
	}}
	r.total()
	want := Totals{Queries: 5, Passed: 3, RecallAtK: Ratio{2, 4, 0.5}, InPackRecall: Ratio{4, 5, 0.8}, MRR: 0.4583, Excerpts: Ratio{1, 2, 0.5}}
	r.Totals.RecallAtK.Rate, r.Totals.MRR, r.Even.MRR = round4(r.Totals.RecallAtK.Rate), round4(r.Totals.MRR), round4(r.Even.MRR)
	r.Odd.RecallAtK.Rate, r.Odd.InPackRecall.Rate, r.Odd.MRR = round4(r.Odd.RecallAtK.Rate), round4(r.Odd.InPackRecall.Rate), round4(r.Odd.MRR)
	if r.Totals != want {
		t.Errorf("totals = %+v\nwant     %+v", r.Totals, want)
	}
	if odd := (Totals{Queries: 3, Passed: 2, RecallAtK: Ratio{2, 3, 0.6667}, InPackRecall: Ratio{2, 3, 0.6667}, MRR: 0.5, Excerpts: Ratio{1, 1, 1}}); r.Odd != odd {
		t.Errorf("odd = %+v\nwant  %+v", r.Odd, odd)
	}
	if even := (Totals{Queries: 2, Passed: 1, RecallAtK: Ratio{0, 1, 0}, InPackRecall: Ratio{2, 2, 1}, MRR: 0.3333, Excerpts: Ratio{0, 1, 0}}); r.Even != even {
		t.Errorf("even = %+v\nwant   %+v", r.Even, even)
	}
	// By what they expect: question 2 expects a page and a record, 4
	// nothing; 3 is a project page of another layer.
	var kinds, sources []string
	for _, g := range r.ByKind {
		kinds = append(kinds, fmt.Sprintf("%s %d/%d", g.Name, g.Totals.RecallAtK.Hits, g.Totals.RecallAtK.Of))
	}
	for _, g := range r.BySource {
		sources = append(sources, fmt.Sprintf("%s %d/%d", g.Name, g.Totals.RecallAtK.Hits, g.Totals.RecallAtK.Of))
	}
	if want := []string{"pages 1/2", "records 1/1", "mixed 0/1"}; !slices.Equal(kinds, want) {
		t.Errorf("by kind = %q, want %q", kinds, want)
	}
	if want := []string{"git 1/1", "projects 0/1", "wiki 1/1", "mixed 0/1"}; !slices.Equal(sources, want) {
		t.Errorf("by source = %q, want %q", sources, want)
	}
	var fe *FailedError
	if err := r.Err(); !errors.As(err, &fe) || fe.ExitCode() != 1 || fe.Failed != 2 {
		t.Errorf("Err() = %v, want 2 failed, exit 1", err)
	}
	if err := (Report{Queries: r.Queries[:1], Totals: Totals{Passed: 1}}).Err(); err != nil {
		t.Errorf("all passed: Err() = %v", err)
	}
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// TestCheck decides one question against a hand-built pack.
func TestCheck(t *testing.T) {
	items := []query.PackItem{
		{URI: "x"}, {URI: "a", Excerpt: "The Native runners are fast."}, {URI: "f"}, {URI: "y"}, {URI: "b"},
	}
	q := Query{
		ExpectedURIs: []string{"a", "b", "c"}, ForbiddenURIs: []string{"f", "g"},
		ExpectedExcerpts: []Fragments{{"a", []string{"native RUNNERS", "emulation"}}, {"c", []string{"z"}}},
		ExpectedReads:    []Fragments{{"a", []string{"MORE", "absent"}}, {"c", []string{"read"}}},
	}
	var res QueryResult
	ids := map[string]query.Identity{"a": {Found: true, Kind: "wiki", Source: "wiki"}, "f": {Found: true, Kind: "record", Source: "git"}}
	check(&res, q, items, 4, map[string]string{"a": "There is more.", "c": "Read whatever the pack delivered."}, ids)
	want := []string{
		"expected b: rank 5, beyond k=4",
		"expected c: not delivered",
		`excerpt of a lacks "emulation"`,
		"excerpt of c: not delivered, so none of its 1 fragment(s) can be checked",
		`read of a lacks "absent"`,
		"forbidden f: delivered at rank 3",
	}
	if !slices.Equal(res.Reasons, want) {
		t.Errorf("reasons:\n%q\nwant\n%q", res.Reasons, want)
	}
	if res.Pass || res.FirstRelevantRank != 2 || res.Delivered != 5 || !slices.Equal(res.Top, []string{"x", "a", "f", "y"}) {
		t.Errorf("result = %+v", res)
	}
	if !slices.Equal(res.Expected, []Ranked{{URI: "a", Rank: 2, Kind: "wiki", Source: "wiki"}, {URI: "b", Rank: 5}, {URI: "c"}}) ||
		!slices.Equal(res.Forbidden, []Ranked{{URI: "f", Rank: 3, Kind: "record", Source: "git"}, {URI: "g"}}) {
		t.Errorf("ranks = %+v %+v", res.Expected, res.Forbidden)
	}
	if e := res.Excerpts[0]; e.Pass || !slices.Equal(e.Missing, []string{"emulation"}) {
		t.Errorf("excerpt = %+v", e)
	}
	res = QueryResult{}
	check(&res, Query{ExpectedURIs: []string{"a"}, ExpectedExcerpts: []Fragments{{"a", []string{"native"}}}}, items, 4, nil, ids)
	if !res.Pass || len(res.Reasons) != 0 {
		t.Errorf("a question that holds: %+v", res)
	}
}
