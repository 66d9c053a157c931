package eval

import (
	"errors"
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
		{N: 1, Pass: true, FirstRelevantRank: 1, Expected: []Ranked{{"a", 1}}, Excerpts: []ExcerptResult{{Pass: true}}},
		{N: 2, FirstRelevantRank: 3, Expected: []Ranked{{"a", 3}, {"b", 7}}, Excerpts: []ExcerptResult{{Pass: false}}},
		{N: 3, Expected: []Ranked{{"a", 0}}},
		{N: 4, Pass: true, Forbidden: []Ranked{{"f", 0}}},
	}}
	r.total()
	want := Totals{Queries: 4, Passed: 2, RecallAtK: Ratio{1, 3, 0.3333}, InPackRecall: Ratio{3, 4, 0.75}, MRR: 0.4444, Excerpts: Ratio{1, 2, 0.5}}
	r.Totals.RecallAtK.Rate, r.Totals.MRR, r.Even.MRR = round4(r.Totals.RecallAtK.Rate), round4(r.Totals.MRR), round4(r.Even.MRR)
	if r.Totals != want {
		t.Errorf("totals = %+v\nwant     %+v", r.Totals, want)
	}
	if odd := (Totals{Queries: 2, Passed: 1, RecallAtK: Ratio{1, 2, 0.5}, InPackRecall: Ratio{1, 2, 0.5}, MRR: 0.5, Excerpts: Ratio{1, 1, 1}}); r.Odd != odd {
		t.Errorf("odd = %+v\nwant  %+v", r.Odd, odd)
	}
	if even := (Totals{Queries: 2, Passed: 1, RecallAtK: Ratio{0, 1, 0}, InPackRecall: Ratio{2, 2, 1}, MRR: 0.3333, Excerpts: Ratio{0, 1, 0}}); r.Even != even {
		t.Errorf("even = %+v\nwant   %+v", r.Even, even)
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
	check(&res, q, items, 4, map[string]string{"a": "There is more.", "c": "Read whatever the pack delivered."})
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
	if !slices.Equal(res.Expected, []Ranked{{"a", 2}, {"b", 5}, {"c", 0}}) || !slices.Equal(res.Forbidden, []Ranked{{"f", 3}, {"g", 0}}) {
		t.Errorf("ranks = %+v %+v", res.Expected, res.Forbidden)
	}
	if e := res.Excerpts[0]; e.Pass || !slices.Equal(e.Missing, []string{"emulation"}) {
		t.Errorf("excerpt = %+v", e)
	}
	res = QueryResult{}
	check(&res, Query{ExpectedURIs: []string{"a"}, ExpectedExcerpts: []Fragments{{"a", []string{"native"}}}}, items, 4, nil)
	if !res.Pass || len(res.Reasons) != 0 {
		t.Errorf("a question that holds: %+v", res)
	}
}
